//===- ServeCommand.cpp - intentc serve ------------------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/Cache/Format.h"
#include "intent/Server/Protocol.h"
#include "intent/Server/Server.h"

#include <iostream>

using namespace intent;

cli::Action cli::registerServe(CLI::App &app) {
  struct Opts {
    server::ServerOptions s;
    std::string maxBytes = "16M";
  };
  auto o = std::make_shared<Opts>();
  app.add_option("--socket", o->s.socketPath,
                 "Socket path (default $INTENTC_SOCKET, $XDG_RUNTIME_DIR/intentc/intentc.sock, "
                 "/tmp/intentc-<uid>/intentc.sock)");
  app.add_option("--jobs,-j", o->s.jobs, "Compile workers (default: core count)");
  app.add_option("--idle-timeout", o->s.idleTimeoutS, "Exit after S idle seconds (0 = never)")
      ->capture_default_str();
  app.add_option("--read-timeout", o->s.readTimeoutS,
                 "Drop a connection that sends no complete request within S seconds")
      ->capture_default_str();
  app.add_flag("--foreground", o->s.foreground,
               "Stay in the foreground; print 'ready' on stdout once listening");
  app.add_option("--ready-fd", o->s.readyFd, "Write 'ready' to this file descriptor once listening");
  app.add_option("--max-request-bytes", o->maxBytes, "Longest request line (e.g. 16M)")
      ->capture_default_str();
  app.add_option("--log-file", o->s.logFile, "Daemon log (default <socket>.log)");
  return [o]() {
    auto n = cache::parseSize(o->maxBytes);
    if (!n || *n == 0) {
      std::cerr << "error: --max-request-bytes: " << (n ? "must be > 0" : n.error()) << "\n";
      return 2;
    }
    o->s.maxRequestBytes = *n;
    return server::runServer(o->s);
  };
}
