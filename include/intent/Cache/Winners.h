//===- Winners.h - runtime winner timings -----------------------*- C++ -*-===//
//
// Winner timings are keyed by the runtime tuning key: compiled-candidate
// identity (artifact key) + runtime shape/dtype/stride key + device. They never
// feed back into IR and are not part of the artifact key.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_CACHE_WINNERS_H
#define INTENT_CACHE_WINNERS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace intent::cache {

struct TuningKey {
  std::string artifactKey;      ///< cache key of the compiled artifact
  std::string runtimeKey;       ///< shape/dtype/stride key computed at run time
  std::string deviceName;       ///< e.g. "NVIDIA H200"
  std::string deviceCapability; ///< e.g. "sm_90"
  bool operator==(const TuningKey &o) const {
    return artifactKey == o.artifactKey && runtimeKey == o.runtimeKey &&
           deviceName == o.deviceName && deviceCapability == o.deviceCapability;
  }
};

struct CandidateTiming {
  nlohmann::json config = nlohmann::json::object(); ///< complete configuration
  std::optional<double> medianMs;
  std::optional<double> spreadMs; ///< e.g. max-min or IQR, as measured
  bool ok = true;
  std::string message; ///< failure message when !ok
};

struct WinnerRecord {
  TuningKey key;
  std::vector<CandidateTiming> candidates;
  int winnerIndex = -1;      ///< index into candidates; -1: none succeeded
  int64_t measuredAtMs = 0;  ///< unix ms; 0 -> now when recorded
  std::string host;          ///< empty -> this host's name when recorded

  const CandidateTiming *winner() const {
    return winnerIndex >= 0 && size_t(winnerIndex) < candidates.size()
               ? &candidates[winnerIndex]
               : nullptr;
  }
};

nlohmann::json winnerToJson(const WinnerRecord &r);
/// Returns std::nullopt and sets `error` on malformed input.
std::optional<WinnerRecord> winnerFromJson(const nlohmann::json &j, std::string &error);

} // namespace intent::cache

#endif // INTENT_CACHE_WINNERS_H
