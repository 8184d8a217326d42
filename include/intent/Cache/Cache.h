//===- Cache.h - artifact cache: entries, publishing, index -----*- C++ -*-===//
//
// Layout under the root (see docs/cache.md):
//   index.sqlite                      SQLite index (WAL), artifacts + winners
//   entries/<key[0:2]>/<key>/         one published entry (any files)
//   entries/<key[0:2]>/.tmp-*         private build / trash directories
//   locks/<key>.lock                  per-entry flock
//
// Thread safety: a Cache object may be shared by threads (the database
// connection is guarded by a mutex that is never held during a build). Do not
// use one Cache object across fork(); open a new one in the child.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_CACHE_CACHE_H
#define INTENT_CACHE_CACHE_H

#include "intent/Cache/Expected.h"
#include "intent/Cache/Winners.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace intent::cache {

/// Index schema version this binary knows (= number of cache-schema/*.sql).
int supportedSchemaVersion();

/// WAL size (frames) at which a committing connection checkpoints and truncates
/// the WAL (docs/cache.md §4).
constexpr int kWalCheckpointPages = 32;

enum class EntryState { Complete, Failed };
const char *entryStateName(EntryState s);

/// Descriptive columns of an entry (not part of the identity).
struct EntryInfo {
  std::string kernel;
  std::string provider;
  std::string arch;
};

struct Entry {
  std::string key;
  EntryState state = EntryState::Complete;
  EntryInfo info;
  uint64_t sizeBytes = 0;
  int64_t createdAtMs = 0;  ///< unix time, milliseconds
  int64_t lastUsedAtMs = 0; ///< unix time, milliseconds
  uint64_t hitCount = 0;
  std::string dir; ///< absolute entry directory
  /// Relative file path -> lowercase hex BLAKE3 of its content.
  std::map<std::string, std::string> files;

  /// Absolute path of a file of the entry.
  std::string path(const std::string &relative) const { return dir + "/" + relative; }
};

struct LookupResult {
  bool hit = false;
  std::optional<Entry> entry; ///< set iff hit
  /// Why it missed: "absent", "failed", "missing-dir", "missing-file:<f>",
  /// "checksum:<f>", "extra-state". Empty on a hit.
  std::string missReason;
  bool repaired = false; ///< a broken row/dir was removed
};

/// What a build callback reports. On success the files are in the temp dir;
/// on failure they may be partial (input, log) and `diagnostics` says why.
struct BuildOutcome {
  bool success = true;
  std::string diagnostics;
  static BuildOutcome ok() { return {true, {}}; }
  static BuildOutcome failure(std::string diag) { return {false, std::move(diag)}; }
};

/// Name of the file that holds the diagnostics of a failed entry.
constexpr const char *kFailureLogName = "failure.log";

struct PublishResult {
  enum class Kind {
    Hit,   ///< a complete entry already existed (possibly built by another
           ///< process while we waited for the entry lock)
    Built, ///< this call ran the build and published a complete entry
    Failed ///< the build failed (here, or concurrently in another process
           ///< while we waited); recorded as a `failed` entry
  };
  Kind kind = Kind::Hit;
  Entry entry;
  std::string diagnostics; ///< for Failed
  bool hit() const { return kind == Kind::Hit; }
  bool succeeded() const { return kind != Kind::Failed; }
};

/// One kernel of a recorded request.
struct RequestKernel {
  std::string kernel;
  std::string key;
  std::string componentsJson = "[]"; ///< opaque to the cache (the key's components)
};

using BuildFn = std::function<BuildOutcome(const std::string &tmpDir)>;

struct CacheStats {
  uint64_t entries = 0; ///< all rows (complete + failed)
  uint64_t completeEntries = 0;
  uint64_t failedEntries = 0;
  uint64_t bytes = 0; ///< sum of size_bytes over all rows
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t failures = 0;
};

struct VerifyIssue {
  enum class Kind {
    MissingDir,       ///< row without its directory
    MissingFile,      ///< a listed file is absent
    ChecksumMismatch, ///< a listed file's content changed (or size differs)
    BadRow,           ///< unparsable checksum JSON / invalid key or state
    OrphanDir,        ///< directory without a row (crash before index insert)
    StaleTemp         ///< leftover .tmp-* directory of a dead builder
  };
  Kind kind;
  std::string key; ///< may be empty for StaleTemp
  std::string path;
  std::string detail;
  /// Only issues on `complete` rows could ever matter for serving; lookup
  /// re-verifies checksums, so even those are never returned as hits.
  bool onCompleteRow = false;
  bool repaired = false;
};
const char *verifyIssueKindName(VerifyIssue::Kind k);

struct VerifyReport {
  uint64_t rowsChecked = 0;
  std::vector<VerifyIssue> issues;
  bool clean() const { return issues.empty(); }
};

struct GcResult {
  uint64_t bytesBefore = 0;
  uint64_t bytesAfter = 0;
  std::vector<std::string> evicted;       ///< keys, in eviction order
  std::vector<std::string> skippedLocked; ///< in use (lock held), untouched
};

struct ClearResult {
  uint64_t removedEntries = 0;
  std::vector<std::string> skippedLocked;
};

struct OpenOptions {
  /// Remove .tmp-* directories whose entry lock is free and whose owning pid
  /// is dead or that are older than this many minutes.
  int staleTempMinutes = 30;
  bool sweepOnOpen = true;
  /// With > 0, the open-time sweep runs at most once per this many seconds per
  /// cache (stamp: locks/last-sweep): it reads every shard, which a warm hit
  /// of a short-lived compile cannot afford in a large cache. A build still
  /// removes the orphan temporaries of its own key.
  int sweepIntervalSeconds = 0;
};

class Cache {
public:
  /// Opens (creating if needed) the cache at `root` (absolute path): creates
  /// directories, opens/migrates index.sqlite and sweeps stale temporaries.
  /// A non-SQLite index file is moved aside as
  /// index.sqlite.corrupt-<unixtime> and a fresh index is created; an index
  /// whose schema is newer than this binary is refused.
  static Expected<Cache> open(const std::string &root, OpenOptions opts = {});

  Cache(Cache &&) noexcept;
  Cache &operator=(Cache &&) noexcept;
  ~Cache();

  const std::string &root() const;
  std::string indexPath() const;
  std::string entryDir(const std::string &key) const;
  std::string lockPath(const std::string &key) const;
  /// Path of index.sqlite moved aside during open(), if that happened.
  const std::optional<std::string> &recoveredCorruptIndex() const;

  /// A complete entry whose files all exist with matching checksums is a hit
  /// (hit_count, last_used_at and the hits counter are updated). Anything else
  /// is a miss (misses counter); a broken complete row is repaired (row and
  /// directory removed) when its entry lock is free. `failed` rows are misses
  /// and are left in place.
  Expected<LookupResult> lookup(const std::string &key);

  /// All or nothing: when every key is a hit, records the hits in one
  /// transaction and returns the entries in order; otherwise returns nullopt
  /// and changes nothing (no counter moves; the caller's fallback counts).
  Expected<std::optional<std::vector<Entry>>> lookupAll(const std::vector<std::string> &keys);

  /// The request index (docs/cache.md "Request index"): what a request digest
  /// resolved to when it last compiled. Empty when unknown; a request is
  /// forgotten as soon as any of its artifact rows is deleted.
  Expected<std::vector<RequestKernel>> requestKernels(const std::string &digest);
  /// Records (replaces) the kernels of a request digest, in output order.
  Status recordRequest(const std::string &digest, const std::vector<RequestKernel> &kernels);

  /// Returns the entry for `key`, building it if needed. See docs/cache.md
  /// for the publishing protocol. `build` runs without any global lock, with
  /// the per-entry lock held, and writes its files into the temp dir it is
  /// given. Exceptions thrown by `build` become a failed outcome.
  Expected<PublishResult> getOrBuild(const std::string &key, const EntryInfo &info,
                                     const BuildFn &build);

  Expected<CacheStats> stats();
  /// All rows, most recently used first.
  Expected<std::vector<Entry>> list();
  /// Entry by full key or unique key prefix (>= 4 hex chars); any state.
  Expected<Entry> show(const std::string &keyOrPrefix);
  /// Checks every row against its files, plus orphan and temp directories.
  /// With `repair`, removes broken rows/dirs, orphans and stale temps (entries
  /// whose lock is held are skipped).
  Expected<VerifyReport> verify(bool repair = false);
  /// Evicts entries until the total size is <= maxBytes: failed entries first,
  /// then complete entries least recently used first; entries whose lock is
  /// held are skipped.
  Expected<GcResult> gc(uint64_t maxBytes);
  /// Removes every artifact entry (not winners) and resets the counters.
  Expected<ClearResult> clear();

  /// Removes stale temporaries now; returns how many were removed.
  size_t sweepStaleTemps(int olderThanMinutes = 30);

  // Winner timings (see Winners.h).
  Status recordWinner(const WinnerRecord &record);
  Expected<std::optional<WinnerRecord>> getWinner(const TuningKey &key);
  Expected<std::vector<WinnerRecord>> listWinners();
  Expected<nlohmann::json> exportWinners();
  /// Imports an exportWinners() document; existing records with the same
  /// tuning key are replaced. Returns the number imported.
  Expected<size_t> importWinners(const nlohmann::json &doc);
  Expected<size_t> clearWinners();

  struct Impl;

private:
  explicit Cache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Test-only fault injection: if $INTENT_CACHE_FAULT equals `step`, the
/// process SIGKILLs itself. Steps: before-file:<relpath>, after-file:<relpath>,
/// before-rename, after-rename, before-index, after-index.
void faultPoint(const std::string &step);

} // namespace intent::cache

#endif // INTENT_CACHE_CACHE_H
