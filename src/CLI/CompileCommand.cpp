//===- CompileCommand.cpp - intentc compile FILE ---------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/CLI/Output.h"
#include "intent/Driver/Driver.h"

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
    driver::CompileResult res = driver::compile(req, env);
    llvm::errs() << res.diagnostics;
    if (!res.ok)
      return 1;
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
