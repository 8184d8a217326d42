//===- Client.cpp - talking to the compile server --------------------------===//
#include "intent/Server/Client.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Server/Protocol.h"
#include "intent/Server/Server.h"
#include "intent/Support/Identity.h"

#include <chrono>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace intent::server {

std::optional<ServerMode> parseServerMode(const std::string &s) {
  if (s == "auto")
    return ServerMode::Auto;
  if (s == "never")
    return ServerMode::Never;
  if (s == "require")
    return ServerMode::Require;
  if (s == "spawn")
    return ServerMode::Spawn;
  return std::nullopt;
}

Connection::~Connection() {
  if (fd_ >= 0)
    ::close(fd_);
}

static int remainingMs(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return ms < 0 ? 0 : int(ms);
}

bool Connection::connect(const std::string &path, double timeoutS, std::string &error) {
  ::signal(SIGPIPE, SIG_IGN);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    error = "socket path too long: " + path;
    return false;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS && errno != EAGAIN) {
      error = "cannot connect to " + path + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    pollfd p{fd, POLLOUT, 0};
    int soErr = 0;
    socklen_t len = sizeof soErr;
    if (::poll(&p, 1, int(timeoutS * 1000)) <= 0 ||
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soErr, &len) != 0 || soErr != 0) {
      error = "cannot connect to " + path + ": " + (soErr ? std::strerror(soErr) : "timeout");
      ::close(fd);
      return false;
    }
  }
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = fd;
  return true;
}

std::optional<json> Connection::call(const std::string &method, const json &params,
                                     double timeoutS, std::string &error, json *errorObj) {
  if (fd_ < 0) {
    error = "not connected";
    return std::nullopt;
  }
  int id = nextId_++;
  std::string out = json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}
                        .dump(-1, ' ', false, json::error_handler_t::replace);
  out.push_back('\n');
  auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(timeoutS * 1000));
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = ::send(fd_, out.data() + off, out.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += size_t(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, remainingMs(deadline)) <= 0) {
        error = "timeout sending the request";
        return std::nullopt;
      }
      continue;
    }
    error = std::string("send: ") + std::strerror(errno);
    return std::nullopt;
  }
  for (;;) {
    size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      json r = json::parse(line, nullptr, false);
      if (r.is_discarded() || !r.is_object()) {
        error = "malformed reply from the server";
        return std::nullopt;
      }
      if (r.contains("error")) {
        const json &e = r["error"];
        error = e.is_object() ? e.value("message", std::string("error")) : "error";
        if (errorObj)
          *errorObj = e;
        return std::nullopt;
      }
      if (!r.contains("id") || r["id"] != id) {
        error = "reply id does not match the request";
        return std::nullopt;
      }
      return r.contains("result") ? r["result"] : json(nullptr);
    }
    pollfd p{fd_, POLLIN, 0};
    int pr = ::poll(&p, 1, remainingMs(deadline));
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0) {
      error = "timeout waiting for the server's reply to " + method;
      return std::nullopt;
    }
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if (n <= 0) {
      error = "the server closed the connection";
      return std::nullopt;
    }
    buffered_.append(buf, size_t(n));
  }
}

std::optional<Connection> connectChecked(const std::string &path, double timeoutS,
                                         std::string &error, bool *mismatch) {
  if (mismatch)
    *mismatch = false;
  Connection c;
  if (!c.connect(path, timeoutS, error))
    return std::nullopt;
  auto r = c.call("initialize", json{{"protocol_version", kProtocolVersion},
                                     {"client_version", support::versionString()}},
                  std::max(timeoutS, 5.0), error);
  if (!r)
    return std::nullopt;
  if (!r->is_object() || r->value("protocol_version", -1) != kProtocolVersion ||
      r->value("compiler_identity", std::string()) != support::buildId()) {
    error = "the server at " + path + " runs another compiler (version " +
            r->value("server_version", std::string("?")) + ", protocol " +
            std::to_string(r->value("protocol_version", -1)) + ")";
    if (mismatch)
      *mismatch = true;
    return std::nullopt;
  }
  auto root = cache::resolveCacheRoot(cache::processEnv());
  if (root && r->value("cache_root", std::string()) != *root) {
    error = "the server at " + path + " uses another cache (" +
            r->value("cache_root", std::string()) + ", not " + *root + ")";
    if (mismatch)
      *mismatch = true;
    return std::nullopt;
  }
  return c;
}

bool spawnServer(const std::string &path, std::string &error) {
  std::string exe = support::executablePath();
  if (exe.empty())
    exe = "/proc/self/exe";
  std::vector<std::string> args = {exe, "serve", "--socket", path};
  std::vector<char *> argv;
  for (auto &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    error = "cannot start " + exe + " serve: " + std::strerror(rc);
    return false;
  }
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
  if (code != kServeOk && code != kServeAlreadyRunning) {
    error = "intentc serve failed to start (exit " + std::to_string(code) + "); see " + path +
            ".log";
    return false;
  }
  return true;
}

/// Polls connect + initialize until the deadline.
static std::optional<Connection> waitReady(const std::string &path, double seconds,
                                           std::string &error) {
  auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
  int delay = 5;
  for (;;) {
    bool mismatch = false;
    if (auto c = connectChecked(path, 1.0, error, &mismatch))
      return c;
    if (mismatch || Clock::now() >= deadline)
      return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    delay = std::min(delay * 2, 100);
  }
}

std::optional<Connection> ensureServer(const std::string &path, std::string &error) {
  bool mismatch = false;
  if (auto c = connectChecked(path, 1.0, error, &mismatch))
    return c;
  if (std::string e = prepareSocketDir(path, true); !e.empty()) {
    error = e;
    return std::nullopt;
  }
  std::string lockPath = path + ".spawn.lock";
  int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot open " + lockPath + ": " + std::strerror(errno);
    return std::nullopt;
  }
  while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{fd};
  // Somebody may have started it while we waited for the spawn lock.
  if (auto c = connectChecked(path, 1.0, error, &mismatch))
    return c;
  if (mismatch) {
    // An older/different server: ask it to leave, then start ours.
    std::string ignored;
    stopServer(path, 10.0, ignored);
  }
  if (!spawnServer(path, error))
    return std::nullopt;
  return waitReady(path, 10.0, error);
}

std::optional<driver::CompileResult> compileViaServer(const driver::CompileRequest &req,
                                                      const ClientOptions &opts,
                                                      std::string &error) {
  error.clear();
  if (opts.mode == ServerMode::Never)
    return std::nullopt;
  std::string path = opts.socketPath.empty() ? defaultSocketPath() : opts.socketPath;
  std::string why;
  std::optional<Connection> c;
  if (opts.mode == ServerMode::Spawn)
    c = ensureServer(path, why);
  else
    c = connectChecked(path, opts.connectTimeoutS, why);
  if (!c) {
    if (opts.mode == ServerMode::Require || opts.mode == ServerMode::Spawn)
      error = "no compile server: " + why;
    return std::nullopt;
  }
  json errObj;
  auto r = c->call("compile", requestToParams(req), opts.requestTimeoutS, why, &errObj);
  driver::CompileResult res;
  if (!r) {
    // A compile failure carries the full result (diagnostics) in its data.
    if (errObj.is_object() && errObj.value("code", 0) == kCompileFailed &&
        errObj.contains("data") && errObj["data"].contains("result")) {
      if (auto e = resultFromJson(errObj["data"]["result"], res)) {
        error = *e;
        return std::nullopt;
      }
      res.ok = false;
      return res;
    }
    if (opts.mode == ServerMode::Auto) {
      error.clear(); // a server that fails to answer: compile in-process
      return std::nullopt;
    }
    error = "compile server: " + why;
    return std::nullopt;
  }
  if (auto e = resultFromJson(*r, res)) {
    error = *e;
    return std::nullopt;
  }
  return res;
}

bool stopServer(const std::string &path, double waitS, std::string &error) {
  Connection c;
  if (!c.connect(path, 1.0, error))
    return false;
  json pidReply;
  auto r = c.call("shutdown", json::object(), 5.0, error);
  if (!r)
    return false;
  // Wait until the lock is released (the server removes socket and lock last).
  auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(waitS * 1000));
  std::string lockPath = path + ".lock";
  while (Clock::now() < deadline) {
    int fd = ::open(lockPath.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
      return true; // lock file gone
    bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    if (free)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error = "the server did not stop within " + std::to_string(int(waitS)) + " s";
  return false;
}

} // namespace intent::server
