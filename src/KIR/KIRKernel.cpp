//===- KIRKernel.cpp - kir.kernel syntax and whole-kernel rules -----------===//
#include "intent/KIR/KIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace intent::kir;
using KTensor = intent::kir::TensorType;

std::string KernelOp::getArgName(unsigned i) {
  if (auto names = getArgNames())
    if (i < names->size())
      return cast<StringAttr>((*names)[i]).getValue().str();
  return "arg" + std::to_string(i);
}

// Source argument names are kept so the printed IR and the generated launch
// functions use the author's names.
void KernelOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setName) {
  if (region.empty())
    return;
  for (BlockArgument arg : region.front().getArguments())
    setName(arg, getArgName(arg.getArgNumber()));
}

bool KernelOp::isConstexprArg(unsigned i) {
  return static_cast<bool>(getArgAttr(i, kConstexprAttr));
}

// `kir.kernel @name(%x: T, %s: f32 {kir.constexpr}) [attributes {...}] { body }`
ParseResult KernelOp::parse(OpAsmParser &p, OperationState &s) {
  StringAttr name;
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (p.parseSymbolName(name, SymbolTable::getSymbolAttrName(), s.attributes))
    return failure();
  auto sigLoc = p.getCurrentLocation();
  if (function_interface_impl::parseFunctionSignature(p, /*allowVariadic=*/false, args, isVariadic,
                                                      resultTypes, resultAttrs))
    return failure();
  if (!resultTypes.empty())
    return p.emitError(sigLoc, "a kernel returns nothing; write results through 'out' views");
  SmallVector<Type> argTypes;
  SmallVector<Attribute> names;
  for (auto &a : args) {
    argTypes.push_back(a.type);
    names.push_back(p.getBuilder().getStringAttr(a.ssaName.name.drop_front()));
  }
  s.addAttribute(getArgNamesAttrName(s.name), p.getBuilder().getArrayAttr(names));
  Builder &b = p.getBuilder();
  s.addAttribute(getFunctionTypeAttrName(s.name), TypeAttr::get(b.getFunctionType(argTypes, {})));
  if (p.parseOptionalAttrDictWithKeyword(s.attributes))
    return failure();
  function_interface_impl::addArgAndResultAttrs(b, s, args, {}, getArgAttrsAttrName(s.name),
                                                getResAttrsAttrName(s.name));
  Region *body = s.addRegion();
  if (p.parseRegion(*body, args, /*enableNameShadowing=*/false))
    return failure();
  // MLIR gives `{}` an entry block only when there are arguments; give the
  // argument-less kernel `@k() {}` its (empty) block too, so both are valid.
  if (body->empty())
    body->emplaceBlock();
  KernelOp::ensureTerminator(*body, b, s.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printSymbolName(getSymName());
  function_interface_impl::printFunctionSignature(p, *this, getArgumentTypes(), false, {});
  function_interface_impl::printFunctionAttributes(
      p, *this, {getFunctionTypeAttrName(), getArgAttrsAttrName(), getResAttrsAttrName(),
             getArgNamesAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
}

static constexpr size_t kMaxKernelNameLength = 200;

LogicalResult KernelOp::verify() {
  // The name becomes an output directory and the generated functions' names.
  StringRef name = getSymName();
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_') ||
      !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return emitOpError() << "kernel name '" << name
                         << "' must be an identifier ([A-Za-z_][A-Za-z0-9_]*): it names the output "
                            "directory and the generated functions";
  if (name.size() > kMaxKernelNameLength) // file systems take 255 bytes per name, with room for a suffix
    return emitOpError() << "kernel name is " << name.size() << " characters long; at most "
                         << kMaxKernelNameLength << " (it names the output directory)";
  if (!getResultTypes().empty())
    return emitOpError() << "a kernel returns nothing";
  if (getBody().empty())
    return emitOpError() << "a kernel needs a body";
  for (auto [i, t] : llvm::enumerate(getArgumentTypes())) {
    BlockArgument arg = getBody().getArgument(i);
    if (!isa<ViewType>(t) && !isKirScalarType(t))
      return mlir::emitError(arg.getLoc()) << "kernel argument " << i << " must be a !kir.view or a "
                                        "builtin scalar, got " << t;
    if (isConstexprArg(i) && !isKirScalarType(t))
      return mlir::emitError(arg.getLoc()) << "only scalar arguments can be {kir.constexpr}";
  }
  return success();
}

// Whole-kernel view discipline (kir.md §4): every 'out' view is stored exactly
// once, an 'inout' view at most once and never loaded after its store, and views
// are only loaded/stored directly in the kernel body.
LogicalResult KernelOp::verifyRegions() {
  Block &body = getBody().front();
  llvm::DenseMap<Value, Operation *> storedBy;
  for (Operation &op : body) {
    // The blocked program (the igpu dialect, a layer above) holds its own ops.
    if (op.getName().getDialectNamespace() == "igpu" && op.getName().getStringRef() != "igpu.program")
      return op.emitOpError() << "belongs inside an igpu.program";
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (Operation *st = storedBy.lookup(load.getView())) {
        InFlightDiagnostic d = load.emitOpError() << "loads an 'inout' view after it was stored";
        d.attachNote(st->getLoc()) << "stored here";
        return d;
      }
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      auto [it, inserted] = storedBy.try_emplace(store.getView(), store);
      if (!inserted) {
        InFlightDiagnostic d = store.emitOpError() << "stores a view that was already stored; "
                                                      "each view is stored at most once";
        d.attachNote(it->second->getLoc()) << "first stored here";
        return d;
      }
    }
  }
  WalkResult nested = getBody().walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp>(op) && op->getBlock() != &body) {
      op->emitOpError() << "must appear directly in the kernel body";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();
  for (BlockArgument arg : body.getArguments()) {
    auto vt = dyn_cast<ViewType>(arg.getType());
    if (vt && vt.getAccess() == Access::Out && !storedBy.count(arg))
      return mlir::emitError(arg.getLoc()) << "'out' view argument " << arg.getArgNumber()
                                     << " is never stored; every 'out' view is stored exactly once";
  }
  return success();
}
