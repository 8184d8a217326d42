//===- Output.h - writing compile results -----------------------*- C++ -*-===//
#ifndef INTENT_CLI_OUTPUT_H
#define INTENT_CLI_OUTPUT_H

#include "intent/Driver/Driver.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace intent::cli {

/// Writes `content` to `path`; on failure sets `error` to
/// "cannot write PATH: REASON".
bool writeFile(const std::string &path, const std::string &content, std::string &error);

/// Replaces `path` by a file holding `content` through a temporary sibling
/// renamed into place: readers see the old file or the new one, never a part.
bool replaceFile(const std::string &path, const std::string &content, std::string &error);

/// kernel -> file name -> written path
using WrittenFiles = std::map<std::string, std::map<std::string, std::string>>;

/// Publishes kernel `k`'s files as directory `dir`: they are written into a
/// temporary sibling which then takes the place of `dir`. An existing `dir` is
/// moved aside first and restored if the rename fails, so `dir` is always the
/// old artifact or the new one. A `dir` that already holds exactly these files
/// is left untouched (timestamps kept). Records each file's path in `paths`.
bool writeKernelDir(const std::string &dir, const driver::KernelResult &k,
                    std::map<std::string, std::string> &paths, std::string &error);

/// Writes every kernel's files under `dir` (`dir/<kernel>/` when there are
/// several kernels). Each directory is filled in a temporary sibling and renamed
/// into place, so a failure leaves no half-written artifact.
bool writeArtifacts(const std::string &dir, const driver::CompileResult &res,
                    WrittenFiles &written, std::string &error);

/// {"kernels": [{"name","family","candidates","files","key","cache"}]}
nlohmann::ordered_json compileSummaryJson(const driver::CompileResult &res,
                                          const WrittenFiles &written);

} // namespace intent::cli

#endif
