//===- WinnersCommand.cpp - intentc winners list|show|import|export|clear --===//
#include "intent/CLI/Commands.h"
#include "intent/CLI/Output.h"
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Cache/Format.h"
#include "intent/Server/Protocol.h"
#include "intent/Server/WinnersRpc.h"

#include <iostream>

using namespace intent;
using nlohmann::json;

namespace {
struct WinnersOpts {
  std::string which, key, file;
  bool json = false, keepExisting = false;
};

std::optional<cache::Cache> openCache() {
  auto root = cache::resolveCacheRoot(cache::processEnv());
  if (!root) {
    std::cerr << "error: " << root.error() << "\n";
    return std::nullopt;
  }
  auto c = cache::Cache::open(*root);
  if (!c) {
    std::cerr << "error: cannot open the cache at " << *root << ": " << c.error() << "\n";
    return std::nullopt;
  }
  if (c->recoveredCorruptIndex())
    std::cerr << "warning: the cache index was not a database; moved aside to "
              << *c->recoveredCorruptIndex() << "\n";
  return std::move(*c);
}

json withDigest(const cache::WinnerRecord &r) {
  json j = cache::winnerToJson(r);
  j["digest"] = server::digestOf(r.key);
  return j;
}

std::string humanLine(const cache::WinnerRecord &r) {
  std::string w = r.winner() ? server::canonicalJson(r.winner()->config) : "(none succeeded)";
  std::string rk = r.key.runtimeKey.size() > 40 ? r.key.runtimeKey.substr(0, 37) + "..."
                                                 : r.key.runtimeKey;
  return server::digestOf(r.key).substr(0, 12) + "  " + r.key.artifactKey.substr(0, 12) + "  " +
         server::deviceString(r.key) + "  " + std::to_string(r.candidates.size()) +
         " candidates  winner " + w + "  " + cache::formatTime(r.measuredAtMs) + "  " + r.host +
         "  " + rk;
}

/// Reads an export document or the runtime's pending file into records.
std::optional<std::vector<cache::WinnerRecord>> readImport(const std::string &path) {
  auto text = cli::readFileOrReport(path);
  if (!text)
    return std::nullopt;
  auto parsed = cli::parseJsonOrReport(path, *text);
  if (!parsed)
    return std::nullopt;
  json doc = std::move(*parsed);
  if (!doc.is_object()) {
    std::cerr << path << ": error: not a JSON object\n";
    return std::nullopt;
  }
  std::vector<cache::WinnerRecord> out;
  if (doc.contains("records") && doc["records"].is_object()) {
    // python/intent_runtime JsonFileStore: {"version":1,"records":{digest:{...}}}
    for (auto it = doc["records"].begin(); it != doc["records"].end(); ++it) {
      const json &r = it.value();
      if (!r.is_object() || !r.contains("artifact_key") || !r["artifact_key"].is_string() ||
          !r.contains("runtime_key") || !r["runtime_key"].is_string() || !r.contains("device") ||
          !r["device"].is_string()) {
        std::cerr << path << ": error: record " << it.key()
                  << ": needs string artifact_key, runtime_key, device\n";
        return std::nullopt;
      }
      std::vector<cache::CandidateTiming> cands;
      for (const json &t : r.value("candidates", json::array())) {
        std::string err;
        auto c = server::timingFromRuntime(t, err);
        if (!c) {
          std::cerr << path << ": error: record " << it.key() << ": " << err << "\n";
          return std::nullopt;
        }
        cands.push_back(*c);
      }
      cache::TuningKey key = server::tuningKeyFromParts(r["artifact_key"], r["runtime_key"],
                                                        r["device"]);
      int64_t ms = r.contains("measured_at") && r["measured_at"].is_string()
                       ? server::parseIsoMs(r["measured_at"].get<std::string>())
                       : 0;
      std::string host = r.contains("host") && r["host"].is_string() ? r["host"].get<std::string>()
                                                                     : std::string();
      out.push_back(server::mergeRecord(std::nullopt, key, cands,
                                        r.contains("winner") ? r["winner"] : json(nullptr),
                                        false, ms, host));
    }
    return out;
  }
  if (doc.value("format", std::string()) != "intentc-winners" || !doc.contains("winners") ||
      !doc["winners"].is_array()) {
    std::cerr << path
              << ": error: expected an 'intentc winners export' document "
                 "({\"format\":\"intentc-winners\",...}) or a winners-pending.json file\n";
    return std::nullopt;
  }
  for (const json &w : doc["winners"]) {
    std::string err;
    auto r = cache::winnerFromJson(w, err);
    if (!r) {
      std::cerr << path << ": error: " << err << "\n";
      return std::nullopt;
    }
    out.push_back(std::move(*r));
  }
  return out;
}
} // namespace

cli::Action cli::registerWinners(CLI::App &app) {
  auto o = std::make_shared<WinnersOpts>();
  app.require_subcommand(1);
  CLI::App *list = app.add_subcommand("list", "List recorded winners");
  list->add_flag("--json", o->json, "JSON output");
  list->callback([o]() { o->which = "list"; });
  CLI::App *show = app.add_subcommand("show", "Show the records of a tuning key");
  show->add_option("key", o->key,
                   "Tuning-key digest (as the runtime prints it) or artifact key, or a prefix")
      ->required();
  show->add_flag("--json", o->json, "JSON output");
  show->callback([o]() { o->which = "show"; });
  CLI::App *imp = app.add_subcommand("import", "Import winners (export file or winners-pending.json)");
  imp->add_option("file", o->file, "File ('-' = stdin)")->required();
  imp->add_flag("--keep-existing", o->keepExisting,
                "Keep records already present (default: the newer measurement wins)");
  imp->callback([o]() { o->which = "import"; });
  CLI::App *exp = app.add_subcommand("export", "Export every winner as JSON");
  exp->add_option("file", o->file, "File ('-' = stdout)")->required();
  exp->callback([o]() { o->which = "export"; });
  CLI::App *clr = app.add_subcommand("clear", "Remove every winner record");
  clr->callback([o]() { o->which = "clear"; });

  return [o]() {
    auto c = openCache();
    if (!c)
      return 1;
    if (o->which == "list" || o->which == "show") {
      auto all = c->listWinners();
      if (!all) {
        std::cerr << "error: " << all.error() << "\n";
        return 1;
      }
      std::vector<cache::WinnerRecord> sel;
      for (const auto &r : *all) {
        if (o->which == "show") {
          std::string d = server::digestOf(r.key);
          if (o->key.size() < 4 || (d.rfind(o->key, 0) != 0 && r.key.artifactKey.rfind(o->key, 0) != 0))
            continue;
        }
        sel.push_back(r);
      }
      if (o->which == "show" && sel.empty()) {
        std::cerr << "error: no winner record matches '" << o->key << "'\n";
        return 1;
      }
      if (o->json) {
        json arr = json::array();
        for (const auto &r : sel)
          arr.push_back(withDigest(r));
        std::cout << arr.dump(2) << "\n";
      } else if (o->which == "list") {
        for (const auto &r : sel)
          std::cout << humanLine(r) << "\n";
        std::cout << sel.size() << " winner record(s)\n";
      } else {
        for (const auto &r : sel)
          std::cout << withDigest(r).dump(2) << "\n";
      }
      return 0;
    }
    if (o->which == "export") {
      auto doc = c->exportWinners();
      if (!doc) {
        std::cerr << "error: " << doc.error() << "\n";
        return 1;
      }
      std::string text = doc->dump(2) + "\n";
      if (o->file == "-") {
        std::cout << text;
        return 0;
      }
      std::string err;
      if (!cli::replaceFile(o->file, text, err)) {
        std::cerr << "error: " << err << "\n";
        return 1;
      }
      return 0;
    }
    if (o->which == "import") {
      auto recs = readImport(o->file);
      if (!recs)
        return 1;
      size_t imported = 0, kept = 0;
      for (const auto &r : *recs) {
        auto old = c->getWinner(r.key);
        if (!old) {
          std::cerr << "error: " << old.error() << "\n";
          return 1;
        }
        if (*old && (o->keepExisting || (*old)->measuredAtMs > r.measuredAtMs)) {
          ++kept;
          continue;
        }
        if (auto st = c->recordWinner(r); !st) {
          std::cerr << "error: " << st.error() << "\n";
          return 1;
        }
        ++imported;
      }
      std::cout << "imported " << imported << " winner record(s), kept " << kept
                << " existing\n";
      return 0;
    }
    auto n = c->clearWinners();
    if (!n) {
      std::cerr << "error: " << n.error() << "\n";
      return 1;
    }
    std::cout << "removed " << *n << " winner record(s)\n";
    return 0;
  };
}
