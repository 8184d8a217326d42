//===- RequestOptions.cpp - options shared by compile and explain ---------===//
#include "intent/CLI/RequestOptions.h"
#include "intent/CLI/Commands.h"

#include "llvm/Support/raw_ostream.h"

using namespace intent;

void cli::addRequestOptions(CLI::App &app, RequestOptions &o, const char *kernelHelp) {
  app.add_option("file", o.file, "KIR file ('-' reads standard input)")->required();
  app.add_option("--target", o.target, "Provider: triton, cutile, bangc, reference")
      ->capture_default_str();
  app.add_option("--arch", o.arch, "Hardware target (default: sm_90; mlu370 for bangc)");
  app.add_option("--kernel", o.kernel, kernelHelp);
  app.add_option("-D,--define", o.defines, "NAME=VALUE: static extent or constexpr argument");
  app.add_option("--tuning-config", o.tuningConfig, "Profile override JSON file");
}

bool cli::buildRequest(const RequestOptions &o, driver::CompileRequest &req) {
  std::optional<std::string> text = readFileOrReport(o.file);
  if (!text)
    return false;
  req.source = std::move(*text);
  req.sourceName = o.file == "-" ? "<stdin>" : o.file;
  req.target = o.target;
  if (!o.arch.empty())
    req.arch = o.arch;
  if (!o.kernel.empty())
    req.kernel = o.kernel;
  for (const std::string &d : o.defines) {
    size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size()) {
      llvm::errs() << "error: --define expects NAME=VALUE, got '" << d << "'\n";
      return false;
    }
    req.defines[d.substr(0, eq)] = d.substr(eq + 1);
  }
  if (!o.tuningConfig.empty()) {
    // Read once, here: the content (not the path) is part of the request.
    std::optional<std::string> cfg = readFileOrReport(o.tuningConfig);
    if (!cfg)
      return false;
    req.tuningConfig = std::move(*cfg);
    req.tuningConfigName = o.tuningConfig;
  }
  return true;
}
