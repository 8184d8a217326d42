//===- CompileCommand.cpp - intentc compile FILE ---------------------------===//
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Cache/Key.h"
#include "intent/CLI/Commands.h"
#include "intent/CLI/Output.h"
#include "intent/Driver/Driver.h"
#include "intent/Server/Client.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>
#include <iostream>

using namespace intent;

namespace {
struct CompileOptions {
  std::string file;
  std::string target = "triton";
  std::string arch;
  std::string kernel;
  std::vector<std::string> defines;
  std::string tuningConfig;
  std::string stage;
  std::string outDir;
  bool json = false;
  bool noCache = false;
  bool printKey = false;
  std::string serverMode = "auto"; // docs/protocol.md "Client modes"
  std::string socket;
};
} // namespace

/// Splits NAME=VALUE; reports malformed defines.
static bool parseDefines(const std::vector<std::string> &in, std::map<std::string, std::string> &out) {
  for (const std::string &d : in) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size()) {
      llvm::errs() << "error: --define expects NAME=VALUE, got '" << d << "'\n";
      return false;
    }
    out[d.substr(0, eq)] = d.substr(eq + 1);
  }
  return true;
}

cli::Action cli::registerCompile(CLI::App &app) {
  auto o = std::make_shared<CompileOptions>();
  app.add_option("file", o->file, "KIR file ('-' reads standard input)")->required();
  app.add_option("--target", o->target, "Provider: triton, cutile, bangc, reference")
      ->capture_default_str();
  app.add_option("--arch", o->arch, "Hardware target (default: sm_90; mlu370 for bangc)");
  app.add_option("--kernel", o->kernel, "Compile only this kernel");
  app.add_option("-D,--define", o->defines, "NAME=VALUE: static extent or constexpr argument");
  app.add_option("--tuning-config", o->tuningConfig, "Profile override JSON file");
  app.add_option("--stage", o->stage, "Stop after a stage and print its IR: kir, shared, provider");
  app.add_option("-o,--output", o->outDir, "Write the artifacts into this directory");
  app.add_flag("--json", o->json, "Print a JSON summary");
  app.add_flag("--no-cache", o->noCache,
               "Bypass the artifact cache (compile in memory; nothing is read or written)");
  app.add_flag("--print-key", o->printKey,
               "Print each kernel's artifact key and its components, then exit (writes nothing)");
  app.add_option("--server", o->serverMode,
                 "Compile server: auto (use one if it answers), never, require, spawn (start one)")
      ->check(CLI::IsMember({"auto", "never", "require", "spawn"}))
      ->capture_default_str();
  app.add_option("--socket", o->socket, "Compile-server socket (default: $INTENTC_SOCKET or the per-user socket)");
  return [o]() {
    driver::CompileRequest req;
    std::optional<std::string> text = readFileOrReport(o->file);
    if (!text)
      return 1;
    req.source = std::move(*text);
    req.sourceName = o->file == "-" ? "<stdin>" : o->file;
    req.target = o->target;
    if (!o->arch.empty())
      req.arch = o->arch;
    if (!o->kernel.empty())
      req.kernel = o->kernel;
    if (!parseDefines(o->defines, req.defines))
      return 1;
    if (!o->tuningConfig.empty()) {
      // Read once, here: the content (not the path) is part of the request.
      std::optional<std::string> cfg = readFileOrReport(o->tuningConfig);
      if (!cfg)
        return 1;
      req.tuningConfig = std::move(*cfg);
      req.tuningConfigName = o->tuningConfig;
    }
    if (!o->stage.empty()) {
      auto stage = driver::parseStage(o->stage);
      if (!stage || *stage == driver::Stage::Full) {
        llvm::errs() << "error: --stage must be kir, shared or provider, got '" << o->stage
                     << "'\n";
        return 1;
      }
      req.stage = *stage;
    }
    driver::Environment env{driver::defaultConfigDir()};

    if (o->printKey) {
      // The key needs the canonical KIR and the resolved provider setup; an
      // uncached in-memory compile computes it without touching the cache or
      // any output directory.
      driver::CompileRequest keyReq = req;
      keyReq.stage = driver::Stage::Full;
      if (!o->stage.empty()) // the stage is an option that changes the output
        keyReq.stage = req.stage;
      if (keyReq.stage == driver::Stage::KIR) {
        llvm::errs() << "error: --print-key: stage 'kir' output is not cached, it has no key\n";
        return 1;
      }
      driver::CompileResult res = driver::compile(keyReq, env, nullptr);
      llvm::errs() << res.diagnostics;
      if (!res.ok)
        return 1;
      if (o->json) {
        nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
        for (const auto &k : res.kernels) {
          nlohmann::ordered_json comps = nlohmann::ordered_json::object();
          for (const auto &[name, digest] : k.keyComponents)
            comps[name] = digest;
          kernels.push_back({{"name", k.name},
                             {"key", k.key},
                             {"format_version", cache::kCacheFormatVersion},
                             {"components", comps}});
        }
        std::cout << nlohmann::ordered_json{{"kernels", kernels}}.dump(2) << "\n";
        return 0;
      }
      for (const auto &k : res.kernels) {
        std::cout << k.name << ": key " << k.key << "\n";
        std::cout << "  format-version " << cache::kCacheFormatVersion << "\n";
        for (const auto &[name, digest] : k.keyComponents)
          std::cout << "  " << name << " " << digest << "\n";
      }
      return 0;
    }

    // The compile server (same driver, same cache, same bytes); --no-cache stays in-process.
    std::optional<driver::CompileResult> served;
    if (!o->noCache) {
      std::string serr;
      served = server::compileViaServer(
          req, {*server::parseServerMode(o->serverMode), o->socket}, serr);
      if (!served && !serr.empty()) {
        llvm::errs() << "error: " << serr << "\n";
        return 1;
      }
    }

    // The cache: only a full compile is cached (stages print IR in memory).
    std::optional<cache::Cache> cacheObj;
    if (!served && !o->noCache && req.stage == driver::Stage::Full) {
      cache::Expected<std::string> root = cache::resolveCacheRoot(cache::processEnv());
      if (!root) {
        llvm::errs() << "error: cache: " << root.error()
                     << " (use --no-cache to compile without the cache)\n";
        return 1;
      }
      cache::Expected<cache::Cache> opened = cache::Cache::open(*root);
      if (!opened) {
        llvm::errs() << "error: cache: cannot open " << *root << ": " << opened.error()
                     << " (use --no-cache to compile without the cache)\n";
        return 1;
      }
      cacheObj.emplace(std::move(*opened));
      if (const auto &moved = cacheObj->recoveredCorruptIndex())
        llvm::errs() << "warning: cache: the index " << cacheObj->indexPath()
                     << " was not a valid SQLite database; moved it aside to " << *moved
                     << " and started a fresh index\n";
    }

    driver::CompileResult res =
        served ? std::move(*served) : driver::compile(req, env, cacheObj ? &*cacheObj : nullptr);
    llvm::errs() << res.diagnostics;
    if (!res.ok)
      return 1;
    if (!o->json)
      for (const auto &k : res.kernels)
        llvm::errs() << k.name << ": cache: " << k.cacheStatus << "\n";
    std::map<std::string, std::map<std::string, std::string>> written;
    if (!o->outDir.empty()) {
      std::string err;
      if (!writeArtifacts(o->outDir, res, written, err)) {
        llvm::errs() << o->outDir << ": error: " << err << "\n";
        return 1;
      }
    }
    if (o->json) {
      std::cout << compileSummaryJson(res, written).dump(2) << "\n";
    } else if (o->outDir.empty()) {
      if (!o->stage.empty())
        std::cout << res.stageText;
      else
        for (const auto &k : res.kernels)
          for (const auto &f : k.files)
            if (f.name == "kernel.py" || f.name == "kernel.mlu")
              std::cout << f.content;
    }
    return 0;
  };
}
