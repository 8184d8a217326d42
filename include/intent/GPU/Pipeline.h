//===- Pipeline.h - KIR -> shared GPU program -> provider ---------*- C++ -*-===//
#ifndef INTENT_GPU_PIPELINE_H
#define INTENT_GPU_PIPELINE_H

#include "intent/KIR/KIR.h"
#include "intent/Tuning/ProfileTable.h"
#include "intent/Tuning/Targets.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace intent::gpu {

/// Everything a provider compile needs besides the kernel, resolved once per request.
struct ProviderContext {
  tuning::Provider provider;
  tuning::TargetCaps caps;
  tuning::EffectiveTable table;
};

enum class StopAfter { Shared, Provider, Full };

struct GeneratedFile {
  std::string name;
  std::string content;
};

struct ProviderOutput {
  std::string family;
  int candidates = 0;
  std::string stageIR;               ///< printed IR of the last stage run
  std::vector<GeneratedFile> files;  ///< kernel.mlir, kernel.py, artifact.json (Full only)
  nlohmann::ordered_json explain;    ///< facts, parameters, rows (for `intentc explain`)
};

/// Runs the shared GPU passes and the provider for one kernel. `kernel` must be
/// verified and specialized. Errors are emitted as MLIR diagnostics on the
/// kernel's context. `identity` is merged into artifact.json (compiler, key).
/// With `irLog`, the kernel is printed there after every pass.
mlir::LogicalResult compileKernel(intent::kir::KernelOp kernel, const ProviderContext &ctx,
                                  StopAfter stop, const nlohmann::ordered_json &identity,
                                  ProviderOutput &out, llvm::raw_ostream *irLog = nullptr);

} // namespace intent::gpu

#endif
