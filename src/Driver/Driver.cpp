//===- Driver.cpp - CompileRequest -> CompileResult ------------------------===//
#include "intent/Driver/Driver.h"
#include "intent/Cache/Cache.h"
#include "intent/Cache/Key.h"
#include "intent/GPU/Pipeline.h"
#include "intent/GPU/IGPU.h"
#include "intent/KIR/KIR.h"
#include "intent/KIR/Parse.h"
#include "intent/Providers/LaunchABI.h"
#include "intent/Providers/Reference.h"
#include "intent/Support/Identity.h"
#include "intent/Tuning/ProfileTable.h"
#include "intent/Tuning/Targets.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

using namespace mlir;
using namespace intent;
using namespace intent::driver;

std::optional<Stage> driver::parseStage(const std::string &s) {
  if (s == "kir") return Stage::KIR;
  if (s == "shared") return Stage::Shared;
  if (s == "provider") return Stage::Provider;
  if (s == "full") return Stage::Full;
  return std::nullopt;
}

const char *driver::stageName(Stage s) {
  switch (s) {
  case Stage::KIR: return "kir";
  case Stage::Shared: return "shared";
  case Stage::Provider: return "provider";
  case Stage::Full: return "full";
  }
  return "?";
}

std::string driver::defaultConfigDir() {
  if (const char *env = std::getenv("INTENT_CONFIG_DIR"); env && *env)
    return env;
  llvm::SmallString<256> p(llvm::sys::path::parent_path(support::executablePath()));
  llvm::sys::path::append(p, "..", "share", "intentc", "configs");
  if (llvm::sys::fs::is_directory(p))
    return std::string(p);
  return INTENT_SOURCE_CONFIG_DIR;
}

std::unique_ptr<MLIRContext> driver::createContext() {
  DialectRegistry registry;
  kir::registerKIRDialects(registry);
  registry.insert<igpu::IGPUDialect>();
  auto ctx = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

namespace {
/// Per-request provider setup: tables and target read once, before any kernel.
struct ProviderSetup {
  bool isReference = false;
  gpu::ProviderContext ctx;
  std::string defaultsCanonical, effectiveCanonical, capsCanonical, configsDigest;
};
} // namespace

static bool setupProvider(const CompileRequest &req, const Environment &env, ProviderSetup &out,
                          llvm::raw_ostream &diag) {
  if (req.target == "reference") {
    out.isReference = true;
    return true;
  }
  std::optional<tuning::Provider> provider = tuning::parseProvider(req.target);
  if (!provider) {
    diag << "error: unknown target '" << req.target
         << "' (expected triton, cutile, bangc or reference)\n";
    return false;
  }
  auto targets = tuning::loadTargets(env.configDir + "/targets.json");
  if (!targets) {
    diag << targets.error().str() << "\n";
    return false;
  }
  std::string arch = req.arch.value_or(tuning::defaultArchFor(*provider));
  auto capsIt = targets->find(arch);
  if (capsIt == targets->end()) {
    diag << "error: unknown --arch '" << arch << "' (known:";
    for (auto &[name, caps] : *targets)
      diag << " " << name;
    diag << ")\n";
    return false;
  }
  if (capsIt->second.providerFamily != tuning::providerFamilyFor(*provider)) {
    diag << "error: --arch " << arch << " is not a " << tuning::providerFamilyFor(*provider)
         << " target, so provider '" << req.target << "' cannot compile for it\n";
    return false;
  }
  auto table = tuning::loadProfileTable(env.configDir + "/" + req.target + ".json", *provider);
  if (!table) {
    diag << table.error().str() << "\n";
    return false;
  }
  std::optional<tuning::Override> ov;
  if (req.tuningConfig) {
    auto parsed = tuning::parseOverride(*req.tuningConfig, req.tuningConfigName);
    if (!parsed) {
      diag << parsed.error().str() << "\n";
      return false;
    }
    ov = std::move(*parsed);
  }
  out.ctx.provider = *provider;
  out.ctx.caps = capsIt->second;
  out.ctx.table = tuning::applyOverride(*table, ov ? &*ov : nullptr, *provider);
  out.defaultsCanonical = tuning::canonicalJson(*table);
  out.effectiveCanonical = ov ? tuning::canonicalJson(out.ctx.table) : "none";
  out.capsCanonical = tuning::canonicalJson(out.ctx.caps);
  return true;
}

/// Content digest of the bundled configs/ (part of the compiler's identity).
static std::string configsDigest(const Environment &env) {
  std::string all;
  for (const char *name : {"targets.json", "triton.json", "cutile.json", "bangc.json"}) {
    auto buf = llvm::MemoryBuffer::getFile(env.configDir + "/" + name);
    all += name;
    all += '\0';
    if (buf)
      all += (*buf)->getBuffer().str();
    all += '\0';
  }
  return support::blake3Hex(all);
}

/// The compiler's identity: version, binary and bundled tables.
static std::string compilerIdentity(const Environment &env) {
  return std::string(support::versionString()) + " " + support::buildId() + " " +
         configsDigest(env);
}

/// The artifact key (docs/cache.md "Identity"): everything that can change the
/// output, nothing that cannot (paths, time, environment, working directory).
static cache::Key artifactKey(const CompileRequest &req, const ProviderSetup &setup,
                              const std::string &compiler, const std::string &canonicalKIR,
                              const std::string &abi) {
  cache::KeyBuilder kb;
  kb.add("compiler", compiler);
  kb.add("kir", canonicalKIR);
  kb.add("abi", abi);
  kb.add("target", req.target + " " + setup.capsCanonical);
  kb.add("profile-defaults", setup.defaultsCanonical);
  kb.add("tuning-override", setup.effectiveCanonical);
  kb.add("options", std::string("stage=") + stageName(req.stage));
  return kb.finish();
}

/// The request digest (docs/cache.md "Request index"): the raw bytes of
/// everything compile() reads before it derives the artifact keys, so equal
/// digests always yield the same kernels and keys. Names shown only in
/// diagnostics are left out: a request that succeeded once has none.
static std::string requestDigest(const CompileRequest &req, const std::string &compiler) {
  cache::KeyBuilder kb;
  kb.add("request-format", "1");
  kb.add("compiler", compiler);
  kb.add("source", req.source);
  kb.add("kernel", req.kernel ? "1" + *req.kernel : "0");
  kb.add("target", req.target);
  kb.add("arch", req.arch ? "1" + *req.arch : "0");
  for (const auto &[name, value] : req.defines) // std::map: sorted
    kb.add("define", name + "=" + value);
  kb.add("tuning-config", req.tuningConfig ? "1" + *req.tuningConfig : "0");
  kb.add("stage", stageName(req.stage));
  return kb.finish().hex;
}

/// Builds one kernel's files (no cache involved).
static bool buildKernel(const CompileRequest &req, const ProviderSetup &setup,
                        kir::KernelOp kernel, const std::string &key, KernelResult &kr,
                        std::string &stageText, std::string &log) {
  nlohmann::ordered_json identity;
  identity["compiler"] = {{"version", support::versionString()}, {"build_id", support::buildId()}};
  identity["cache_key"] = key;
  if (setup.isReference) {
    std::string source, error;
    if (!providers::emitReferencePython(kernel, source, error)) {
      mlir::emitError(kernel.getLoc()) << error;
      return false;
    }
    kr.family = "reference";
    kr.candidates = 1;
    nlohmann::ordered_json meta;
    meta["provider"] = "reference";
    meta["family"] = "reference";
    meta["kernel"] = kr.name;
    meta["abi"] = providers::abiMetadata(kernel);
    meta.update(identity);
    kr.files.push_back({"kernel.py", source});
    kr.files.push_back({"artifact.json", meta.dump(2) + "\n"});
    stageText += kir::printKIR(kernel);
    return true;
  }
  gpu::StopAfter stop = req.stage == Stage::Shared     ? gpu::StopAfter::Shared
                        : req.stage == Stage::Provider ? gpu::StopAfter::Provider
                                                       : gpu::StopAfter::Full;
  gpu::ProviderOutput out;
  llvm::raw_string_ostream logOS(log);
  if (failed(gpu::compileKernel(kernel, setup.ctx, stop, identity, out,
                                req.printIRAfterAll ? &logOS : nullptr))) {
    kr.explainJson = out.explain.dump();
    return false;
  }
  kr.family = out.family;
  kr.candidates = out.candidates;
  kr.explainJson = out.explain.dump();
  stageText += out.stageIR;
  for (auto &f : out.files)
    kr.files.push_back({f.name, f.content});
  return true;
}

/// Fills a kernel's result from its cache entry: the files, and the family and
/// candidate count from artifact.json.
static bool readEntryFiles(const cache::Entry &entry, KernelResult &kr) {
  kr.files.clear();
  kr.entryDir = entry.dir;
  for (const auto &[rel, digest] : entry.files) {
    if (rel == "compile.log") // cache-internal: keeps -o output identical to --no-cache
      continue;
    auto buf = llvm::MemoryBuffer::getFile(entry.path(rel), false, false);
    if (!buf)
      return false;
    kr.files.push_back({rel, (*buf)->getBuffer().str()});
  }
  for (const auto &f : kr.files)
    if (f.name == "artifact.json") {
      auto j = nlohmann::json::parse(f.content, nullptr, false);
      if (!j.is_discarded()) {
        kr.family = j.value("family", std::string());
        kr.candidates = j.contains("candidates") && j["candidates"].is_array()
                            ? (int)j["candidates"].size()
                            : j.value("candidate_count", 0);
      }
    }
  return true;
}

/// Serves a request from the request index without parsing it: every kernel
/// the digest recorded must still be a complete, intact entry.
static bool serveRecordedRequest(cache::Cache &cache, const std::string &digest,
                                 CompileResult &result) {
  auto recorded = cache.requestKernels(digest);
  if (!recorded || recorded->empty())
    return false; // an unreadable index falls back to the full path, which reports it
  std::vector<std::string> keys;
  for (const cache::RequestKernel &k : *recorded)
    keys.push_back(k.key);
  auto entries = cache.lookupAll(keys);
  if (!entries || !*entries)
    return false;
  CompileResult served;
  for (size_t i = 0; i < recorded->size(); ++i) {
    KernelResult kr;
    kr.name = (*recorded)[i].kernel;
    kr.key = (*recorded)[i].key;
    kr.cacheStatus = "hit";
    auto comps = nlohmann::json::parse((*recorded)[i].componentsJson, nullptr, false);
    if (comps.is_array())
      for (const auto &c : comps)
        if (c.is_array() && c.size() == 2 && c[0].is_string() && c[1].is_string())
          kr.keyComponents.emplace_back(c[0].get<std::string>(), c[1].get<std::string>());
    if (!readEntryFiles((**entries)[i], kr))
      return false; // removed after the check: the full path rebuilds it
    served.kernels.push_back(std::move(kr));
  }
  served.ok = true;
  result = std::move(served);
  return true;
}

CompileResult driver::compile(const CompileRequest &req, const Environment &env,
                              cache::Cache *cache) {
  CompileResult result;
  // Once per request, not per kernel: the tables' digest reads every bundled file.
  const std::string compiler = req.stage == Stage::KIR ? "" : compilerIdentity(env);
  // A repeated request is served from the request index before any parsing.
  const bool cachedRequest = cache && req.stage == Stage::Full && !req.printIRAfterAll &&
                             !req.keepFailedKernels;
  std::string digest;
  if (cachedRequest) {
    digest = requestDigest(req, compiler);
    if (serveRecordedRequest(*cache, digest, result))
      return result;
  }
  std::unique_ptr<MLIRContext> owned = createContext();
  MLIRContext &ctx = *owned;

  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(req.source, req.sourceName),
                        llvm::SMLoc());
  llvm::raw_string_ostream diagOS(result.diagnostics);
  SourceMgrDiagnosticHandler handler(sm, &ctx, diagOS);

  OwningOpRef<ModuleOp> module = kir::parseKIR(sm, ctx);
  if (!module)
    return result;

  std::string error;
  if (failed(kir::specializeDefines(*module, req.defines, error))) {
    diagOS << req.sourceName << ": error: " << error << "\n";
    return result;
  }

  SmallVector<kir::KernelOp> kernels;
  for (kir::KernelOp k : module->getOps<kir::KernelOp>())
    if (!req.kernel || k.getSymName() == *req.kernel)
      kernels.push_back(k);
  if (kernels.empty()) {
    diagOS << req.sourceName << ": error: no kernel named '" << *req.kernel << "' (available:";
    for (kir::KernelOp k : module->getOps<kir::KernelOp>())
      diagOS << " " << k.getSymName();
    diagOS << ")\n";
    return result;
  }

  if (req.stage == Stage::KIR) {
    OwningOpRef<ModuleOp> selected = ModuleOp::create(UnknownLoc::get(&ctx));
    for (kir::KernelOp k : kernels)
      selected->getBody()->push_back(k->clone());
    result.stageText = kir::printKIR(*selected);
  }

  ProviderSetup setup;
  if (req.stage != Stage::KIR && !setupProvider(req, env, setup, diagOS))
    return result;

  bool anyFailed = false; // only with req.keepFailedKernels
  for (kir::KernelOp kernel : kernels) {
    KernelResult kr;
    kr.name = kernel.getSymName().str();
    // The canonical KIR of one kernel: a module holding just that kernel.
    OwningOpRef<ModuleOp> single = ModuleOp::create(UnknownLoc::get(&ctx));
    single->getBody()->push_back(kernel->clone());
    std::string canonical = kir::printKIR(*single);
    kr.files.push_back({"kernel.kir", canonical});
    if (req.stage == Stage::KIR) {
      result.kernels.push_back(std::move(kr));
      continue;
    }
    cache::Key key = artifactKey(req, setup, compiler, canonical,
                                 providers::abiMetadata(kernel).dump());
    kr.key = key.hex;
    for (const auto &c : key.components)
      kr.keyComponents.emplace_back(c.name, c.digest);

    // An IR dump needs the passes to run: such a request never reads the cache.
    if (!cache || req.stage != Stage::Full || req.printIRAfterAll) {
      if (!buildKernel(req, setup, kernel, kr.key, kr, result.stageText, result.log)) {
        if (!req.keepFailedKernels)
          return result;
        anyFailed = true;
      }
      result.kernels.push_back(std::move(kr));
      continue;
    }
    // Cached path: build into the cache's private directory on a miss.
    std::string stageText;
    bool built = false;
    cache::EntryInfo info{kr.name, req.target, setup.isReference ? "" : setup.ctx.caps.arch};
    auto published = cache->getOrBuild(kr.key, info, [&](const std::string &tmpDir) {
      built = true;
      // Test seam (docs/protocol.md): hold every build this long, inside its
      // entry lock, so tests can observe in-flight work and lock contention.
      if (const char *d = std::getenv("INTENTC_TEST_COMPILE_DELAY_MS"); d && *d)
        std::this_thread::sleep_for(std::chrono::milliseconds(std::strtol(d, nullptr, 10)));
      std::string before = result.diagnostics;
      KernelResult fresh = kr;
      if (!buildKernel(req, setup, kernel, kr.key, fresh, stageText, result.log))
        return cache::BuildOutcome::failure(result.diagnostics.substr(before.size()));
      for (const auto &f : fresh.files) {
        std::ofstream os(tmpDir + "/" + f.name, std::ios::binary);
        os << f.content;
        if (!os)
          return cache::BuildOutcome::failure("cannot write " + f.name + " into the cache");
      }
      std::ofstream log(tmpDir + "/compile.log", std::ios::binary);
      log << "kernel " << kr.name << " target " << req.target << " family " << fresh.family
          << " candidates " << fresh.candidates << "\n";
      return cache::BuildOutcome::ok();
    });
    if (!published) {
      diagOS << "error: cache: " << published.error() << "\n";
      return result;
    }
    if (!published->succeeded()) {
      if (!built) // another process's identical compile failed; show its diagnostics
        diagOS << published->diagnostics;
      return result;
    }
    kr.cacheStatus = published->hit() ? "hit" : "miss";
    // Artifact metadata carries the family and candidate count for hits too.
    if (!readEntryFiles(published->entry, kr)) {
      diagOS << "error: cache: entry " << kr.key << " vanished while reading it\n";
      return result;
    }
    result.kernels.push_back(std::move(kr));
  }
  result.ok = !anyFailed;
  if (cachedRequest && result.ok) {
    std::vector<cache::RequestKernel> recorded;
    for (const KernelResult &k : result.kernels) {
      nlohmann::json comps = nlohmann::json::array();
      for (const auto &[name, d] : k.keyComponents)
        comps.push_back({name, d});
      recorded.push_back({k.name, k.key, comps.dump()});
    }
    // Best effort: without the record the next request just takes the full path.
    (void)cache->recordRequest(digest, recorded);
  }
  return result;
}
