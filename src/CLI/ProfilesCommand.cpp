//===- ProfilesCommand.cpp - intentc profiles show --------------------------===//
//
// Prints a provider's effective profile table: the shipped defaults
// (configs/<provider>.json) with the families of a --tuning-config override
// replaced as a whole; every row names its source and its index in that file.
//
//===----------------------------------------------------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/Driver/Driver.h"
#include "intent/Tuning/Columns.h"
#include "intent/Tuning/ProfileTable.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <iostream>

using namespace intent;
using json = nlohmann::ordered_json;

namespace {
struct ProfilesOptions {
  std::string target = "triton";
  std::string family;
  std::string tuningConfig;
  bool json = false;
};
} // namespace

cli::Action cli::registerProfiles(CLI::App &app) {
  auto o = std::make_shared<ProfilesOptions>();
  app.require_subcommand(1);
  CLI::App *show = app.add_subcommand("show", "Print the effective profile table (defaults + override)");
  show->add_option("--target", o->target, "Provider: triton, cutile, bangc")->capture_default_str();
  show->add_option("--family", o->family, "Print only this family");
  show->add_option("--tuning-config", o->tuningConfig, "Profile override JSON file");
  show->add_flag("--json", o->json, "Print JSON");
  return [o, show]() {
    if (!show->parsed())
      return 2;
    std::optional<tuning::Provider> provider = tuning::parseProvider(o->target);
    if (!provider) {
      llvm::errs() << "error: unknown --target '" << o->target
                   << "' (profile tables exist for: triton cutile bangc)\n";
      return 1;
    }
    std::string configDir = driver::defaultConfigDir();
    auto defaults = tuning::loadProfileTable(
        configDir + "/" + tuning::providerName(*provider) + ".json", *provider);
    if (!defaults) {
      llvm::errs() << defaults.error().str() << "\n";
      return 1;
    }
    std::optional<tuning::Override> ov;
    if (!o->tuningConfig.empty()) {
      auto loaded = tuning::loadOverride(o->tuningConfig);
      if (!loaded) {
        llvm::errs() << loaded.error().str() << "\n";
        return 1;
      }
      ov = std::move(*loaded);
    }
    const std::vector<std::string> &families = tuning::familiesFor(*provider);
    if (!o->family.empty() && !tuning::isFamilyOf(*provider, o->family)) {
      llvm::errs() << "error: unknown family '" << o->family << "' for provider '"
                   << tuning::providerName(*provider) << "' (known:";
      for (const std::string &f : families)
        llvm::errs() << " " << f;
      llvm::errs() << ")\n";
      return 1;
    }
    tuning::EffectiveTable table = tuning::applyOverride(*defaults, ov ? &*ov : nullptr, *provider);
    std::vector<std::string> columns = tuning::columnNamesFor(*provider);
    std::vector<std::string> selected;
    for (const std::string &f : families)
      if (o->family.empty() || f == o->family)
        selected.push_back(f);

    if (o->json) {
      json fams = json::object();
      for (const std::string &f : selected) {
        json rows = json::array();
        for (const tuning::EffectiveRow &r : table.rows(f))
          rows.push_back({{"source", tuning::rowSourceName(r.source)},
                          {"index", r.index},
                          {"values", r.values}});
        fams[f] = rows;
      }
      json out{{"provider", tuning::providerName(*provider)},
               {"defaults", defaults->fileName},
               {"override", ov ? json(ov->fileName) : json(nullptr)},
               {"columns", columns},
               {"families", fams}};
      std::cout << out.dump(2) << "\n";
      return 0;
    }

    std::cout << tuning::providerName(*provider) << " profile table: defaults "
              << defaults->fileName;
    if (ov)
      std::cout << ", override " << ov->fileName;
    std::cout << "\n";
    for (const std::string &f : selected) {
      const auto &rows = table.rows(f);
      std::cout << "\nfamily " << f << " (" << rows.size() << (rows.size() == 1 ? " row" : " rows")
                << ")\n";
      std::vector<std::vector<std::string>> cells;
      std::vector<std::string> head{"source", "index"};
      head.insert(head.end(), columns.begin(), columns.end());
      cells.push_back(head);
      for (const tuning::EffectiveRow &r : rows) {
        std::vector<std::string> line{tuning::rowSourceName(r.source), std::to_string(r.index)};
        for (int64_t v : r.values)
          line.push_back(std::to_string(v));
        cells.push_back(line);
      }
      std::vector<size_t> width(head.size(), 0);
      for (const auto &c : cells)
        for (size_t i = 0; i < c.size(); ++i)
          width[i] = std::max(width[i], c[i].size());
      for (const auto &c : cells) {
        std::string line = "  ";
        for (size_t i = 0; i < c.size(); ++i) {
          // source left-aligned, numbers right-aligned under their column name
          std::string pad(width[i] - c[i].size(), ' ');
          line += i == 0 ? c[i] + pad : pad + c[i];
          if (i + 1 < c.size())
            line += "  ";
        }
        while (!line.empty() && line.back() == ' ')
          line.pop_back();
        std::cout << line << "\n";
      }
    }
    return 0;
  };
}
