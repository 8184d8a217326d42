//===- WinnersRpc.h - runtime winner records <-> the cache table -*- C++ -*-===//
//
// The Python runtime (python/intent_runtime/store.py) names a tuning key by a
// BLAKE2b digest plus its readable parts (artifact key, runtime key, device
// "name|capability"); the cache table is keyed by the parts. These helpers
// convert between the two shapes and implement the runtime's merge rule
// (docs/runtime.md "Merge rule"), shared by the server's winners.record and
// `intentc winners import` of a pending file.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_SERVER_WINNERSRPC_H
#define INTENT_SERVER_WINNERSRPC_H

#include "intent/Cache/Cache.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace intent::server {

/// "NVIDIA H200|sm_90" -> name, capability (split at the last '|').
cache::TuningKey tuningKeyFromParts(const std::string &artifactKey,
                                    const std::string &runtimeKey, const std::string &device);
std::string deviceString(const cache::TuningKey &k);
std::string digestOf(const cache::TuningKey &k);

/// Runtime timing {"config","median_ms","spread_ms","status","message"}.
nlohmann::json timingToRuntime(const cache::CandidateTiming &t);
std::optional<cache::CandidateTiming> timingFromRuntime(const nlohmann::json &j,
                                                        std::string &error);

/// {"found", "winner", "candidates"} as winners.get answers.
nlohmann::json recordToRuntime(const std::optional<cache::WinnerRecord> &rec);

/// Applies the merge rule to `old` (may be absent) and returns the record to
/// store. `winner` is a config or null. Candidates end up sorted by canonical config.
cache::WinnerRecord mergeRecord(const std::optional<cache::WinnerRecord> &old,
                                const cache::TuningKey &key,
                                const std::vector<cache::CandidateTiming> &candidates,
                                const nlohmann::json &winner, bool retune,
                                int64_t measuredAtMs = 0, const std::string &host = {});

/// Parses "YYYY-MM-DDTHH:MM:SSZ" to unix ms (0 when malformed).
int64_t parseIsoMs(const std::string &s);

} // namespace intent::server

#endif
