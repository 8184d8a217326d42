//===- Parse.cpp - reading and specializing KIR source --------------------===//
#include "intent/KIR/Parse.h"
#include "intent/KIR/KIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace intent::kir;
using KTensor = intent::kir::TensorType;

std::string intent::kir::printKIR(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os, OpPrintingFlags().assumeVerified());
  os << "\n";
  return s;
}

/// Rejects inputs nested deeper than kMaxNestingDepth before MLIR's recursive
/// descent sees them. Brackets inside strings and comments do not count.
static LogicalResult checkNesting(const llvm::SourceMgr &sm, MLIRContext &ctx) {
  const llvm::MemoryBuffer *buf = sm.getMemoryBuffer(sm.getMainFileID());
  StringRef text = buf->getBuffer();
  unsigned depth = 0;
  bool inString = false, inComment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inComment) {
      inComment = c != '\n';
      continue;
    }
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"' || c == '\n')
        inString = false;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      inComment = true;
    } else if (c == '"') {
      inString = true;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNestingDepth) {
        auto loc = sm.getLineAndColumn(llvm::SMLoc::getFromPointer(text.data() + i));
        emitError(FileLineColLoc::get(&ctx, buf->getBufferIdentifier(), loc.first, loc.second))
            << "input nests deeper than " << kMaxNestingDepth << " brackets";
        return failure();
      }
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      if (depth)
        --depth;
    }
  }
  return success();
}

OwningOpRef<ModuleOp> intent::kir::parseKIR(llvm::SourceMgr &sm, MLIRContext &ctx) {
  if (failed(checkNesting(sm, ctx)))
    return nullptr;
  ParserConfig config(&ctx, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, config);
  if (!module)
    return nullptr;
  for (Operation &op : module->getBody()->getOperations()) {
    if (!isa<KernelOp>(op)) {
      op.emitError() << "only kir.kernel operations may appear at the top level of a KIR file";
      return nullptr;
    }
  }
  if (module->getBody()->empty()) {
    // An implicit module (empty or comment-only file) is located at 0:0; point at 1:1 instead.
    Location loc = module->getLoc();
    if (auto flc = dyn_cast<FileLineColLoc>(loc); flc && flc.getLine() == 0)
      loc = FileLineColLoc::get(flc.getFilename(), 1, 1);
    emitError(loc) << "the file defines no kir.kernel";
    return nullptr;
  }
  return module;
}

/// Rewrites one type, turning symbolic extents bound by `extents` into static ones.
static Type specializeType(Type t, const llvm::StringMap<int64_t> &extents) {
  auto rewrite = [&](ArrayRef<Attribute> shape, MLIRContext *ctx) {
    SmallVector<Attribute> out;
    Builder b(ctx);
    for (Attribute d : shape) {
      auto s = dyn_cast<StringAttr>(d);
      auto it = s ? extents.find(s.getValue()) : extents.end();
      out.push_back(it != extents.end() ? b.getI64IntegerAttr(it->second) : d);
    }
    return out;
  };
  if (auto v = dyn_cast<ViewType>(t))
    return ViewType::get(t.getContext(), v.getElementType(), rewrite(v.getShape(), t.getContext()),
                         v.getAccess(), v.getContiguous());
  if (auto v = dyn_cast<KTensor>(t))
    return KTensor::get(t.getContext(), v.getElementType(), rewrite(v.getShape(), t.getContext()));
  return t;
}

LogicalResult intent::kir::specializeDefines(ModuleOp module,
                                            const std::map<std::string, std::string> &defines,
                                            std::string &error) {
  // What a define can name: a symbolic extent or a constexpr argument of some kernel.
  llvm::StringSet<> symbols, constexprNames;
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    for (Type t : kernel.getArgumentTypes())
      if (auto v = dyn_cast<ViewType>(t))
        for (Attribute d : v.getShape())
          if (!isStaticDim(d))
            symbols.insert(symbolicDimName(d));
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (kernel.isConstexprArg(i))
        constexprNames.insert(kernel.getArgName(i));
  }
  llvm::StringMap<int64_t> extents;
  for (auto &[name, value] : defines) {
    bool isSymbol = symbols.contains(name), isConstexpr = constexprNames.contains(name);
    if (!isSymbol && !isConstexpr) {
      error = "--define " + name + ": no kernel has an extent symbol or constexpr argument named '" +
              name + "'";
      return failure();
    }
    int64_t v;
    if (StringRef(value).getAsInteger(10, v) || v <= 0) {
      if (isSymbol && !isConstexpr) {
        error = "--define " + name + ": an extent must be a positive integer, got '" + value + "'";
        return failure();
      }
      continue; // binds a constexpr scalar (checked below)
    }
    extents[name] = v;
  }
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    // Constexpr scalars are bound by their source names.
    Block &body = kernel.getBody().front();
    OpBuilder b(&body, body.begin());
    llvm::BitVector erase(body.getNumArguments());
    for (unsigned i = 0; i < body.getNumArguments(); ++i) {
      if (!kernel.isConstexprArg(i))
        continue;
      std::string name = kernel.getArgName(i);
      auto it = defines.find(name);
      if (it == defines.end()) {
        error = "kernel '" + kernel.getSymName().str() + "': constexpr argument '" + name +
                "' needs --define " + name + "=VALUE";
        return failure();
      }
      Type t = body.getArgument(i).getType();
      TypedAttr value;
      if (isa<FloatType>(t)) {
        double d;
        if (StringRef(it->second).getAsDouble(d)) {
          error = "--define " + name + ": '" + it->second + "' is not a number";
          return failure();
        }
        value = b.getFloatAttr(t, d);
      } else {
        int64_t v;
        if (StringRef(it->second).getAsInteger(10, v)) {
          error = "--define " + name + ": '" + it->second + "' is not an integer";
          return failure();
        }
        value = b.getIntegerAttr(t, v);
      }
      Value c = b.create<arith::ConstantOp>(body.getArgument(i).getLoc(), value);
      body.getArgument(i).replaceAllUsesWith(c);
      erase.set(i);
    }
    if (erase.any()) {
      SmallVector<Attribute> keptNames;
      for (unsigned i = 0; i < body.getNumArguments(); ++i)
        if (!erase.test(i))
          keptNames.push_back(b.getStringAttr(kernel.getArgName(i)));
      kernel.eraseArguments(erase);
      kernel.setArgNamesAttr(b.getArrayAttr(keptNames));
    }
    // Symbolic extents.
    if (!extents.empty()) {
      for (BlockArgument arg : body.getArguments())
        arg.setType(specializeType(arg.getType(), extents));
      kernel.walk([&](Operation *op) {
        for (OpResult r : op->getResults())
          r.setType(specializeType(r.getType(), extents));
        for (Region &region : op->getRegions())
          for (Block &blk : region)
            for (BlockArgument a : blk.getArguments())
              a.setType(specializeType(a.getType(), extents));
      });
      SmallVector<Type> argTypes(body.getArgumentTypes());
      kernel.setFunctionType(FunctionType::get(module.getContext(), argTypes, {}));
    }
  }
  if (failed(verify(module))) {
    error = "specialization produced invalid IR";
    return failure();
  }
  return success();
}
