//===- Index.h - SQLite index connection (private) --------------*- C++ -*-===//
#ifndef INTENT_SRC_CACHE_INDEX_H
#define INTENT_SRC_CACHE_INDEX_H

#include "intent/Cache/Expected.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace intent::cache::detail {

/// A prepared statement. step() returns true while rows are available.
class Stmt {
public:
  Stmt(sqlite3 *db, sqlite3_stmt *st) : db_(db), st_(st) {}
  Stmt(Stmt &&o) noexcept : db_(o.db_), st_(o.st_) { o.st_ = nullptr; }
  Stmt(const Stmt &) = delete;
  ~Stmt();

  Stmt &bind(int idx, const std::string &v);
  Stmt &bind(int idx, int64_t v);
  Stmt &bindDouble(int idx, std::optional<double> v);
  /// Steps once: Expected<true> = a row is available, false = done.
  Expected<bool> step();
  /// Steps to completion (for statements without results).
  Status run();
  /// Makes the statement runnable again (bindings are kept until rebound).
  Stmt &reset();
  /// Calls `fn` for every result row; stops at the first SQLite error.
  Status forEachRow(const std::function<void()> &fn);

  std::string text(int col) const;
  int64_t int64(int col) const;
  std::optional<double> optDouble(int col) const;

private:
  sqlite3 *db_;
  sqlite3_stmt *st_;
};

class Db {
public:
  ~Db();
  /// Opens `<root>/index.sqlite`: busy_timeout, WAL, migrations. A file that
  /// is not a SQLite database is moved aside (path returned in movedAside) and
  /// a new index created; a newer schema version is refused.
  static Expected<std::unique_ptr<Db>> open(const std::string &root, int busyTimeoutMs,
                                            std::optional<std::string> &movedAside);

  Expected<Stmt> prepare(const std::string &sql);
  Status exec(const std::string &sql);
  /// BEGIN IMMEDIATE; body; COMMIT (ROLLBACK if body fails).
  Status immediate(const std::function<Status()> &body);
  Expected<int64_t> userVersion();
  std::string lastError() const;
  sqlite3 *raw() { return db_; }

private:
  explicit Db(sqlite3 *db) : db_(db) {}
  Status migrate();
  sqlite3 *db_;
};

struct Migration {
  int version;
  std::string name;
  std::string sql;
};
/// Embedded cache-schema/*.sql, sorted, numbered 1..N.
const std::vector<Migration> &migrations();

} // namespace intent::cache::detail

#endif
