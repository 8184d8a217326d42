//===- Passes.td - the shared GPU passes -------------------------*- tablegen -*-===//
//
// The shared stage of tuning.md §2-§5 as a pass pipeline on one kir.kernel:
// erase dead values, decompose contractions without a matrix product, fix the
// program structure, project the profile rows onto its typed parameters,
// filter the candidates for the provider. Each pass writes what it decided
// into the kernel as verified igpu attributes.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_GPU_PASSES
#define INTENT_GPU_PASSES

include "mlir/Pass/PassBase.td"

def EraseDeadValues : Pass<"igpu-erase-dead-values", "::intent::kir::KernelOp"> {
  let summary = "Erase values that reach no store";
  let description = [{
    A load or pure computation whose value never reaches a `kir.store` cannot
    affect any output; it is erased before the structure is chosen, so a dead
    value (left over while editing a kernel, say) neither needs an axis nor
    makes the kernel unsupported. An igpu.program left in the input (stage
    IR fed back) is erased too: igpu-build-program rebuilds it.
  }];
}

def DecomposeContractions : Pass<"igpu-decompose-contractions", "::intent::kir::KernelOp"> {
  let summary = "Contractions without a matrix product become products and sums";
  let description = [{
    A `kir.contract` that lacks a label of the left operand alone, a label of
    the right operand alone, or a contracted label (matrix-vector and
    vector-matrix products, dot products, row-wise dot products, outer
    products) has no tile of tensor-core work. It becomes its operands cast to
    the result element type (the reference's semantics), transposed and
    broadcast onto the larger operand's labels followed by the other's (so a
    row-major matrix keeps its memory order; an outer product takes the
    result's order), multiplied, summed over the contracted axes by
    `kir.reduce add` with the default `unordered_tree` policy (kir.md: a
    contraction is a sum in unspecified order) and transposed into the
    result's order; the memory-bound structures then map it (on i1 the
    product is `and` and the sum `xor`: integer sums wrap). A contraction
    whose result ends in a label of the right operand alone then one of the
    left operand alone (`"mk,kn->nm"`) gets its operands swapped
    (`c^T = b^T a^T`), so that the output tile's columns run along the
    result's last axis.
  }];
  let dependentDialects = ["::intent::kir::KIRDialect"];
}

def SelectStructure : Pass<"igpu-select-structure", "::intent::kir::KernelOp"> {
  let summary = "Fix one program structure and declare its typed physical parameters";
  let description = [{
    Assigns every axis a role, chooses the structure (tiles, row reduction, row
    scan, split reduction, matmul) and the structural family, and declares the
    parameters of that structure with their domains. Writes `igpu.structure`,
    `igpu.family`, `igpu.facts` (why this family) and `igpu.parameters`.
    Fails with a located "no realization" diagnostic for forms it cannot map.
  }];
  let dependentDialects = ["::intent::igpu::IGPUDialect"];
}

def AssignCacheHints : Pass<"igpu-assign-cache-hints", "::intent::kir::KernelOp"> {
  let summary = "Give each load of the iteration space its L2 eviction priority";
  let description = [{
    Runs after igpu-select-structure, on memory-bound structures (contractions
    reuse their operand tiles and get no hint); see `evictionHints`. In a
    reduction whose outputs are all reduced values, each element of a load
    that spans the iteration space is read by one program exactly once: it
    gets `igpu.evict = "first"`, so its lines leave L2 before lines other work
    still needs (a producer's output, say). Every other such load (pointwise,
    scans, reductions writing a full-size output or reading rows again) gets
    `igpu.evict = "last"`. Both choices are measured on the H200, where the
    opposite hint of each class is slower (docs/performance.md, stop 15).
    Loads of views broadcast along an axis keep the default. The pass owns
    the attribute: one already on a load is replaced by its decision.
  }];
  let dependentDialects = ["::intent::igpu::IGPUDialect"];
}

def BuildProgram : Pass<"igpu-build-program", "::intent::kir::KernelOp"> {
  let summary = "Write the blocked program of the structure as an igpu.program";
  let description = [{
    Runs after igpu-select-structure. Writes, last in the kernel body, the
    program the structure stands for (IGPUOps.td): program ids and their
    coordinates, fragments whose extents are parameters, masks, loops with
    parameter steps, and where each reduction, scan and store happens, with
    its policy; for a contraction, the traversal of output tiles (one program
    per tile or persistent programs) and the tile op with its epilogue stores.
    The Triton serializer emits this program op by op. A program already in
    the kernel is replaced.
  }];
  let dependentDialects = ["::intent::igpu::IGPUDialect", "::mlir::arith::ArithDialect"];
}

def ProjectProfiles : Pass<"igpu-project-profiles", "::intent::kir::KernelOp"> {
  let summary = "Project every profile row of the selected family onto the parameter domains";
  let description = [{
    Reads `igpu.family` and `igpu.parameters` from the kernel. Each row's
    column for a parameter's role is a preference: the largest domain value not
    above it, else the domain's minimum (tuning.md §4). Writes the projected
    rows, deduplicated, as `igpu.configurations<"shared", ...>`.
  }];
  let dependentDialects = ["::intent::igpu::IGPUDialect"];
}

def FilterTritonCandidates : Pass<"igpu-filter-triton-candidates", "::intent::kir::KernelOp"> {
  let summary = "Triton legality, consumer-less options and deduplication of the projected rows";
  let description = [{
    Classifies each projected row as kept, illegal, unknown (left to Triton) or
    a duplicate of an earlier row (tuning.md §5), and writes the kept rows as
    `igpu.configurations<"complete", ...>`. Fails, naming every row's reason,
    when no candidate remains.
  }];
  let dependentDialects = ["::intent::igpu::IGPUDialect"];
}

#endif // INTENT_GPU_PASSES
