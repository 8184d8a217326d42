//===- Main.cpp - intentc command line ------------------------------------===//
#include "intent/CLI/Main.h"
#include "intent/CLI/Commands.h"
#include "intent/Support/Identity.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

using namespace intent;

std::optional<std::string> cli::readFileOrReport(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buf) {
    llvm::errs() << path << ": error: cannot read file: " << buf.getError().message() << "\n";
    return std::nullopt;
  }
  return (*buf)->getBuffer().str();
}

std::optional<nlohmann::json> cli::parseJsonOrReport(const std::string &path,
                                                     const std::string &text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // e.byte counts from 1 and points at the offending character (one past the
    // end for a truncated document).
    size_t end = std::min<size_t>(e.byte ? e.byte - 1 : 0, text.size());
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < end; ++i)
      if (text[i] == '\n')
        ++line, col = 1;
      else
        ++col;
    // what(): "[json.exception.parse_error.101] parse error at line L, column C: REASON"
    std::string what = e.what();
    size_t at = what.find(": ", what.find("] "));
    llvm::errs() << path << ":" << line << ":" << col
                 << ": error: invalid JSON: " << (at == std::string::npos ? what : what.substr(at + 2))
                 << "\n";
    return std::nullopt;
  }
}

int cli::main(int argc, char **argv) {
  CLI::App app{"intentc: the Intent kernel compiler and compile server"};
  app.set_version_flag("--version", std::string("intentc ") + support::versionString());
  app.require_subcommand(1);
  app.fallthrough(false);

  // Only the invoked subcommand gets its options: building every subcommand's
  // options was a quarter of a warm cache hit's instructions. The others stay
  // listed (name and description) for --help and for CLI11's own errors.
  // The top level has only flags, so the first argument not starting with '-'
  // names the subcommand.
  const char *invoked = nullptr;
  for (int i = 1; i < argc && !invoked; ++i)
    if (argv[i][0] != '-')
      invoked = argv[i];
  std::vector<std::pair<CLI::App *, Action>> commands;
  auto add = [&](const char *name, const char *help, Action (*reg)(CLI::App &)) {
    CLI::App *sub = app.add_subcommand(name, help);
    if (invoked && std::strcmp(invoked, name) == 0)
      commands.emplace_back(sub, reg(*sub));
  };
  add("verify", "Parse and verify KIR files", registerVerify);
  add("compile", "Compile a KIR file for a provider", registerCompile);
  add("info", "Show version, build id and bundled configuration paths", registerInfo);
  add("explain", "Explain family, parameters and profile rows of each kernel", registerExplain);
  add("profiles", "Show the effective profile tables", registerProfiles);
  add("cache", "Inspect and maintain the artifact cache", registerCache);
  add("serve", "Run the compile server", registerServe);
  add("server", "Start, stop or query the compile server", registerServer);
  add("prebuild", "Compile every combination of a manifest in parallel", registerPrebuild);
  add("winners", "Manage runtime winner timings", registerWinners);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (auto &[sub, action] : commands)
    if (sub->parsed())
      return action();
  return 2;
}
