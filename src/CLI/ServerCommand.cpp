//===- ServerCommand.cpp - intentc server start|stop|status ----------------===//
#include "intent/CLI/Commands.h"
#include "intent/Server/Client.h"
#include "intent/Server/Protocol.h"

#include <iostream>

using namespace intent;

cli::Action cli::registerServer(CLI::App &app) {
  auto socket = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto which = std::make_shared<std::string>();
  app.require_subcommand(1);
  const std::pair<const char *, const char *> subs[] = {
      {"start", "Start the compile server unless a matching one answers"},
      {"stop", "Stop the compile server and wait until it has exited"},
      {"status", "Show the running compile server's status (exit 1 when none answers)"}};
  for (const auto &[name, help] : subs) {
    CLI::App *sub = app.add_subcommand(name, help);
    sub->add_option("--socket", *socket, "Socket path");
    sub->add_flag("--json", *json, "JSON output");
    sub->callback([which, name]() { *which = name; });
  }
  return [socket, json, which]() {
    std::string path = socket->empty() ? server::defaultSocketPath() : *socket;
    std::string err;
    if (*which == "start") {
      auto c = server::ensureServer(path, err);
      if (!c) {
        std::cerr << "error: " << err << "\n";
        return 1;
      }
      auto st = c->call("status", nlohmann::json::object(), 5, err);
      if (*json)
        std::cout << (st ? st->dump(2) : "{}") << "\n";
      else
        std::cout << "intentc server running on " << path << " (pid "
                  << (st ? st->value("pid", 0) : 0) << ")\n";
      return 0;
    }
    if (*which == "stop") {
      server::Connection probe;
      if (!probe.connect(path, 1.0, err)) {
        std::cout << "no intentc server on " << path << "\n";
        return 0;
      }
      if (!server::stopServer(path, 30.0, err)) {
        std::cerr << "error: " << err << "\n";
        return 1;
      }
      std::cout << "intentc server on " << path << " stopped\n";
      return 0;
    }
    server::Connection c;
    if (!c.connect(path, 1.0, err)) {
      if (*json)
        std::cout << nlohmann::json{{"running", false}, {"socket", path}}.dump(2) << "\n";
      else
        std::cout << "no intentc server on " << path << "\n";
      return 1;
    }
    auto st = c.call("status", nlohmann::json::object(), 5, err);
    if (!st) {
      std::cerr << "error: " << err << "\n";
      return 1;
    }
    (*st)["running"] = true;
    if (*json) {
      std::cout << st->dump(2) << "\n";
    } else {
      for (auto it = st->begin(); it != st->end(); ++it)
        std::cout << it.key() << ": " << (it->is_string() ? it->get<std::string>() : it->dump())
                  << "\n";
    }
    return 0;
  };
}
