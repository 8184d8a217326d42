//===- Triton.h - the Triton provider -----------------------------*- C++ -*-===//
#ifndef INTENT_PROVIDERS_TRITON_H
#define INTENT_PROVIDERS_TRITON_H

#include "intent/GPU/Structure.h"

#include <map>
#include <string>
#include <vector>

namespace intent::providers {

/// One complete candidate: parameter symbol -> bound value.
using Candidate = std::map<std::string, int64_t>;

/// Serializes the kernel's program and its complete candidate rows into a
/// self-contained Triton module (kernel.py). Mechanical: every choice was made
/// by the shared passes (the igpu.program of igpu-build-program, the axes of
/// the structure analysis) or by the candidate rows.
bool emitTritonPython(intent::kir::KernelOp kernel, const gpu::ProgramStructure &ps,
                      const std::vector<Candidate> &candidates, const std::string &programKey,
                      std::string &source, std::string &error);

} // namespace intent::providers

#endif
