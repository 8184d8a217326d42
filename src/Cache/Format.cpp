//===- Format.cpp - CLI helpers for `intentc cache` -----------------------===//
#include "intent/Cache/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

using nlohmann::json;

namespace intent::cache {

Expected<uint64_t> parseSize(std::string_view text) {
  auto bad = [&] {
    return makeError("invalid size '" + std::string(text) +
                     "' (expected a number with an optional K, M, G or T suffix, e.g. 10G)");
  };
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      s.push_back(c);
  if (s.empty())
    return bad();
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
    ++i;
  std::string num = s.substr(0, i), suffix = s.substr(i);
  if (num.empty() || num == "." || std::count(num.begin(), num.end(), '.') > 1)
    return bad();
  for (char &c : suffix)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() >= 2 && suffix.compare(suffix.size() - 2, 2, "IB") == 0)
    suffix.resize(suffix.size() - 2);
  else if (suffix.size() >= 2 && suffix.back() == 'B')
    suffix.pop_back();
  else if (suffix == "B")
    suffix.clear();
  int shift = 0;
  if (suffix.empty())
    shift = 0;
  else if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else
    return bad();
  if (num.find('.') == std::string::npos) {
    if (num.size() > 19)
      return makeError("size '" + std::string(text) + "' is too large");
    unsigned long long v = std::stoull(num);
    if (shift && v > (UINT64_MAX >> shift))
      return makeError("size '" + std::string(text) + "' is too large");
    return uint64_t(v) << shift;
  }
  double v = std::strtod(num.c_str(), nullptr);
  double bytes = std::ldexp(v, shift);
  if (!(bytes < 1.8e19))
    return makeError("size '" + std::string(text) + "' is too large");
  return uint64_t(std::llround(bytes));
}

std::string formatSize(uint64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string formatTime(int64_t unixMs) {
  std::time_t t = std::time_t(unixMs / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string formatStatsHuman(const CacheStats &s, const std::string &root) {
  std::string out;
  if (!root.empty())
    out += "cache dir: " + root + "\n";
  out += "entries:   " + std::to_string(s.entries) + " (" + std::to_string(s.completeEntries) +
         " complete, " + std::to_string(s.failedEntries) + " failed)\n";
  out += "size:      " + formatSize(s.bytes) + " (" + std::to_string(s.bytes) + " bytes)\n";
  uint64_t lookups = s.hits + s.misses;
  char rate[32] = "n/a";
  if (lookups)
    std::snprintf(rate, sizeof rate, "%.1f%%", 100.0 * double(s.hits) / double(lookups));
  out += "hits:      " + std::to_string(s.hits) + "\n";
  out += "misses:    " + std::to_string(s.misses) + "\n";
  out += "hit rate:  " + std::string(rate) + "\n";
  out += "failures:  " + std::to_string(s.failures) + "\n";
  return out;
}

json statsToJson(const CacheStats &s, const std::string &root) {
  json j = {{"entries", s.entries},   {"complete_entries", s.completeEntries},
            {"failed_entries", s.failedEntries}, {"bytes", s.bytes},
            {"hits", s.hits},         {"misses", s.misses},
            {"failures", s.failures}};
  if (!root.empty())
    j["dir"] = root;
  return j;
}

json entryToJson(const Entry &e) {
  json files = json::object();
  for (const auto &[name, digest] : e.files)
    files[name] = digest;
  return {{"key", e.key},
          {"state", entryStateName(e.state)},
          {"kernel", e.info.kernel},
          {"provider", e.info.provider},
          {"arch", e.info.arch},
          {"size_bytes", e.sizeBytes},
          {"created_at", formatTime(e.createdAtMs)},
          {"last_used_at", formatTime(e.lastUsedAtMs)},
          {"created_at_ms", e.createdAtMs},
          {"last_used_at_ms", e.lastUsedAtMs},
          {"hit_count", e.hitCount},
          {"dir", e.dir},
          {"files", std::move(files)}};
}

json listToJson(const std::vector<Entry> &entries) {
  json arr = json::array();
  for (const Entry &e : entries)
    arr.push_back(entryToJson(e));
  return arr;
}

std::string formatListHuman(const std::vector<Entry> &entries) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-16s  %-8s  %-24s  %-8s  %-8s  %10s  %s\n", "KEY", "STATE",
                "KERNEL", "PROVIDER", "ARCH", "SIZE", "LAST USED");
  out += buf;
  for (const Entry &e : entries) {
    std::snprintf(buf, sizeof buf, "%-16s  %-8s  %-24s  %-8s  %-8s  %10s  %s\n",
                  e.key.substr(0, 16).c_str(), entryStateName(e.state), e.info.kernel.c_str(),
                  e.info.provider.c_str(), e.info.arch.c_str(), formatSize(e.sizeBytes).c_str(),
                  formatTime(e.lastUsedAtMs).c_str());
    out += buf;
  }
  return out;
}

std::string formatEntryHuman(const Entry &e) {
  std::string out;
  out += "key:        " + e.key + "\n";
  out += "state:      " + std::string(entryStateName(e.state)) + "\n";
  out += "kernel:     " + e.info.kernel + "\n";
  out += "provider:   " + e.info.provider + "\n";
  out += "arch:       " + e.info.arch + "\n";
  out += "size:       " + formatSize(e.sizeBytes) + "\n";
  out += "created:    " + formatTime(e.createdAtMs) + "\n";
  out += "last used:  " + formatTime(e.lastUsedAtMs) + "\n";
  out += "hits:       " + std::to_string(e.hitCount) + "\n";
  out += "dir:        " + e.dir + "\n";
  out += "files:\n";
  for (const auto &[name, digest] : e.files)
    out += "  " + digest + "  " + name + "\n";
  return out;
}

std::string formatVerifyHuman(const VerifyReport &r) {
  std::string out = "checked " + std::to_string(r.rowsChecked) + " entries: ";
  if (r.clean())
    return out + "ok\n";
  out += std::to_string(r.issues.size()) + " issue(s)\n";
  for (const VerifyIssue &i : r.issues) {
    out += std::string("  ") + verifyIssueKindName(i.kind) + "  " +
           (i.key.empty() ? std::string("-") : i.key.substr(0, 16)) + "  " + i.path;
    if (!i.detail.empty())
      out += "  (" + i.detail + ")";
    if (i.repaired)
      out += "  [repaired]";
    out += "\n";
  }
  return out;
}

json verifyToJson(const VerifyReport &r) {
  json issues = json::array();
  for (const VerifyIssue &i : r.issues)
    issues.push_back({{"kind", verifyIssueKindName(i.kind)},
                      {"key", i.key},
                      {"path", i.path},
                      {"detail", i.detail},
                      {"on_complete_row", i.onCompleteRow},
                      {"repaired", i.repaired}});
  return {{"rows_checked", r.rowsChecked}, {"clean", r.clean()}, {"issues", std::move(issues)}};
}

std::string formatGcHuman(const GcResult &r) {
  std::string out = "evicted " + std::to_string(r.evicted.size()) + " entries; size " +
                    formatSize(r.bytesBefore) + " -> " + formatSize(r.bytesAfter) + "\n";
  if (!r.skippedLocked.empty())
    out += "skipped " + std::to_string(r.skippedLocked.size()) + " entries in use\n";
  return out;
}

json gcToJson(const GcResult &r) {
  return {{"bytes_before", r.bytesBefore},
          {"bytes_after", r.bytesAfter},
          {"evicted", r.evicted},
          {"skipped_locked", r.skippedLocked}};
}

} // namespace intent::cache
