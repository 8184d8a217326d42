//===- Server.h - the compile server (intentc serve) ------------*- C++ -*-===//
#ifndef INTENT_SERVER_SERVER_H
#define INTENT_SERVER_SERVER_H

#include <cstdint>
#include <string>

namespace intent::server {

struct ServerOptions {
  std::string socketPath;      ///< empty -> defaultSocketPath()
  unsigned jobs = 0;           ///< compile workers; 0 -> core count
  unsigned idleTimeoutS = 600; ///< exit after this long without clients; 0 = never
  unsigned readTimeoutS = 30;  ///< per connection: max wait for a complete request line
  bool foreground = false;     ///< don't daemonize; print "ready" on stdout
  int readyFd = -1;            ///< also write "ready\n" to this fd once listening
  uint64_t maxRequestBytes = 16ull << 20;
  std::string logFile;         ///< daemon log; empty -> <socket>.log
};

/// Exit codes of runServer().
constexpr int kServeOk = 0;
constexpr int kServeError = 1;
constexpr int kServeAlreadyRunning = 3; ///< another server holds <socket>.lock

/// Runs the server until shutdown / signal / idle timeout. Without
/// `foreground` it daemonizes (double fork, setsid, output to the log file)
/// and the calling process returns once the daemon is listening (or failed).
int runServer(const ServerOptions &opts);

} // namespace intent::server

#endif
