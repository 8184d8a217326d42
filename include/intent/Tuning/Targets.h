//===- Targets.h - Hardware capability records (configs/targets.json) ----===//
//
// The compiler never queries a device: --arch selects one record of this
// table. The canonical JSON of a record is part of the cache identity and is
// written into artifact metadata.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_TARGETS_H
#define INTENT_TUNING_TARGETS_H

#include "intent/Tuning/Columns.h"
#include "intent/Tuning/Diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace intent::tuning {

struct TargetCaps {
  std::string arch;           ///< "sm_90", "mlu370", ...
  std::string providerFamily; ///< "cuda" or "bang"
  std::string description;    ///< informational; not part of the canonical record
  std::string source;         ///< where the figures come from; not canonical
  // cuda records (0 / false for bang records)
  int sms = 0;
  int computeCapability = 0; ///< major*10 + minor: 80, 90, 100
  int64_t smemPerBlock = 0;  ///< opt-in maximum dynamic shared memory per block, bytes
  int64_t smemPerSM = 0;     ///< bytes
  int regsPerSM = 0;
  int maxThreadsPerBlock = 0;
  int warpSize = 0;
  bool clusters = false; ///< thread block clusters (sm_90+)
  // both
  bool matrixUnits = false;
  bool tma = false;
  // bang records (0 for cuda records)
  int mluClusters = 0;
  int coresPerCluster = 0;
  int64_t nramBytesPerCore = 0;
  int64_t wramBytesPerCore = 0;
  int64_t sramBytesPerCluster = 0;
};

using TargetTable = std::map<std::string, TargetCaps>;

/// `{"targets": {"<arch>": {...record...}, ...}}`; strict: unknown and missing
/// fields, wrong types and non-positive counts are diagnostics.
Expected<TargetTable> parseTargets(std::string_view text, const std::string &fileName);
Expected<TargetTable> loadTargets(const std::string &path);

/// Compact JSON with sorted keys of the capability facts (description and
/// source excluded).
std::string canonicalJson(const TargetCaps &caps);

/// "cuda" for Triton/cuTile, "bang" for BANG C.
const char *providerFamilyFor(Provider p);
/// "sm_90" for Triton and cuTile, "mlu370" for BANG C.
const char *defaultArchFor(Provider p);

} // namespace intent::tuning

#endif // INTENT_TUNING_TARGETS_H
