//===- CacheCommand.cpp - intentc cache dir|stats|list|show|verify|gc|clear ===//
//
// A thin layer over the cache library (docs/cache.md §10-11): every subcommand
// resolves the root, opens the cache and prints through the library's
// human/JSON formatters.
//
//===----------------------------------------------------------------------===//
#include "intent/Cache/Cache.h"
#include "intent/Cache/CacheRoot.h"
#include "intent/Cache/Format.h"
#include "intent/CLI/Commands.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>
#include <iostream>
#include <memory>

using namespace intent;

namespace {
struct CacheOptions {
  bool json = false;
  bool repair = false;
  std::string key;
  std::string maxSize;
};

cache::Expected<std::string> resolveRoot() {
  cache::Expected<std::string> root = cache::resolveCacheRoot(cache::processEnv());
  if (!root)
    llvm::errs() << "error: cache: " << root.error() << "\n";
  return root;
}

/// Resolves and opens the cache; prints the error (and the corrupt-index
/// warning) itself.
std::optional<cache::Cache> openCache() {
  cache::Expected<std::string> root = resolveRoot();
  if (!root)
    return std::nullopt;
  cache::Expected<cache::Cache> opened = cache::Cache::open(*root);
  if (!opened) {
    llvm::errs() << "error: cache: cannot open " << *root << ": " << opened.error() << "\n";
    return std::nullopt;
  }
  std::optional<cache::Cache> c;
  c.emplace(std::move(*opened));
  if (const auto &moved = c->recoveredCorruptIndex())
    llvm::errs() << "warning: cache: the index " << c->indexPath()
                 << " was not a valid SQLite database; moved it aside to " << *moved
                 << " and started a fresh index\n";
  return c;
}

template <typename T> bool reportError(const cache::Expected<T> &r, const char *what) {
  if (r)
    return false;
  llvm::errs() << "error: cache " << what << ": " << r.error() << "\n";
  return true;
}

void printJson(const nlohmann::json &j) { std::cout << j.dump(2) << "\n"; }
} // namespace

cli::Action cli::registerCache(CLI::App &app) {
  auto o = std::make_shared<CacheOptions>();
  app.require_subcommand(1);
  CLI::App *dir = app.add_subcommand("dir", "Print the cache directory");
  CLI::App *stats = app.add_subcommand("stats", "Entries, bytes, hits, misses, failures");
  CLI::App *list = app.add_subcommand("list", "List entries, most recently used first");
  CLI::App *show = app.add_subcommand("show", "Show one entry by key or unique key prefix");
  CLI::App *verify = app.add_subcommand(
      "verify", "Check every entry against its files; exit 1 if a complete entry is broken");
  CLI::App *gc =
      app.add_subcommand("gc", "Evict entries (failed first, then least recently used)");
  CLI::App *clear = app.add_subcommand("clear", "Remove every artifact entry");
  for (CLI::App *sub : {dir, stats, list, show, verify, gc, clear})
    sub->add_flag("--json", o->json, "Print JSON");
  show->add_option("key", o->key, "Key or unique prefix (>= 4 hex characters)")->required();
  verify->add_flag("--repair", o->repair,
                   "Remove broken entries, orphan directories and stale temporaries");
  gc->add_option("--max-size", o->maxSize, "Target total size, e.g. 500M, 10G, 1.5GiB")
      ->required();

  return [=]() -> int {
    if (dir->parsed()) {
      cache::Expected<std::string> root = resolveRoot();
      if (!root)
        return 1;
      if (o->json)
        printJson({{"dir", *root}});
      else
        std::cout << *root << "\n";
      return 0;
    }
    if (gc->parsed()) { // validate the size before opening anything
      cache::Expected<uint64_t> bytes = cache::parseSize(o->maxSize);
      if (!bytes) {
        llvm::errs() << "error: --max-size: " << bytes.error() << "\n";
        return 1;
      }
      std::optional<cache::Cache> c = openCache();
      if (!c)
        return 1;
      cache::Expected<cache::GcResult> r = c->gc(*bytes);
      if (reportError(r, "gc"))
        return 1;
      if (o->json)
        printJson(cache::gcToJson(*r));
      else
        std::cout << cache::formatGcHuman(*r);
      return 0;
    }
    std::optional<cache::Cache> c = openCache();
    if (!c)
      return 1;
    if (stats->parsed()) {
      cache::Expected<cache::CacheStats> r = c->stats();
      if (reportError(r, "stats"))
        return 1;
      if (o->json)
        printJson(cache::statsToJson(*r, c->root()));
      else
        std::cout << cache::formatStatsHuman(*r, c->root());
      return 0;
    }
    if (list->parsed()) {
      cache::Expected<std::vector<cache::Entry>> r = c->list();
      if (reportError(r, "list"))
        return 1;
      if (o->json)
        printJson(cache::listToJson(*r));
      else
        std::cout << cache::formatListHuman(*r);
      return 0;
    }
    if (show->parsed()) {
      cache::Expected<cache::Entry> r = c->show(o->key);
      if (reportError(r, "show"))
        return 1;
      if (o->json)
        printJson(cache::entryToJson(*r));
      else
        std::cout << cache::formatEntryHuman(*r);
      return 0;
    }
    if (verify->parsed()) {
      cache::Expected<cache::VerifyReport> r = c->verify(o->repair);
      if (reportError(r, "verify"))
        return 1;
      if (o->json)
        printJson(cache::verifyToJson(*r));
      else
        std::cout << cache::formatVerifyHuman(*r);
      // Only an issue on a complete row that is still there is an error.
      for (const cache::VerifyIssue &i : r->issues)
        if (i.onCompleteRow && !i.repaired)
          return 1;
      return 0;
    }
    if (clear->parsed()) {
      cache::Expected<cache::ClearResult> r = c->clear();
      if (reportError(r, "clear"))
        return 1;
      if (o->json) {
        printJson({{"removed_entries", r->removedEntries}, {"skipped_locked", r->skippedLocked}});
      } else {
        std::cout << "removed " << r->removedEntries << " entries from " << c->root() << "\n";
        if (!r->skippedLocked.empty())
          std::cout << "skipped " << r->skippedLocked.size() << " entries in use\n";
      }
      return 0;
    }
    return 2;
  };
}
