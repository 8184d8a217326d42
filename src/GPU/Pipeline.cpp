//===- Pipeline.cpp - structure, projection, provider filtering, emission ---===//
#include "intent/GPU/Pipeline.h"
#include "intent/GPU/IGPU.h"
#include "intent/GPU/Structure.h"
#include "intent/Providers/LaunchABI.h"
#include "intent/Providers/Triton.h"
#include "intent/Support/Identity.h"
#include "intent/Tuning/Columns.h"
#include "intent/Tuning/Projection.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace intent;
using namespace intent::gpu;

namespace {
struct RowOutcome {
  const tuning::EffectiveRow *row;
  providers::Candidate bound;
  std::string status = "kept"; ///< kept | illegal | unsupported | duplicate | unknown
  std::string reason;
};
} // namespace

/// Projects one profile row onto the typed parameter domains (tuning.md §4).
static providers::Candidate project(const ProgramStructure &ps, const tuning::EffectiveRow &row,
                                    tuning::Provider provider) {
  providers::Candidate c;
  for (const Parameter &p : ps.parameters) {
    if (p.column.empty())
      continue; // bound at launch (coverage)
    auto idx = tuning::columnIndex(provider, p.column);
    int64_t request = idx ? row.values[*idx] : p.domain.front();
    c[p.symbol] = tuning::projectPreference(p.domain, request);
  }
  return c;
}

/// Triton legality of a complete candidate (tuning.md §5).
static void tritonLegality(const ProgramStructure &ps, const tuning::TargetCaps &caps,
                           RowOutcome &o) {
  auto get = [&](const char *k) { return o.bound.count(k) ? o.bound.at(k) : 1; };
  int64_t warps = get("NUM_WARPS");
  int64_t threads = warps * 32;
  int64_t elems = 0;
  switch (ps.kind) {
  case StructureKind::Tiles: elems = get("OWN_M") * get("OWN_N"); break;
  case StructureKind::RowReduction: elems = get("OWN_M") * get("RED_N"); break;
  case StructureKind::RowScan: elems = get("OWN_M") * get("SCAN_N"); break;
  case StructureKind::SplitReduction: elems = get("RED_M") * get("OWN_N"); break;
  case StructureKind::Matmul: elems = get("BM") * get("BN"); break;
  }
  if (elems > (int64_t(1) << 20)) {
    o.status = "illegal";
    o.reason = "fragment of " + std::to_string(elems) + " elements exceeds Triton's 2^20";
    return;
  }
  if (threads > caps.maxThreadsPerBlock && caps.maxThreadsPerBlock) {
    o.status = "illegal";
    o.reason = std::to_string(warps) + " warps exceed " + std::to_string(caps.maxThreadsPerBlock) +
               " threads per block";
    return;
  }
  // Register footprint: at most 256 live fp32 values per thread in a tile.
  if (ps.kind != StructureKind::Matmul && elems / threads > 256) {
    o.status = "illegal";
    o.reason = "register footprint " + std::to_string(elems / threads) +
               " elements per thread exceeds 256";
    return;
  }
  if (ps.kind == StructureKind::Matmul) {
    int64_t bytes = 2; // operand element width (16-bit dominant); f32 doubles it
    if (ps.dominantBits > 16)
      bytes = 4;
    int64_t smem = (get("BM") + get("BN")) * get("BK") * bytes * std::max<int64_t>(get("NUM_STAGES"), 1);
    if (caps.smemPerBlock && smem > caps.smemPerBlock) {
      o.status = "illegal";
      o.reason = "pipeline needs " + std::to_string(smem / 1024) + " KiB shared memory, above " +
                 std::to_string(caps.smemPerBlock / 1024) + " KiB per block";
      return;
    }
    if (get("BM") * get("BN") / threads > 256) {
      o.status = "unknown";
      o.reason = "large accumulator per thread; register allocation is left to Triton";
    }
  }
}

static nlohmann::ordered_json paramJson(const Parameter &p) {
  return {{"symbol", p.symbol}, {"role", p.role}, {"kind", p.kind},
          {"column", p.column.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.column)},
          {"domain", p.domain.empty() ? nlohmann::ordered_json("bound at launch") : nlohmann::ordered_json(p.domain)},
          {"consumers", p.consumers}, {"requirements", p.requirements}};
}

/// The program's typed parameters as #igpu.parameter attributes.
static ArrayAttr parameterAttrs(MLIRContext *ctx, const ProgramStructure &ps) {
  Builder b(ctx);
  SmallVector<Attribute> params;
  auto strings = [&](const std::vector<std::string> &v) {
    SmallVector<Attribute> a;
    for (const auto &x : v)
      a.push_back(b.getStringAttr(x));
    return b.getArrayAttr(a);
  };
  for (const Parameter &p : ps.parameters)
    params.push_back(igpu::ParameterAttr::get(ctx, p.symbol, p.role, p.kind,
                                              b.getDenseI64ArrayAttr(p.domain),
                                              strings(p.consumers), strings(p.requirements)));
  return b.getArrayAttr(params);
}

/// Attaches the shared-stage facts to a clone of the kernel as `igpu.*` attributes
/// and prints it. `rows` (unique complete bindings) becomes a verified
/// #igpu.configurations set of `stage`; without rows only the parameters are shown.
static FailureOr<std::string> stageIR(kir::KernelOp kernel, const ProgramStructure &ps,
                                      const std::vector<providers::Candidate> *rows,
                                      StringRef stage) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(ctx);
  Operation *clone = kernel->clone();
  auto erase = llvm::make_scope_exit([&] { clone->erase(); });
  clone->setAttr("igpu.family", b.getStringAttr(ps.family));
  clone->setAttr("igpu.structure", b.getStringAttr(structureName(ps.kind)));
  ArrayAttr params = parameterAttrs(ctx, ps);
  clone->setAttr("igpu.parameters", params);
  if (rows) {
    SmallVector<Attribute> rowAttrs;
    for (const providers::Candidate &c : *rows) {
      SmallVector<int64_t> values;
      for (const Parameter &p : ps.parameters)
        if (!p.domain.empty())
          values.push_back(c.count(p.symbol) ? c.at(p.symbol) : p.domain.front());
      rowAttrs.push_back(b.getDenseI64ArrayAttr(values));
    }
    auto set = igpu::ConfigurationSetAttr::getChecked(
        [&] { return kernel.emitError() << "internal: invalid configuration set: "; }, ctx, stage,
        params, b.getArrayAttr(rowAttrs));
    if (!set)
      return failure();
    clone->setAttr("igpu.configurations", set);
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  clone->print(os, OpPrintingFlags().assumeVerified());
  os << "\n";
  return s;
}

LogicalResult gpu::compileKernel(kir::KernelOp kernel, const ProviderContext &ctx, StopAfter stop,
                                 const nlohmann::ordered_json &identity, ProviderOutput &out) {
  if (ctx.provider != tuning::Provider::Triton)
    return kernel.emitError() << "provider '" << tuning::providerName(ctx.provider)
                              << "' has no serializer yet; use --target triton or reference";
  kernel.getContext()->getOrLoadDialect<igpu::IGPUDialect>();
  std::optional<ProgramStructure> ps = analyzeKernel(kernel, ctx.caps);
  if (!ps)
    return failure();
  out.family = ps->family;

  // Shared stage: project every row of the selected family.
  std::vector<RowOutcome> rows;
  for (const tuning::EffectiveRow &row : ctx.table.rows(ps->family))
    rows.push_back({&row, project(*ps, row, ctx.provider)});
  // Provider stage: legality, options without consumers, deduplication.
  for (size_t i = 0; i < rows.size(); ++i) {
    RowOutcome &o = rows[i];
    if (ps->kind != StructureKind::Matmul)
      o.bound.erase("NUM_STAGES"); // no pipeline: stage differences are merged
    tritonLegality(*ps, ctx.caps, o);
    if (o.status == "illegal")
      continue;
    for (size_t j = 0; j < i; ++j)
      if ((rows[j].status == "kept" || rows[j].status == "unknown") && rows[j].bound == o.bound) {
        o.status = "duplicate";
        o.reason = "equal to row " + std::to_string(j) + " (" +
                   tuning::rowSourceName(rows[j].row->source) + " #" +
                   std::to_string(rows[j].row->index) + ") after projection";
        break;
      }
  }
  std::vector<providers::Candidate> candidates;
  for (const RowOutcome &o : rows)
    if (o.status == "kept" || o.status == "unknown")
      candidates.push_back(o.bound);
  out.candidates = candidates.size();

  // Explain record.
  nlohmann::ordered_json ex;
  ex["kernel"] = kernel.getSymName().str();
  ex["family"] = ps->family;
  ex["structure"] = structureName(ps->kind);
  ex["facts"] = ps->facts;
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const Parameter &p : ps->parameters)
    params.push_back(paramJson(p));
  ex["parameters"] = params;
  nlohmann::ordered_json rj = nlohmann::ordered_json::array();
  auto columns = tuning::columnNamesFor(ctx.provider);
  for (const RowOutcome &o : rows) {
    nlohmann::ordered_json requested = nlohmann::ordered_json::object();
    for (size_t c = 0; c < columns.size(); ++c)
      requested[columns[c]] = o.row->values[c];
    nlohmann::ordered_json r{{"source", tuning::rowSourceName(o.row->source)},
                             {"index", o.row->index},
                             {"requested", requested},
                             {"bound", o.bound},
                             {"status", o.status}};
    if (!o.reason.empty())
      r["reason"] = o.reason;
    rj.push_back(r);
  }
  ex["rows"] = rj;
  ex["candidates"] = candidates.size();
  out.explain = ex;

  if (candidates.empty()) {
    InFlightDiagnostic d = kernel.emitError()
                           << "no legal candidate for family '" << ps->family << "': every row of the "
                           << "profile table was rejected";
    for (const RowOutcome &o : rows)
      d.attachNote() << tuning::rowSourceName(o.row->source) << " row " << o.row->index << ": "
                     << o.status << ": " << o.reason;
    return failure();
  }
  if (stop == StopAfter::Shared) {
    // Shared stage: every projected row, deduplicated, before provider legality.
    std::vector<providers::Candidate> projected;
    for (const RowOutcome &o : rows)
      if (llvm::find(projected, o.bound) == projected.end())
        projected.push_back(o.bound);
    FailureOr<std::string> ir = stageIR(kernel, *ps, &projected, "shared");
    if (failed(ir))
      return failure();
    out.stageIR = *ir;
    return success();
  }
  FailureOr<std::string> completeIR = stageIR(kernel, *ps, &candidates, "complete");
  if (failed(completeIR))
    return failure();
  if (stop == StopAfter::Provider) {
    out.stageIR = *completeIR;
    return success();
  }
  // Program key: the program without its candidate rows, so winner timings
  // survive a change of the tuning table (incremental tuning).
  std::string programKey = support::blake3Hex(
      identity.value("compiler", nlohmann::ordered_json()).dump() + "\n" +
      *stageIR(kernel, *ps, nullptr, "program") + ctx.caps.arch);
  std::string source, error;
  if (!providers::emitTritonPython(kernel, *ps, candidates, programKey, source, error))
    return kernel.emitError() << "triton serializer: " << error;
  nlohmann::ordered_json meta;
  meta["provider"] = "triton";
  meta["arch"] = ctx.caps.arch;
  meta["capabilities"] = nlohmann::ordered_json::parse(tuning::canonicalJson(ctx.caps));
  meta["kernel"] = kernel.getSymName().str();
  meta["family"] = ps->family;
  meta["structure"] = structureName(ps->kind);
  meta["abi"] = providers::abiMetadata(kernel);
  meta["parameters"] = params;
  meta["candidates"] = candidates;
  meta["program_key"] = programKey;
  meta["tuning_key"] = "program_key + runtime shape/dtype/stride key + device (intent_runtime)";
  meta.update(identity);
  out.files.push_back({"kernel.mlir", *completeIR});
  out.files.push_back({"kernel.py", source});
  out.files.push_back({"artifact.json", meta.dump(2) + "\n"});
  out.stageIR = *completeIR;
  return success();
}
