//===- Cache.cpp - artifact cache: entries, publishing, index -------------===//
//
// Publishing protocol (docs/cache.md has the full crash-safety argument):
//   1. lookup without lock; hit -> done
//   2. flock locks/<key>.lock (per entry, blocking); re-check lookup
//   3. build into entries/<kk>/.tmp-<key>-<pid>-<rand>/
//   4. hash + fsync every file, fsync the directories
//   5. delete any old row, move any old directory aside
//   6. rename tmp -> entries/<kk>/<key>, fsync entries/<kk>
//   7. insert the index row (complete/failed) LAST
//   8. release the lock
//
//===----------------------------------------------------------------------===//
#include "CacheImpl.h"
#include "intent/Cache/Key.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace intent::cache {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

int64_t detail::nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string detail::hostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0)
    return "unknown";
  return buf;
}

void faultPoint(const std::string &step) {
  const char *f = std::getenv("INTENT_CACHE_FAULT");
  if (f && step == f)
    ::kill(::getpid(), SIGKILL);
}

const char *entryStateName(EntryState s) {
  return s == EntryState::Complete ? "complete" : "failed";
}

const char *verifyIssueKindName(VerifyIssue::Kind k) {
  switch (k) {
  case VerifyIssue::Kind::MissingDir:
    return "missing-dir";
  case VerifyIssue::Kind::MissingFile:
    return "missing-file";
  case VerifyIssue::Kind::ChecksumMismatch:
    return "checksum-mismatch";
  case VerifyIssue::Kind::BadRow:
    return "bad-row";
  case VerifyIssue::Kind::OrphanDir:
    return "orphan-dir";
  case VerifyIssue::Kind::StaleTemp:
    return "stale-temp";
  }
  return "unknown";
}

namespace {

using detail::nowMs;

std::string sysError(const std::string &what, const std::string &path) {
  return what + " " + path + ": " + std::strerror(errno);
}

std::string randomHex(size_t n) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          (uint64_t(::getpid()) << 32) ^ uint64_t(nowMs()));
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i)
    s.push_back(digits[rng() & 15]);
  return s;
}

struct FileSum {
  std::string blake3;
  uint64_t size = 0;
};
using FileSums = std::map<std::string, FileSum>;

/// Hashes a file; optionally fsyncs it.
Status hashFile(const std::string &path, FileSum &out, bool doFsync) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeError(sysError("cannot open", path));
  llvm::BLAKE3 h;
  uint64_t total = 0;
  std::vector<uint8_t> buf(1 << 16);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      Status s = makeError(sysError("cannot read", path));
      ::close(fd);
      return s;
    }
    if (n == 0)
      break;
    h.update(llvm::ArrayRef<uint8_t>(buf.data(), size_t(n)));
    total += uint64_t(n);
  }
  if (doFsync && ::fsync(fd) != 0) {
    Status s = makeError(sysError("cannot fsync", path));
    ::close(fd);
    return s;
  }
  ::close(fd);
  out.blake3 = llvm::toHex(h.final(), /*LowerCase=*/true);
  out.size = total;
  return Status();
}

void fsyncDir(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

bool pathExists(const std::string &p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

void removeTree(const std::string &p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

json sumsToJson(const FileSums &sums) {
  json j = json::object();
  for (const auto &[name, s] : sums)
    j[name] = {{"blake3", s.blake3}, {"size", s.size}};
  return j;
}

bool sumsFromJson(const std::string &text, FileSums &out) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    return false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json &v = it.value();
    if (!v.is_object() || !v.contains("blake3") || !v["blake3"].is_string() ||
        !v.contains("size") || !v["size"].is_number_unsigned())
      return false;
    const std::string &name = it.key();
    // Relative, no "..", no absolute paths.
    if (name.empty() || name[0] == '/' || name.find("..") != std::string::npos)
      return false;
    out[name] = {v["blake3"].get<std::string>(), v["size"].get<uint64_t>()};
  }
  return true;
}

/// An exclusive flock on a lock file. Lock files may be unlinked by gc/clear
/// while held; acquire() re-checks that the locked inode is still the one at
/// the path.
class EntryLock {
public:
  EntryLock() = default;
  EntryLock(EntryLock &&o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  EntryLock &operator=(EntryLock &&o) noexcept {
    release();
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    o.fd_ = -1;
    return *this;
  }
  ~EntryLock() { release(); }

  /// blocking=false: returns a non-held lock if someone else holds it.
  static Expected<EntryLock> acquire(const std::string &path, bool blocking) {
    for (;;) {
      int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        return makeError(sysError("cannot open lock file", path));
      int rc;
      do {
        rc = ::flock(fd, blocking ? LOCK_EX : (LOCK_EX | LOCK_NB));
      } while (rc != 0 && errno == EINTR);
      if (rc != 0) {
        int e = errno;
        ::close(fd);
        if (!blocking && e == EWOULDBLOCK)
          return EntryLock();
        errno = e;
        return makeError(sysError("cannot lock", path));
      }
      struct stat a, b;
      if (::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
          a.st_dev == b.st_dev) {
        EntryLock l;
        l.fd_ = fd;
        l.path_ = path;
        return l;
      }
      ::close(fd); // the file was unlinked/replaced meanwhile: retry
    }
  }

  bool held() const { return fd_ >= 0; }
  /// Unlinks the lock file while still holding it, then releases.
  void unlinkAndRelease() {
    if (fd_ >= 0)
      ::unlink(path_.c_str());
    release();
  }
  void release() {
    if (fd_ >= 0) {
      ::close(fd_); // closing releases the flock
      fd_ = -1;
    }
  }

private:
  int fd_ = -1;
  std::string path_;
};

struct Row {
  std::string key;
  std::string state;
  EntryInfo info;
  uint64_t sizeBytes = 0;
  int64_t createdAt = 0, lastUsedAt = 0;
  uint64_t hitCount = 0;
  std::string entryDir; ///< relative to root
  std::string filesJson;
};

const char *kRowColumns = "key, state, kernel, provider, arch, size_bytes, created_at, "
                          "last_used_at, hit_count, entry_dir, files_json";

Row readRow(const detail::Stmt &st) {
  Row r;
  r.key = st.text(0);
  r.state = st.text(1);
  r.info = {st.text(2), st.text(3), st.text(4)};
  r.sizeBytes = uint64_t(st.int64(5));
  r.createdAt = st.int64(6);
  r.lastUsedAt = st.int64(7);
  r.hitCount = uint64_t(st.int64(8));
  r.entryDir = st.text(9);
  r.filesJson = st.text(10);
  return r;
}

/// Parses "<anything>-<key>-<pid>-<rand>" temp names: ".tmp-<key>-<pid>-<rand>".
bool parseTempName(const std::string &name, std::string &key, long &pid) {
  if (name.rfind(".tmp-", 0) != 0)
    return false;
  std::string rest = name.substr(5);
  size_t a = rest.find('-');
  if (a == std::string::npos)
    return false;
  size_t b = rest.find('-', a + 1);
  if (b == std::string::npos)
    return false;
  key = rest.substr(0, a);
  std::string pidText = rest.substr(a + 1, b - a - 1);
  if (!isValidKey(key) || pidText.empty() ||
      pidText.find_first_not_of("0123456789") != std::string::npos)
    return false;
  pid = std::strtol(pidText.c_str(), nullptr, 10);
  return pid > 0;
}

bool pidDead(long pid) { return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH; }

} // namespace

//===----------------------------------------------------------------------===//
// Internal operations (friends of nothing; operate on Impl)
//===----------------------------------------------------------------------===//

namespace {

struct Ops {
  Cache::Impl &I;

  std::string shardDir(const std::string &key) const {
    return I.root + "/entries/" + key.substr(0, 2);
  }
  std::string relEntryDir(const std::string &key) const {
    return "entries/" + key.substr(0, 2) + "/" + key;
  }
  std::string entryDir(const std::string &key) const { return I.root + "/" + relEntryDir(key); }
  std::string lockPath(const std::string &key) const { return I.root + "/locks/" + key + ".lock"; }
  /// Removes every `.tmp-<key>-*` of the key's shard (caller holds the key's lock).
  void removeTempsOf(const std::string &key) {
    const std::string prefix = ".tmp-" + key + "-";
    std::error_code ec;
    std::vector<std::string> found;
    for (fs::directory_iterator it(shardDir(key), ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().rfind(prefix, 0) == 0)
        found.push_back(it->path().string());
    for (const std::string &p : found)
      removeTree(p);
  }

  std::string tempName(const std::string &key) const {
    return shardDir(key) + "/.tmp-" + key + "-" + std::to_string(::getpid()) + "-" + randomHex(12);
  }

  /// Rows of `SELECT <row columns> FROM artifacts <tail>`; `bind` binds the
  /// tail's parameters.
  Expected<std::vector<Row>> selectRows(const std::string &tail,
                                        const std::function<void(detail::Stmt &)> &bind = {}) {
    std::lock_guard<std::mutex> g(I.mu);
    auto st = I.db->prepare(std::string("SELECT ") + kRowColumns + " FROM artifacts " + tail);
    if (!st)
      return st.takeError();
    if (bind)
      bind(*st);
    std::vector<Row> rows;
    Status scanned = st->forEachRow([&] { rows.push_back(readRow(*st)); });
    if (!scanned.ok())
      return scanned.takeError();
    return rows;
  }

  Expected<std::optional<Row>> getRow(const std::string &key) {
    std::lock_guard<std::mutex> g(I.mu);
    auto st = I.db->prepare(std::string("SELECT ") + kRowColumns + " FROM artifacts WHERE key = ?");
    if (!st)
      return st.takeError();
    st->bind(1, key);
    auto r = st->step();
    if (!r)
      return r.takeError();
    if (!*r)
      return std::optional<Row>();
    return std::optional<Row>(readRow(*st));
  }

  Status bumpCounter(const char *name) {
    auto st = I.db->prepare("UPDATE stats SET value = value + 1 WHERE name = ?");
    if (!st)
      return st.takeError();
    st->bind(1, std::string(name));
    return st->run();
  }

  Status countLocked(const char *name) {
    std::lock_guard<std::mutex> g(I.mu);
    return I.db->immediate([&] { return bumpCounter(name); });
  }

  Status deleteRow(const std::string &key) {
    std::lock_guard<std::mutex> g(I.mu);
    return I.db->immediate([&]() -> Status {
      auto st = I.db->prepare("DELETE FROM artifacts WHERE key = ?");
      if (!st)
        return st.takeError();
      st->bind(1, key);
      return st->run();
    });
  }

  /// Deletes the row only if it still has the given created_at (so we never
  /// delete a row someone republished after we looked).
  Status deleteRowIf(const std::string &key, int64_t createdAt) {
    std::lock_guard<std::mutex> g(I.mu);
    return I.db->immediate([&]() -> Status {
      auto st = I.db->prepare("DELETE FROM artifacts WHERE key = ? AND created_at = ?");
      if (!st)
        return st.takeError();
      st->bind(1, key).bind(2, createdAt);
      return st->run();
    });
  }

  /// Renames a directory to a temp name in its shard, then deletes it. The
  /// rename makes the removal atomic from the readers' point of view.
  void discardDir(const std::string &key, const std::string &dir) {
    if (!pathExists(dir))
      return;
    std::string trash = tempName(key);
    if (::rename(dir.c_str(), trash.c_str()) == 0)
      removeTree(trash);
    else
      removeTree(dir);
  }

  Entry toEntry(const Row &r, const FileSums &sums) const {
    Entry e;
    e.key = r.key;
    e.state = r.state == "complete" ? EntryState::Complete : EntryState::Failed;
    e.info = r.info;
    e.sizeBytes = r.sizeBytes;
    e.createdAtMs = r.createdAt;
    e.lastUsedAtMs = r.lastUsedAt;
    e.hitCount = r.hitCount;
    e.dir = I.root + "/" + r.entryDir;
    for (const auto &[name, s] : sums)
      e.files[name] = s.blake3;
    return e;
  }

  /// Checks a row against the files on disk. Returns an empty string if
  /// consistent, else a reason ("missing-dir", "missing-file:<f>", ...).
  std::string checkRow(const Row &r, FileSums &sums, VerifyIssue::Kind *kind = nullptr,
                       std::string *badPath = nullptr) {
    auto fail = [&](VerifyIssue::Kind k, std::string reason, std::string p) {
      if (kind)
        *kind = k;
      if (badPath)
        *badPath = std::move(p);
      return reason;
    };
    sums.clear();
    if (!isValidKey(r.key) || r.entryDir != relEntryDir(r.key) ||
        (r.state != "complete" && r.state != "failed") || !sumsFromJson(r.filesJson, sums))
      return fail(VerifyIssue::Kind::BadRow, "bad-row", I.root + "/" + r.entryDir);
    std::string dir = I.root + "/" + r.entryDir;
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return fail(VerifyIssue::Kind::MissingDir, "missing-dir", dir);
    for (const auto &[name, want] : sums) {
      std::string p = dir + "/" + name;
      struct stat fst;
      if (::lstat(p.c_str(), &fst) != 0 || !S_ISREG(fst.st_mode))
        return fail(VerifyIssue::Kind::MissingFile, "missing-file:" + name, p);
      if (uint64_t(fst.st_size) != want.size)
        return fail(VerifyIssue::Kind::ChecksumMismatch, "checksum:" + name, p);
      FileSum got;
      if (!hashFile(p, got, false))
        return fail(VerifyIssue::Kind::MissingFile, "missing-file:" + name, p);
      if (got.blake3 != want.blake3)
        return fail(VerifyIssue::Kind::ChecksumMismatch, "checksum:" + name, p);
    }
    return "";
  }

  /// Removes a broken row and its directory if the entry lock is free.
  bool repairBroken(const Row &r) {
    auto lock = EntryLock::acquire(lockPath(r.key), /*blocking=*/false);
    if (!lock || !lock->held())
      return false;
    auto again = getRow(r.key);
    if (!again || !*again || (*again)->createdAt != r.createdAt)
      return false; // changed meanwhile: leave it to its new owner
    FileSums sums;
    if (checkRow(**again, sums).empty())
      return false; // fixed meanwhile
    if (!deleteRowIf(r.key, r.createdAt))
      return false;
    discardDir(r.key, entryDir(r.key));
    return true;
  }

  /// Whether `key` is a hit, without writing anything: the row is complete and
  /// every file matches its size and checksum. `missReason` is empty on a hit.
  struct Checked {
    std::optional<Row> row;
    FileSums sums;
    std::string missReason;
  };
  Expected<Checked> check(const std::string &key) {
    Checked c;
    auto row = getRow(key);
    if (!row)
      return row.takeError();
    c.row = std::move(*row);
    if (!c.row)
      c.missReason = "absent";
    else if (c.row->state != "complete")
      c.missReason = "failed";
    else
      c.missReason = checkRow(*c.row, c.sums);
    return c;
  }

  /// Records hits of checked rows in one write transaction: hit_count,
  /// last_used_at and the hits counter (once per row).
  Status touch(std::vector<Row *> rows) {
    int64_t now = nowMs();
    std::lock_guard<std::mutex> g(I.mu);
    Status s = I.db->immediate([&]() -> Status {
      auto st = I.db->prepare("UPDATE artifacts SET hit_count = hit_count + 1, "
                              "last_used_at = max(last_used_at, ?) WHERE key = ?");
      if (!st)
        return st.takeError();
      for (Row *r : rows) {
        st->reset().bind(1, now).bind(2, r->key);
        if (Status s2 = st->run(); !s2)
          return s2;
        if (Status s2 = bumpCounter("hits"); !s2)
          return s2;
      }
      return Status();
    });
    if (!s)
      return s;
    for (Row *r : rows) {
      r->hitCount += 1;
      r->lastUsedAt = std::max(r->lastUsedAt, now);
    }
    return Status();
  }

  /// Lookup core: checks, then counts the hit or the miss.
  Expected<LookupResult> lookup(const std::string &key, bool repair) {
    LookupResult res;
    auto c = check(key);
    if (!c)
      return c.takeError();
    res.missReason = c->missReason;
    if (res.missReason.empty()) {
      if (Status s = touch({&*c->row}); !s)
        return s.takeError();
      res.hit = true;
      res.entry = toEntry(*c->row, c->sums);
      return res;
    }
    if (repair && c->row && c->row->state == "complete")
      res.repaired = repairBroken(*c->row);
    if (Status s = countLocked("misses"); !s)
      return s.takeError();
    return res;
  }

  /// Walks a directory tree: relative names of regular files (sorted).
  Status listFiles(const std::string &dir, std::vector<std::string> &files,
                   std::vector<std::string> &dirs) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec), end;
    if (ec)
      return makeError("cannot list " + dir + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec)
        return makeError("cannot list " + dir + ": " + ec.message());
      const fs::directory_entry &de = *it;
      std::string rel = fs::relative(de.path(), dir, ec).generic_string();
      if (de.is_symlink(ec))
        return makeError("entry file '" + rel + "' is a symbolic link; only regular files "
                         "can be cached");
      if (de.is_directory(ec))
        dirs.push_back(de.path().string());
      else if (de.is_regular_file(ec))
        files.push_back(rel);
      else
        return makeError("entry file '" + rel + "' is not a regular file");
    }
    std::sort(files.begin(), files.end());
    return Status();
  }

  void sweepDir(const std::string &shard, int olderThanMinutes, size_t &removed,
                std::vector<VerifyIssue> *report, bool doRemove) {
    std::error_code ec;
    int64_t cutoff = nowMs() - int64_t(olderThanMinutes) * 60 * 1000;
    for (fs::directory_iterator it(shard, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind(".tmp-", 0) != 0)
        continue;
      std::string path = it->path().string();
      std::string key;
      long pid = 0;
      bool parsed = parseTempName(name, key, pid);
      EntryLock lock;
      if (parsed) {
        auto l = EntryLock::acquire(lockPath(key), /*blocking=*/false);
        if (!l || !l->held())
          continue; // a builder of this key is active
        lock = std::move(*l);
      }
      struct stat st;
      bool old = ::lstat(path.c_str(), &st) == 0 &&
                 int64_t(st.st_mtime) * 1000 < cutoff;
      bool dead = parsed && pidDead(pid);
      if (!(dead || old))
        continue;
      VerifyIssue issue{VerifyIssue::Kind::StaleTemp, key, path,
                        dead ? "owner pid " + std::to_string(pid) + " is gone"
                             : "older than " + std::to_string(olderThanMinutes) + " minutes",
                        false, false};
      if (doRemove) {
        removeTree(path);
        issue.repaired = true;
        ++removed;
      }
      if (report)
        report->push_back(issue);
    }
  }

  std::vector<std::string> shards() {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(I.root + "/entries", ec), end; !ec && it != end;
         it.increment(ec))
      if (it->is_directory(ec))
        out.push_back(it->path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  size_t sweep(int olderThanMinutes, std::vector<VerifyIssue> *report, bool doRemove) {
    size_t removed = 0;
    for (const std::string &s : shards())
      sweepDir(s, olderThanMinutes, removed, report, doRemove);
    return removed;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Cache
//===----------------------------------------------------------------------===//

Cache::Cache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Cache::Cache(Cache &&) noexcept = default;
Cache &Cache::operator=(Cache &&) noexcept = default;
Cache::~Cache() = default;

const std::string &Cache::root() const { return impl_->root; }
std::string Cache::indexPath() const { return impl_->root + "/index.sqlite"; }
std::string Cache::entryDir(const std::string &key) const { return Ops{*impl_}.entryDir(key); }
std::string Cache::lockPath(const std::string &key) const { return Ops{*impl_}.lockPath(key); }
const std::optional<std::string> &Cache::recoveredCorruptIndex() const {
  return impl_->recoveredCorrupt;
}

/// True when the open-time sweep should run now; records the sweep in the
/// stamp's mtime. Concurrent openers may both sweep (harmless).
static bool sweepIsDue(const std::string &root, int intervalSeconds) {
  if (intervalSeconds <= 0)
    return true;
  const std::string stamp = root + "/locks/last-sweep";
  struct stat st;
  if (::stat(stamp.c_str(), &st) == 0 &&
      int64_t(st.st_mtime) * 1000 > nowMs() - int64_t(intervalSeconds) * 1000)
    return false;
  int fd = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::futimens(fd, nullptr);
    ::close(fd);
  }
  return true;
}

Expected<Cache> Cache::open(const std::string &rootIn, OpenOptions opts) {
  if (rootIn.empty() || rootIn[0] != '/')
    return makeError("cache root must be an absolute path, got '" + rootIn + "'");
  std::string root = rootIn;
  while (root.size() > 1 && root.back() == '/')
    root.pop_back();
  std::error_code ec;
  for (const char *sub : {"", "/entries", "/locks"}) {
    fs::create_directories(root + sub, ec);
    if (ec)
      return makeError("cannot create cache directory " + root + sub + ": " + ec.message());
  }
  auto impl = std::make_unique<Impl>();
  impl->root = root;
  impl->opts = opts;
  auto db = detail::Db::open(root, 30000, impl->recoveredCorrupt);
  if (!db)
    return db.takeError();
  impl->db = std::move(*db);
  Cache c(std::move(impl));
  if (opts.sweepOnOpen && sweepIsDue(root, opts.sweepIntervalSeconds))
    c.sweepStaleTemps(opts.staleTempMinutes);
  return c;
}

size_t Cache::sweepStaleTemps(int olderThanMinutes) {
  return Ops{*impl_}.sweep(olderThanMinutes, nullptr, true);
}

Expected<LookupResult> Cache::lookup(const std::string &key) {
  if (!isValidKey(key))
    return makeError("invalid cache key '" + key + "'");
  return Ops{*impl_}.lookup(key, /*repair=*/true);
}

Expected<std::optional<std::vector<Entry>>>
Cache::lookupAll(const std::vector<std::string> &keys) {
  Ops ops{*impl_};
  std::vector<Ops::Checked> checked;
  for (const std::string &key : keys) {
    if (!isValidKey(key))
      return makeError("invalid cache key '" + key + "'");
    auto c = ops.check(key);
    if (!c)
      return c.takeError();
    if (!c->missReason.empty())
      return std::optional<std::vector<Entry>>();
    checked.push_back(std::move(*c));
  }
  std::vector<Row *> rows;
  for (Ops::Checked &c : checked)
    rows.push_back(&*c.row);
  if (Status s = ops.touch(rows); !s)
    return s.takeError();
  std::vector<Entry> out;
  for (const Ops::Checked &c : checked)
    out.push_back(ops.toEntry(*c.row, c.sums));
  return std::optional<std::vector<Entry>>(std::move(out));
}

Expected<std::vector<RequestKernel>> Cache::requestKernels(const std::string &digest) {
  std::lock_guard<std::mutex> g(impl_->mu);
  auto st = impl_->db->prepare(
      "SELECT kernel, key, components_json FROM requests WHERE digest = ? ORDER BY position");
  if (!st)
    return st.takeError();
  st->bind(1, digest);
  std::vector<RequestKernel> out;
  Status scanned = st->forEachRow([&] { out.push_back({st->text(0), st->text(1), st->text(2)}); });
  if (!scanned.ok())
    return scanned.takeError();
  return out;
}

Status Cache::recordRequest(const std::string &digest, const std::vector<RequestKernel> &kernels) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->db->immediate([&]() -> Status {
    auto del = impl_->db->prepare("DELETE FROM requests WHERE digest = ?");
    if (!del)
      return del.takeError();
    del->bind(1, digest);
    if (Status s = del->run(); !s)
      return s;
    auto ins = impl_->db->prepare("INSERT INTO requests (digest, position, kernel, key, "
                                  "components_json) VALUES (?, ?, ?, ?, ?)");
    if (!ins)
      return ins.takeError();
    for (size_t i = 0; i < kernels.size(); ++i) {
      ins->reset()
          .bind(1, digest)
          .bind(2, int64_t(i))
          .bind(3, kernels[i].kernel)
          .bind(4, kernels[i].key)
          .bind(5, kernels[i].componentsJson);
      if (Status s = ins->run(); !s)
        return s;
    }
    return Status();
  });
}

Expected<PublishResult> Cache::getOrBuild(const std::string &key, const EntryInfo &info,
                                          const BuildFn &build) {
  if (!isValidKey(key))
    return makeError("invalid cache key '" + key + "'");
  Ops ops{*impl_};
  const int64_t startMs = nowMs();

  // 1. Fast path without any lock.
  {
    // A miss is counted below, once it is known not to be a hit after all.
    auto c = ops.check(key);
    if (!c)
      return c.takeError();
    if (c->missReason.empty()) {
      if (Status s = ops.touch({&*c->row}); !s)
        return s.takeError();
      PublishResult pr;
      pr.kind = PublishResult::Kind::Hit;
      pr.entry = ops.toEntry(*c->row, c->sums);
      return pr;
    }
  }

  // 2. Per-entry lock (different keys never block each other).
  auto lock = EntryLock::acquire(ops.lockPath(key), /*blocking=*/true);
  if (!lock)
    return lock.takeError();

  // 3. Re-check: another process may have published while we waited.
  auto row = ops.getRow(key);
  if (!row)
    return row.takeError();
  if (*row) {
    const Row &r = **row;
    FileSums sums;
    if (r.state == "complete") {
      auto again = ops.lookup(key, /*repair=*/false);
      if (!again)
        return again.takeError();
      if (again->hit) {
        PublishResult pr;
        pr.kind = PublishResult::Kind::Hit;
        pr.entry = std::move(*again->entry);
        return pr;
      }
      // Broken complete row: rebuilt below (counted as a miss already).
    } else if (r.state == "failed" && r.createdAt >= startMs && ops.checkRow(r, sums).empty()) {
      // A concurrent identical request failed while we waited: share it.
      if (Status s = ops.countLocked("misses"); !s)
        return s.takeError();
      PublishResult pr;
      pr.kind = PublishResult::Kind::Failed;
      pr.entry = ops.toEntry(r, sums);
      std::error_code ec;
      if (std::FILE *f = std::fopen(pr.entry.path(kFailureLogName).c_str(), "rb")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
          pr.diagnostics.append(buf, n);
        std::fclose(f);
      }
      return pr;
    } else {
      if (Status s = ops.countLocked("misses"); !s)
        return s.takeError();
    }
  } else {
    if (Status s = ops.countLocked("misses"); !s)
      return s.takeError();
  }

  // 4. Build into a private temp dir next to the final place. Any temporary of
  // this key is an orphan of a dead builder: builders hold the entry lock.
  std::string shard = ops.shardDir(key);
  std::error_code ec;
  fs::create_directories(shard, ec);
  if (ec)
    return makeError("cannot create " + shard + ": " + ec.message());
  ops.removeTempsOf(key);
  std::string tmp = ops.tempName(key);
  if (::mkdir(tmp.c_str(), 0755) != 0)
    return makeError(sysError("cannot create build directory", tmp));
  struct TmpGuard {
    std::string path;
    ~TmpGuard() {
      if (!path.empty())
        removeTree(path);
    }
  } guard{tmp};

  BuildOutcome outcome;
  try {
    outcome = build(tmp);
  } catch (const std::exception &e) {
    outcome = BuildOutcome::failure(std::string("build threw an exception: ") + e.what());
  } catch (...) {
    outcome = BuildOutcome::failure("build threw an unknown exception");
  }

  const bool failed = !outcome.success;
  if (failed) {
    std::string logPath = tmp + "/" + kFailureLogName;
    if (std::FILE *f = std::fopen(logPath.c_str(), "wb")) {
      std::fwrite(outcome.diagnostics.data(), 1, outcome.diagnostics.size(), f);
      std::fclose(f);
    }
  }

  // 5. Hash + fsync every file, then the directories.
  std::vector<std::string> files, dirs;
  if (Status s = ops.listFiles(tmp, files, dirs); !s)
    return s.takeError();
  FileSums sums;
  uint64_t total = 0;
  for (const std::string &rel : files) {
    faultPoint("before-file:" + rel);
    FileSum fsum;
    if (Status s = hashFile(tmp + "/" + rel, fsum, /*doFsync=*/true); !s)
      return s.takeError();
    faultPoint("after-file:" + rel);
    total += fsum.size;
    sums[rel] = fsum;
  }
  std::sort(dirs.begin(), dirs.end(), [](auto &a, auto &b) { return a.size() > b.size(); });
  for (const std::string &d : dirs)
    fsyncDir(d);
  fsyncDir(tmp);

  // 6. Remove any previous (failed/broken/orphan) row and directory.
  std::string finalDir = ops.entryDir(key);
  if (*row)
    if (Status s = ops.deleteRow(key); !s)
      return s.takeError();
  std::string oldTrash;
  if (pathExists(finalDir)) {
    oldTrash = ops.tempName(key);
    if (::rename(finalDir.c_str(), oldTrash.c_str()) != 0)
      return makeError(sysError("cannot move old entry aside", finalDir));
  }

  // 7. Publish by rename.
  faultPoint("before-rename");
  if (::rename(tmp.c_str(), finalDir.c_str()) != 0)
    return makeError(sysError("cannot publish entry", finalDir));
  guard.path.clear();
  fsyncDir(shard);
  faultPoint("after-rename");

  // 8. Index row LAST.
  faultPoint("before-index");
  Row newRow;
  newRow.key = key;
  newRow.state = failed ? "failed" : "complete";
  newRow.info = info;
  newRow.sizeBytes = total;
  newRow.createdAt = nowMs();
  newRow.lastUsedAt = newRow.createdAt;
  newRow.hitCount = 0;
  newRow.entryDir = ops.relEntryDir(key);
  newRow.filesJson = sumsToJson(sums).dump();
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    Status s = impl_->db->immediate([&]() -> Status {
      auto st = impl_->db->prepare(
          "INSERT OR REPLACE INTO artifacts (key, state, kernel, provider, arch, size_bytes, "
          "created_at, last_used_at, hit_count, entry_dir, files_json) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)");
      if (!st)
        return st.takeError();
      st->bind(1, newRow.key)
          .bind(2, newRow.state)
          .bind(3, info.kernel)
          .bind(4, info.provider)
          .bind(5, info.arch)
          .bind(6, int64_t(total))
          .bind(7, newRow.createdAt)
          .bind(8, newRow.lastUsedAt)
          .bind(9, newRow.entryDir)
          .bind(10, newRow.filesJson);
      if (Status s2 = st->run(); !s2)
        return s2;
      return failed ? ops.bumpCounter("failures") : Status();
    });
    if (!s)
      return s.takeError();
  }
  faultPoint("after-index");

  if (!oldTrash.empty())
    removeTree(oldTrash);
  PublishResult pr;
  pr.kind = failed ? PublishResult::Kind::Failed : PublishResult::Kind::Built;
  pr.entry = ops.toEntry(newRow, sums);
  pr.diagnostics = outcome.diagnostics;
  return pr;
}

Expected<CacheStats> Cache::stats() {
  std::lock_guard<std::mutex> g(impl_->mu);
  CacheStats s;
  auto st = impl_->db->prepare(
      "SELECT count(*), coalesce(sum(size_bytes), 0), "
      "coalesce(sum(state = 'complete'), 0), coalesce(sum(state = 'failed'), 0) FROM artifacts");
  if (!st)
    return st.takeError();
  auto r = st->step();
  if (!r)
    return r.takeError();
  s.entries = uint64_t(st->int64(0));
  s.bytes = uint64_t(st->int64(1));
  s.completeEntries = uint64_t(st->int64(2));
  s.failedEntries = uint64_t(st->int64(3));
  auto c = impl_->db->prepare("SELECT name, value FROM stats");
  if (!c)
    return c.takeError();
  Status scanned = c->forEachRow([&] {
    std::string name = c->text(0);
    uint64_t v = uint64_t(c->int64(1));
    if (name == "hits")
      s.hits = v;
    else if (name == "misses")
      s.misses = v;
    else if (name == "failures")
      s.failures = v;
  });
  if (!scanned.ok())
    return scanned.takeError();
  return s;
}

Expected<std::vector<Entry>> Cache::list() {
  Ops ops{*impl_};
  auto selected = ops.selectRows("ORDER BY last_used_at DESC, key");
  if (!selected)
    return selected.takeError();
  std::vector<Row> rows = std::move(*selected);
  std::vector<Entry> out;
  for (const Row &r : rows) {
    FileSums sums;
    sumsFromJson(r.filesJson, sums);
    out.push_back(ops.toEntry(r, sums));
  }
  return out;
}

Expected<Entry> Cache::show(const std::string &keyOrPrefix) {
  const std::string &p = keyOrPrefix;
  if (p.size() < 4 || p.size() > 128 ||
      p.find_first_not_of("0123456789abcdef") != std::string::npos)
    return makeError("'" + p + "' is not a cache key or key prefix (at least 4 lowercase hex "
                     "characters)");
  auto selected = Ops{*impl_}.selectRows("WHERE substr(key, 1, ?) = ? ORDER BY key LIMIT 11",
                                         [&](detail::Stmt &st) { st.bind(1, int64_t(p.size())).bind(2, p); });
  if (!selected)
    return selected.takeError();
  std::vector<Row> rows = std::move(*selected);
  if (rows.empty())
    return makeError("no cache entry matches '" + p + "'");
  if (rows.size() > 1) {
    std::string msg = "cache key prefix '" + p + "' is ambiguous; it matches:";
    for (size_t i = 0; i < rows.size() && i < 10; ++i)
      msg += "\n  " + rows[i].key;
    if (rows.size() > 10)
      msg += "\n  ...";
    return makeError(msg);
  }
  FileSums sums;
  sumsFromJson(rows[0].filesJson, sums);
  return Ops{*impl_}.toEntry(rows[0], sums);
}

Expected<VerifyReport> Cache::verify(bool repair) {
  Ops ops{*impl_};
  VerifyReport rep;
  auto selected = ops.selectRows("");
  if (!selected)
    return selected.takeError();
  std::vector<Row> rows = std::move(*selected);
  std::set<std::string> known;
  for (const Row &r : rows) {
    known.insert(r.key);
    ++rep.rowsChecked;
    FileSums sums;
    VerifyIssue::Kind kind{};
    std::string path;
    std::string reason = ops.checkRow(r, sums, &kind, &path);
    if (reason.empty())
      continue;
    VerifyIssue issue{kind, r.key, path, reason, r.state == "complete", false};
    if (repair) {
      if (kind == VerifyIssue::Kind::BadRow && !isValidKey(r.key)) {
        issue.repaired = bool(ops.deleteRowIf(r.key, r.createdAt));
      } else {
        auto lock = EntryLock::acquire(ops.lockPath(r.key), false);
        if (lock && lock->held()) {
          issue.repaired = bool(ops.deleteRowIf(r.key, r.createdAt));
          if (issue.repaired)
            ops.discardDir(r.key, ops.entryDir(r.key));
        }
      }
    }
    rep.issues.push_back(issue);
  }
  // Orphan directories: published but never indexed (crash before the index
  // insert), or left after the index was recreated.
  for (const std::string &shard : ops.shards()) {
    std::error_code ec;
    for (fs::directory_iterator it(shard, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.empty() || name[0] == '.' || known.count(name))
        continue;
      if (!isValidKey(name)) {
        rep.issues.push_back({VerifyIssue::Kind::OrphanDir, "", it->path().string(),
                              "unexpected file in the entries directory", false, false});
        continue;
      }
      auto lock = EntryLock::acquire(ops.lockPath(name), false);
      if (!lock || !lock->held())
        continue; // being published right now
      auto row = ops.getRow(name);
      if (!row || *row)
        continue; // indexed meanwhile
      VerifyIssue issue{VerifyIssue::Kind::OrphanDir, name, it->path().string(),
                        "directory has no index row (never served)", false, false};
      if (repair) {
        ops.discardDir(name, it->path().string());
        issue.repaired = true;
      }
      rep.issues.push_back(issue);
    }
  }
  // Leftover temporaries of dead builders (any age).
  ops.sweep(/*olderThanMinutes=*/impl_->opts.staleTempMinutes, &rep.issues, repair);
  return rep;
}

Expected<GcResult> Cache::gc(uint64_t maxBytes) {
  Ops ops{*impl_};
  GcResult res;
  struct Cand {
    std::string key;
    uint64_t size;
    int64_t createdAt;
  };
  std::vector<Cand> cands;
  {
    std::lock_guard<std::mutex> g(impl_->mu);
    auto st = impl_->db->prepare("SELECT key, size_bytes, created_at FROM artifacts "
                                 "ORDER BY (state = 'complete'), last_used_at, key");
    if (!st)
      return st.takeError();
    Status scanned = st->forEachRow([&] {
      cands.push_back({st->text(0), uint64_t(st->int64(1)), st->int64(2)});
      res.bytesBefore += uint64_t(st->int64(1));
    });
    if (!scanned.ok())
      return scanned.takeError();
  }
  uint64_t total = res.bytesBefore;
  for (const Cand &c : cands) {
    if (total <= maxBytes)
      break;
    if (!isValidKey(c.key)) {
      if (ops.deleteRowIf(c.key, c.createdAt))
        total -= c.size;
      continue;
    }
    auto lock = EntryLock::acquire(ops.lockPath(c.key), /*blocking=*/false);
    if (!lock)
      return lock.takeError();
    if (!lock->held()) {
      res.skippedLocked.push_back(c.key);
      continue;
    }
    auto row = ops.getRow(c.key);
    if (!row)
      return row.takeError();
    if (!*row || (*row)->createdAt != c.createdAt)
      continue; // republished meanwhile: it is fresh again
    if (Status s = ops.deleteRowIf(c.key, c.createdAt); !s)
      return s.takeError();
    ops.discardDir(c.key, ops.entryDir(c.key));
    lock->unlinkAndRelease();
    total -= c.size;
    res.evicted.push_back(c.key);
  }
  res.bytesAfter = total;
  return res;
}

Expected<ClearResult> Cache::clear() {
  Ops ops{*impl_};
  ClearResult res;
  auto entries = list();
  if (!entries)
    return entries.takeError();
  for (const Entry &e : *entries) {
    if (!isValidKey(e.key)) {
      if (ops.deleteRow(e.key))
        ++res.removedEntries;
      continue;
    }
    auto lock = EntryLock::acquire(ops.lockPath(e.key), false);
    if (!lock)
      return lock.takeError();
    if (!lock->held()) {
      res.skippedLocked.push_back(e.key);
      continue;
    }
    if (Status s = ops.deleteRow(e.key); !s)
      return s.takeError();
    ops.discardDir(e.key, ops.entryDir(e.key));
    lock->unlinkAndRelease();
    ++res.removedEntries;
  }
  // Orphans and temporaries whose lock is free.
  for (const std::string &shard : ops.shards()) {
    std::error_code ec;
    std::vector<fs::path> children;
    for (fs::directory_iterator it(shard, ec), end; !ec && it != end; it.increment(ec))
      children.push_back(it->path());
    for (const fs::path &p : children) {
      std::string name = p.filename().string();
      std::string key = name;
      long pid = 0;
      if (name.rfind(".tmp-", 0) == 0 && !parseTempName(name, key, pid))
        key.clear();
      if (isValidKey(key)) {
        auto lock = EntryLock::acquire(ops.lockPath(key), false);
        if (!lock || !lock->held())
          continue;
        auto row = ops.getRow(key);
        if (row && *row)
          continue; // published meanwhile
        removeTree(p.string());
      } else {
        removeTree(p.string());
      }
    }
  }
  std::lock_guard<std::mutex> g(impl_->mu);
  Status s = impl_->db->immediate([&] { return impl_->db->exec("UPDATE stats SET value = 0"); });
  if (!s)
    return s.takeError();
  return res;
}

} // namespace intent::cache
