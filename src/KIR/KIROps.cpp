//===- KIROps.cpp - KIR op syntax and local verifiers ---------------------===//
//
// Kernel-level rules (store-once, load-after-store) live in KIRKernel.cpp.
//
//===----------------------------------------------------------------------===//
#include "intent/KIR/KIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace intent::kir;
using KTensor = intent::kir::TensorType;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static bool isIntegerLike(Type t) { return isa<IntegerType, IndexType>(t); }

/// Parses `[a, b, c]` into integers.
static ParseResult parseIntList(OpAsmParser &p, SmallVectorImpl<int64_t> &values) {
  return p.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
    int64_t v;
    if (p.parseInteger(v))
      return failure();
    values.push_back(v);
    return success();
  });
}

static void printIntList(OpAsmPrinter &p, ArrayRef<int64_t> values) {
  p << "[";
  llvm::interleaveComma(values, p);
  p << "]";
}

/// Checks that `axes` are in [0, rank) and unique; `strictlyIncreasing` adds order.
static LogicalResult verifyAxisList(Operation *op, StringRef what, ArrayRef<int64_t> axes,
                                    int64_t rank, bool strictlyIncreasing = false) {
  llvm::SmallSet<int64_t, 8> seen;
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (a < 0 || a >= rank)
      return op->emitOpError() << what << " " << a << " is out of range for rank " << rank;
    if (!seen.insert(a).second)
      return op->emitOpError() << what << " " << a << " appears more than once";
    if (strictlyIncreasing && i > 0 && axes[i - 1] >= a)
      return op->emitOpError() << what << " must be strictly increasing";
  }
  return success();
}

/// Compares two extents symbol by symbol: a static and a symbolic extent never unify.
static bool sameDim(Attribute a, Attribute b) { return a == b; }

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

//===----------------------------------------------------------------------===//
// Elementwise: `%a, %b : T` or `%a, %s : T, S` (the second type only when different)
//===----------------------------------------------------------------------===//

static Type elementwiseResultType(Type lhs, Type rhs) {
  if (auto t = dyn_cast<KTensor>(lhs))
    return t;
  if (auto t = dyn_cast<KTensor>(rhs))
    return t;
  return lhs;
}

static ParseResult parseTypeListOneOrTwo(OpAsmParser &p, Type &first, Type &second) {
  if (p.parseColonType(first))
    return failure();
  second = first;
  if (succeeded(p.parseOptionalComma()) && p.parseType(second))
    return failure();
  return success();
}

ParseResult intent::kir::parseBinaryOp(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand lhs, rhs;
  Type lhsType, rhsType;
  if (p.parseOperand(lhs) || p.parseComma() || p.parseOperand(rhs) ||
      p.parseOptionalAttrDict(s.attributes) || parseTypeListOneOrTwo(p, lhsType, rhsType) ||
      p.resolveOperand(lhs, lhsType, s.operands) || p.resolveOperand(rhs, rhsType, s.operands))
    return failure();
  s.addTypes(elementwiseResultType(lhsType, rhsType));
  return success();
}

static void printOperandTypesOneOrTwo(OpAsmPrinter &p, Type a, Type b) {
  p << " : " << a;
  if (a != b)
    p << ", " << b;
}

void intent::kir::printBinaryOp(OpAsmPrinter &p, Operation *op) {
  p << " " << op->getOperand(0) << ", " << op->getOperand(1);
  p.printOptionalAttrDict(op->getAttrs());
  printOperandTypesOneOrTwo(p, op->getOperand(0).getType(), op->getOperand(1).getType());
}

/// Operand/result agreement shared by binary ops and cmp.
static LogicalResult verifyElementwiseOperands(Operation *op, Type lhs, Type rhs) {
  auto lt = dyn_cast<KTensor>(lhs), rt = dyn_cast<KTensor>(rhs);
  if (!lt && !isKirScalarType(lhs))
    return op->emitOpError() << "operand type " << lhs << " is neither a tensor nor a scalar";
  if (!rt && !isKirScalarType(rhs))
    return op->emitOpError() << "operand type " << rhs << " is neither a tensor nor a scalar";
  if (lt && rt && lt != rt)
    return op->emitOpError() << "operand types " << lhs << " and " << rhs
                             << " differ; tensors must agree symbol by symbol";
  if (kirElementType(lhs) != kirElementType(rhs))
    return op->emitOpError() << "element types " << kirElementType(lhs) << " and "
                             << kirElementType(rhs) << " differ; insert a kir.cast";
  return success();
}

LogicalResult intent::kir::verifyBinaryOp(Operation *op) {
  Type lhs = op->getOperand(0).getType(), rhs = op->getOperand(1).getType();
  if (failed(verifyElementwiseOperands(op, lhs, rhs)))
    return failure();
  Type expected = elementwiseResultType(lhs, rhs);
  if (op->getResult(0).getType() != expected)
    return op->emitOpError() << "result type must be " << expected;
  Type elt = kirElementType(lhs);
  StringRef name = op->getName().stripDialect();
  if (llvm::is_contained({"and", "or", "xor", "shl", "shr"}, name) && !isIntegerLike(elt))
    return op->emitOpError() << "requires integer or i1 elements, got " << elt;
  if (name == "pow" && !isa<FloatType>(elt))
    return op->emitOpError() << "requires floating-point elements, got " << elt;
  return success();
}

ParseResult intent::kir::parseUnaryOp(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand in;
  Type t;
  if (p.parseOperand(in) || p.parseOptionalAttrDict(s.attributes) || p.parseColonType(t) ||
      p.resolveOperand(in, t, s.operands))
    return failure();
  s.addTypes(t);
  return success();
}

void intent::kir::printUnaryOp(OpAsmPrinter &p, Operation *op) {
  p << " " << op->getOperand(0);
  p.printOptionalAttrDict(op->getAttrs());
  p << " : " << op->getOperand(0).getType();
}

LogicalResult intent::kir::verifyUnaryOp(Operation *op) {
  Type t = op->getOperand(0).getType();
  if (!isa<KTensor>(t) && !isKirScalarType(t))
    return op->emitOpError() << "operand type " << t << " is neither a tensor nor a scalar";
  if (op->getResult(0).getType() != t)
    return op->emitOpError() << "result type must equal the operand type " << t;
  Type elt = kirElementType(t);
  StringRef name = op->getName().stripDialect();
  if (name == "not" && !isIntegerLike(elt))
    return op->emitOpError() << "requires integer or i1 elements, got " << elt;
  if (!llvm::is_contained({"neg", "abs", "not"}, name) && !isa<FloatType>(elt))
    return op->emitOpError() << "requires floating-point elements, got " << elt;
  if (name != "not" && elt.isInteger(1))
    return op->emitOpError() << "is not defined on i1";
  return success();
}

//===----------------------------------------------------------------------===//
// cmp: `kir.cmp lt, %a, %b : T`
//===----------------------------------------------------------------------===//

static Type withI1Elements(Type t) {
  Type i1 = IntegerType::get(t.getContext(), 1);
  if (auto tt = dyn_cast<KTensor>(t))
    return tt.withElementType(i1);
  return i1;
}

ParseResult CmpOp::parse(OpAsmParser &p, OperationState &s) {
  StringRef word;
  auto loc = p.getCurrentLocation();
  if (p.parseKeyword(&word) || p.parseComma())
    return failure();
  auto pred = symbolizeCmpPredicate(word);
  if (!pred)
    return p.emitError(loc, "unknown comparison predicate '") << word
           << "'; expected eq, ne, lt, le, gt or ge";
  s.addAttribute("predicate",
                 IntegerAttr::get(IntegerType::get(p.getContext(), 32), static_cast<int64_t>(*pred)));
  OpAsmParser::UnresolvedOperand lhs, rhs;
  Type lt, rt;
  if (p.parseOperand(lhs) || p.parseComma() || p.parseOperand(rhs) ||
      p.parseOptionalAttrDict(s.attributes) || parseTypeListOneOrTwo(p, lt, rt) ||
      p.resolveOperand(lhs, lt, s.operands) || p.resolveOperand(rhs, rt, s.operands))
    return failure();
  s.addTypes(withI1Elements(elementwiseResultType(lt, rt)));
  return success();
}

void CmpOp::print(OpAsmPrinter &p) {
  p << " " << stringifyCmpPredicate(getPredicate()) << ", " << getLhs() << ", " << getRhs();
  p.printOptionalAttrDict((*this)->getAttrs(), {"predicate"});
  printOperandTypesOneOrTwo(p, getLhs().getType(), getRhs().getType());
}

LogicalResult CmpOp::verify() {
  if (failed(verifyElementwiseOperands(*this, getLhs().getType(), getRhs().getType())))
    return failure();
  Type expected = withI1Elements(elementwiseResultType(getLhs().getType(), getRhs().getType()));
  if (getResult().getType() != expected)
    return emitOpError() << "result type must be " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// select: `kir.select %m, %a, %b : T`
//===----------------------------------------------------------------------===//

ParseResult SelectOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand c, a, b;
  Type t;
  if (p.parseOperand(c) || p.parseComma() || p.parseOperand(a) || p.parseComma() ||
      p.parseOperand(b) || p.parseOptionalAttrDict(s.attributes) || p.parseColonType(t) ||
      p.resolveOperand(c, withI1Elements(t), s.operands) || p.resolveOperand(a, t, s.operands) ||
      p.resolveOperand(b, t, s.operands))
    return failure();
  s.addTypes(t);
  return success();
}

void SelectOp::print(OpAsmPrinter &p) {
  p << " " << getCondition() << ", " << getTrueValue() << ", " << getFalseValue();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getType();
}

LogicalResult SelectOp::verify() {
  Type t = getTrueValue().getType();
  if (!isa<KTensor>(t) && !isKirScalarType(t))
    return emitOpError() << "operand type " << t << " is neither a tensor nor a scalar";
  if (getFalseValue().getType() != t || getType() != t)
    return emitOpError() << "both alternatives and the result must have type " << t;
  if (getCondition().getType() != withI1Elements(t))
    return emitOpError() << "condition must have type " << withI1Elements(t);
  return success();
}

//===----------------------------------------------------------------------===//
// cast: `kir.cast %a : T to R`
//===----------------------------------------------------------------------===//

ParseResult CastOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand in;
  Type from, to;
  if (p.parseOperand(in) || p.parseOptionalAttrDict(s.attributes) || p.parseColonType(from) ||
      p.parseKeyword("to") || p.parseType(to) || p.resolveOperand(in, from, s.operands))
    return failure();
  s.addTypes(to);
  return success();
}

void CastOp::print(OpAsmPrinter &p) {
  p << " " << getInput();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getInput().getType() << " to " << getType();
}

LogicalResult CastOp::verify() {
  Type from = getInput().getType(), to = getType();
  auto ft = dyn_cast<KTensor>(from), tt = dyn_cast<KTensor>(to);
  if (ft && tt) {
    if (ft.getShape() != tt.getShape())
      return emitOpError() << "cast changes the shape from " << shapeToString(ft.getShape())
                           << " to " << shapeToString(tt.getShape());
    return success();
  }
  if (!ft && !tt && isKirScalarType(from) && isKirScalarType(to))
    return success();
  return emitOpError() << "casts a tensor to a tensor of the same shape or a scalar to a "
                          "scalar, got "
                       << from << " to " << to;
}

//===----------------------------------------------------------------------===//
// load / store / extent
//===----------------------------------------------------------------------===//

static KTensor tensorOfView(ViewType v) {
  return KTensor::get(v.getContext(), v.getElementType(), v.getShape());
}

ParseResult LoadOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand view;
  Type t;
  auto loc = p.getCurrentLocation();
  if (p.parseOperand(view) || p.parseOptionalAttrDict(s.attributes) || p.parseColonType(t))
    return failure();
  auto vt = dyn_cast<ViewType>(t);
  if (!vt)
    return p.emitError(loc, "kir.load expects a !kir.view operand, got ") << t;
  if (p.resolveOperand(view, vt, s.operands))
    return failure();
  s.addTypes(tensorOfView(vt));
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << " " << getView();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getView().getType();
}

LogicalResult LoadOp::verify() {
  auto vt = cast<ViewType>(getView().getType());
  if (!vt.isReadable())
    return emitOpError() << "cannot load from an 'out' view; declare it 'inout' to read it";
  if (getType() != tensorOfView(vt))
    return emitOpError() << "result type must be " << tensorOfView(vt);
  return success();
}

ParseResult StoreOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand value, view;
  Type t;
  auto loc = p.getCurrentLocation();
  if (p.parseOperand(value) || p.parseComma() || p.parseOperand(view) ||
      p.parseOptionalAttrDict(s.attributes) || p.parseColonType(t))
    return failure();
  auto vt = dyn_cast<ViewType>(t);
  if (!vt)
    return p.emitError(loc, "kir.store expects a !kir.view operand, got ") << t;
  if (p.resolveOperand(value, tensorOfView(vt), s.operands) ||
      p.resolveOperand(view, vt, s.operands))
    return failure();
  return success();
}

void StoreOp::print(OpAsmPrinter &p) {
  p << " " << getValue() << ", " << getView();
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getView().getType();
}

LogicalResult StoreOp::verify() {
  auto vt = cast<ViewType>(getView().getType());
  if (!vt.isWritable())
    return emitOpError() << "cannot store to an 'in' view";
  if (getValue().getType() != tensorOfView(vt))
    return emitOpError() << "stored value must have type " << tensorOfView(vt);
  return success();
}

ParseResult ExtentOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand view;
  int64_t axis;
  Type t;
  auto loc = p.getCurrentLocation();
  if (p.parseOperand(view) || p.parseLSquare() || p.parseInteger(axis) || p.parseRSquare() ||
      p.parseOptionalAttrDict(s.attributes) || p.parseColonType(t))
    return failure();
  if (!isa<ViewType>(t))
    return p.emitError(loc, "kir.extent expects a !kir.view operand, got ") << t;
  if (p.resolveOperand(view, t, s.operands))
    return failure();
  s.addAttribute("axis", p.getBuilder().getI64IntegerAttr(axis));
  s.addTypes(p.getBuilder().getIndexType());
  return success();
}

void ExtentOp::print(OpAsmPrinter &p) {
  p << " " << getView() << "[" << getAxisAttr().getInt() << "]";
  p.printOptionalAttrDict((*this)->getAttrs(), {"axis"});
  p << " : " << getView().getType();
}

LogicalResult ExtentOp::verify() {
  int64_t rank = cast<ViewType>(getView().getType()).getRank();
  // The I64Attr getter is unsigned; read the signed value so -1 is reported as -1.
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// broadcast / transpose / iota
//===----------------------------------------------------------------------===//

ParseResult BroadcastOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand in;
  Type from, to;
  if (p.parseOperand(in))
    return failure();
  if (succeeded(p.parseOptionalKeyword("dims"))) {
    SmallVector<int64_t> dims;
    if (parseIntList(p, dims))
      return failure();
    s.addAttribute("dims", p.getBuilder().getDenseI64ArrayAttr(dims));
  }
  if (p.parseOptionalAttrDict(s.attributes) || p.parseColonType(from) || p.parseKeyword("to") ||
      p.parseType(to) || p.resolveOperand(in, from, s.operands))
    return failure();
  s.addTypes(to);
  return success();
}

void BroadcastOp::print(OpAsmPrinter &p) {
  p << " " << getInput();
  if (auto dims = getDims()) {
    p << " dims ";
    printIntList(p, *dims);
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {"dims"});
  p << " : " << getInput().getType() << " to " << getType();
}

LogicalResult BroadcastOp::verify() {
  auto result = cast<KTensor>(getType());
  Type in = getInput().getType();
  if (auto it = dyn_cast<KTensor>(in)) {
    if (!getDims())
      return emitOpError() << "broadcasting a tensor needs 'dims'";
    ArrayRef<int64_t> dims = *getDims();
    if ((int64_t)dims.size() != it.getRank())
      return emitOpError() << "'dims' has " << dims.size() << " entries but the input has rank "
                           << it.getRank();
    if (failed(verifyAxisList(*this, "broadcast dim", dims, result.getRank(), true)))
      return failure();
    for (auto [i, d] : llvm::enumerate(dims))
      if (!sameDim(it.getShape()[i], result.getShape()[d]))
        return emitOpError() << "input axis " << i << " has extent "
                             << dimToString(it.getShape()[i]) << " but result axis " << d
                             << " has extent " << dimToString(result.getShape()[d]);
    if (it.getElementType() != result.getElementType())
      return emitOpError() << "element type changes from " << it.getElementType() << " to "
                           << result.getElementType();
    return success();
  }
  if (!isKirScalarType(in))
    return emitOpError() << "operand must be a tensor or a scalar, got " << in;
  if (getDims() && !getDims()->empty())
    return emitOpError() << "a scalar splat takes no 'dims'";
  if (in != result.getElementType())
    return emitOpError() << "scalar type " << in << " differs from the result element type "
                         << result.getElementType();
  return success();
}

ParseResult TransposeOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand in;
  SmallVector<int64_t> perm;
  Type from, to;
  if (p.parseOperand(in) || p.parseKeyword("perm") || parseIntList(p, perm) ||
      p.parseOptionalAttrDict(s.attributes) || p.parseColonType(from) || p.parseKeyword("to") ||
      p.parseType(to) || p.resolveOperand(in, from, s.operands))
    return failure();
  s.addAttribute("perm", p.getBuilder().getDenseI64ArrayAttr(perm));
  s.addTypes(to);
  return success();
}

void TransposeOp::print(OpAsmPrinter &p) {
  p << " " << getInput() << " perm ";
  printIntList(p, getPerm());
  p.printOptionalAttrDict((*this)->getAttrs(), {"perm"});
  p << " : " << getInput().getType() << " to " << getType();
}

LogicalResult TransposeOp::verify() {
  auto in = cast<KTensor>(getInput().getType());
  auto out = cast<KTensor>(getType());
  ArrayRef<int64_t> perm = getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return emitOpError() << "'perm' has " << perm.size() << " entries but the input has rank "
                         << in.getRank();
  if (failed(verifyAxisList(*this, "perm entry", perm, in.getRank())))
    return failure();
  if (out.getRank() != in.getRank() || out.getElementType() != in.getElementType())
    return emitOpError() << "result must be a permutation of the input type";
  for (auto [i, src] : llvm::enumerate(perm))
    if (!sameDim(out.getShape()[i], in.getShape()[src]))
      return emitOpError() << "result axis " << i << " has extent "
                           << dimToString(out.getShape()[i]) << " but input axis " << src
                           << " has extent " << dimToString(in.getShape()[src]);
  return success();
}

ParseResult IotaOp::parse(OpAsmParser &p, OperationState &s) {
  int64_t dim;
  Type t;
  if (p.parseKeyword("dim") || p.parseInteger(dim) || p.parseOptionalAttrDict(s.attributes) ||
      p.parseColonType(t))
    return failure();
  s.addAttribute("dim", p.getBuilder().getI64IntegerAttr(dim));
  s.addTypes(t);
  return success();
}

void IotaOp::print(OpAsmPrinter &p) {
  p << " dim " << getDimAttr().getInt();
  p.printOptionalAttrDict((*this)->getAttrs(), {"dim"});
  p << " : " << getType();
}

LogicalResult IotaOp::verify() {
  auto t = cast<KTensor>(getType());
  int64_t dim = getDimAttr().getInt(); // signed: the getter is unsigned
  if (dim < 0 || dim >= t.getRank())
    return emitOpError() << "dim " << dim << " is out of range for rank " << t.getRank();
  if (!isIntegerLike(t.getElementType()) || t.getElementType().isInteger(1))
    return emitOpError() << "coordinates need an integer element type, got " << t.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// reduce / scan
//
//   kir.reduce KIND %a dims [..] [policy P] [identity ..] [init ..] : T to R
//   kir.reduce %a, %b dims [..] identity %i, %j [init ..] : T, T to R, R { region }
//   kir.scan KIND %a dim D [exclusive] [reverse] [policy P] [init ..] : T
//
// A seed is a scalar of the result element type; a tensor seed is written
// `init (%s : TYPE)`.
//===----------------------------------------------------------------------===//

namespace {
struct ReductionOptions {
  std::optional<ReduceKind> kind;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs, identities, inits;
  SmallVector<Type> initExplicitTypes; // null = scalar seed
  std::optional<Policy> policy;
  bool exclusive = false, reverse = false;
};
} // namespace

static ParseResult parseSeeds(OpAsmParser &p, ReductionOptions &o) {
  return p.parseCommaSeparatedList([&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand v;
    if (succeeded(p.parseOptionalLParen())) {
      Type t;
      if (p.parseOperand(v) || p.parseColonType(t) || p.parseRParen())
        return failure();
      o.inits.push_back(v);
      o.initExplicitTypes.push_back(t);
      return success();
    }
    if (p.parseOperand(v))
      return failure();
    o.inits.push_back(v);
    o.initExplicitTypes.push_back(Type());
    return success();
  });
}

/// Parses the options shared by reduce and scan; `isScan` admits exclusive/reverse.
static ParseResult parseReductionOptions(OpAsmParser &p, ReductionOptions &o, bool isScan) {
  while (true) {
    auto loc = p.getCurrentLocation();
    if (succeeded(p.parseOptionalKeyword("policy"))) {
      StringRef word;
      if (p.parseKeyword(&word))
        return failure();
      o.policy = symbolizePolicy(word);
      if (!o.policy)
        return p.emitError(loc, "unknown policy '")
               << word << "'; expected unordered_tree, ordered_tree, fold_left or fold_right";
      continue;
    }
    if (succeeded(p.parseOptionalKeyword("identity"))) {
      if (p.parseOperandList(o.identities))
        return failure();
      continue;
    }
    if (succeeded(p.parseOptionalKeyword("init"))) {
      if (parseSeeds(p, o))
        return failure();
      continue;
    }
    if (isScan && succeeded(p.parseOptionalKeyword("exclusive"))) {
      o.exclusive = true;
      continue;
    }
    if (isScan && succeeded(p.parseOptionalKeyword("reverse"))) {
      o.reverse = true;
      continue;
    }
    return success();
  }
}

static ParseResult parseReductionHead(OpAsmParser &p, ReductionOptions &o) {
  StringRef word;
  auto loc = p.getCurrentLocation();
  if (succeeded(p.parseOptionalKeyword(&word))) {
    o.kind = symbolizeReduceKind(word);
    if (!o.kind)
      return p.emitError(loc, "unknown reduction kind '")
             << word << "'; expected add, mul, max, min, and, or, xor, argmax or argmin";
  }
  return p.parseOperandList(o.inputs);
}

/// Resolves identities (scalars of the input element types) and seeds. Called
/// after the combiner region is parsed: an operand resolved before it may be a
/// forward reference that a value of the region then "defines"; MLIR 19's parser
/// erases that placeholder while the operation state still holds it (a
/// use-after-free found by the parser fuzzer). Resolved afterwards, such a name
/// is an undeclared value in the enclosing region, as it should be.
static ParseResult resolveReductionOperands(OpAsmParser &p, OperationState &s,
                                            ReductionOptions &o, ArrayRef<Type> inputTypes,
                                            ArrayRef<Type> resultTypes, llvm::SMLoc loc) {
  if (p.resolveOperands(o.inputs, inputTypes, loc, s.operands))
    return failure();
  if (o.identities.size() > inputTypes.size())
    return p.emitError(loc, "expected at most one identity per operand");
  for (auto [i, v] : llvm::enumerate(o.identities))
    if (p.resolveOperand(v, kirElementType(inputTypes[i]), s.operands))
      return failure();
  if (o.inits.size() > resultTypes.size())
    return p.emitError(loc, "expected at most one seed per result");
  for (auto [i, v] : llvm::enumerate(o.inits)) {
    Type t = o.initExplicitTypes[i] ? o.initExplicitTypes[i] : kirElementType(resultTypes[i]);
    if (p.resolveOperand(v, t, s.operands))
      return failure();
  }
  s.addAttribute("operandSegmentSizes",
                 p.getBuilder().getDenseI32ArrayAttr({(int32_t)o.inputs.size(),
                                                      (int32_t)o.identities.size(),
                                                      (int32_t)o.inits.size()}));
  Builder b(p.getContext());
  if (o.kind)
    s.addAttribute("kind", b.getI32IntegerAttr(static_cast<int32_t>(*o.kind)));
  if (o.policy)
    s.addAttribute("policy", b.getI32IntegerAttr(static_cast<int32_t>(*o.policy)));
  return success();
}

static void printReductionTail(OpAsmPrinter &p, std::optional<Policy> policy, ValueRange identities,
                               ValueRange inits) {
  if (policy)
    p << " policy " << stringifyPolicy(*policy);
  if (!identities.empty()) {
    p << " identity ";
    p << identities;
  }
  if (!inits.empty()) {
    p << " init ";
    llvm::interleaveComma(inits, p, [&](Value v) {
      if (isa<KTensor>(v.getType()))
        p << "(" << v << " : " << v.getType() << ")";
      else
        p << v;
    });
  }
}

static void printTypes(OpAsmPrinter &p, TypeRange types) { llvm::interleaveComma(types, p); }

ParseResult ReduceOp::parse(OpAsmParser &p, OperationState &s) {
  ReductionOptions o;
  SmallVector<int64_t> dims;
  SmallVector<Type> inTypes, outTypes;
  auto loc = p.getCurrentLocation();
  if (parseReductionHead(p, o) || p.parseKeyword("dims") || parseIntList(p, dims) ||
      parseReductionOptions(p, o, /*isScan=*/false) || p.parseOptionalAttrDict(s.attributes) ||
      p.parseColon() || p.parseTypeList(inTypes) || p.parseKeyword("to") ||
      p.parseTypeList(outTypes))
    return failure();
  s.addAttribute("dims", p.getBuilder().getDenseI64ArrayAttr(dims));
  s.addTypes(outTypes);
  // The combiner first, the operands after it (resolveReductionOperands).
  Region *body = s.addRegion();
  if (!o.kind && p.parseRegion(*body, /*arguments=*/{}, /*enableNameShadowing=*/false))
    return failure();
  return resolveReductionOperands(p, s, o, inTypes, outTypes, loc);
}

void ReduceOp::print(OpAsmPrinter &p) {
  if (auto k = getKind())
    p << " " << stringifyReduceKind(*k);
  p << " " << getInputs() << " dims ";
  printIntList(p, getDims());
  printReductionTail(p, getPolicy(), getIdentities(), getInits());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {"dims", "kind", "policy", "operandSegmentSizes"});
  p << " : ";
  printTypes(p, getInputs().getTypes());
  p << " to ";
  printTypes(p, getResultTypes());
  if (isGeneral()) {
    p << " ";
    p.printRegion(getCombiner(), /*printEntryBlockArgs=*/true, /*printBlockTerminators=*/true);
  }
}

/// The combiner block takes the left values then the right values, one scalar
/// per operand, and yields one combined value per operand; only pure scalar ops.
static LogicalResult verifyCombiner(Operation *op, Region &region, TypeRange eltTypes) {
  if (region.empty())
    return op->emitOpError() << "a general reduction needs a combiner region";
  Block &block = region.front();
  size_t n = eltTypes.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError() << "combiner must take " << 2 * n
                             << " arguments (left accumulators, then right values), got "
                             << block.getNumArguments();
  for (unsigned i = 0; i < 2 * n; ++i)
    if (block.getArgument(i).getType() != eltTypes[i % n])
      return op->emitOpError() << "combiner argument " << i << " must have type "
                               << eltTypes[i % n] << ", got " << block.getArgument(i).getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "combiner must end with kir.yield";
  if (yield.getValues().size() != n)
    return op->emitOpError() << "combiner must yield " << n << " values, got "
                             << yield.getValues().size();
  for (auto [i, v] : llvm::enumerate(yield.getValues()))
    if (v.getType() != eltTypes[i])
      return yield.emitOpError() << "value " << i << " must have type " << eltTypes[i]
                                 << ", got " << v.getType();
  for (Operation &inner : block.without_terminator()) {
    StringRef ns = inner.getName().getDialectNamespace();
    bool scalarOnly = llvm::all_of(inner.getOperandTypes(), isKirScalarType) &&
                      llvm::all_of(inner.getResultTypes(), isKirScalarType);
    if (!llvm::is_contained({"arith", "math", "kir"}, ns) || !isMemoryEffectFree(&inner) ||
        inner.getNumRegions() != 0 || !scalarOnly)
      return inner.emitOpError() << "is not allowed in a combiner: only pure scalar arith, math "
                                    "and kir operations";
  }
  return success();
}

static LogicalResult verifySeeds(Operation *op, ValueRange inits, TypeRange resultTypes,
                                 size_t expected) {
  if (inits.empty())
    return success();
  if (inits.size() != expected)
    return op->emitOpError() << "expected " << expected << " seed(s), got " << inits.size();
  for (auto [i, v] : llvm::enumerate(inits)) {
    Type t = v.getType();
    if (t != resultTypes[i] && t != kirElementType(resultTypes[i]))
      return op->emitOpError() << "seed " << i << " must be a scalar of type "
                               << kirElementType(resultTypes[i]) << " or a tensor of type "
                               << resultTypes[i];
  }
  return success();
}

static bool isArgKind(ReduceKind k) { return k == ReduceKind::argmax || k == ReduceKind::argmin; }

static LogicalResult verifyNamedKind(Operation *op, ReduceKind kind, Type elt) {
  bool bitwise = kind == ReduceKind::and_ || kind == ReduceKind::or_ || kind == ReduceKind::xor_;
  if (bitwise && !isIntegerLike(elt))
    return op->emitOpError() << "'" << stringifyReduceKind(kind)
                             << "' needs integer or i1 elements, got " << elt;
  return success();
}

LogicalResult ReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one operand";
  auto first = cast<KTensor>(getInputs()[0].getType());
  for (Value v : getInputs())
    if (cast<KTensor>(v.getType()).getShape() != first.getShape())
      return emitOpError() << "all operands must have the same shape";
  int64_t rank = first.getRank();
  if (failed(verifyAxisList(*this, "reduced dim", getDims(), rank)))
    return failure();
  if (getDims().empty())
    return emitOpError() << "'dims' must name at least one axis";
  // The result drops exactly the reduced axes, in order.
  SmallVector<Attribute> kept;
  for (int64_t a = 0; a < rank; ++a)
    if (!llvm::is_contained(getDims(), a))
      kept.push_back(first.getShape()[a]);

  SmallVector<Type> eltTypes;
  for (Value v : getInputs())
    eltTypes.push_back(cast<KTensor>(v.getType()).getElementType());

  auto checkResult = [&](unsigned i, Type elt) -> LogicalResult {
    auto rt = dyn_cast<KTensor>(getResult(i).getType());
    if (!rt)
      return emitOpError() << "result " << i << " must be a !kir.tensor";
    if (rt.getShape() != ArrayRef<Attribute>(kept))
      return emitOpError() << "result " << i << " must have shape " << shapeToString(kept)
                           << " (the operand shape without the reduced axes), got "
                           << shapeToString(rt.getShape());
    if (elt && rt.getElementType() != elt)
      return emitOpError() << "result " << i << " must have element type " << elt;
    return success();
  };

  if (auto kind = getKind()) {
    if (getInputs().size() != 1)
      return emitOpError() << "a named reduction takes exactly one operand";
    if (!getCombiner().empty())
      return emitOpError() << "a named reduction takes no combiner region";
    if (!getIdentities().empty())
      return emitOpError() << "a named reduction has a known identity; 'identity' is not allowed";
    if (failed(verifyNamedKind(*this, *kind, eltTypes[0])))
      return failure();
    if (isArgKind(*kind)) {
      if (getNumResults() != 2)
        return emitOpError() << "'" << stringifyReduceKind(*kind)
                             << "' produces two results: the value and its index";
      if (failed(checkResult(0, eltTypes[0])) || failed(checkResult(1, Type())))
        return failure();
      Type idx = cast<KTensor>(getResult(1).getType()).getElementType();
      if (!isIntegerLike(idx) || idx.isInteger(1))
        return emitOpError() << "arg-reduce index type must be an integer type, got " << idx;
      if (!getInits().empty())
        return emitOpError() << "an arg-reduce takes no seed";
      return success();
    }
    if (getNumResults() != 1)
      return emitOpError() << "a named reduction produces one result";
    if (failed(checkResult(0, eltTypes[0])))
      return failure();
    return verifySeeds(*this, getInits(), getResultTypes(), 1);
  }

  // General form.
  if (getNumResults() != getInputs().size())
    return emitOpError() << "a general reduction produces one result per operand";
  for (unsigned i = 0; i < getNumResults(); ++i)
    if (failed(checkResult(i, eltTypes[i])))
      return failure();
  Policy policy = getEffectivePolicy();
  bool tree = policy == Policy::unordered_tree || policy == Policy::ordered_tree;
  if (tree && getIdentities().size() != getInputs().size())
    return emitOpError() << "policy " << stringifyPolicy(policy)
                         << " needs one identity per operand (" << getInputs().size()
                         << "), got " << getIdentities().size();
  if (!getIdentities().empty() && getIdentities().size() != getInputs().size())
    return emitOpError() << "expected one identity per operand";
  if (failed(verifySeeds(*this, getInits(), getResultTypes(), getInputs().size())))
    return failure();
  return verifyCombiner(*this, getCombiner(), eltTypes);
}

ParseResult ScanOp::parse(OpAsmParser &p, OperationState &s) {
  ReductionOptions o;
  int64_t dim;
  SmallVector<Type> types;
  auto loc = p.getCurrentLocation();
  if (parseReductionHead(p, o) || p.parseKeyword("dim") || p.parseInteger(dim) ||
      parseReductionOptions(p, o, /*isScan=*/true) || p.parseOptionalAttrDict(s.attributes) ||
      p.parseColon() || p.parseTypeList(types))
    return failure();
  s.addAttribute("dim", p.getBuilder().getI64IntegerAttr(dim));
  if (o.exclusive)
    s.addAttribute("exclusive", p.getBuilder().getUnitAttr());
  if (o.reverse)
    s.addAttribute("reverse", p.getBuilder().getUnitAttr());
  s.addTypes(types);
  // The combiner first, the operands after it (resolveReductionOperands).
  Region *body = s.addRegion();
  if (!o.kind && p.parseRegion(*body, {}, false))
    return failure();
  return resolveReductionOperands(p, s, o, types, types, loc);
}

void ScanOp::print(OpAsmPrinter &p) {
  if (auto k = getKind())
    p << " " << stringifyReduceKind(*k);
  p << " " << getInputs() << " dim " << getDimAttr().getInt();
  if (getExclusive())
    p << " exclusive";
  if (getReverse())
    p << " reverse";
  printReductionTail(p, getPolicy(), getIdentities(), getInits());
  p.printOptionalAttrDict((*this)->getAttrs(), {"dim", "kind", "policy", "exclusive", "reverse",
                                                "operandSegmentSizes"});
  p << " : ";
  printTypes(p, getInputs().getTypes());
  if (isGeneral()) {
    p << " ";
    p.printRegion(getCombiner(), true, true);
  }
}

LogicalResult ScanOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one operand";
  auto first = cast<KTensor>(getInputs()[0].getType());
  for (Value v : getInputs())
    if (cast<KTensor>(v.getType()).getShape() != first.getShape())
      return emitOpError() << "all operands must have the same shape";
  int64_t dim = getDimAttr().getInt(); // signed: the getter is unsigned
  if (dim < 0 || dim >= first.getRank())
    return emitOpError() << "scanned dim " << dim << " is out of range for rank "
                         << first.getRank();
  if (getResultTypes() != getInputs().getTypes())
    return emitOpError() << "results must have the operand types";
  Policy policy = getEffectivePolicy();
  if (policy != Policy::ordered_tree && policy != Policy::fold_left)
    return emitOpError() << "policy " << stringifyPolicy(policy)
                         << " is meaningless for a scan; use ordered_tree or fold_left";
  SmallVector<Type> eltTypes;
  for (Value v : getInputs())
    eltTypes.push_back(cast<KTensor>(v.getType()).getElementType());
  if (auto kind = getKind()) {
    if (isArgKind(*kind))
      return emitOpError() << "'" << stringifyReduceKind(*kind) << "' is not a scan kind";
    if (getInputs().size() != 1)
      return emitOpError() << "a named scan takes exactly one operand";
    if (!getCombiner().empty())
      return emitOpError() << "a named scan takes no combiner region";
    if (!getIdentities().empty())
      return emitOpError() << "a named scan has a known identity; 'identity' is not allowed";
    if (failed(verifyNamedKind(*this, *kind, eltTypes[0])))
      return failure();
    return verifySeeds(*this, getInits(), getResultTypes(), 1);
  }
  if (policy == Policy::ordered_tree && getIdentities().size() != getInputs().size())
    return emitOpError() << "policy ordered_tree needs one identity per operand ("
                         << getInputs().size() << "), got " << getIdentities().size();
  if (getExclusive() && getIdentities().size() != getInputs().size() && getInits().empty())
    return emitOpError() << "an exclusive general scan needs identities or seeds for its "
                            "first element";
  if (failed(verifySeeds(*this, getInits(), getResultTypes(), getInputs().size())))
    return failure();
  return verifyCombiner(*this, getCombiner(), eltTypes);
}

//===----------------------------------------------------------------------===//
// contract: `kir.contract %a, %b "mk,kn->mn" [precision tf32] : A, B to C`
//===----------------------------------------------------------------------===//

static std::string labelsWhere(StringRef labels, llvm::function_ref<bool(char)> keep) {
  std::string out;
  for (char l : labels)
    if (keep(l))
      out += l;
  return out;
}

std::string ContractOp::Labels::lhsOnly() const {
  return labelsWhere(lhs, [&](char l) { return !StringRef(rhs).contains(l); });
}

std::string ContractOp::Labels::rhsOnly() const {
  return labelsWhere(rhs, [&](char l) { return !StringRef(lhs).contains(l); });
}

std::string ContractOp::Labels::contracted() const {
  return labelsWhere(lhs, [&](char l) { return StringRef(rhs).contains(l) && !StringRef(result).contains(l); });
}

FailureOr<ContractOp::Labels> ContractOp::parseSpec(StringRef spec, std::string &error) {
  auto arrow = spec.split("->");
  auto ops = arrow.first.split(',');
  if (arrow.second.data() == nullptr || !spec.contains("->") || !arrow.first.contains(',')) {
    error = "einsum string must look like \"mk,kn->mn\"";
    return failure();
  }
  Labels l{ops.first.str(), ops.second.str(), arrow.second.str()};
  for (const std::string *s : {&l.lhs, &l.rhs, &l.result}) {
    llvm::SmallSet<char, 8> seen;
    for (char c : *s) {
      if (!llvm::isAlpha(c)) {
        error = std::string("einsum labels are single letters, got '") + c + "'";
        return failure();
      }
      if (!seen.insert(c).second) {
        error = std::string("label '") + c + "' repeats within one term";
        return failure();
      }
    }
  }
  return l;
}

ParseResult ContractOp::parse(OpAsmParser &p, OperationState &s) {
  OpAsmParser::UnresolvedOperand a, b;
  std::string spec;
  Type at, bt, ct;
  if (p.parseOperand(a) || p.parseComma() || p.parseOperand(b) || p.parseString(&spec))
    return failure();
  s.addAttribute("spec", p.getBuilder().getStringAttr(spec));
  if (succeeded(p.parseOptionalKeyword("precision"))) {
    auto loc = p.getCurrentLocation();
    StringRef word;
    if (p.parseKeyword(&word))
      return failure();
    if (word == "tf32")
      s.addAttribute("tf32", p.getBuilder().getUnitAttr());
    else if (word != "ieee")
      return p.emitError(loc, "unknown precision '") << word << "'; expected ieee or tf32";
  }
  if (p.parseOptionalAttrDict(s.attributes) || p.parseColonType(at) || p.parseComma() ||
      p.parseType(bt) || p.parseKeyword("to") || p.parseType(ct) ||
      p.resolveOperand(a, at, s.operands) || p.resolveOperand(b, bt, s.operands))
    return failure();
  s.addTypes(ct);
  return success();
}

void ContractOp::print(OpAsmPrinter &p) {
  p << " " << getLhs() << ", " << getRhs() << " \"" << getSpec() << "\"";
  if (getTf32())
    p << " precision tf32";
  p.printOptionalAttrDict((*this)->getAttrs(), {"spec", "tf32"});
  p << " : " << getLhs().getType() << ", " << getRhs().getType() << " to " << getType();
}

LogicalResult ContractOp::verify() {
  std::string error;
  auto labels = parseSpec(getSpec(), error);
  if (failed(labels))
    return emitOpError() << error;
  auto lt = cast<KTensor>(getLhs().getType()), rt = cast<KTensor>(getRhs().getType());
  auto ct = cast<KTensor>(getType());
  if ((int64_t)labels->lhs.size() != lt.getRank())
    return emitOpError() << "left term '" << labels->lhs << "' has " << labels->lhs.size()
                         << " labels but the left operand has rank " << lt.getRank();
  if ((int64_t)labels->rhs.size() != rt.getRank())
    return emitOpError() << "right term '" << labels->rhs << "' has " << labels->rhs.size()
                         << " labels but the right operand has rank " << rt.getRank();
  if ((int64_t)labels->result.size() != ct.getRank())
    return emitOpError() << "result term '" << labels->result << "' has "
                         << labels->result.size() << " labels but the result has rank "
                         << ct.getRank();
  if (lt.getElementType() != rt.getElementType())
    return emitOpError() << "operand element types " << lt.getElementType() << " and "
                         << rt.getElementType() << " differ";
  if (getTf32() && !lt.getElementType().isF32())
    return emitOpError() << "precision tf32 applies only to f32 operands";
  llvm::DenseMap<char, Attribute> extent;
  auto bind = [&](char c, Attribute d, StringRef where) -> LogicalResult {
    auto [it, inserted] = extent.try_emplace(c, d);
    if (!inserted && it->second != d)
      return emitOpError() << "label '" << c << "' has extent " << dimToString(it->second)
                           << " elsewhere but " << dimToString(d) << " in the " << where;
    return success();
  };
  for (auto [i, c] : llvm::enumerate(labels->lhs))
    if (failed(bind(c, lt.getShape()[i], "left operand")))
      return failure();
  for (auto [i, c] : llvm::enumerate(labels->rhs))
    if (failed(bind(c, rt.getShape()[i], "right operand")))
      return failure();
  for (char c : labels->result) {
    bool inL = labels->lhs.find(c) != std::string::npos;
    bool inR = labels->rhs.find(c) != std::string::npos;
    if (!inL && !inR)
      return emitOpError() << "result label '" << c << "' appears in no operand";
  }
  for (auto [i, c] : llvm::enumerate(labels->result))
    if (failed(bind(c, ct.getShape()[i], "result")))
      return failure();
  for (char c : labels->lhs + labels->rhs) {
    bool inL = labels->lhs.find(c) != std::string::npos;
    bool inR = labels->rhs.find(c) != std::string::npos;
    bool inC = labels->result.find(c) != std::string::npos;
    if (!(inL && inR) && !inC)
      return emitOpError() << "label '" << c
                           << "' appears in one operand only and must then appear in the result";
  }
  return success();
}

#define GET_OP_CLASSES
#include "intent/KIR/KIROps.cpp.inc"
