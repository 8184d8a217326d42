//===- InfoCommand.cpp - intentc info [--json] -----------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/Driver/Driver.h"
#include "intent/Support/Identity.h"

#include <nlohmann/json.hpp>
#include <iostream>

using namespace intent;

cli::Action cli::registerInfo(CLI::App &app) {
  auto json = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "Print JSON");
  return [json]() {
    std::string configDir = driver::defaultConfigDir();
    nlohmann::ordered_json j;
    j["version"] = support::versionString();
    j["build_id"] = support::buildId();
    j["executable"] = support::executablePath();
    j["config_dir"] = configDir;
    nlohmann::ordered_json configs;
    for (const char *name : {"targets", "triton", "cutile", "bangc"})
      configs[name] = configDir + "/" + name + ".json";
    j["configs"] = configs;
    j["targets"] = {"triton", "cutile", "bangc", "reference"};
    if (*json) {
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::cout << "intentc " << support::versionString() << "\n"
              << "build id:   " << support::buildId() << "\n"
              << "executable: " << support::executablePath() << "\n"
              << "configs:    " << configDir << "\n";
    return 0;
  };
}
