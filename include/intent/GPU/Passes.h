//===- Passes.h - the shared GPU pass pipeline --------------------*- C++ -*-===//
//
// Passes declared in Passes.td. They run on one kir.kernel, write their
// decisions into it as igpu attributes, and share one PipelineState with the
// compile that runs them: the provider context they read, and what the
// serializer and `intentc explain` need besides the IR (the structure analysis
// with its value-to-axes map, and each profile row's outcome).
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_GPU_PASSES_H
#define INTENT_GPU_PASSES_H

#include "intent/GPU/IGPU.h"
#include "intent/GPU/Pipeline.h"
#include "intent/GPU/Structure.h"
#include "intent/KIR/KIR.h"
#include "intent/Providers/Triton.h"

#include "mlir/Pass/Pass.h"
#include <memory>
#include <optional>
#include <vector>

namespace intent::gpu {

/// One profile row of the selected family, followed through projection and filtering.
struct RowOutcome {
  const tuning::EffectiveRow *row;
  providers::Candidate bound;  ///< values actually bound after projection
  std::string status = "kept"; ///< kept | illegal | unsupported | duplicate | unknown
  std::string reason;
};

struct PipelineState {
  const ProviderContext *ctx = nullptr;
  std::optional<ProgramStructure> structure; ///< igpu-select-structure
  std::vector<RowOutcome> rows;              ///< igpu-project-profiles, then the filter
  std::vector<providers::Candidate> candidates; ///< the complete set (filter)
};

#define GEN_PASS_DECL
#include "intent/GPU/Passes.h.inc"

std::unique_ptr<mlir::Pass> createEraseDeadValuesPass();
std::unique_ptr<mlir::Pass> createDecomposeContractionsPass();
/// The passes of the shared pipeline, bound to `state` (which must outlive them).
std::unique_ptr<mlir::Pass> createSelectStructurePass(PipelineState &state);
std::unique_ptr<mlir::Pass> createAssignCacheHintsPass(PipelineState &state);
std::unique_ptr<mlir::Pass> createBuildProgramPass(PipelineState &state);
std::unique_ptr<mlir::Pass> createProjectProfilesPass(PipelineState &state);
std::unique_ptr<mlir::Pass> createFilterTritonCandidatesPass(PipelineState &state);

} // namespace intent::gpu

#endif
