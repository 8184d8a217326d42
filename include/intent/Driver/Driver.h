//===- Driver.h - the one compile entry point -------------------*- C++ -*-===//
//
// CLI, server and prebuild all compile through compile(); there is no second
// compile path. A request carries content, never paths the server would have to
// resolve: the client reads the KIR and tuning-config files.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_DRIVER_DRIVER_H
#define INTENT_DRIVER_DRIVER_H

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <memory>

namespace mlir {
class MLIRContext;
}

namespace intent::cache {
class Cache;
}

namespace intent::driver {

enum class Stage { KIR, Shared, Provider, Full };
std::optional<Stage> parseStage(const std::string &s);
const char *stageName(Stage s);

struct CompileRequest {
  std::string source;      ///< KIR text
  std::string sourceName;  ///< shown in diagnostics (the path the client read)
  std::optional<std::string> kernel; ///< only this kernel; default all
  std::string target = "triton";
  std::optional<std::string> arch; ///< default per target
  std::map<std::string, std::string> defines;
  std::optional<std::string> tuningConfig;     ///< override file content
  std::string tuningConfigName = "<tuning-config>"; ///< shown in diagnostics
  Stage stage = Stage::Full;
  bool printIRAfterAll = false; ///< --mlir-print-ir-after-all (to the log)
  /// `intentc explain`: a kernel whose uncached provider stage fails still gets
  /// its KernelResult (with explainJson); the remaining kernels are compiled and
  /// result.ok is false.
  bool keepFailedKernels = false;
};

/// One generated file: name within the artifact directory and content.
struct ArtifactFile {
  std::string name;
  std::string content;
};

struct KernelResult {
  std::string name;
  std::string family;      ///< empty before the shared stage
  int candidates = 0;
  std::vector<ArtifactFile> files;
  std::string key;         ///< artifact cache key
  std::vector<std::pair<std::string, std::string>> keyComponents; ///< name -> digest
  std::string cacheStatus = "off"; ///< hit | miss | off
  std::string entryDir;    ///< cache entry directory when cached
  /// Family, facts, parameters and every profile row's fate (`intentc explain`);
  /// JSON text, filled by uncached shared/provider/full compiles.
  std::string explainJson;
};

struct CompileResult {
  bool ok = false;
  std::string diagnostics; ///< formatted FILE:LINE:COL: error: ... lines
  std::string log;         ///< pass/IR log (--mlir-print-ir-after-all etc.)
  std::string stageText;   ///< IR of every selected kernel at the stop stage
  std::vector<KernelResult> kernels;
};

/// Resolved tool paths and defaults shared by every compile.
struct Environment {
  std::string configDir; ///< bundled configs/ (targets.json, <provider>.json)
};

/// Compiles one request. Without a cache everything stays in memory; with one,
/// each full-stage kernel is looked up by its artifact key and built into the
/// cache on a miss (per-entry locking, atomic publish; see docs/cache.md). The
/// result's files are the same bytes either way.
CompileResult compile(const CompileRequest &req, const Environment &env,
                      cache::Cache *cache = nullptr);

/// The context every command reads KIR in: the KIR and igpu dialects loaded
/// (stage IR carries #igpu attributes), single-threaded, and diagnostics that
/// point at the source without dumping the op in MLIR's generic form.
std::unique_ptr<mlir::MLIRContext> createContext();

/// Locates the bundled configs/ directory: $INTENT_CONFIG_DIR, then
/// <exe>/../share/intentc/configs, then the source tree's configs/.
std::string defaultConfigDir();

} // namespace intent::driver

#endif
