//===- Reference.h - the PyTorch eager reference provider --------*- C++ -*-===//
#ifndef INTENT_PROVIDERS_REFERENCE_H
#define INTENT_PROVIDERS_REFERENCE_H

#include "intent/KIR/KIR.h"

#include <string>

namespace intent::providers {

/// Serializes `kernel` into self-contained PyTorch eager code (imports torch
/// only) exposing `launch(<KIR arguments in order>, *, compute_dtype=None)`.
/// Strict folds (fold_left/fold_right) and ordered trees run sequentially in
/// order; everything else computes in the element type, or in
/// `compute_dtype` (e.g. torch.float64) when given. It is the correctness
/// oracle, never tuned. Returns false and sets `error` for unsupported input.
bool emitReferencePython(intent::kir::KernelOp kernel, std::string &source, std::string &error);

} // namespace intent::providers

#endif
