// Real processes: fork()ed children open their own Cache and race on it.
#include "TestUtil.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace intent::cache;
using namespace intent::cache::test;
namespace fs = std::filesystem;

namespace {

void appendLine(const std::string &path, const std::string &line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::string l = line + "\n";
  (void)!::write(fd, l.data(), l.size());
  ::close(fd);
}

int countLines(const std::string &path) {
  std::string s = readFile(path);
  return int(std::count(s.begin(), s.end(), '\n'));
}

/// Forks `n` children that block on a pipe until all are started, then run
/// `body(i)` and _exit with its return value. Returns the exit statuses.
std::vector<int> runChildren(int n, const std::function<int(int)> &body) {
  int gate[2];
  REQUIRE(::pipe(gate) == 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(gate[1]);
      char c;
      while (::read(gate[0], &c, 1) < 0 && errno == EINTR) {
      }
      int rc = 99;
      try {
        rc = body(i);
      } catch (...) {
        rc = 98;
      }
      ::_exit(rc);
    }
    pids.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]); // release everybody at once
  std::vector<int> statuses;
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    statuses.push_back(st);
  }
  return statuses;
}

} // namespace

TEST_CASE("concurrency: 16 processes, same key -> built exactly once") {
  TempDir t;
  { REQUIRE(Cache::open(t.path).ok()); }
  const std::string key = keyFor("same");
  const std::string counter = t.path + "/builds.txt";
  auto statuses = runChildren(16, [&](int i) {
    auto c = Cache::open(t.path);
    if (!c)
      return 10;
    auto pr = c->getOrBuild(key, {"k", "triton", "sm_90"}, [&](const std::string &dir) {
      appendLine(counter, std::to_string(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return simpleBuild("same", 4096)(dir);
    });
    if (!pr || !pr->succeeded())
      return 11;
    writeFile(t.path + "/result-" + std::to_string(i),
              readFile(pr->entry.path("kernel.py")) + "|" + pr->entry.dir);
    return 0;
  });
  for (int st : statuses) {
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
  }
  CHECK(countLines(counter) == 1);
  std::string first = readFile(t.path + "/result-0");
  CHECK(first.rfind("source:same", 0) == 0);
  for (int i = 1; i < 16; ++i)
    CHECK(readFile(t.path + "/result-" + std::to_string(i)) == first);
  auto c = Cache::open(t.path);
  REQUIRE(c.ok());
  auto st = c->stats();
  CHECK(st->entries == 1);
  CHECK(st->hits == 15);
  CHECK(st->misses == 1);
  CHECK(c->verify()->clean());
}

TEST_CASE("concurrency: 16 processes, same key, failing build -> built once, all see failure") {
  TempDir t;
  { REQUIRE(Cache::open(t.path).ok()); }
  const std::string key = keyFor("samefail");
  const std::string counter = t.path + "/builds.txt";
  auto statuses = runChildren(16, [&](int i) {
    auto c = Cache::open(t.path);
    if (!c)
      return 10;
    auto pr = c->getOrBuild(key, {}, [&](const std::string &dir) {
      appendLine(counter, std::to_string(i));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      writeFile(dir + "/kernel.kir", "in");
      return BuildOutcome::failure("error: nope");
    });
    if (!pr)
      return 11;
    return pr->kind == PublishResult::Kind::Failed && pr->diagnostics == "error: nope" ? 0 : 12;
  });
  for (int st : statuses)
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
  CHECK(countLines(counter) == 1);
}

TEST_CASE("concurrency: 16 processes, distinct keys build in parallel") {
  TempDir t;
  { REQUIRE(Cache::open(t.path).ok()); }
  const int n = 16;
  const auto sleepMs = std::chrono::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto statuses = runChildren(n, [&](int i) {
    auto c = Cache::open(t.path);
    if (!c)
      return 10;
    auto pr = c->getOrBuild(keyFor("distinct" + std::to_string(i)), {},
                            [&](const std::string &dir) {
                              std::this_thread::sleep_for(sleepMs);
                              return simpleBuild("d" + std::to_string(i))(dir);
                            });
    return pr && pr->kind == PublishResult::Kind::Built ? 0 : 11;
  });
  auto elapsed = std::chrono::steady_clock::now() - start;
  for (int st : statuses)
    CHECK((WIFEXITED(st) && WEXITSTATUS(st) == 0));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
  MESSAGE("16 x 200 ms builds took " << ms << " ms (serialized: 3200 ms)");
  CHECK(ms < 1600);
  auto c = Cache::open(t.path);
  REQUIRE(c.ok());
  CHECK(c->stats()->entries == uint64_t(n));
  CHECK(c->verify()->clean());
}

TEST_CASE("concurrency: threads of one process share a Cache object") {
  TempDir t;
  auto c = Cache::open(t.path);
  REQUIRE(c.ok());
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      auto pr = c->getOrBuild(keyFor(i % 2 ? "t-odd" : "t-even"), {},
                              [&](const std::string &dir) {
                                ++builds;
                                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                return simpleBuild("t")(dir);
                              });
      if (pr && pr->succeeded())
        ++ok;
    });
  for (auto &th : threads)
    th.join();
  CHECK(ok == 8);
  CHECK(builds == 2);
}

TEST_CASE("crash safety: SIGKILL while the build runs releases the entry lock") {
  TempDir t;
  { REQUIRE(Cache::open(t.path).ok()); }
  const std::string key = keyFor("killed-in-build");
  const std::string marker = t.path + "/in-build";
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    auto c = Cache::open(t.path);
    (void)c->getOrBuild(key, {}, [&](const std::string &dir) {
      writeFile(dir + "/kernel.kir", "half");
      writeFile(marker, "x");
      std::this_thread::sleep_for(std::chrono::seconds(30));
      return BuildOutcome::ok();
    });
    ::_exit(0);
  }
  for (int i = 0; i < 500 && !fs::exists(marker); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(marker));
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  auto c = Cache::open(t.path);
  REQUIRE(c.ok());
  CHECK_FALSE(c->lookup(key)->hit);
  auto pr = c->getOrBuild(key, {}, simpleBuild("after"));
  REQUIRE(pr.ok());
  CHECK(pr->kind == PublishResult::Kind::Built);
  CHECK(c->verify()->clean()); // the dead builder's temp dir was swept
}

TEST_CASE("crash safety: SIGKILL at every publishing step") {
  const char *steps[] = {"before-file:kernel.kir", "after-file:kernel.kir",
                         "before-file:kernel.py",  "after-file:kernel.py",
                         "before-rename",          "after-rename",
                         "before-index",           "after-index"};
  for (const char *step : steps) {
    CAPTURE(step);
    TempDir t;
    { REQUIRE(Cache::open(t.path).ok()); }
    const std::string key = keyFor("crash");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::setenv("INTENT_CACHE_FAULT", step, 1);
      auto c = Cache::open(t.path);
      if (!c)
        ::_exit(10);
      (void)c->getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("crash", 1000));
      ::_exit(0); // not reached when the fault fires
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);

    // Inspect without sweeping first: nothing that would be served is broken.
    OpenOptions noSweep;
    noSweep.sweepOnOpen = false;
    auto c = Cache::open(t.path, noSweep);
    REQUIRE_MESSAGE(c.ok(), c.error());
    auto v = c->verify();
    REQUIRE(v.ok());
    for (const VerifyIssue &i : v->issues) {
      CAPTURE(i.path);
      CHECK_FALSE(i.onCompleteRow);
    }
    auto l = c->lookup(key);
    REQUIRE(l.ok());
    bool published = std::string(step) == "after-index";
    CHECK(l->hit == published);
    if (l->hit)
      CHECK(readFile(l->entry->path("kernel.py")).rfind("source:crash", 0) == 0);

    // A new getOrBuild succeeds and leaves a consistent cache.
    auto pr = c->getOrBuild(key, {"k", "triton", "sm_90"}, simpleBuild("crash", 1000));
    REQUIRE_MESSAGE(pr.ok(), pr.error());
    CHECK(pr->succeeded());
    CHECK(pr->hit() == published);
    CHECK(readFile(pr->entry.path("kernel.py")).rfind("source:crash", 0) == 0);
    c->sweepStaleTemps();
    auto v2 = c->verify();
    REQUIRE(v2.ok());
    CHECK_MESSAGE(v2->clean(), v2->issues.size() << " issue(s), first: "
                                                 << (v2->issues.empty() ? ""
                                                                        : v2->issues[0].path));
    CHECK(c->stats()->entries == 1);
  }
}
