//===- Format.h - CLI helpers for `intentc cache` ---------------*- C++ -*-===//
#ifndef INTENT_CACHE_FORMAT_H
#define INTENT_CACHE_FORMAT_H

#include "intent/Cache/Cache.h"
#include "intent/Cache/Expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace intent::cache {

/// Parses "1234", "100K", "512M", "10G", "1T", "1.5G", "10GiB", "10GB"
/// (suffixes are binary, case-insensitive; a trailing "B"/"iB" is allowed).
Expected<uint64_t> parseSize(std::string_view text);
/// "0 B", "1.5 KiB", "10.0 GiB".
std::string formatSize(uint64_t bytes);
/// ISO-8601 UTC from unix milliseconds.
std::string formatTime(int64_t unixMs);

std::string formatStatsHuman(const CacheStats &s, const std::string &root = {});
nlohmann::json statsToJson(const CacheStats &s, const std::string &root = {});

/// One line per entry: key, state, kernel, provider, arch, size, last used.
std::string formatListHuman(const std::vector<Entry> &entries);
nlohmann::json entryToJson(const Entry &e);
nlohmann::json listToJson(const std::vector<Entry> &entries);
std::string formatEntryHuman(const Entry &e);

std::string formatVerifyHuman(const VerifyReport &r);
nlohmann::json verifyToJson(const VerifyReport &r);

std::string formatGcHuman(const GcResult &r);
nlohmann::json gcToJson(const GcResult &r);

} // namespace intent::cache

#endif // INTENT_CACHE_FORMAT_H
