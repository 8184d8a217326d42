#include "TestUtil.h"

#include "intent/Cache/Format.h"
#include "intent/Support/Identity.h"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace intent::cache;
using namespace intent::cache::test;
namespace fs = std::filesystem;

static Cache openOk(const std::string &root) {
  auto c = Cache::open(root);
  REQUIRE_MESSAGE(c.ok(), c.error());
  return std::move(*c);
}

TEST_CASE("cache: open creates layout and index; relative root refused") {
  TempDir t;
  Cache c = openOk(t.path + "/root");
  CHECK(fs::is_directory(t.path + "/root/entries"));
  CHECK(fs::is_directory(t.path + "/root/locks"));
  CHECK(fs::is_regular_file(t.path + "/root/index.sqlite"));
  CHECK(supportedSchemaVersion() >= 1);
  CHECK_FALSE(Cache::open("relative/root").ok());
}

TEST_CASE("cache: the WAL stays short across many short-lived hits") {
  // Every process that opens the index re-reads the whole WAL; hits write rows.
  TempDir t;
  std::string key = keyFor("wal");
  {
    Cache c = openOk(t.path);
    REQUIRE(c.getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("wal")).ok());
  }
  for (int i = 0; i < 200; ++i) {
    Cache c = openOk(t.path);
    auto pr = c.getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("other"));
    REQUIRE(pr.ok());
    CHECK(pr->hit());
  }
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open(Cache::open(t.path)->indexPath().c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) ==
          SQLITE_OK); // opens the WAL
  int walFrames = -1, checkpointed = -1;
  REQUIRE(sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &walFrames,
                                    &checkpointed) == SQLITE_OK);
  sqlite3_close(db);
  CHECK(walFrames >= 0);
  CHECK(walFrames <= 2 * kWalCheckpointPages);
}

TEST_CASE("cache: publish then lookup") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string key = keyFor("a");
  auto miss = c.lookup(key);
  REQUIRE(miss.ok());
  CHECK_FALSE(miss->hit);
  CHECK(miss->missReason == "absent");

  int builds = 0;
  auto pr = c.getOrBuild(key, {"matmul", "triton", "sm_90"}, [&](const std::string &dir) {
    ++builds;
    CHECK(dir.find("/.tmp-" + key + "-") != std::string::npos);
    return simpleBuild("a")(dir);
  });
  REQUIRE_MESSAGE(pr.ok(), pr.error());
  CHECK(pr->kind == PublishResult::Kind::Built);
  CHECK(pr->entry.dir == t.path + "/entries/" + key.substr(0, 2) + "/" + key);
  CHECK(readFile(pr->entry.path("kernel.py")) == "source:a");
  CHECK(pr->entry.files.size() == 2);
  CHECK(pr->entry.files.at("kernel.kir") == intent::support::blake3Hex("input:a"));

  auto hit = c.lookup(key);
  REQUIRE(hit.ok());
  CHECK(hit->hit);
  CHECK(hit->entry->info.kernel == "matmul");
  CHECK(hit->entry->hitCount == 1);

  auto again = c.getOrBuild(key, {"matmul", "triton", "sm_90"}, simpleBuild("zzz"));
  REQUIRE(again.ok());
  CHECK(again->hit());
  CHECK(builds == 1);
  CHECK(readFile(again->entry.path("kernel.py")) == "source:a");

  auto st = c.stats();
  REQUIRE(st.ok());
  CHECK(st->entries == 1);
  CHECK(st->completeEntries == 1);
  CHECK(st->bytes == std::string("input:a").size() + std::string("source:a").size());
  CHECK(st->hits == 2);
  CHECK(st->misses == 2); // the first lookup + the build
  CHECK(st->failures == 0);

  // No temporaries left behind.
  for (auto &e : fs::directory_iterator(t.path + "/entries/" + key.substr(0, 2)))
    CHECK(e.path().filename().string()[0] != '.');

  // show by prefix, list
  auto sh = c.show(key.substr(0, 8));
  REQUIRE(sh.ok());
  CHECK(sh->key == key);
  CHECK_FALSE(c.show("zz").ok());
  CHECK_FALSE(c.show("0000000000").ok());
  auto ls = c.list();
  REQUIRE(ls.ok());
  CHECK(ls->size() == 1);
  CHECK(formatListHuman(*ls).find(key.substr(0, 16)) != std::string::npos);
  CHECK(entryToJson((*ls)[0])["state"] == "complete");

  auto v = c.verify();
  REQUIRE(v.ok());
  CHECK(v->clean());
  CHECK(v->rowsChecked == 1);
}

TEST_CASE("cache: nested files in an entry") {
  TempDir t;
  Cache c = openOk(t.path);
  auto pr = c.getOrBuild(keyFor("nested"), {}, [](const std::string &dir) {
    writeFile(dir + "/sub/dir/a.txt", "A");
    writeFile(dir + "/b.txt", "B");
    return BuildOutcome::ok();
  });
  REQUIRE(pr.ok());
  CHECK(pr->entry.files.count("sub/dir/a.txt") == 1);
  CHECK(c.lookup(keyFor("nested"))->hit);
}

TEST_CASE("cache: ambiguous prefix") {
  TempDir t;
  Cache c = openOk(t.path);
  // Find two keys sharing a 4-char prefix is unlikely; use hand-made keys.
  std::string k1 = "abcd000000000000000000000000000000000000000000000000000000000001";
  std::string k2 = "abcd000000000000000000000000000000000000000000000000000000000002";
  REQUIRE(c.getOrBuild(k1, {}, simpleBuild("1")).ok());
  REQUIRE(c.getOrBuild(k2, {}, simpleBuild("2")).ok());
  auto amb = c.show("abcd");
  REQUIRE_FALSE(amb.ok());
  CHECK(amb.error().find("ambiguous") != std::string::npos);
  CHECK(c.show(k2.substr(0, 64))->key == k2);
}

TEST_CASE("cache: invalid keys are rejected") {
  TempDir t;
  Cache c = openOk(t.path);
  CHECK_FALSE(c.lookup("../../etc").ok());
  CHECK_FALSE(c.getOrBuild("../../etc/passwd0000", {}, simpleBuild("x")).ok());
}

TEST_CASE("cache: corrupted, truncated or deleted files are a repaired miss") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string key = keyFor("corrupt");
  auto pr = c.getOrBuild(key, {}, simpleBuild("corrupt", 100));
  REQUIRE(pr.ok());
  std::string py = pr->entry.path("kernel.py");

  SUBCASE("same size, different content") {
    std::string content = readFile(py);
    content[5] ^= 1;
    writeFile(py, content);
  }
  SUBCASE("truncated") { fs::resize_file(py, 10); }
  SUBCASE("file deleted") { fs::remove(py); }
  SUBCASE("entry dir deleted") { fs::remove_all(pr->entry.dir); }

  auto v = c.verify();
  REQUIRE(v.ok());
  REQUIRE(v->issues.size() == 1);
  CHECK(v->issues[0].onCompleteRow);
  CHECK_FALSE(v->issues[0].repaired);

  auto r = c.lookup(key);
  REQUIRE(r.ok());
  CHECK_FALSE(r->hit);
  CHECK(r->repaired);
  CHECK_FALSE(fs::exists(pr->entry.dir));
  CHECK(c.stats()->entries == 0);
  CHECK(c.verify()->clean());

  int builds = 0;
  auto again = c.getOrBuild(key, {}, [&](const std::string &d) {
    ++builds;
    return simpleBuild("corrupt", 100)(d);
  });
  REQUIRE(again.ok());
  CHECK(again->kind == PublishResult::Kind::Built);
  CHECK(builds == 1);
  CHECK(c.lookup(key)->hit);
}

TEST_CASE("cache: getOrBuild rebuilds a broken entry directly") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string key = keyFor("broken");
  auto pr = c.getOrBuild(key, {}, simpleBuild("broken"));
  REQUIRE(pr.ok());
  writeFile(pr->entry.path("kernel.kir"), "tampered");
  auto again = c.getOrBuild(key, {}, simpleBuild("broken"));
  REQUIRE(again.ok());
  CHECK(again->kind == PublishResult::Kind::Built);
  CHECK(readFile(again->entry.path("kernel.kir")) == "input:broken");
  CHECK(c.verify()->clean());
}

TEST_CASE("cache: verify --repair") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string k1 = keyFor("r1"), k2 = keyFor("r2");
  REQUIRE(c.getOrBuild(k1, {}, simpleBuild("r1")).ok());
  REQUIRE(c.getOrBuild(k2, {}, simpleBuild("r2")).ok());
  writeFile(c.entryDir(k1) + "/kernel.py", "bad");
  // An orphan directory (as after a crash before the index insert).
  std::string orphan = keyFor("orphan");
  writeFile(c.entryDir(orphan) + "/kernel.py", "x");
  auto v = c.verify(/*repair=*/true);
  REQUIRE(v.ok());
  CHECK(v->issues.size() == 2);
  for (auto &i : v->issues)
    CHECK(i.repaired);
  CHECK(verifyToJson(*v)["issues"].size() == 2);
  CHECK(formatVerifyHuman(*v).find("orphan-dir") != std::string::npos);
  CHECK_FALSE(fs::exists(c.entryDir(orphan)));
  CHECK_FALSE(fs::exists(c.entryDir(k1)));
  CHECK(c.verify()->clean());
  CHECK(c.lookup(k2)->hit);
}

TEST_CASE("cache: failed builds are recorded, never a hit, rebuilt later") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string key = keyFor("fails");
  auto pr = c.getOrBuild(key, {"k", "triton", "sm_90"}, [](const std::string &dir) {
    writeFile(dir + "/kernel.kir", "input");
    writeFile(dir + "/compile.log", "log");
    return BuildOutcome::failure("error: something broke");
  });
  REQUIRE(pr.ok());
  CHECK(pr->kind == PublishResult::Kind::Failed);
  CHECK_FALSE(pr->succeeded());
  CHECK(pr->diagnostics == "error: something broke");
  CHECK(readFile(pr->entry.path(kFailureLogName)) == "error: something broke");
  CHECK(readFile(pr->entry.path("kernel.kir")) == "input");
  CHECK(pr->entry.state == EntryState::Failed);

  auto l = c.lookup(key);
  REQUIRE(l.ok());
  CHECK_FALSE(l->hit);
  CHECK(l->missReason == "failed");
  CHECK_FALSE(l->repaired);
  auto st = c.stats();
  CHECK(st->failures == 1);
  CHECK(st->failedEntries == 1);
  CHECK(c.list()->at(0).state == EntryState::Failed);
  CHECK(c.verify()->clean());

  // Exceptions from the build callback become failures too.
  std::string key2 = keyFor("throws");
  auto th = c.getOrBuild(key2, {}, [](const std::string &) -> BuildOutcome {
    throw std::runtime_error("boom");
  });
  REQUIRE(th.ok());
  CHECK(th->kind == PublishResult::Kind::Failed);
  CHECK(th->diagnostics.find("boom") != std::string::npos);

  // A later request recompiles and may succeed.
  auto ok = c.getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("fixed"));
  REQUIRE(ok.ok());
  CHECK(ok->kind == PublishResult::Kind::Built);
  CHECK_FALSE(fs::exists(ok->entry.path(kFailureLogName)));
  CHECK(c.lookup(key)->hit);
  CHECK(c.stats()->failedEntries == 1);
}

TEST_CASE("cache: garbage index file is moved aside and recreated") {
  TempDir t;
  {
    Cache c = openOk(t.path);
    REQUIRE(c.getOrBuild(keyFor("g"), {}, simpleBuild("g")).ok());
  }
  fs::remove(t.path + "/index.sqlite-wal");
  fs::remove(t.path + "/index.sqlite-shm");
  std::string garbage;
  for (int i = 0; i < 200; ++i)
    garbage += "this is definitely not a sqlite database ";
  writeFile(t.path + "/index.sqlite", garbage);
  auto c = Cache::open(t.path);
  REQUIRE_MESSAGE(c.ok(), c.error());
  REQUIRE(c->recoveredCorruptIndex().has_value());
  CHECK(readFile(*c->recoveredCorruptIndex()) == garbage);
  CHECK(c->recoveredCorruptIndex()->find("index.sqlite.corrupt-") != std::string::npos);
  // The old entry dir is an orphan now: never served, rebuilt on demand.
  CHECK_FALSE(c->lookup(keyFor("g"))->hit);
  auto pr = c->getOrBuild(keyFor("g"), {}, simpleBuild("g2"));
  REQUIRE_MESSAGE(pr.ok(), pr.error());
  CHECK(pr->kind == PublishResult::Kind::Built);
  CHECK(readFile(pr->entry.path("kernel.py")) == "source:g2");
  CHECK(c->verify()->clean());
}

TEST_CASE("cache: short garbage index file") {
  TempDir t;
  writeFile(t.path + "/index.sqlite", "garbage");
  auto c = Cache::open(t.path);
  REQUIRE_MESSAGE(c.ok(), c.error());
  CHECK(c->recoveredCorruptIndex().has_value());
  CHECK(c->stats().ok());
}

TEST_CASE("cache: index with a newer schema version is refused") {
  TempDir t;
  { Cache c = openOk(t.path); }
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open((t.path + "/index.sqlite").c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto c = Cache::open(t.path);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().find("index schema version 99 is newer than this intentc supports (" +
                       std::to_string(supportedSchemaVersion()) +
                       "); upgrade intentc or use another cache dir") != std::string::npos);
  // Nothing was moved aside or changed.
  CHECK(fs::exists(t.path + "/index.sqlite"));
}

TEST_CASE("cache: index uses WAL and records the schema version") {
  TempDir t;
  { Cache c = openOk(t.path); }
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open((t.path + "/index.sqlite").c_str(), &db) == SQLITE_OK);
  sqlite3_stmt *st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  REQUIRE(sqlite3_step(st) == SQLITE_ROW);
  CHECK(std::string(reinterpret_cast<const char *>(sqlite3_column_text(st, 0))) == "wal");
  sqlite3_finalize(st);
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr);
  REQUIRE(sqlite3_step(st) == SQLITE_ROW);
  CHECK(sqlite3_column_int(st, 0) == supportedSchemaVersion());
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_CASE("cache: gc evicts least recently used first and skips locked entries") {
  TempDir t;
  Cache c = openOk(t.path);
  std::vector<std::string> k;
  for (int i = 0; i < 4; ++i) {
    k.push_back(keyFor("gc" + std::to_string(i)));
    // each entry: kernel.kir (input:gcN = 9 bytes) + kernel.py padded to 991 -> 1000 bytes
    REQUIRE(c.getOrBuild(k[i], {}, simpleBuild("gc" + std::to_string(i), 991)).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(c.stats()->bytes == 4000);
  // Use k0 so it becomes most recent; LRU order is now k1, k2, k3, k0.
  REQUIRE(c.lookup(k[0])->hit);

  SUBCASE("plain LRU") {
    auto r = c.gc(2500);
    REQUIRE(r.ok());
    CHECK(r->evicted == std::vector<std::string>{k[1], k[2]});
    CHECK(r->bytesBefore == 4000);
    CHECK(r->bytesAfter == 2000);
    CHECK_FALSE(fs::exists(c.entryDir(k[1])));
    CHECK(c.lookup(k[0])->hit);
    CHECK(c.lookup(k[3])->hit);
    CHECK_FALSE(c.lookup(k[1])->hit);
    CHECK(gcToJson(*r)["evicted"].size() == 2);
  }
  SUBCASE("held lock is never touched") {
    int fd = ::open(c.lockPath(k[1]).c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    auto r = c.gc(2500);
    ::close(fd);
    REQUIRE(r.ok());
    CHECK(r->skippedLocked == std::vector<std::string>{k[1]});
    CHECK(r->evicted == std::vector<std::string>{k[2], k[3]});
    CHECK(c.lookup(k[1])->hit);
  }
  SUBCASE("failed entries go first") {
    std::string kf = keyFor("gcfail");
    REQUIRE(c.getOrBuild(kf, {}, [](const std::string &d) {
      writeFile(d + "/kernel.kir", std::string(100, 'x'));
      return BuildOutcome::failure("");
    }).ok());
    auto r = c.gc(3500);
    REQUIRE(r.ok());
    CHECK(r->evicted == std::vector<std::string>{kf, k[1]});
  }
  SUBCASE("gc to zero") {
    auto r = c.gc(0);
    REQUIRE(r.ok());
    CHECK(r->evicted.size() == 4);
    CHECK(c.stats()->entries == 0);
    CHECK(c.verify()->clean());
  }
}

TEST_CASE("cache: clear") {
  TempDir t;
  Cache c = openOk(t.path);
  REQUIRE(c.getOrBuild(keyFor("c1"), {}, simpleBuild("c1")).ok());
  REQUIRE(c.getOrBuild(keyFor("c2"), {}, simpleBuild("c2")).ok());
  writeFile(c.entryDir(keyFor("orphan")) + "/x", "x");
  auto r = c.clear();
  REQUIRE(r.ok());
  CHECK(r->removedEntries == 2);
  auto st = c.stats();
  CHECK(st->entries == 0);
  CHECK(st->hits == 0);
  CHECK(st->misses == 0);
  CHECK_FALSE(fs::exists(c.entryDir(keyFor("orphan"))));
  CHECK(c.verify()->clean());
  CHECK(c.getOrBuild(keyFor("c1"), {}, simpleBuild("c1"))->kind == PublishResult::Kind::Built);
}

TEST_CASE("cache: a version-1 index is migrated to the request index and keeps its entries") {
  TempDir t;
  std::string key = keyFor("v1");
  {
    Cache c = openOk(t.path);
    REQUIRE(c.getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("v1")).ok());
  }
  // Downgrade to what an intentc of schema version 1 left behind.
  sqlite3 *db = nullptr;
  REQUIRE(sqlite3_open((t.path + "/index.sqlite").c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "DROP TRIGGER requests_forget; DROP TABLE requests; PRAGMA user_version = 1",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);

  Cache c = openOk(t.path);
  auto hit = c.lookup(key);
  REQUIRE(hit.ok());
  CHECK(hit->hit);
  REQUIRE(c.recordRequest("r", {{"k", key}}).ok());
  CHECK(c.requestKernels("r")->size() == 1);
  REQUIRE(c.clear().ok());
  CHECK(c.requestKernels("r")->empty()); // the trigger came with the migration
}

TEST_CASE("cache: lookupAll is all or nothing and records hits in one go") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string a = keyFor("all-a"), b = keyFor("all-b"), absent = keyFor("all-absent");
  REQUIRE(c.getOrBuild(a, {}, simpleBuild("a")).ok());
  REQUIRE(c.getOrBuild(b, {}, simpleBuild("b")).ok());
  CacheStats before = *c.stats();

  auto partial = c.lookupAll({a, absent});
  REQUIRE(partial.ok());
  CHECK_FALSE(partial->has_value());
  CHECK(c.stats()->hits == before.hits); // nothing counted on a partial miss
  CHECK(c.stats()->misses == before.misses);
  CHECK(c.show(a)->hitCount == 0);

  auto all = c.lookupAll({b, a});
  REQUIRE(all.ok());
  REQUIRE(all->has_value());
  REQUIRE((*all)->size() == 2);
  CHECK((**all)[0].key == b); // in the order asked
  CHECK((**all)[1].key == a);
  CHECK((**all)[1].hitCount == 1);
  CHECK(c.stats()->hits == before.hits + 2);

  // A corrupted file makes the whole lookup miss.
  writeFile(c.entryDir(b) + "/kernel.kir", "changed");
  auto broken = c.lookupAll({a, b});
  REQUIRE(broken.ok());
  CHECK_FALSE(broken->has_value());
  CHECK_FALSE(c.lookupAll({"nothex"}).ok());
}

TEST_CASE("cache: the request index is replaced on record and forgets removed entries") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string a = keyFor("req-a"), b = keyFor("req-b");
  REQUIRE(c.getOrBuild(a, {}, simpleBuild("a")).ok());
  REQUIRE(c.getOrBuild(b, {}, simpleBuild("b")).ok());
  CHECK(c.requestKernels("r1")->empty());
  REQUIRE(c.recordRequest("r1", {{"k1", a, "[[\"kir\",\"x\"]]"}, {"k2", b}}).ok());
  REQUIRE(c.recordRequest("r2", {{"only", b}}).ok());
  auto r1 = c.requestKernels("r1");
  REQUIRE(r1->size() == 2);
  CHECK((*r1)[0].kernel == "k1");
  CHECK((*r1)[0].key == a);
  CHECK((*r1)[0].componentsJson == "[[\"kir\",\"x\"]]");
  CHECK((*r1)[1].key == b);
  CHECK((*r1)[1].componentsJson == "[]");

  REQUIRE(c.recordRequest("r1", {{"k1", a}}).ok()); // replaces, never appends
  CHECK(c.requestKernels("r1")->size() == 1);

  SUBCASE("gc") {
    REQUIRE(c.lookup(a)->hit); // b is now the least recently used
    auto r = c.gc(c.stats()->bytes - 1);
    REQUIRE(r.ok());
    REQUIRE(r->evicted == std::vector<std::string>{b});
    CHECK(c.requestKernels("r2")->empty());
    CHECK(c.requestKernels("r1")->size() == 1);
  }
  SUBCASE("clear") {
    REQUIRE(c.clear().ok());
    CHECK(c.requestKernels("r1")->empty());
    CHECK(c.requestKernels("r2")->empty());
  }
  SUBCASE("a request loses every kernel when one goes") {
    REQUIRE(c.recordRequest("r3", {{"k1", a}, {"k2", b}}).ok());
    fs::remove_all(c.entryDir(b));
    CHECK_FALSE(c.lookup(b)->hit); // repaired: row deleted
    CHECK(c.requestKernels("r3")->empty());
    CHECK(c.requestKernels("r1")->size() == 1);
  }
}

TEST_CASE("cache: a rate-limited open sweeps at most once per interval") {
  TempDir t;
  OpenOptions limited;
  limited.sweepIntervalSeconds = 60;
  { REQUIRE(Cache::open(t.path, limited).ok()); } // sweeps, writes the stamp
  std::string key = keyFor("rate");
  std::string stale = t.path + "/entries/" + key.substr(0, 2) + "/.tmp-" + key + "-999999999-abc";
  writeFile(stale + "/kernel.py", "half");
  { REQUIRE(Cache::open(t.path, limited).ok()); }
  CHECK(fs::exists(stale)); // within the interval: no shard is read
  // Age the stamp past the interval: the next open sweeps again.
  struct timespec old[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
  REQUIRE(::utimensat(AT_FDCWD, (t.path + "/locks/last-sweep").c_str(), old, 0) == 0);
  { REQUIRE(Cache::open(t.path, limited).ok()); }
  CHECK_FALSE(fs::exists(stale));
  // The default (maintenance commands, the server) sweeps on every open.
  writeFile(stale + "/kernel.py", "half");
  { Cache c = openOk(t.path); }
  CHECK_FALSE(fs::exists(stale));
}

TEST_CASE("cache: a build removes the orphan temporaries of its own key") {
  TempDir t;
  Cache c = openOk(t.path);
  std::string key = keyFor("orphan-temp");
  // Fresh and owned by a live pid (ours): the open sweep keeps it, but no builder
  // holds the key's lock, so it is an orphan.
  std::string orphan = t.path + "/entries/" + key.substr(0, 2) + "/.tmp-" + key + "-" +
                       std::to_string(::getpid()) + "-old";
  writeFile(orphan + "/kernel.py", "half");
  std::string other = t.path + "/entries/" + key.substr(0, 2) + "/.tmp-" +
                      std::string(64, key[0] == 'f' ? 'e' : 'f') + "-" + std::to_string(::getpid()) + "-x";
  writeFile(other + "/kernel.py", "half");
  auto pr = c.getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("fresh"));
  REQUIRE_MESSAGE(pr.ok(), pr.error());
  CHECK(pr->kind == PublishResult::Kind::Built);
  CHECK_FALSE(fs::exists(orphan));
  CHECK(fs::exists(other)); // another key's temporary is not this build's business
  CHECK(readFile(pr->entry.path("kernel.py")) == "source:fresh");
}

TEST_CASE("cache: stale temporaries of dead processes are swept on open") {
  TempDir t;
  std::string key = keyFor("stale");
  { Cache c = openOk(t.path); }
  // pid 999999999 does not exist (above pid_max).
  std::string stale = t.path + "/entries/" + key.substr(0, 2) + "/.tmp-" + key + "-999999999-abc";
  writeFile(stale + "/kernel.py", "half");
  // A temp of a live process (ours) that is fresh stays.
  std::string live = t.path + "/entries/" + key.substr(0, 2) + "/.tmp-" + key + "-" +
                     std::to_string(::getpid()) + "-def";
  writeFile(live + "/kernel.py", "half");
  {
    Cache c = openOk(t.path);
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(live));
    auto v = c.verify();
    CHECK(v->clean());
    CHECK(c.sweepStaleTemps(0) == 1); // older than 0 minutes
    CHECK_FALSE(fs::exists(live));
  }
}
