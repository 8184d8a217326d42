//===- IGPU.h - the shared GPU dialect ----------------------------*- C++ -*-===//
#ifndef INTENT_GPU_IGPU_H
#define INTENT_GPU_IGPU_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "intent/GPU/IGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "intent/GPU/IGPUAttrs.h.inc"

#endif
