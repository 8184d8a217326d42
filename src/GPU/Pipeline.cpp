//===- Pipeline.cpp - the shared pass pipeline, explain record, emission ---===//
#include "intent/GPU/Pipeline.h"
#include "intent/GPU/Passes.h"
#include "intent/KIR/Parse.h"
#include "intent/Providers/LaunchABI.h"
#include "intent/Providers/Triton.h"
#include "intent/Support/Identity.h"
#include "intent/Tuning/Columns.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace intent;
using namespace intent::gpu;

static nlohmann::ordered_json paramJson(const Parameter &p, tuning::Provider provider) {
  std::optional<std::string> column =
      p.isLaunchBound() ? std::nullopt : tuning::columnForRole(provider, p.role);
  return {{"symbol", p.symbol}, {"role", p.role}, {"kind", p.kind},
          {"column", column ? nlohmann::ordered_json(*column) : nlohmann::ordered_json(nullptr)},
          {"domain", p.domain.empty() ? nlohmann::ordered_json("bound at launch") : nlohmann::ordered_json(p.domain)},
          {"consumers", p.consumers}, {"requirements", p.requirements}};
}

LogicalResult gpu::compileKernel(kir::KernelOp kernel, const ProviderContext &ctx, StopAfter stop,
                                 const nlohmann::ordered_json &identity, ProviderOutput &out,
                                 llvm::raw_ostream *irLog) {
  if (ctx.provider != tuning::Provider::Triton)
    return kernel.emitError() << "provider '" << tuning::providerName(ctx.provider)
                              << "' has no serializer yet; use --target triton or reference";
  // The passes annotate a copy; the caller's kernel stays as parsed.
  auto work = cast<kir::KernelOp>(kernel->clone());
  auto erase = llvm::make_scope_exit([&] { work->erase(); });
  PipelineState state;
  state.ctx = &ctx;
  PassManager pm(kernel.getContext(), kir::KernelOp::getOperationName());
  pm.addPass(createEraseDeadValuesPass());
  pm.addPass(createDecomposeContractionsPass());
  pm.addPass(createSelectStructurePass(state));
  pm.addPass(createAssignCacheHintsPass(state));
  pm.addPass(createBuildProgramPass(state));
  pm.addPass(createProjectProfilesPass(state));
  if (stop != StopAfter::Shared)
    pm.addPass(createFilterTritonCandidatesPass(state));
  if (irLog)
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; }, /*printModuleScope=*/false,
                        /*printAfterOnlyOnChange=*/false, /*printAfterOnlyOnFailure=*/false, *irLog,
                        OpPrintingFlags().assumeVerified());
  LogicalResult ran = pm.run(work);
  if (!state.structure)
    return failure();
  const ProgramStructure &ps = *state.structure;
  out.family = ps.family;
  out.candidates = state.candidates.size();

  // Explain record (also when the filter rejected every row).
  nlohmann::ordered_json ex;
  ex["kernel"] = kernel.getSymName().str();
  ex["family"] = ps.family;
  ex["structure"] = structureName(ps.kind);
  ex["facts"] = ps.facts;
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const Parameter &p : ps.parameters)
    params.push_back(paramJson(p, ctx.provider));
  ex["parameters"] = params;
  nlohmann::ordered_json rj = nlohmann::ordered_json::array();
  auto columns = tuning::columnNamesFor(ctx.provider);
  for (const RowOutcome &o : state.rows) {
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
  ex["candidates"] = state.candidates.size();
  out.explain = ex;
  if (failed(ran))
    return failure();

  out.stageIR = kir::printKIR(work);
  if (stop != StopAfter::Full)
    return success();
  // Program key: the program without its candidate rows, so winner timings
  // survive a change of the tuning table (incremental tuning).
  Attribute configurations = work->removeAttr("igpu.configurations");
  std::string programKey = support::blake3Hex(
      identity.value("compiler", nlohmann::ordered_json()).dump() + "\n" + kir::printKIR(work) +
      ctx.caps.arch);
  work->setAttr("igpu.configurations", configurations);
  std::string source, error;
  if (!providers::emitTritonPython(work, ps, state.candidates, programKey, source, error))
    return kernel.emitError() << "triton serializer: " << error;
  nlohmann::ordered_json meta;
  meta["provider"] = "triton";
  meta["arch"] = ctx.caps.arch;
  meta["capabilities"] = nlohmann::ordered_json::parse(tuning::canonicalJson(ctx.caps));
  meta["kernel"] = kernel.getSymName().str();
  meta["family"] = ps.family;
  meta["structure"] = structureName(ps.kind);
  meta["abi"] = providers::abiMetadata(kernel);
  meta["parameters"] = params;
  meta["candidates"] = state.candidates;
  meta["program_key"] = programKey;
  meta["tuning_key"] = "program_key + runtime shape/dtype/stride key + device (intent_runtime)";
  meta.update(identity);
  out.files.push_back({"kernel.mlir", out.stageIR});
  out.files.push_back({"kernel.py", source});
  out.files.push_back({"artifact.json", meta.dump(2) + "\n"});
  return success();
}
