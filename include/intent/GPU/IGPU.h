//===- IGPU.h - the shared GPU dialect ----------------------------*- C++ -*-===//
#ifndef INTENT_GPU_IGPU_H
#define INTENT_GPU_IGPU_H

#include "intent/KIR/KIR.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "intent/GPU/IGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "intent/GPU/IGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "intent/GPU/IGPUTypes.h.inc"

#define GET_OP_CLASSES
#include "intent/GPU/IGPUOps.h.inc"

namespace intent::igpu {
/// The attribute naming the variable an op of a program binds: the inherent
/// `name` of an igpu op, `igpu.name` on an op of another dialect (arith).
llvm::StringRef variableNameAttr(mlir::Operation *op);
/// A value's lane shape: a fragment's extents; a scalar broadcasts as [1, 1].
llvm::SmallVector<mlir::Attribute, 2> laneShape(mlir::Value v);
/// Broadcast of two lane shapes (an extent 1 stretches); nullopt when they clash.
std::optional<llvm::SmallVector<mlir::Attribute, 2>> broadcastLanes(llvm::ArrayRef<mlir::Attribute> a,
                                                                    llvm::ArrayRef<mlir::Attribute> b);
} // namespace intent::igpu

#endif
