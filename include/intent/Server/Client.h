//===- Client.h - talking to the compile server -----------------*- C++ -*-===//
#ifndef INTENT_SERVER_CLIENT_H
#define INTENT_SERVER_CLIENT_H

#include "intent/Driver/Driver.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace intent::server {

/// How `intentc compile`/`prebuild` use the server:
///   auto    (default) use a server that answers and matches this compiler,
///           else compile in-process; never starts one;
///   never   always compile in-process;
///   require fail when no matching server answers;
///   spawn   like auto, but start one (connect -> spawn lock -> connect ->
///           spawn -> wait) when none answers, and restart one whose protocol
///           version or compiler identity differs.
enum class ServerMode { Auto, Never, Require, Spawn };
std::optional<ServerMode> parseServerMode(const std::string &s);

struct ClientOptions {
  ServerMode mode = ServerMode::Auto;
  std::string socketPath; ///< empty -> defaultSocketPath()
  double connectTimeoutS = 0.5;
  double requestTimeoutS = 600;
};

/// One connection, one request per line.
class Connection {
public:
  Connection() = default;
  Connection(const Connection &) = delete;
  Connection(Connection &&o) noexcept
      : fd_(o.fd_), nextId_(o.nextId_), buffered_(std::move(o.buffered_)) {
    o.fd_ = -1;
  }
  Connection &operator=(Connection &&o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(nextId_, o.nextId_);
    std::swap(buffered_, o.buffered_);
    return *this;
  }
  ~Connection();
  /// Connects; false (with `error`) when nobody listens.
  bool connect(const std::string &path, double timeoutS, std::string &error);
  /// Sends a request and waits for its reply line. Returns the "result"; on a
  /// JSON-RPC error returns nullopt with `error` = message and `errorObj` set.
  std::optional<nlohmann::json> call(const std::string &method, const nlohmann::json &params,
                                     double timeoutS, std::string &error,
                                     nlohmann::json *errorObj = nullptr);
  bool valid() const { return fd_ >= 0; }

private:
  int fd_ = -1;
  int nextId_ = 1;
  std::string buffered_;
};

/// Connects and checks `initialize`: protocol version, compiler identity and
/// cache root must match this process. `mismatch` is set when a server
/// answered but differs.
std::optional<Connection> connectChecked(const std::string &path, double timeoutS,
                                         std::string &error, bool *mismatch = nullptr);

/// Makes sure a matching server runs (the double-checked spawn protocol).
std::optional<Connection> ensureServer(const std::string &path, std::string &error);

/// Compiles through the server per `opts.mode`. Returns the result when a
/// server compiled it; nullopt with an empty `error` when the caller should
/// compile in-process; nullopt with `error` when it must fail (require).
std::optional<driver::CompileResult> compileViaServer(const driver::CompileRequest &req,
                                                      const ClientOptions &opts,
                                                      std::string &error);

/// Asks the server to shut down and waits (up to waitS) until it is gone.
bool stopServer(const std::string &path, double waitS, std::string &error);

/// Starts `intentc serve --socket path [extra]` (same binary) and waits for readiness.
bool spawnServer(const std::string &path, std::string &error);

} // namespace intent::server

#endif
