//===- CompileCommand.cpp - intentc compile FILE ---------------------------===//
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Cache/Key.h"
#include "intent/CLI/Commands.h"
#include "intent/CLI/Output.h"
#include "intent/CLI/RequestOptions.h"
#include "intent/Driver/Driver.h"
#include "intent/Server/Client.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>
#include <iostream>

using namespace intent;

namespace {
struct CompileOptions : cli::RequestOptions {
  std::string stage;
  std::string outDir;
  bool json = false;
  bool noCache = false;
  bool printKey = false;
  bool printIRAfterAll = false;
  std::string serverMode = "auto"; // docs/protocol.md "Client modes"
  std::string socket;
};
} // namespace

cli::Action cli::registerCompile(CLI::App &app) {
  auto o = std::make_shared<CompileOptions>();
  cli::addRequestOptions(app, *o, "Compile only this kernel");
  app.add_option("--stage", o->stage, "Stop after a stage and print its IR: kir, shared, provider");
  app.add_option("-o,--output", o->outDir, "Write the artifacts into this directory");
  app.add_flag("--json", o->json, "Print a JSON summary");
  app.add_flag("--no-cache", o->noCache,
               "Bypass the artifact cache (compile in memory; nothing is read or written)");
  app.add_flag("--print-key", o->printKey,
               "Print each kernel's artifact key and its components, then exit (writes nothing)");
  app.add_flag("--mlir-print-ir-after-all", o->printIRAfterAll,
               "Print each kernel to stderr after every pass of the shared pipeline (the cache is "
               "not read)");
  app.add_option("--server", o->serverMode,
                 "Compile server: auto (use one if it answers), never, require, spawn (start one)")
      ->check(CLI::IsMember({"auto", "never", "require", "spawn"}))
      ->capture_default_str();
  app.add_option("--socket", o->socket, "Compile-server socket (default: $INTENTC_SOCKET or the per-user socket)");
  return [o]() {
    driver::CompileRequest req;
    if (!cli::buildRequest(*o, req))
      return 1;
    req.printIRAfterAll = o->printIRAfterAll;
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
      cache::OpenOptions openOpts;
      openOpts.sweepIntervalSeconds = 60; // a warm hit must not read every shard
      cache::Expected<cache::Cache> opened = cache::Cache::open(*root, openOpts);
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
    llvm::errs() << res.log << res.diagnostics;
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
