//===- Passes.cpp - structure selection, projection, Triton filtering -----===//
#include "intent/GPU/Passes.h"
#include "intent/GPU/Program.h"
#include "intent/Tuning/Columns.h"
#include "intent/Tuning/Projection.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace intent;
using namespace intent::gpu;

namespace intent::gpu {
#define GEN_PASS_DEF_ERASEDEADVALUES
#define GEN_PASS_DEF_SELECTSTRUCTURE
#define GEN_PASS_DEF_ASSIGNCACHEHINTS
#define GEN_PASS_DEF_BUILDPROGRAM
#define GEN_PASS_DEF_PROJECTPROFILES
#define GEN_PASS_DEF_FILTERTRITONCANDIDATES
#include "intent/GPU/Passes.h.inc"
} // namespace intent::gpu

namespace {

constexpr const char kFamily[] = "igpu.family";
constexpr const char kStructure[] = "igpu.structure";
constexpr const char kFacts[] = "igpu.facts";
constexpr const char kParameters[] = "igpu.parameters";
constexpr const char kConfigurations[] = "igpu.configurations";

ArrayAttr stringArray(Builder &b, const std::vector<std::string> &v) {
  SmallVector<Attribute> a;
  for (const auto &x : v)
    a.push_back(b.getStringAttr(x));
  return b.getArrayAttr(a);
}

/// The program's typed parameters as #igpu.parameter attributes.
ArrayAttr parameterAttrs(MLIRContext *ctx, const ProgramStructure &ps) {
  Builder b(ctx);
  SmallVector<Attribute> params;
  for (const Parameter &p : ps.parameters)
    params.push_back(igpu::ParameterAttr::get(ctx, p.symbol, p.role, p.kind,
                                              b.getDenseI64ArrayAttr(p.domain),
                                              stringArray(b, p.consumers),
                                              stringArray(b, p.requirements)));
  return b.getArrayAttr(params);
}

/// Replaces `igpu.configurations` with a verified set of `stage` over the
/// kernel's declared parameters; `rows` are unique complete bindings.
LogicalResult setConfigurations(kir::KernelOp kernel, StringRef stage,
                                const std::vector<providers::Candidate> &rows) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  auto params = kernel->getAttrOfType<ArrayAttr>(kParameters);
  SmallVector<Attribute> rowAttrs;
  for (const providers::Candidate &c : rows) {
    SmallVector<int64_t> values;
    for (auto p : params.getAsRange<igpu::ParameterAttr>())
      if (!p.isLaunchBound())
        values.push_back(c.count(p.getSymbol().str()) ? c.at(p.getSymbol().str())
                                                      : p.getDomain().asArrayRef().front());
    rowAttrs.push_back(b.getDenseI64ArrayAttr(values));
  }
  auto set = igpu::ConfigurationSetAttr::getChecked(
      [&] { return kernel.emitError() << "internal: invalid configuration set: "; }, ctx, stage,
      params, b.getArrayAttr(rowAttrs));
  if (!set)
    return failure();
  kernel->setAttr(kConfigurations, set);
  return success();
}

/// Fails unless an earlier pass of the pipeline bound the state and wrote `attr`.
LogicalResult requireInput(Pass &pass, PipelineState *state, kir::KernelOp kernel,
                           StringRef attr) {
  if (!state || !state->ctx)
    return kernel.emitError() << pass.getArgument()
                              << " runs inside the compile pipeline (it needs the provider context)";
  if (!attr.empty() && !kernel->hasAttr(attr))
    return kernel.emitError() << pass.getArgument() << " needs '" << attr
                              << "' (run igpu-select-structure first)";
  return success();
}

struct EraseDeadValuesPass : ::intent::gpu::impl::EraseDeadValuesBase<EraseDeadValuesPass> {
  void runOnOperation() override {
    // A program in the input (stage IR fed back) is rebuilt by igpu-build-program.
    if (igpu::ProgramOp program = programOf(getOperation()))
      program->erase();
    // Reverse order: erasing a user can make its operands' producers dead.
    Block &body = getOperation().getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isOpTriviallyDead(&op))
        op.erase();
  }
};

struct SelectStructurePass : ::intent::gpu::impl::SelectStructureBase<SelectStructurePass> {
  SelectStructurePass() = default;
  explicit SelectStructurePass(PipelineState &s) : state(&s) {}

  void runOnOperation() override {
    kir::KernelOp kernel = getOperation();
    if (failed(requireInput(*this, state, kernel, "")))
      return signalPassFailure();
    state->structure = analyzeKernel(kernel, state->ctx->caps);
    if (!state->structure)
      return signalPassFailure();
    const ProgramStructure &ps = *state->structure;
    Builder b(kernel.getContext());
    kernel->setAttr(kFamily, b.getStringAttr(ps.family));
    kernel->setAttr(kStructure, b.getStringAttr(structureName(ps.kind)));
    kernel->setAttr(kFacts, stringArray(b, ps.facts));
    kernel->setAttr(kParameters, parameterAttrs(kernel.getContext(), ps));
    markAllAnalysesPreserved();
  }

  PipelineState *state = nullptr;
};

struct AssignCacheHintsPass : ::intent::gpu::impl::AssignCacheHintsBase<AssignCacheHintsPass> {
  AssignCacheHintsPass() = default;
  explicit AssignCacheHintsPass(PipelineState &s) : state(&s) {}

  void runOnOperation() override {
    kir::KernelOp kernel = getOperation();
    if (failed(requireInput(*this, state, kernel, kStructure)) || !state->structure)
      return signalPassFailure();
    kernel.walk([](kir::LoadOp load) { load->removeAttr(igpu::IGPUDialect::kEvictAttr); });
    auto hints = evictionHints(kernel, *state->structure);
    if (hints.empty())
      return markAllAnalysesPreserved();
    Builder b(kernel.getContext());
    for (auto [load, hint] : hints)
      load->setAttr(igpu::IGPUDialect::kEvictAttr, b.getStringAttr(evictHintName(hint)));
    ProgramStructure &ps = *state->structure;
    ps.facts.push_back(hints.front().second == EvictHint::First
                           ? "every input element is read once and every output is reduced: the "
                             "loads of the whole iteration space evict first from L2"
                           : "the loads of the whole iteration space evict last from L2 (the kernel "
                             "writes a full-size output or may read its rows again)");
    kernel->setAttr(kFacts, stringArray(b, ps.facts));
  }

  PipelineState *state = nullptr;
};

struct BuildProgramPass : ::intent::gpu::impl::BuildProgramBase<BuildProgramPass> {
  BuildProgramPass() = default;
  explicit BuildProgramPass(PipelineState &s) : state(&s) {}

  void runOnOperation() override {
    kir::KernelOp kernel = getOperation();
    if (failed(requireInput(*this, state, kernel, kStructure)) || !state->structure)
      return signalPassFailure();
    buildProgram(kernel, *state->structure); // verified by the pass manager
  }

  PipelineState *state = nullptr;
};

struct ProjectProfilesPass : ::intent::gpu::impl::ProjectProfilesBase<ProjectProfilesPass> {
  ProjectProfilesPass() = default;
  explicit ProjectProfilesPass(PipelineState &s) : state(&s) {}

  /// A projected parameter: the domain and the profile column its role reads
  /// (none: the domain's minimum).
  struct Target {
    std::string symbol;
    std::vector<int64_t> domain;
    std::optional<size_t> column;
  };

  /// Projects one row onto the declared domains (tuning.md §4): each parameter
  /// takes the largest domain value not above its column's request.
  static providers::Candidate project(ArrayRef<Target> targets, const tuning::EffectiveRow &row) {
    providers::Candidate c;
    for (const Target &t : targets)
      c[t.symbol] = tuning::projectPreference(t.domain, t.column ? row.values[*t.column] : t.domain.front());
    return c;
  }

  void runOnOperation() override {
    kir::KernelOp kernel = getOperation();
    if (failed(requireInput(*this, state, kernel, kParameters)))
      return signalPassFailure();
    tuning::Provider provider = state->ctx->provider;
    SmallVector<Target> targets;
    for (auto p : kernel->getAttrOfType<ArrayAttr>(kParameters).getAsRange<igpu::ParameterAttr>()) {
      if (p.isLaunchBound())
        continue; // bound at launch (coverage)
      std::optional<std::string> column = tuning::columnForRole(provider, p.getRole().str());
      ArrayRef<int64_t> domain = p.getDomain().asArrayRef();
      targets.push_back({p.getSymbol().str(), {domain.begin(), domain.end()},
                         column ? tuning::columnIndex(provider, *column) : std::nullopt});
    }
    std::string family = kernel->getAttrOfType<StringAttr>(kFamily).str();
    state->rows.clear();
    std::vector<providers::Candidate> projected;
    // Forms with no profile column (a contraction prologue's, a row-uniform division's): each
    // row is tried with every combination of their values.
    SmallVector<const Target *> forms;
    for (const Target &t : targets)
      if (t.symbol == "PROLOGUE_ONCE" || t.symbol == "DIV_FORM")
        forms.push_back(&t);
    for (const tuning::EffectiveRow &row : state->ctx->table.rows(family)) {
      std::vector<providers::Candidate> bound = {project(targets, row)};
      for (const Target *f : forms) {
        std::vector<providers::Candidate> each;
        for (const providers::Candidate &b : bound)
          for (int64_t v : f->domain) {
            each.push_back(b);
            each.back()[f->symbol] = v;
          }
        bound = std::move(each);
      }
      for (const providers::Candidate &b : bound) {
        state->rows.push_back({&row, b});
        if (llvm::find(projected, b) == projected.end())
          projected.push_back(b);
      }
    }
    if (failed(setConfigurations(kernel, "shared", projected)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  PipelineState *state = nullptr;
};

/// Bytes of one element of a view or tensor type (8-bit types: 1).
int64_t elementBytes(Type t) { return (kir::kirElementType(t).getIntOrFloatBitWidth() + 7) / 8; }

struct FilterTritonCandidatesPass : ::intent::gpu::impl::FilterTritonCandidatesBase<FilterTritonCandidatesPass> {
  FilterTritonCandidatesPass() = default;
  explicit FilterTritonCandidatesPass(PipelineState &s) : state(&s) {}

  /// Triton legality of one complete binding (tuning.md §5).
  void legality(RowOutcome &o) {
    const ProgramStructure &ps = *state->structure;
    const tuning::TargetCaps &caps = state->ctx->caps;
    auto get = [&](const char *k) { return o.bound.count(k) ? o.bound.at(k) : 1; };
    bool once = o.bound.count("PROLOGUE_ONCE") && o.bound.at("PROLOGUE_ONCE"); // prologues run before
    int64_t warps = get("NUM_WARPS");
    int64_t threads = warps * 32;
    int64_t elems = 0;
    switch (ps.kind) {
    case StructureKind::Tiles: elems = get("OWN_M") * get("OWN_N"); break;
    case StructureKind::RowReduction: elems = get("OWN_M") * get("RED_N"); break;
    case StructureKind::RowScan: elems = get("OWN_M") * get("SCAN_N"); break;
    case StructureKind::SplitReduction: elems = get("RED_M") * get("OWN_N"); break;
    case StructureKind::Matmul: elems = get("BM") * get("BN"); break;
    case StructureKind::RegionContraction: elems = get("BM") * get("BN"); break;
    }
    auto reject = [&](const char *status, std::string reason) {
      o.status = status;
      o.reason = std::move(reason);
    };
    if (elems > (int64_t(1) << 20))
      return reject("illegal", "fragment of " + std::to_string(elems) + " elements exceeds Triton's 2^20");
    if (threads > caps.maxThreadsPerBlock && caps.maxThreadsPerBlock)
      return reject("illegal", std::to_string(warps) + " warps exceed " +
                                   std::to_string(caps.maxThreadsPerBlock) + " threads per block");
    // Register footprint: at most 256 live fp32 values per thread in a tile.
    bool tensorCores = ps.kind == StructureKind::Matmul || ps.kind == StructureKind::RegionContraction;
    if (!tensorCores && elems / threads > 256)
      return reject("illegal", "register footprint " + std::to_string(elems / threads) +
                                   " elements per thread exceeds 256");
    if (ps.kind == StructureKind::RegionContraction && get("BM") * get("BN") / threads > 128)
      return reject("illegal", "score tile of " + std::to_string(get("BM") * get("BN") / threads) +
                                   " elements per thread beside the output accumulator (at most 128)");
    if (ps.kind != StructureKind::Matmul)
      return;
    ContractionInfo ci = *ps.contraction; // a copy: op accessors are not const
    // The pipeline stages the views' tiles, or the workspaces of prologues run once.
    Value lhs = once ? Value(ci.op.getLhs()) : ci.lhsLoad.getView(), rhs = once ? Value(ci.op.getRhs()) : ci.rhsLoad.getView();
    int64_t smem = (get("BM") * elementBytes(lhs.getType()) + get("BN") * elementBytes(rhs.getType())) *
                   get("BK") * std::max<int64_t>(get("NUM_STAGES"), 1);
    // Measured on the H200 with Triton 3.6 (docs/performance.md, stop 19): a pipelined K loop
    // inside the persistent tile loop computes wrong tiles when an operand passes through a
    // prologue (the MMA takes it from registers); one stage, one program per tile, or the
    // prologue run once before the contraction is right.
    if ((ci.lhsPrologue || ci.rhsPrologue) && !once && get("WORKERS") > 1 && get("NUM_STAGES") > 1)
      return reject("illegal", "a fused prologue (PROLOGUE_ONCE=0) under persistent traversal with a pipelined "
                               "K loop computed wrong tiles (Triton 3.6, measured)");
    auto kib = [](int64_t b) { return std::to_string(b / 1024) + " KiB"; };
    if (caps.smemPerBlock && smem > caps.smemPerBlock)
      return reject("illegal", "pipeline needs " + kib(smem) + " shared memory, above " + kib(caps.smemPerBlock) +
                                   " per block");
    if (get("BM") * get("BN") / threads > 256)
      return reject("unknown", "large accumulator per thread; register allocation is left to Triton");
    // Descriptor stores stage the output tile in shared memory; whether Triton
    // reuses the pipeline's buffers for it is its choice.
    int64_t staged = 0;
    if (get("USE_TENSOR_DESCRIPTOR"))
      for (auto [bytes, slices] : stagedOutputs)
        staged += get("BM") * get("BN") * bytes / slices;
    if (caps.smemPerBlock && smem + staged > caps.smemPerBlock)
      reject("unknown", "pipeline " + kib(smem) + " and output staging " + kib(staged) + " exceed " +
                            kib(caps.smemPerBlock) + " per block unless Triton reuses the pipeline's buffers");
  }

  /// (element bytes, column slices) of each output that descriptor stores stage.
  std::vector<std::pair<int64_t, int64_t>> stagedOutputs;

  void runOnOperation() override {
    kir::KernelOp kernel = getOperation();
    if (failed(requireInput(*this, state, kernel, kConfigurations)))
      return signalPassFailure();
    const ProgramStructure &ps = *state->structure;
    stagedOutputs.clear();
    if (igpu::ProgramOp program = programOf(kernel))
      for (const DescriptorOutput &o : descriptorOutputs(program))
        stagedOutputs.push_back({elementBytes(kernel.getArgumentTypes()[o.view]), o.slices});
    std::vector<RowOutcome> &rows = state->rows;
    auto live = [](const RowOutcome &o) { return o.status == "kept" || o.status == "unknown"; };
    for (size_t i = 0; i < rows.size(); ++i) {
      RowOutcome &o = rows[i];
      legality(o);
      if (o.status == "illegal")
        continue;
      for (size_t j = 0; j < i; ++j)
        if (live(rows[j]) && rows[j].bound == o.bound) {
          o.status = "duplicate";
          o.reason = "equal to row " + std::to_string(j) + " (" +
                     tuning::rowSourceName(rows[j].row->source) + " #" +
                     std::to_string(rows[j].row->index) + ") after projection";
          break;
        }
    }
    state->candidates.clear();
    for (const RowOutcome &o : rows)
      if (live(o))
        state->candidates.push_back(o.bound);
    if (state->candidates.empty()) {
      InFlightDiagnostic d = kernel.emitError()
                             << "no legal candidate for family '" << ps.family
                             << "': every row of the profile table was rejected";
      for (const RowOutcome &o : rows)
        d.attachNote() << tuning::rowSourceName(o.row->source) << " row " << o.row->index << ": "
                       << o.status << ": " << o.reason;
      return signalPassFailure();
    }
    if (failed(setConfigurations(kernel, "complete", state->candidates)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  PipelineState *state = nullptr;
};

} // namespace

std::unique_ptr<Pass> gpu::createEraseDeadValuesPass() { return createEraseDeadValues(); }
std::unique_ptr<Pass> gpu::createSelectStructurePass(PipelineState &state) {
  return std::make_unique<SelectStructurePass>(state);
}
std::unique_ptr<Pass> gpu::createAssignCacheHintsPass(PipelineState &state) {
  return std::make_unique<AssignCacheHintsPass>(state);
}
std::unique_ptr<Pass> gpu::createBuildProgramPass(PipelineState &state) {
  return std::make_unique<BuildProgramPass>(state);
}
std::unique_ptr<Pass> gpu::createProjectProfilesPass(PipelineState &state) {
  return std::make_unique<ProjectProfilesPass>(state);
}
std::unique_ptr<Pass> gpu::createFilterTritonCandidatesPass(PipelineState &state) {
  return std::make_unique<FilterTritonCandidatesPass>(state);
}
