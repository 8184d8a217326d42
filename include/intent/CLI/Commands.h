//===- Commands.h - intentc subcommands -------------------------*- C++ -*-===//
#ifndef INTENT_CLI_COMMANDS_H
#define INTENT_CLI_COMMANDS_H

#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>
#include <functional>
#include <optional>
#include <string>

namespace intent::cli {

/// A subcommand registers its options on `app` and returns the action that runs
/// it (returning the process exit code) once parsing succeeded.
using Action = std::function<int()>;

Action registerVerify(CLI::App &app);
Action registerCompile(CLI::App &app);
Action registerInfo(CLI::App &app);
Action registerExplain(CLI::App &app);
Action registerProfiles(CLI::App &app);
Action registerCache(CLI::App &app);
Action registerServe(CLI::App &app);
Action registerServer(CLI::App &app);
Action registerPrebuild(CLI::App &app);
Action registerWinners(CLI::App &app);

/// Reads a whole file; on failure prints `PATH: error: cannot read file: REASON`.
std::optional<std::string> readFileOrReport(const std::string &path);

/// Parses a JSON document read from PATH; on a syntax error prints
/// `PATH:LINE:COL: error: invalid JSON: REASON`.
std::optional<nlohmann::json> parseJsonOrReport(const std::string &path, const std::string &text);

} // namespace intent::cli

#endif
