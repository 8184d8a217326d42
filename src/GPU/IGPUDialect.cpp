//===- IGPUDialect.cpp - parameter and configuration-set attributes --------===//
#include "intent/GPU/IGPU.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace intent::igpu;

#include "intent/GPU/IGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "intent/GPU/IGPUAttrs.cpp.inc"

void IGPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "intent/GPU/IGPUAttrs.cpp.inc"
      >();
}

LogicalResult IGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() != kEvictAttr)
    return success();
  if (op->getName().getStringRef() != "kir.load")
    return op->emitError() << "'" << kEvictAttr << "' applies only to kir.load";
  auto s = llvm::dyn_cast<StringAttr>(attr.getValue());
  if (!s || (s.getValue() != "first" && s.getValue() != "last"))
    return op->emitError() << "'" << kEvictAttr << "' must be \"first\" or \"last\"";
  return success();
}

LogicalResult ParameterAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef symbol,
                                    StringRef role, StringRef kind, DenseI64ArrayAttr domain,
                                    ArrayAttr consumers, ArrayAttr requirements) {
  if (symbol.empty())
    return emitError() << "a parameter needs a symbol";
  if (kind != "int" && kind != "bool")
    return emitError() << "parameter " << symbol << ": kind must be int or bool, got " << kind;
  ArrayRef<int64_t> d = domain.asArrayRef();
  if (d.empty() && role != "coverage")
    return emitError() << "parameter " << symbol << ": only launch-bound (coverage) parameters "
                          "may have an empty domain";
  for (size_t i = 1; i < d.size(); ++i)
    if (d[i - 1] >= d[i])
      return emitError() << "parameter " << symbol << ": domain must be sorted and unique";
  if (kind == "bool")
    for (int64_t v : d)
      if (v != 0 && v != 1)
        return emitError() << "parameter " << symbol << ": a bool domain holds only 0 and 1";
  for (ArrayAttr list : {consumers, requirements})
    for (Attribute a : list)
      if (!llvm::isa<StringAttr>(a))
        return emitError() << "parameter " << symbol << ": consumers and requirements are strings";
  return success();
}

LogicalResult ConfigurationSetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                           StringRef stage, ArrayAttr parameters, ArrayAttr rows) {
  if (stage != "shared" && stage != "complete")
    return emitError() << "configuration stage must be shared or complete, got " << stage;
  SmallVector<ParameterAttr> bound;
  for (Attribute a : parameters) {
    auto p = llvm::dyn_cast<ParameterAttr>(a);
    if (!p)
      return emitError() << "configuration parameters must be #igpu.parameter attributes";
    if (!p.isLaunchBound())
      bound.push_back(p);
  }
  if (rows.empty())
    return emitError() << "a configuration set is never empty";
  llvm::DenseSet<Attribute> seen;
  for (auto [i, r] : llvm::enumerate(rows)) {
    auto row = llvm::dyn_cast<DenseI64ArrayAttr>(r);
    if (!row)
      return emitError() << "row " << i << " must be an array<i64>";
    if (row.size() != (int64_t)bound.size())
      return emitError() << "row " << i << " binds " << row.size() << " values, expected "
                         << bound.size();
    for (auto [j, v] : llvm::enumerate(row.asArrayRef()))
      if (!llvm::is_contained(bound[j].getDomain().asArrayRef(), v))
        return emitError() << "row " << i << ": " << bound[j].getSymbol() << " = " << v
                           << " is outside its domain";
    if (!seen.insert(row).second)
      return emitError() << "row " << i << " repeats an earlier row";
  }
  return success();
}
