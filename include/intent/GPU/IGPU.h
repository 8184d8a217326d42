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

#endif
