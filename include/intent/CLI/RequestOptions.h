//===- RequestOptions.h - the options every compile-like command shares ---===//
#ifndef INTENT_CLI_REQUESTOPTIONS_H
#define INTENT_CLI_REQUESTOPTIONS_H

#include "intent/Driver/Driver.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace intent::cli {

/// FILE, --target, --arch, --kernel, -D/--define, --tuning-config.
struct RequestOptions {
  std::string file;
  std::string target = "triton";
  std::string arch;
  std::string kernel;
  std::vector<std::string> defines;
  std::string tuningConfig;
};

/// Registers the shared options; `kernelHelp` describes --kernel for this command.
void addRequestOptions(CLI::App &app, RequestOptions &o, const char *kernelHelp);

/// Reads the KIR file and the tuning-config file (content, not path, goes into the
/// request) and fills `req`. Prints a diagnostic and returns false on failure.
bool buildRequest(const RequestOptions &o, driver::CompileRequest &req);

} // namespace intent::cli

#endif
