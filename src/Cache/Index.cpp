//===- Index.cpp - SQLite index connection and migrations -----------------===//
#include "Index.h"
#include "intent/Cache/Cache.h"

#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace intent::cache {
int supportedSchemaVersion() { return int(detail::migrations().size()); }
} // namespace intent::cache

namespace intent::cache::detail {

namespace {
struct RawMigration {
  const char *name;
  const char *sql;
};
const RawMigration kRawMigrations[] = {
#include "SchemaMigrations.inc"
};

std::string errmsg(sqlite3 *db) { return db ? sqlite3_errmsg(db) : "out of memory"; }
} // namespace

const std::vector<Migration> &migrations() {
  static const std::vector<Migration> list = [] {
    std::vector<Migration> out;
    for (const RawMigration &m : kRawMigrations)
      out.push_back({std::atoi(m.name), m.name, m.sql});
    // Files are sorted by name; numbering must be 1..N without gaps.
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].version != int(i + 1)) {
        std::fprintf(stderr, "intentc: internal error: cache-schema migrations are not "
                             "numbered 1..N (%s)\n",
                     out[i].name.c_str());
        std::abort();
      }
    return out;
  }();
  return list;
}

//===----------------------------------------------------------------------===//
// Stmt
//===----------------------------------------------------------------------===//

Stmt::~Stmt() {
  if (st_)
    sqlite3_finalize(st_);
}
Stmt &Stmt::bind(int idx, const std::string &v) {
  sqlite3_bind_text(st_, idx, v.data(), int(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt &Stmt::bind(int idx, int64_t v) {
  sqlite3_bind_int64(st_, idx, v);
  return *this;
}
Stmt &Stmt::bindDouble(int idx, std::optional<double> v) {
  if (v)
    sqlite3_bind_double(st_, idx, *v);
  else
    sqlite3_bind_null(st_, idx);
  return *this;
}
Expected<bool> Stmt::step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  return makeError("cache index: " + errmsg(db_));
}
Status Stmt::forEachRow(const std::function<void()> &fn) {
  for (;;) {
    auto r = step();
    if (!r)
      return r.takeError();
    if (!*r)
      return Status();
    fn();
  }
}
Stmt &Stmt::reset() {
  sqlite3_reset(st_);
  return *this;
}
Status Stmt::run() {
  return forEachRow([] {});
}
std::string Stmt::text(int col) const {
  const unsigned char *p = sqlite3_column_text(st_, col);
  int n = sqlite3_column_bytes(st_, col);
  return p ? std::string(reinterpret_cast<const char *>(p), size_t(n)) : std::string();
}
int64_t Stmt::int64(int col) const { return sqlite3_column_int64(st_, col); }
std::optional<double> Stmt::optDouble(int col) const {
  if (sqlite3_column_type(st_, col) == SQLITE_NULL)
    return std::nullopt;
  return sqlite3_column_double(st_, col);
}

//===----------------------------------------------------------------------===//
// Db
//===----------------------------------------------------------------------===//

Db::~Db() {
  if (db_)
    sqlite3_close_v2(db_);
}

std::string Db::lastError() const { return errmsg(db_); }

Expected<Stmt> Db::prepare(const std::string &sql) {
  sqlite3_stmt *st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), int(sql.size()), &st, nullptr) != SQLITE_OK)
    return makeError("cache index: " + errmsg(db_));
  return Stmt(db_, st);
}

Status Db::exec(const std::string &sql) {
  char *err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : errmsg(db_);
    sqlite3_free(err);
    return makeError("cache index: " + msg);
  }
  return Status();
}

Status Db::immediate(const std::function<Status()> &body) {
  if (Status s = exec("BEGIN IMMEDIATE"); !s)
    return s;
  Status s = body();
  if (!s) {
    (void)exec("ROLLBACK");
    return s;
  }
  if (Status c = exec("COMMIT"); !c) {
    (void)exec("ROLLBACK");
    return c;
  }
  return Status();
}

Expected<int64_t> Db::userVersion() {
  auto st = prepare("PRAGMA user_version");
  if (!st)
    return st.takeError();
  auto r = st->step();
  if (!r)
    return r.takeError();
  return *r ? st->int64(0) : int64_t(0);
}

static std::string newerSchemaMessage(int64_t have) {
  return "index schema version " + std::to_string(have) +
         " is newer than this intentc supports (" + std::to_string(migrations().size()) +
         "); upgrade intentc or use another cache dir";
}

Status Db::migrate() {
  const int64_t known = int64_t(migrations().size());
  auto v = userVersion();
  if (!v)
    return v.takeError();
  if (*v > known)
    return makeError(newerSchemaMessage(*v));
  if (*v == known)
    return Status();
  return immediate([&]() -> Status {
    // Re-read under the write lock: another process may have migrated.
    auto cur = userVersion();
    if (!cur)
      return cur.takeError();
    if (*cur > known)
      return makeError(newerSchemaMessage(*cur));
    for (const Migration &m : migrations()) {
      if (m.version <= *cur)
        continue;
      if (Status s = exec(m.sql); !s)
        return makeError("applying cache schema migration " + m.name + ": " + s.error());
      if (Status s = exec("PRAGMA user_version = " + std::to_string(m.version)); !s)
        return s;
    }
    return Status();
  });
}

namespace {
bool isCorruptCode(int rc) {
  rc &= 0xff;
  return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT;
}

/// WAL hook: checkpoints and truncates the WAL once it holds enough frames.
/// Never waits: with readers still on the WAL it is left for a later commit.
int truncateWal(void *busyTimeoutMs, sqlite3 *db, const char *dbName, int frames) {
  if (frames < kWalCheckpointPages)
    return SQLITE_OK;
  sqlite3_busy_timeout(db, 0);
  sqlite3_wal_checkpoint_v2(db, dbName, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
  sqlite3_busy_timeout(db, int(reinterpret_cast<intptr_t>(busyTimeoutMs)));
  return SQLITE_OK;
}

/// Opens a connection and configures it. Returns the sqlite result code of the
/// first failing step in `rc` (SQLITE_OK on success).
sqlite3 *openConnection(const std::string &path, int busyTimeoutMs, int &rc, std::string &err) {
  sqlite3 *db = nullptr;
  rc = sqlite3_open_v2(path.c_str(), &db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    err = errmsg(db);
    sqlite3_close_v2(db);
    return nullptr;
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, busyTimeoutMs);
  // Short-lived CLI processes would otherwise checkpoint (two fsyncs) and
  // delete the WAL on every exit, then recreate it in the next process; the
  // WAL is checkpointed by SQLite's automatic checkpoint instead.
  sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  int persistWal = 1;
  sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persistWal);
  // The WAL outlives every process, and the first connection after the last
  // close rebuilds the wal-index from every frame still in it: a backfilled
  // WAL is only reset by a later write of the same connection, which a
  // one-hit process never makes. So the WAL is truncated whenever it reaches
  // kWalCheckpointPages (one fsync of the index per few hits).
  sqlite3_wal_hook(db, truncateWal, reinterpret_cast<void *>(intptr_t(busyTimeoutMs)));
  // Touch the file: for a non-database this fails with SQLITE_NOTADB.
  const char *setup[] = {"SELECT count(*) FROM sqlite_master", "PRAGMA journal_mode=WAL",
                         "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busyTimeoutMs);
  for (const char *sql : setup) {
    char *e = nullptr;
    rc = sqlite3_exec(db, sql, nullptr, nullptr, &e);
    // Switching a new database to WAL while other processes open it can return
    // SQLITE_BUSY without consulting the busy handler: retry until the timeout.
    while ((rc & 0xff) == SQLITE_BUSY && std::chrono::steady_clock::now() < deadline) {
      sqlite3_free(e);
      e = nullptr;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      rc = sqlite3_exec(db, sql, nullptr, nullptr, &e);
    }
    if (rc != SQLITE_OK) {
      err = e ? e : errmsg(db);
      sqlite3_free(e);
      sqlite3_close_v2(db);
      return nullptr;
    }
  }
  return db;
}

/// Moves a corrupt index aside. Runs under an flock so that concurrent openers
/// never move a database another process has just recreated.
Status moveCorruptAside(const std::string &root, const std::string &path, int busyTimeoutMs,
                        std::optional<std::string> &movedAside) {
  std::string lockDir = root + "/locks";
  ::mkdir(lockDir.c_str(), 0755);
  std::string lockPath = lockDir + "/index-recovery.lock";
  int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return makeError("cannot open " + lockPath + ": " + std::strerror(errno));
  while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  // Probe again under the lock.
  int rc = SQLITE_OK;
  std::string err;
  sqlite3 *probe = openConnection(path, busyTimeoutMs, rc, err);
  Status result;
  if (probe) {
    sqlite3_close_v2(probe); // someone else already recovered it
  } else if (isCorruptCode(rc)) {
    auto now = std::chrono::duration_cast<std::chrono::seconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    std::string aside = path + ".corrupt-" + std::to_string(now);
    if (::rename(path.c_str(), aside.c_str()) != 0) {
      result = makeError("cache index " + path + " is not a valid SQLite database and could not "
                         "be moved aside (" + std::strerror(errno) +
                         "); run `intentc cache clear` or remove it");
    } else {
      for (const char *suffix : {"-wal", "-shm"}) {
        std::string from = path + suffix, to = aside + suffix;
        ::rename(from.c_str(), to.c_str());
      }
      movedAside = aside;
    }
  } else {
    result = makeError("cannot open cache index " + path + ": " + err);
  }
  ::close(fd);
  return result;
}
} // namespace

Expected<std::unique_ptr<Db>> Db::open(const std::string &root, int busyTimeoutMs,
                                       std::optional<std::string> &movedAside) {
  const std::string path = root + "/index.sqlite";
  for (int attempt = 0; attempt < 3; ++attempt) {
    int rc = SQLITE_OK;
    std::string err;
    sqlite3 *raw = openConnection(path, busyTimeoutMs, rc, err);
    if (!raw) {
      if (isCorruptCode(rc)) {
        if (Status s = moveCorruptAside(root, path, busyTimeoutMs, movedAside); !s)
          return s.takeError();
        continue;
      }
      return makeError("cannot open cache index " + path + ": " + err);
    }
    std::unique_ptr<Db> db(new Db(raw));
    if (Status s = db->migrate(); !s)
      return makeError(s.error().rfind("index schema version", 0) == 0
                           ? s.error()
                           : "cache index " + path + ": " + s.error());
    return db;
  }
  return makeError("cache index " + path +
                   " keeps failing to open as a SQLite database; run `intentc cache clear`");
}

} // namespace intent::cache::detail
