//===- WinnersRpc.cpp - runtime winner records <-> the cache table ---------===//
#include "intent/Server/WinnersRpc.h"
#include "intent/Server/Protocol.h"

#include <ctime>
#include <map>

using nlohmann::json;

namespace intent::server {

cache::TuningKey tuningKeyFromParts(const std::string &artifactKey,
                                    const std::string &runtimeKey, const std::string &device) {
  cache::TuningKey k;
  k.artifactKey = artifactKey;
  k.runtimeKey = runtimeKey;
  size_t bar = device.rfind('|');
  if (bar == std::string::npos) {
    k.deviceName = device;
  } else {
    k.deviceName = device.substr(0, bar);
    k.deviceCapability = device.substr(bar + 1);
  }
  return k;
}

std::string deviceString(const cache::TuningKey &k) {
  return k.deviceName + "|" + k.deviceCapability;
}

std::string digestOf(const cache::TuningKey &k) {
  return tuningDigest(k.artifactKey, k.runtimeKey, deviceString(k));
}

json timingToRuntime(const cache::CandidateTiming &t) {
  return {{"config", t.config},
          {"median_ms", t.medianMs ? json(*t.medianMs) : json(nullptr)},
          {"spread_ms", t.spreadMs ? json(*t.spreadMs) : json(nullptr)},
          {"status", t.ok ? "ok" : "failed"},
          {"message", t.message.empty() ? json(nullptr) : json(t.message)}};
}

std::optional<cache::CandidateTiming> timingFromRuntime(const json &j, std::string &error) {
  if (!j.is_object() || !j.contains("config")) {
    error = "timing must be an object with 'config'";
    return std::nullopt;
  }
  cache::CandidateTiming t;
  t.config = j["config"];
  auto num = [&](const char *k, std::optional<double> &out) {
    if (!j.contains(k) || j[k].is_null())
      return true;
    if (!j[k].is_number()) {
      error = std::string("timing '") + k + "' must be a number or null";
      return false;
    }
    out = j[k].get<double>();
    return true;
  };
  if (!num("median_ms", t.medianMs) || !num("spread_ms", t.spreadMs))
    return std::nullopt;
  std::string status = "ok";
  if (j.contains("status")) {
    if (!j["status"].is_string()) {
      error = "timing 'status' must be a string";
      return std::nullopt;
    }
    status = j["status"].get<std::string>();
  }
  if (status != "ok" && status != "failed") {
    error = "timing 'status' must be 'ok' or 'failed'";
    return std::nullopt;
  }
  t.ok = status == "ok";
  if (j.contains("message") && !j["message"].is_null()) {
    if (!j["message"].is_string()) {
      error = "timing 'message' must be a string or null";
      return std::nullopt;
    }
    t.message = j["message"].get<std::string>();
  }
  return t;
}

json recordToRuntime(const std::optional<cache::WinnerRecord> &rec) {
  json out = {{"found", false}, {"winner", nullptr}, {"candidates", json::array()}};
  if (!rec)
    return out;
  for (const auto &c : rec->candidates)
    out["candidates"].push_back(timingToRuntime(c));
  if (const cache::CandidateTiming *w = rec->winner()) {
    out["found"] = true;
    out["winner"] = w->config;
  }
  return out;
}

cache::WinnerRecord mergeRecord(const std::optional<cache::WinnerRecord> &old,
                                const cache::TuningKey &key,
                                const std::vector<cache::CandidateTiming> &candidates,
                                const json &winner, bool retune, int64_t measuredAtMs,
                                const std::string &host) {
  std::map<std::string, cache::CandidateTiming> merged;
  json oldWinner = nullptr;
  if (old) {
    for (const auto &c : old->candidates)
      merged[canonicalJson(c.config)] = c;
    if (const cache::CandidateTiming *w = old->winner())
      oldWinner = w->config;
  }
  std::map<std::string, cache::CandidateTiming> oldSet = merged;
  bool newKeys = false;
  for (const auto &c : candidates) {
    std::string k = canonicalJson(c.config);
    if (!oldSet.count(k)) {
      newKeys = true;
      merged[k] = c;
    } else if (retune) {
      merged[k] = c;
    }
  }
  json w = (retune || oldWinner.is_null() || newKeys) ? winner : oldWinner;
  cache::WinnerRecord rec;
  rec.key = key;
  rec.measuredAtMs = measuredAtMs;
  rec.host = host;
  std::string wk = w.is_null() ? std::string() : canonicalJson(w);
  if (!w.is_null() && !merged.count(wk)) {
    cache::CandidateTiming t; // a winner without a timing: keep it selectable
    t.config = w;
    merged[wk] = t;
  }
  for (auto &[k, t] : merged) {
    if (!w.is_null() && k == wk)
      rec.winnerIndex = int(rec.candidates.size());
    rec.candidates.push_back(t);
  }
  return rec;
}

int64_t parseIsoMs(const std::string &s) {
  struct tm tm = {};
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
    return 0;
  return int64_t(timegm(&tm)) * 1000;
}

} // namespace intent::server
