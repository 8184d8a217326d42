//===- Server.cpp - the compile server (intentc serve) ---------------------===//
//
// One I/O thread runs the asio io_context (accept, read lines, write replies);
// a bounded asio::thread_pool runs compiles and database work. Every session
// handles one request at a time: read a line, dispatch, write the reply, read
// the next line. Identical concurrent compile requests share one compile
// (in-flight map keyed by the BLAKE3 of the canonical params).
//
//===----------------------------------------------------------------------===//
#include "intent/Server/Server.h"
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Cache/Format.h"
#include "intent/Server/Protocol.h"
#include "intent/Server/WinnersRpc.h"
#include "intent/Support/Identity.h"

#include <asio.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using stream = asio::local::stream_protocol;

namespace intent::server {
namespace {

void logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void logf(const char *fmt, ...) {
  char ts[32];
  std::time_t t = std::time(nullptr);
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  std::fprintf(stderr, "[%s intentc-serve %d] ", ts, int(::getpid()));
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

json rpcError(const json &id, int code, const std::string &msg, json data = nullptr) {
  json e = {{"code", code}, {"message", msg}};
  if (!data.is_null())
    e["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}
json rpcResult(const json &id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

class Server;

class Session : public std::enable_shared_from_this<Session> {
public:
  Session(Server &srv, stream::socket sock, uint64_t maxBytes)
      : srv_(srv), sock_(std::move(sock)), buf_(maxBytes + 1), timer_(sock_.get_executor()) {}
  void start();
  void close();
  bool busy() const { return busy_; }

private:
  void readLine();
  void onLine(const std::string &line);
  void reply(const json &msg, bool closeAfter = false);
  Server &srv_;
  stream::socket sock_;
  asio::streambuf buf_;
  asio::steady_timer timer_;
  bool busy_ = false;
  bool closed_ = false;
};

class Server {
public:
  Server(const ServerOptions &o, cache::Cache cache, std::string cacheRoot)
      : opts(o), pool(o.jobs), cache_(std::move(cache)), cacheRoot(std::move(cacheRoot)),
        acceptor(io), signals(io, SIGTERM, SIGINT), tick(io) {
    env.configDir = driver::defaultConfigDir();
    start = Clock::now();
    lastActivity = start;
    if (const char *f = std::getenv("INTENTC_TEST_FAKE_PEER_UID"); f && *f)
      fakePeerUid = std::strtol(f, nullptr, 10);
  }

  ServerOptions opts;
  asio::io_context io;
  asio::thread_pool pool;
  cache::Cache cache_;
  std::string cacheRoot;
  driver::Environment env;
  stream::acceptor acceptor;
  asio::signal_set signals;
  asio::steady_timer tick;
  Clock::time_point start, lastActivity;
  long fakePeerUid = -1;
  bool stopping = false;
  uint64_t acceptErrors = 0;
  std::set<std::shared_ptr<Session>> sessions; // io thread only
  int busyRequests = 0;                        // io thread only
  std::atomic<uint64_t> nRequests{0}, nCompiles{0}, nShared{0}, nConnections{0}, nRefused{0},
      nErrors{0};
  std::atomic<int> activeJobs{0};
  std::mutex inflightMu;
  std::map<std::string, std::vector<std::function<void(std::shared_ptr<json>)>>> inflight;
  std::mutex winnersMu; // serializes read-merge-write of winner records
  std::mutex digestMu;
  std::map<std::string, cache::TuningKey> digests;

  void accept() {
    acceptor.async_accept([this](std::error_code ec, stream::socket sock) {
      if (ec) {
        if (!stopping && ec != asio::error::operation_aborted) {
          // E.g. EMFILE: back off instead of spinning, keep serving the others.
          if (++acceptErrors <= 10 || acceptErrors % 100 == 0)
            logf("accept: %s", ec.message().c_str());
          auto t = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
          t->async_wait([this, t](std::error_code) {
            if (!stopping)
              accept();
          });
        }
        return;
      }
      lastActivity = Clock::now();
      ++nConnections;
      auto s = std::make_shared<Session>(*this, std::move(sock), opts.maxRequestBytes);
      sessions.insert(s);
      s->start();
      accept();
    });
  }

  bool peerAllowed(stream::socket &sock) {
    struct ucred cred {};
    socklen_t len = sizeof cred;
    if (::getsockopt(sock.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
      return false;
    long uid = fakePeerUid >= 0 ? fakePeerUid : long(cred.uid);
    return uid == long(::getuid());
  }

  void onTick() {
    tick.expires_after(std::chrono::milliseconds(stopping ? 20 : 500));
    tick.async_wait([this](std::error_code ec) {
      if (ec)
        return;
      if (stopping) {
        if (busyRequests == 0 && activeJobs == 0) {
          for (auto &s : std::set<std::shared_ptr<Session>>(sessions))
            s->close();
          io.stop();
          return;
        }
      } else if (opts.idleTimeoutS > 0 && sessions.empty() && activeJobs == 0 &&
                 Clock::now() - lastActivity >= std::chrono::seconds(opts.idleTimeoutS)) {
        logf("idle for %u s: shutting down", opts.idleTimeoutS);
        beginStop();
      }
      onTick();
    });
  }

  void beginStop() {
    if (stopping)
      return;
    stopping = true;
    std::error_code ec;
    acceptor.close(ec);
    // Idle sessions (waiting for a request) are closed now; busy ones close
    // after their reply is written.
    for (auto &s : std::set<std::shared_ptr<Session>>(sessions))
      if (!s->busy())
        s->close();
    tick.cancel();
    onTick();
  }

  /// Runs `fn` on the pool and delivers its reply on the io thread.
  void offload(std::function<json()> fn, std::function<void(json)> done) {
    ++activeJobs;
    asio::post(pool, [this, fn = std::move(fn), done = std::move(done)]() mutable {
      json r;
      try {
        r = fn();
      } catch (const std::exception &e) {
        r = json{{"__error", {{"code", kInternalError}, {"message", e.what()}}}};
      }
      asio::post(io, [this, r = std::move(r), done = std::move(done)]() mutable {
        --activeJobs;
        done(std::move(r));
      });
    });
  }

  void compile(const json &params, std::function<void(json)> done);
  json handleSync(const std::string &method, const json &params, bool &isShutdown);
  json statusJson();
  std::optional<cache::TuningKey> findDigest(const std::string &digest);
};

void Session::start() {
  if (!srv_.peerAllowed(sock_)) {
    ++srv_.nRefused;
    logf("refused a connection: peer uid differs from the server's");
    reply(rpcError(nullptr, kPeerRefused, "connection refused: peer uid differs from the server's"),
          /*closeAfter=*/true);
    return;
  }
  readLine();
}

void Session::close() {
  if (closed_)
    return;
  closed_ = true;
  std::error_code ec;
  timer_.cancel();
  sock_.shutdown(stream::socket::shutdown_both, ec);
  sock_.close(ec);
  srv_.sessions.erase(shared_from_this());
}

void Session::readLine() {
  if (closed_)
    return;
  if (srv_.stopping) {
    close();
    return;
  }
  auto self = shared_from_this();
  if (srv_.opts.readTimeoutS > 0) {
    timer_.expires_after(std::chrono::seconds(srv_.opts.readTimeoutS));
    timer_.async_wait([self](std::error_code ec) {
      if (ec || self->closed_ || self->busy_)
        return;
      // Nothing complete arrived in time: answer and drop this client only.
      self->busy_ = true;
      ++self->srv_.busyRequests;
      std::error_code ig;
      self->sock_.cancel(ig);
      self->reply(rpcError(nullptr, kReadTimeout, "read timeout: no complete request line"),
                  true);
    });
  }
  asio::async_read_until(sock_, buf_, '\n', [self](std::error_code ec, std::size_t n) {
    if (self->closed_ || self->busy_)
      return; // timed out meanwhile
    self->timer_.cancel();
    if (ec == asio::error::not_found) {
      ++self->srv_.nErrors;
      self->busy_ = true;
      ++self->srv_.busyRequests;
      self->reply(rpcError(nullptr, kRequestTooLarge,
                           "request line exceeds " +
                               std::to_string(self->srv_.opts.maxRequestBytes) + " bytes"),
                  true);
      return;
    }
    if (ec) { // EOF (possibly mid-request: a truncated request is dropped) or error
      self->close();
      return;
    }
    std::string line(asio::buffers_begin(self->buf_.data()),
                     asio::buffers_begin(self->buf_.data()) + n - 1);
    self->buf_.consume(n);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    self->srv_.lastActivity = Clock::now();
    if (line.find_first_not_of(" \t") == std::string::npos) {
      self->readLine();
      return;
    }
    self->onLine(line);
  });
}

void Session::reply(const json &msg, bool closeAfter) {
  auto self = shared_from_this();
  auto out = std::make_shared<std::string>(msg.dump(-1, ' ', false, json::error_handler_t::replace));
  out->push_back('\n');
  asio::async_write(sock_, asio::buffer(*out), [self, out, closeAfter](std::error_code ec, size_t) {
    if (self->busy_) {
      self->busy_ = false;
      --self->srv_.busyRequests;
    }
    self->srv_.lastActivity = Clock::now();
    if (ec || closeAfter || self->srv_.stopping) {
      self->close();
      return;
    }
    self->readLine();
  });
}

void Session::onLine(const std::string &line) {
  busy_ = true;
  ++srv_.busyRequests;
  ++srv_.nRequests;
  json req = json::parse(line, nullptr, false);
  if (req.is_discarded()) {
    ++srv_.nErrors;
    reply(rpcError(nullptr, kParseError, "parse error: not valid JSON"));
    return;
  }
  json id = nullptr;
  if (req.is_object() && req.contains("id")) {
    const json &i = req["id"];
    if (i.is_string() || i.is_number() || i.is_null())
      id = i;
  }
  if (!req.is_object() || !req.contains("jsonrpc") || req["jsonrpc"] != "2.0" ||
      !req.contains("method") || !req["method"].is_string() ||
      (req.contains("id") && !(req["id"].is_string() || req["id"].is_number() ||
                               req["id"].is_null())) ||
      (req.contains("params") && !req["params"].is_object() && !req["params"].is_array())) {
    ++srv_.nErrors;
    reply(rpcError(id, kInvalidRequest,
                   "invalid request: expected {\"jsonrpc\":\"2.0\",\"id\":...,\"method\":string,"
                   "\"params\":object}"));
    return;
  }
  std::string method = req["method"].get<std::string>();
  json params = req.contains("params") ? req["params"] : json::object();
  static const std::set<std::string> known = {"initialize", "compile",        "status",
                                              "stats",      "winners.get",    "winners.record",
                                              "shutdown"};
  if (!known.count(method)) {
    ++srv_.nErrors;
    reply(rpcError(id, kMethodNotFound, "unknown method '" + method + "'"));
    return;
  }
  if (!params.is_object()) {
    ++srv_.nErrors;
    reply(rpcError(id, kInvalidParams, method + ": params must be an object"));
    return;
  }
  if (srv_.stopping && method != "status" && method != "initialize") {
    reply(rpcError(id, kShuttingDown, "server is shutting down"));
    return;
  }
  auto self = shared_from_this();
  auto finish = [self, id](json r) {
    if (r.is_object() && r.contains("__error")) {
      ++self->srv_.nErrors;
      json e = r["__error"];
      self->reply(rpcError(id, e["code"].get<int>(), e["message"].get<std::string>(),
                           e.contains("data") ? e["data"] : json(nullptr)));
    } else {
      self->reply(rpcResult(id, std::move(r)));
    }
  };
  if (method == "compile") {
    srv_.compile(params, finish);
    return;
  }
  if (method == "stats" || method == "winners.get" || method == "winners.record") {
    Server *srv = &srv_;
    srv_.offload([srv, method, params]() {
      bool sd = false;
      return srv->handleSync(method, params, sd);
    }, finish);
    return;
  }
  bool isShutdown = false;
  json r = srv_.handleSync(method, params, isShutdown);
  if (isShutdown) {
    logf("shutdown requested by a client");
    srv_.beginStop();
  }
  finish(std::move(r));
}

json errorObj(int code, const std::string &msg, json data = nullptr) {
  json e = {{"code", code}, {"message", msg}};
  if (!data.is_null())
    e["data"] = std::move(data);
  return json{{"__error", e}};
}

json Server::statusJson() {
  auto up = std::chrono::duration<double>(Clock::now() - start).count();
  return {{"pid", int(::getpid())},
          {"version", support::versionString()},
          {"protocol_version", kProtocolVersion},
          {"compiler_identity", support::buildId()},
          {"socket", opts.socketPath},
          {"cache_root", cacheRoot},
          {"jobs", opts.jobs},
          {"uptime_s", up},
          {"idle_timeout_s", opts.idleTimeoutS},
          {"connections", sessions.size()},
          {"active_jobs", activeJobs.load()},
          {"stopping", stopping},
          {"requests", nRequests.load()},
          {"compiles", nCompiles.load()},
          {"shared_compiles", nShared.load()},
          {"refused_connections", nRefused.load()},
          {"errors", nErrors.load()}};
}

std::optional<cache::TuningKey> Server::findDigest(const std::string &digest) {
  {
    std::lock_guard<std::mutex> g(digestMu);
    auto it = digests.find(digest);
    if (it != digests.end())
      return it->second;
  }
  auto all = cache_.listWinners();
  if (!all)
    return std::nullopt;
  std::lock_guard<std::mutex> g(digestMu);
  std::optional<cache::TuningKey> found;
  for (const auto &r : *all) {
    std::string d = digestOf(r.key);
    digests[d] = r.key;
    if (d == digest)
      found = r.key;
  }
  return found;
}

json Server::handleSync(const std::string &method, const json &p, bool &isShutdown) {
  if (method == "initialize")
    return {{"protocol_version", kProtocolVersion},
            {"server_version", support::versionString()},
            {"compiler_identity", support::buildId()},
            {"cache_root", cacheRoot},
            {"pid", int(::getpid())}};
  if (method == "status")
    return statusJson();
  if (method == "shutdown") {
    isShutdown = true;
    return {{"ok", true}, {"pid", int(::getpid())}};
  }
  if (method == "stats") {
    auto s = cache_.stats();
    if (!s)
      return errorObj(kInternalError, s.error());
    json j = cache::statsToJson(*s, cacheRoot);
    j["server"] = {{"requests", nRequests.load()},
                   {"compiles", nCompiles.load()},
                   {"shared_compiles", nShared.load()},
                   {"connections", nConnections.load()},
                   {"refused_connections", nRefused.load()},
                   {"errors", nErrors.load()}};
    return j;
  }
  if (method == "winners.get") {
    std::optional<cache::TuningKey> key;
    if (p.contains("artifact_key") && p.contains("runtime_key") && p.contains("device")) {
      if (!p["artifact_key"].is_string() || !p["runtime_key"].is_string() ||
          !p["device"].is_string())
        return errorObj(kInvalidParams,
                        "winners.get: 'artifact_key', 'runtime_key', 'device' must be strings");
      key = tuningKeyFromParts(p["artifact_key"], p["runtime_key"], p["device"]);
    } else {
      if (!p.contains("tuning_key") || !p["tuning_key"].is_string())
        return errorObj(kInvalidParams, "winners.get: 'tuning_key' must be a string");
      key = findDigest(p["tuning_key"].get<std::string>());
    }
    if (!key)
      return recordToRuntime(std::nullopt);
    auto rec = cache_.getWinner(*key);
    if (!rec)
      return errorObj(kInternalError, rec.error());
    return recordToRuntime(*rec);
  }
  if (method == "winners.record") {
    for (const char *k : {"tuning_key", "artifact_key", "runtime_key", "device"})
      if (!p.contains(k) || !p[k].is_string())
        return errorObj(kInvalidParams, std::string("winners.record: '") + k +
                                            "' must be a string");
    if (!p.contains("candidates") || !p["candidates"].is_array())
      return errorObj(kInvalidParams, "winners.record: 'candidates' must be an array");
    if (p.contains("retune") && !p["retune"].is_boolean())
      return errorObj(kInvalidParams, "winners.record: 'retune' must be a boolean");
    if (!p.contains("winner") || !(p["winner"].is_null() || p["winner"].is_object()))
      return errorObj(kInvalidParams, "winners.record: 'winner' must be a config object or null");
    std::vector<cache::CandidateTiming> cands;
    for (const json &t : p["candidates"]) {
      std::string err;
      auto c = timingFromRuntime(t, err);
      if (!c)
        return errorObj(kInvalidParams, "winners.record: " + err);
      cands.push_back(std::move(*c));
    }
    cache::TuningKey key = tuningKeyFromParts(p["artifact_key"], p["runtime_key"], p["device"]);
    std::string digest = p["tuning_key"].get<std::string>();
    std::string expect = digestOf(key);
    if (digest != expect)
      return errorObj(kInvalidParams, "winners.record: 'tuning_key' " + digest +
                                          " is not the digest of artifact_key/runtime_key/device (" +
                                          expect + ")");
    bool retune = p.value("retune", false);
    std::lock_guard<std::mutex> g(winnersMu);
    auto old = cache_.getWinner(key);
    if (!old)
      return errorObj(kInternalError, old.error());
    cache::WinnerRecord rec = mergeRecord(*old, key, cands, p["winner"], retune);
    if (auto st = cache_.recordWinner(rec); !st)
      return errorObj(kInternalError, st.error());
    {
      std::lock_guard<std::mutex> dg(digestMu);
      digests[digest] = key;
    }
    const cache::CandidateTiming *w = rec.winner();
    return {{"winner", w ? w->config : json(nullptr)}};
  }
  return errorObj(kMethodNotFound, "unknown method '" + method + "'");
}

void Server::compile(const json &params, std::function<void(json)> done) {
  driver::CompileRequest req;
  if (auto err = paramsToRequest(params, req)) {
    done(errorObj(kInvalidParams, *err));
    return;
  }
  // The digest covers the request content (not the path it came from).
  json canon = requestToParams(req);
  std::string digest = support::blake3Hex(canonicalJson(canon));
  {
    std::lock_guard<std::mutex> g(inflightMu);
    auto it = inflight.find(digest);
    auto cb = [this, done](std::shared_ptr<json> r) {
      asio::post(io, [r, done]() { done(*r); });
    };
    if (it != inflight.end()) {
      ++nShared;
      ++activeJobs; // released when the shared reply is delivered
      it->second.push_back([this, cb](std::shared_ptr<json> r) {
        asio::post(io, [this]() { --activeJobs; });
        cb(r);
      });
      return;
    }
    inflight[digest].push_back(cb);
  }
  ++nCompiles;
  ++activeJobs;
  asio::post(pool, [this, req = std::move(req), digest]() {
    auto reply = std::make_shared<json>();
    try {
      driver::CompileResult res = driver::compile(req, env, &cache_);
      json rj = json::parse(resultToJson(res).dump());
      if (res.ok) {
        *reply = std::move(rj);
      } else {
        std::string first = res.diagnostics.substr(0, res.diagnostics.find('\n'));
        *reply = errorObj(kCompileFailed, first.empty() ? "compile failed" : first,
                          json{{"diagnostics", res.diagnostics}, {"result", rj}});
      }
    } catch (const std::exception &e) {
      *reply = errorObj(kInternalError, std::string("compile: ") + e.what());
    }
    std::vector<std::function<void(std::shared_ptr<json>)>> waiters;
    {
      std::lock_guard<std::mutex> g(inflightMu);
      waiters = std::move(inflight[digest]);
      inflight.erase(digest);
    }
    for (auto &w : waiters)
      w(reply);
    asio::post(io, [this]() { --activeJobs; });
  });
}

//===----------------------------------------------------------------------===//
// Process setup
//===----------------------------------------------------------------------===//

bool writeAll(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    off += size_t(n);
  }
  return true;
}

/// Reports readiness or failure to the daemonizing parent / ready fd.
struct Readiness {
  int fd = -1;
  bool foreground = false;
  void ready(const std::string &socket) {
    if (foreground) {
      std::printf("ready\n");
      std::fflush(stdout);
    }
    if (fd >= 0) {
      writeAll(fd, "ready " + socket + "\n");
      ::close(fd);
      fd = -1;
    }
  }
  void fail(const std::string &msg) {
    std::fprintf(stderr, "intentc serve: error: %s\n", msg.c_str());
    std::fflush(stderr);
    if (fd >= 0) {
      writeAll(fd, "error: " + msg + "\n");
      ::close(fd);
      fd = -1;
    }
  }
};

/// Double fork. Returns -1 in the daemon (continue), else the exit code the
/// original process should return.
int daemonize(const std::string &logPath, int &readyFd) {
  int pfd[2];
  if (::pipe2(pfd, O_CLOEXEC) != 0) {
    std::perror("intentc serve: pipe");
    return kServeError;
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("intentc serve: fork");
    return kServeError;
  }
  if (pid > 0) {
    ::close(pfd[1]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    std::string msg;
    char buf[512];
    ssize_t n;
    while ((n = ::read(pfd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0)
        msg.append(buf, size_t(n));
    ::close(pfd[0]);
    if (msg.rfind("ready", 0) == 0)
      return kServeOk;
    if (msg.find("already running") != std::string::npos) {
      std::fprintf(stderr, "intentc serve: %s", msg.substr(7).c_str());
      return kServeAlreadyRunning;
    }
    if (!msg.empty())
      std::fprintf(stderr, "intentc serve: %s", msg.c_str());
    else
      std::fprintf(stderr, "intentc serve: the server exited before it was ready; see %s\n",
                   logPath.c_str());
    return kServeError;
  }
  ::close(pfd[0]);
  ::setsid();
  pid_t pid2 = ::fork();
  if (pid2 < 0)
    ::_exit(1);
  if (pid2 > 0)
    ::_exit(0);
  int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::close(devnull);
  }
  int log = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log >= 0) {
    ::dup2(log, 2);
    ::close(log);
  }
  if (::chdir("/") != 0) {
  }
  // Drop every other inherited descriptor (a build system's pipes, make's
  // jobserver): a long-lived daemon must not keep them open.
  if (DIR *d = ::opendir("/proc/self/fd")) {
    std::vector<int> fds;
    while (struct dirent *e = ::readdir(d)) {
      int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != pfd[1] && fd != ::dirfd(d))
        fds.push_back(fd);
    }
    ::closedir(d);
    for (int fd : fds)
      ::close(fd);
  }
  readyFd = pfd[1];
  return -1;
}

/// Takes <socket>.lock (non-blocking). Returns the fd, -1 when another holds
/// it, -2 on other errors.
int takeLock(const std::string &path, std::string &err) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      err = "cannot open " + path + ": " + std::strerror(errno);
      return -2;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      if (errno == EWOULDBLOCK)
        return -1;
      err = "cannot lock " + path + ": " + std::strerror(errno);
      return -2;
    }
    struct stat a, b;
    if (::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
      return fd;
    ::close(fd); // the lock file was replaced (a previous server removed it): retry
  }
  err = "lock file " + path + " keeps changing";
  return -2;
}

} // namespace

int runServer(const ServerOptions &in) {
  ServerOptions opts = in;
  if (opts.socketPath.empty())
    opts.socketPath = defaultSocketPath();
  if (opts.jobs == 0)
    opts.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (opts.logFile.empty())
    opts.logFile = opts.socketPath + ".log";
  if (opts.socketPath.size() >= sizeof(sockaddr_un::sun_path)) {
    std::fprintf(stderr, "intentc serve: error: socket path too long (%zu >= %zu): %s\n",
                 opts.socketPath.size(), sizeof(sockaddr_un::sun_path), opts.socketPath.c_str());
    return kServeError;
  }

  // systemd socket activation: fd 3 is our listening socket.
  bool systemd = false;
  if (const char *lp = std::getenv("LISTEN_PID"); lp && std::strtol(lp, nullptr, 10) == ::getpid()) {
    const char *lf = std::getenv("LISTEN_FDS");
    if (lf && std::strtol(lf, nullptr, 10) >= 1)
      systemd = true;
    ::unsetenv("LISTEN_PID");
    ::unsetenv("LISTEN_FDS");
    ::unsetenv("LISTEN_FDNAMES");
  }

  // Directory checks happen before daemonizing so that errors reach the caller.
  if (!systemd)
    if (std::string err = prepareSocketDir(opts.socketPath, true); !err.empty()) {
      std::fprintf(stderr, "intentc serve: error: %s\n", err.c_str());
      return kServeError;
    }

  Readiness ready;
  ready.foreground = opts.foreground;
  ready.fd = opts.readyFd;
  if (!opts.foreground && !systemd) {
    int fd = -1;
    int rc = daemonize(opts.logFile, fd);
    if (rc >= 0)
      return rc;
    if (ready.fd >= 0)
      ::close(ready.fd);
    ready.fd = fd;
  }
  ::signal(SIGPIPE, SIG_IGN);
  ::umask(077);

  std::string lockPath = opts.socketPath + ".lock";
  std::string err;
  int lockFd = takeLock(lockPath, err);
  if (lockFd == -1) {
    ready.fail("already running: another intentc server holds " + lockPath);
    return kServeAlreadyRunning;
  }
  if (lockFd < 0) {
    ready.fail(err);
    return kServeError;
  }

  auto root = cache::resolveCacheRoot(cache::processEnv());
  if (!root) {
    ready.fail(root.error());
    ::unlink(lockPath.c_str());
    ::close(lockFd);
    return kServeError;
  }
  auto c = cache::Cache::open(*root);
  if (!c) {
    ready.fail("cannot open the cache at " + *root + ": " + c.error());
    ::unlink(lockPath.c_str());
    ::close(lockFd);
    return kServeError;
  }
  auto srv = std::make_unique<Server>(opts, std::move(*c), *root);
  try {
    if (systemd) {
      int listening = 0;
      socklen_t len = sizeof listening;
      sockaddr_storage ss{};
      socklen_t slen = sizeof ss;
      if (::getsockopt(3, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening ||
          ::getsockname(3, reinterpret_cast<sockaddr *>(&ss), &slen) != 0 ||
          ss.ss_family != AF_UNIX) {
        ready.fail("LISTEN_FDS: fd 3 is not a listening Unix stream socket");
        ::unlink(lockPath.c_str());
        ::close(lockFd);
        return kServeError;
      }
      srv->acceptor.assign(stream(), 3);
    } else {
      struct stat st;
      if (::lstat(opts.socketPath.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
          ready.fail(opts.socketPath + " exists and is not a socket; refusing to replace it");
          ::unlink(lockPath.c_str());
          ::close(lockFd);
          return kServeError;
        }
        ::unlink(opts.socketPath.c_str()); // stale: we hold the lock
      }
      stream::endpoint ep(opts.socketPath);
      srv->acceptor.open(ep.protocol());
      srv->acceptor.bind(ep);
      ::chmod(opts.socketPath.c_str(), 0600);
      srv->acceptor.listen(256);
    }
  } catch (const std::system_error &e) {
    ready.fail("cannot listen on " + opts.socketPath + ": " + e.what());
    ::unlink(lockPath.c_str());
    ::close(lockFd);
    return kServeError;
  }
  srv->signals.async_wait([s = srv.get()](std::error_code ec, int sig) {
    if (ec)
      return;
    logf("signal %d: finishing in-flight work", sig);
    s->beginStop();
  });
  srv->accept();
  srv->onTick();
  logf("listening on %s (jobs %u, cache %s, idle timeout %u s)", opts.socketPath.c_str(),
       opts.jobs, root->c_str(), opts.idleTimeoutS);
  ready.ready(opts.socketPath);

  srv->io.run();
  srv->pool.join();
  std::error_code ec;
  srv->acceptor.close(ec);
  if (!systemd)
    ::unlink(opts.socketPath.c_str());
  logf("stopped (%llu requests, %llu compiles, %llu shared)",
       (unsigned long long)srv->nRequests.load(), (unsigned long long)srv->nCompiles.load(),
       (unsigned long long)srv->nShared.load());
  srv.reset(); // closes the database
  ::unlink(lockPath.c_str());
  ::close(lockFd);
  return kServeOk;
}

} // namespace intent::server
