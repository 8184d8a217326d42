//===- PrebuildCommand.cpp - intentc prebuild MANIFEST.json ----------------===//
//
// Compiles every (file, kernel, target, arch, defines, tuning config)
// combination of a manifest in parallel, through the compile server or
// in-process with a shared cache, and lays the artifacts out as
// OUTDIR/<kernel>-<target>-<arch>-<shortkey>/ plus OUTDIR/index.json.
//
//===----------------------------------------------------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/CLI/Output.h"
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Server/Client.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>

#include <unistd.h>

using namespace intent;
using nlohmann::json;

namespace {
struct Job {
  std::string file;       // as written in the manifest
  std::string path;       // resolved
  std::optional<std::string> kernel, arch, tuningConfig;
  std::string target;
  std::map<std::string, std::string> defines;
  // results
  std::string status; // built | cached | failed
  std::string diagnostics;
  json artifacts = json::array();
};
} // namespace

cli::Action cli::registerPrebuild(CLI::App &app) {
  struct Opts {
    std::string manifest, outDir = "prebuilt", serverMode = "auto", socket;
    unsigned jobs = 0;
  };
  auto o = std::make_shared<Opts>();
  app.add_option("manifest", o->manifest, "Manifest JSON")->required();
  app.add_option("-j,--jobs", o->jobs, "Parallel compiles (default: core count)");
  app.add_option("-o,--output", o->outDir, "Output directory")->capture_default_str();
  app.add_option("--server", o->serverMode, "auto|never|require|spawn")->capture_default_str();
  app.add_option("--socket", o->socket, "Compile-server socket");
  return [o]() -> int {
    auto mode = server::parseServerMode(o->serverMode);
    if (!mode) {
      std::cerr << "error: --server must be auto, never, require or spawn\n";
      return 2;
    }
    auto text = cli::readFileOrReport(o->manifest);
    if (!text)
      return 1;
    auto parsed = cli::parseJsonOrReport(o->manifest, *text);
    if (!parsed)
      return 1;
    json m = std::move(*parsed);
    if (!m.is_object() || !m.contains("kernels") || !m["kernels"].is_array()) {
      std::cerr << o->manifest << ": error: expected {\"kernels\": [...]}\n";
      return 1;
    }
    std::string base = std::string(llvm::sys::path::parent_path(o->manifest));
    if (base.empty())
      base = ".";
    auto resolve = [&](const std::string &p) { return !p.empty() && p[0] == '/' ? p : base + "/" + p; };
    auto strList = [](const json &e, const char *k, std::vector<std::optional<std::string>> &out,
                      std::string &err) {
      out.clear();
      if (e.contains(k)) {
        if (!e[k].is_array()) {
          err = std::string("'") + k + "' must be an array of strings";
          return false;
        }
        for (const json &s : e[k]) {
          if (!s.is_string()) {
            err = std::string("'") + k + "' must be an array of strings";
            return false;
          }
          out.push_back(s.get<std::string>());
        }
      }
      if (out.empty())
        out.push_back(std::nullopt);
      return true;
    };
    std::vector<Job> jobs;
    std::map<std::string, std::string> sources, configs;
    size_t idx = 0;
    for (const json &e : m["kernels"]) {
      ++idx;
      std::string where = o->manifest + ": kernels[" + std::to_string(idx - 1) + "]: ";
      if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) {
        std::cerr << where << "error: needs a string 'file'\n";
        return 1;
      }
      std::vector<std::optional<std::string>> kernels, targets, arches, cfgs;
      std::string err;
      if (!strList(e, "kernels", kernels, err) || !strList(e, "targets", targets, err) ||
          !strList(e, "arches", arches, err) || !strList(e, "tuning_configs", cfgs, err)) {
        std::cerr << where << "error: " << err << "\n";
        return 1;
      }
      std::vector<std::map<std::string, std::string>> defs;
      if (e.contains("defines")) {
        if (!e["defines"].is_array()) {
          std::cerr << where << "error: 'defines' must be an array of objects\n";
          return 1;
        }
        for (const json &d : e["defines"]) {
          if (!d.is_object()) {
            std::cerr << where << "error: 'defines' must be an array of objects\n";
            return 1;
          }
          std::map<std::string, std::string> one;
          for (auto it = d.begin(); it != d.end(); ++it)
            one[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
          defs.push_back(one);
        }
      }
      if (defs.empty())
        defs.emplace_back();
      for (auto &k : kernels)
        for (auto &t : targets)
          for (auto &a : arches)
            for (auto &d : defs)
              for (auto &c : cfgs) {
                Job j;
                j.file = e["file"].get<std::string>();
                j.path = resolve(j.file);
                j.kernel = k;
                j.target = t ? *t : "triton";
                j.arch = a;
                j.defines = d;
                if (c)
                  j.tuningConfig = resolve(*c);
                jobs.push_back(std::move(j));
              }
    }
    for (const Job &j : jobs) {
      if (!sources.count(j.path)) {
        auto s = cli::readFileOrReport(j.path);
        if (!s)
          return 1;
        sources[j.path] = std::move(*s);
      }
      if (j.tuningConfig && !configs.count(*j.tuningConfig)) {
        auto s = cli::readFileOrReport(*j.tuningConfig);
        if (!s)
          return 1;
        configs[*j.tuningConfig] = std::move(*s);
      }
    }

    // In-process compiles share one cache (opened lazily: a server may do all the work).
    std::mutex cacheMu;
    std::optional<cache::Cache> localCache;
    bool cacheFailed = false;
    auto getCache = [&]() -> cache::Cache * {
      std::lock_guard<std::mutex> g(cacheMu);
      if (!localCache && !cacheFailed) {
        auto root = cache::resolveCacheRoot(cache::processEnv());
        auto c = root ? cache::Cache::open(*root) : cache::Expected<cache::Cache>(root.takeError());
        if (c)
          localCache.emplace(std::move(*c));
        else {
          cacheFailed = true;
          std::cerr << "warning: compiling without a cache: " << c.error() << "\n";
        }
      }
      return localCache ? &*localCache : nullptr;
    };
    driver::Environment env{driver::defaultConfigDir()};
    if (auto ec = llvm::sys::fs::create_directories(o->outDir)) {
      std::cerr << o->outDir << ": error: " << ec.message() << "\n";
      return 1;
    }
    unsigned nThreads = o->jobs ? o->jobs : std::max(1u, std::thread::hardware_concurrency());
    nThreads = std::min<unsigned>(nThreads, std::max<size_t>(1, jobs.size()));
    std::atomic<size_t> next{0}, done{0}, nBuilt{0}, nCached{0}, nFailed{0};
    std::mutex outMu;
    bool tty = ::isatty(2);
    auto worker = [&]() {
      for (size_t i; (i = next++) < jobs.size();) {
        Job &j = jobs[i];
        driver::CompileRequest req;
        req.source = sources[j.path];
        req.sourceName = j.file;
        req.kernel = j.kernel;
        req.target = j.target;
        req.arch = j.arch;
        req.defines = j.defines;
        if (j.tuningConfig) {
          req.tuningConfig = configs[*j.tuningConfig];
          req.tuningConfigName = *j.tuningConfig;
        }
        std::string err;
        server::ClientOptions co{*mode, o->socket};
        auto served = server::compileViaServer(req, co, err);
        driver::CompileResult res;
        if (served)
          res = std::move(*served);
        else if (err.empty())
          res = driver::compile(req, env, getCache());
        else
          res.diagnostics = "error: " + err + "\n";
        if (!res.ok) {
          j.status = "failed";
          j.diagnostics = res.diagnostics;
          ++nFailed;
        } else {
          bool anyMiss = false;
          for (const auto &k : res.kernels) {
            if (k.cacheStatus != "hit")
              anyMiss = true;
            std::string dirName = k.name + "-" + j.target + "-" + (j.arch ? *j.arch : "default") +
                                  "-" + k.key.substr(0, 12);
            std::string werr;
            std::map<std::string, std::string> paths;
            if (!cli::writeKernelDir(o->outDir + "/" + dirName, k, paths, werr)) {
              j.status = "failed";
              j.diagnostics = "error: " + werr + "\n";
              break;
            }
            json files = json::array();
            for (const auto &f : k.files)
              files.push_back(f.name);
            j.artifacts.push_back({{"kernel", k.name},
                                   {"family", k.family},
                                   {"candidates", k.candidates},
                                   {"key", k.key},
                                   {"cache", k.cacheStatus},
                                   {"dir", dirName},
                                   {"files", files}});
          }
          if (j.status == "failed")
            ++nFailed;
          else {
            j.status = anyMiss ? "built" : "cached";
            ++(anyMiss ? nBuilt : nCached);
          }
        }
        size_t d = ++done;
        std::lock_guard<std::mutex> g(outMu);
        if (tty) {
          std::cerr << "\r[" << d << "/" << jobs.size() << "] built " << nBuilt << ", cached "
                    << nCached << ", failed " << nFailed << std::flush;
        } else {
          std::cerr << "[" << d << "/" << jobs.size() << "] " << j.status << " " << j.file
                    << (j.kernel ? " " + *j.kernel : std::string(" (all kernels)")) << " "
                    << j.target << " " << (j.arch ? *j.arch : "default") << "\n";
        }
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < nThreads; ++t)
      threads.emplace_back(worker);
    for (auto &t : threads)
      t.join();
    if (tty)
      std::cerr << "\n";

    json index = {{"manifest", o->manifest}, {"artifacts", json::array()}, {"failed", json::array()}};
    for (const Job &j : jobs) {
      json req = {{"file", j.file},
                  {"kernel", j.kernel ? json(*j.kernel) : json(nullptr)},
                  {"target", j.target},
                  {"arch", j.arch ? json(*j.arch) : json(nullptr)},
                  {"defines", j.defines},
                  {"tuning_config", j.tuningConfig ? json(*j.tuningConfig) : json(nullptr)}};
      if (j.status == "failed") {
        req["diagnostics"] = j.diagnostics;
        index["failed"].push_back(req);
        continue;
      }
      for (json a : j.artifacts) {
        a["request"] = req;
        index["artifacts"].push_back(a);
      }
    }
    std::string indexErr;
    if (!cli::replaceFile(o->outDir + "/index.json", index.dump(2) + "\n", indexErr)) {
      std::cerr << "error: " << indexErr << "\n";
      return 1;
    }
    std::cout << "prebuild: " << jobs.size() << " request(s): " << nBuilt << " built, " << nCached
              << " cached, " << nFailed << " failed\n";
    for (const Job &j : jobs)
      if (j.status == "failed")
        std::cout << "  FAILED " << j.file << (j.kernel ? " " + *j.kernel : std::string()) << " "
                  << j.target << " " << (j.arch ? *j.arch : "default") << ": "
                  << j.diagnostics.substr(0, j.diagnostics.find('\n')) << "\n";
    return nFailed ? 1 : 0;
  };
}
