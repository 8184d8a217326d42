//===- KIRDialect.cpp - KIR dialect and types -----------------------------===//
#include "intent/KIR/KIR.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace intent::kir;
using KTensor = intent::kir::TensorType;

#include "intent/KIR/KIRDialect.cpp.inc"
#include "intent/KIR/KIREnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "intent/KIR/KIRTypes.cpp.inc"

void KIRDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "intent/KIR/KIRTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "intent/KIR/KIROps.cpp.inc"
      >();
}

void intent::kir::registerKIRDialects(DialectRegistry &registry) {
  registry.insert<KIRDialect, arith::ArithDialect, math::MathDialect>();
}

//===----------------------------------------------------------------------===//
// Dimensions
//===----------------------------------------------------------------------===//

StringRef intent::kir::stringifyAccess(Access a) {
  switch (a) {
  case Access::In: return "in";
  case Access::Out: return "out";
  case Access::InOut: return "inout";
  }
  llvm_unreachable("access");
}

bool intent::kir::isStaticDim(Attribute d) { return isa<IntegerAttr>(d); }
int64_t intent::kir::staticDimValue(Attribute d) { return cast<IntegerAttr>(d).getInt(); }
StringRef intent::kir::symbolicDimName(Attribute d) { return cast<StringAttr>(d).getValue(); }

std::string intent::kir::dimToString(Attribute d) {
  if (auto i = dyn_cast<IntegerAttr>(d))
    return std::to_string(i.getInt());
  return cast<StringAttr>(d).getValue().str();
}

std::string intent::kir::shapeToString(ArrayRef<Attribute> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i) s += ", ";
    s += dimToString(d);
  }
  return s + "]";
}

bool intent::kir::isKirScalarType(Type t) {
  if (t.isF16() || t.isBF16() || t.isF32() || t.isF64() || t.isIndex())
    return true;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth());
  return false;
}

Type intent::kir::kirElementType(Type t) {
  if (auto tt = dyn_cast<KTensor>(t))
    return tt.getElementType();
  if (auto vt = dyn_cast<ViewType>(t))
    return vt.getElementType();
  return t;
}

//===----------------------------------------------------------------------===//
// Type syntax:  <ELT, [D, ...]>  and  <ELT, [D, ...], ACCESS[, contiguous]>
//===----------------------------------------------------------------------===//

ParseResult intent::kir::parseShape(AsmParser &p, SmallVectorImpl<Attribute> &shape) {
  Builder b(p.getContext());
  return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    int64_t value;
    auto loc = p.getCurrentLocation();
    OptionalParseResult intRes = p.parseOptionalInteger(value);
    if (intRes.has_value()) {
      if (failed(*intRes))
        return failure();
      if (value <= 0)
        return p.emitError(loc, "static extent must be a positive integer, got ") << value;
      shape.push_back(b.getI64IntegerAttr(value));
      return success();
    }
    StringRef name;
    if (p.parseOptionalKeyword(&name))
      return p.emitError(loc, "expected a dimension: an identifier or a positive integer");
    shape.push_back(b.getStringAttr(name));
    return success();
  });
}

static void printShape(AsmPrinter &p, ArrayRef<Attribute> shape) {
  p << shapeToString(shape);
}

static ParseResult parseElementType(AsmParser &p, Type &elt) {
  auto loc = p.getCurrentLocation();
  if (p.parseType(elt))
    return failure();
  if (!isKirScalarType(elt))
    return p.emitError(loc, "element type must be one of f16, bf16, f32, f64, i1, i8, i16, "
                            "i32, i64, index (or an f8 type), got ")
           << elt;
  return success();
}

Type ViewType::parse(AsmParser &p) {
  Type elt;
  SmallVector<Attribute> shape;
  StringRef accessWord;
  if (p.parseLess() || parseElementType(p, elt) || p.parseComma() || parseShape(p, shape) ||
      p.parseComma())
    return {};
  auto accessLoc = p.getCurrentLocation();
  if (p.parseKeyword(&accessWord))
    return {};
  Access access;
  if (accessWord == "in")
    access = Access::In;
  else if (accessWord == "out")
    access = Access::Out;
  else if (accessWord == "inout")
    access = Access::InOut;
  else {
    p.emitError(accessLoc, "expected view access 'in', 'out' or 'inout', got '") << accessWord << "'";
    return {};
  }
  bool contiguous = false;
  if (succeeded(p.parseOptionalComma())) {
    auto loc = p.getCurrentLocation();
    StringRef word;
    if (p.parseKeyword(&word))
      return {};
    if (word != "contiguous") {
      p.emitError(loc, "expected 'contiguous', got '") << word << "'";
      return {};
    }
    contiguous = true;
  }
  if (p.parseGreater())
    return {};
  return ViewType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), elt,
                              shape, access, contiguous);
}

void ViewType::print(AsmPrinter &p) const {
  p << "<" << getElementType() << ", ";
  printShape(p, getShape());
  p << ", " << stringifyAccess(getAccess());
  if (getContiguous())
    p << ", contiguous";
  p << ">";
}

static LogicalResult verifyShapeAndElement(function_ref<InFlightDiagnostic()> emitError, Type elt,
                                           ArrayRef<Attribute> shape) {
  if (!isKirScalarType(elt))
    return emitError() << "invalid element type " << elt;
  for (Attribute d : shape) {
    if (auto i = dyn_cast<IntegerAttr>(d)) {
      if (i.getInt() <= 0)
        return emitError() << "static extent must be positive";
    } else if (auto s = dyn_cast<StringAttr>(d)) {
      if (s.getValue().empty())
        return emitError() << "empty dimension symbol";
    } else {
      return emitError() << "a dimension must be a symbol or an integer";
    }
  }
  return success();
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError, Type elt,
                               ArrayRef<Attribute> shape, Access, bool contiguous) {
  if (failed(verifyShapeAndElement(emitError, elt, shape)))
    return failure();
  if (contiguous && shape.empty())
    return emitError() << "a rank-0 view cannot be 'contiguous'";
  return success();
}

Type intent::kir::TensorType::parse(AsmParser &p) {
  Type elt;
  SmallVector<Attribute> shape;
  if (p.parseLess() || parseElementType(p, elt) || p.parseComma() || parseShape(p, shape) ||
      p.parseGreater())
    return {};
  return intent::kir::TensorType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), elt,
                                shape);
}

void intent::kir::TensorType::print(AsmPrinter &p) const {
  p << "<" << getElementType() << ", ";
  printShape(p, getShape());
  p << ">";
}

LogicalResult intent::kir::TensorType::verify(function_ref<InFlightDiagnostic()> emitError, Type elt,
                                 ArrayRef<Attribute> shape) {
  return verifyShapeAndElement(emitError, elt, shape);
}
