//===- Structure.h - program structure of a KIR kernel ------------*- C++ -*-===//
//
// The shared GPU construction: axis identities flow through the dataflow
// (docs/gpu.md), every axis gets a role, a pass fixes ONE program structure,
// and the typed physical parameters of that structure are declared with their
// domains. Providers serialize from this; they never reinterpret the program.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_GPU_STRUCTURE_H
#define INTENT_GPU_STRUCTURE_H

#include "intent/KIR/KIR.h"
#include "intent/Tuning/Targets.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>
#include <vector>

namespace intent::gpu {

/// The structures a pass can choose. Each is a distinct program shape; tuning
/// only binds its parameters.
enum class StructureKind {
  Tiles,          ///< pointwise: 2-D tiles over (rows, innermost axis)
  RowReduction,   ///< reductions along the innermost axis (resident or chunked rows)
  RowScan,        ///< scan along the innermost axis, chunks with a carried prefix
  SplitReduction, ///< reductions over leading (or all) axes, split across programs
  Matmul,         ///< one contraction with fused epilogue
  RegionContraction, ///< contract -> row-local ops -> contract (attention), one output tile per program
};
const char *structureName(StructureKind k);

/// A typed physical parameter (tuning.md §1).
struct Parameter {
  std::string symbol;   ///< OWN_M, RED_N, ...
  std::string role;     ///< ownership_m, reduction, warps, ... (names its profile column)
  std::string kind = "int"; ///< int | bool
  std::vector<int64_t> domain; ///< finite candidate domain (sorted); empty = bound at launch
  std::vector<std::string> consumers; ///< what it shapes
  std::vector<std::string> requirements; ///< legality rules it is subject to

  bool isLaunchBound() const { return domain.empty(); }
};

struct ContractionInfo {
  intent::kir::ContractOp op;
  /// The load of each operand's view; a pointwise prologue may lie between it
  /// and the contraction (evaluated on each K tile after the load).
  intent::kir::LoadOp lhsLoad, rhsLoad;
  bool lhsPrologue = false, rhsPrologue = false;
  /// The prologue is casts only, so lanes loaded as 0 past K stay 0.
  bool lhsZeroPreserving = true, rhsZeroPreserving = true;
  std::string lhsLabels, rhsLabels, resultLabels;
  char m = 0, n = 0; ///< the row and column labels
  /// The contracted labels (in the left operand's order; canonical axes rank,
  /// rank + 1, ...). Several are one K of their extents' product, the last fastest.
  std::string k;
  int kAxes() const { return k.size(); }
  /// Batch labels: the result's leading labels (canonical axes 0, 1, ...), each in
  /// one or both operands (an operand without one is the same for every batch).
  std::string batch;
  int batchAxes() const { return batch.size(); }
  bool lhsTransposed = false; ///< lhs is [K, M]
  bool rhsTransposed = false; ///< rhs is [N, K]
};

/// Two contractions with row-local ops between them (attention): the first gives
/// scores over [batch..., m, n] (n: the keys), the second contracts them over n
/// with a [batch..., n, d] operand. Canonical axes: [batch..., m, d] (the second's
/// result, the iteration space), then n (rank) and the first's contracted label
/// (rank + 1).
struct RegionInfo {
  ContractionInfo scores; ///< the first contraction: lhs [.., m, k], rhs [.., n, k]
  ContractionInfo values; ///< the second: lhs the row-local ops' result, rhs [.., n, d] (its load + prologue)
  int batch = 0;          ///< batch axes (canonical 0 .. batch - 1)
  /// The reductions over n, grouped by dependency: level L reads only results of
  /// levels before it, and each level is one pass over the key chunks.
  std::vector<std::vector<mlir::Operation *>> levels;
  /// The last level feeds only the epilogue (not the second contraction's left
  /// operand): it folds in the same pass as the second contraction.
  bool lastLevelWithValues = false;
  int keyAxis(int rank) const { return rank; }
  int innerAxis(int rank) const { return rank + 1; }
};

/// Result of the structure pass for one kernel.
struct ProgramStructure {
  StructureKind kind = StructureKind::Tiles; ///< set by analyzeKernel for every structure
  std::string family;
  std::vector<std::string> facts; ///< why this family (printed by explain)
  /// Iteration space: extents (KIR dims) of the canonical axes; the last one is
  /// the innermost axis.
  llvm::SmallVector<mlir::Attribute> extents;
  /// How many trailing canonical axes form the block's columns (the rest its rows):
  /// 1 unless a row structure reduces, or a split reduction keeps, several axes of a
  /// rank > 2 value; a flat column index is split into their coordinates.
  int colAxes = 1;
  /// The first column axis (every axis before it is a row axis).
  int firstColAxis() const { return extents.empty() ? 0 : int(extents.size()) - colAxes; }
  bool isColAxis(int axis) const { return !extents.empty() && axis >= firstColAxis(); }
  /// Canonical axes of every tensor value and view argument, one per dim.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<int>> axes;
  /// Reductions/scans in program order.
  std::vector<mlir::Operation *> reductions;
  /// RowReduction: the chunked row's passes over the columns, in order; a pass folds
  /// the reductions (indices into `reductions`) of one policy that read results of
  /// earlier passes only, so independent reductions share one read of the row.
  std::vector<std::vector<int64_t>> rowPasses;
  bool sequential = false;   ///< some reduction/scan must run element by element
  bool splitMerge = false;  ///< split programs merge partial sums (last arriver, split order)
  /// RowReduction, chunked: the first pass (a tree fold) also stores the full-size
  /// outputs, none of which reads a reduction, from the chunks it reads.
  bool foldStores = false;
  /// RowReduction, chunked, with a pass storing full-size outputs after the folds:
  /// SPLIT programs share each row's stores, each folding the whole row itself in the
  /// same order (so every one holds the same results).
  bool storeSplit = false;
  /// Row structures: the reduced or scanned axis is an outer one, so the rows run along
  /// the views' innermost (contiguous) dimension and a program's rows are adjacent in memory.
  bool rowsContiguous = false;
  std::optional<ContractionInfo> contraction;
  std::optional<RegionInfo> region;
  std::vector<Parameter> parameters;
  int dominantBits = 32;
  int operandBits = 0; ///< contraction: element width of its (MMA) operands
};

/// L2 eviction priority of a load (igpu-assign-cache-hints).
enum class EvictHint { First, Last };
const char *evictHintName(EvictHint h);

/// The cache hint of every load that spans the whole iteration space of a
/// memory-bound structure (a view broadcast along an axis gets none, and so
/// does every load of a contraction). `First` when each element is read by one
/// program exactly once and every output is reduced: no strict or ordered policy,
/// a row reduction whose chunked row is one pass (or a split reduction of one
/// reduction), and no store spanning the iteration space. `Last` otherwise.
std::vector<std::pair<intent::kir::LoadOp, EvictHint>>
evictionHints(intent::kir::KernelOp kernel, const ProgramStructure &ps);

/// Whether `div` divides a block by a value uniform along the innermost axis (a
/// scalar, or a value broadcast over it) with an f32, f16 or bf16 quotient: such
/// divisions take the divisor's reciprocal once and are exact without a division
/// per element (docs/gpu.md "Numerics").
bool isRowUniformDivision(intent::kir::DivOp div, const ProgramStructure &ps);

/// The kernel's program-invariant values: scalars every lane of every program
/// computes alike from scalar arguments, view extents and constants through pure
/// ops (not integer division or remainder, undefined for a zero divisor the program
/// may never divide by). A serializer computes them once, before the program's
/// first load, instead of where each use sits (in a loop, or behind the row's
/// reductions on its critical path).
llvm::DenseSet<mlir::Value> programInvariants(intent::kir::KernelOp kernel);

/// The operations `roots` are computed from: their defining ops and, transitively,
/// those of their operands. The walk does not go through an op for which `boundary`
/// holds; such an op is in the set when `keepBoundary`, left out otherwise.
llvm::DenseSet<mlir::Operation *> definingOps(mlir::ValueRange roots,
                                              llvm::function_ref<bool(mlir::Operation *)> boundary,
                                              bool keepBoundary);

/// Runs the construction for `kernel`. On failure emits a diagnostic ("no
/// realization for this form yet" class) and returns nullopt.
std::optional<ProgramStructure> analyzeKernel(intent::kir::KernelOp kernel,
                                              const tuning::TargetCaps &caps);

} // namespace intent::gpu

#endif
