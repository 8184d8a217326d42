//===- Columns.h - Providers, profile columns and families -----*- C++ -*-===//
//
// The column layout and structural families of each provider's profile table
// (spec/tuning.md section 3 and 4). Pure data: no provider legality lives here.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_COLUMNS_H
#define INTENT_TUNING_COLUMNS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace intent::tuning {

enum class Provider { Triton, CuTile, BangC };

/// "triton", "cutile", "bangc".
const char *providerName(Provider p);
std::optional<Provider> parseProvider(std::string_view name);
const std::vector<Provider> &allProviders();

enum class ColumnKind {
  PositiveInt32,   ///< 1 .. 2^31-1
  Boolean,         ///< 0 or 1
  Range,           ///< min .. max
  PowerOfTwoRange, ///< a power of two in min .. max
  OneOf,           ///< one of `values`
};

inline constexpr int64_t kMaxInt32 = 2147483647;

struct ColumnSpec {
  std::string name;
  ColumnKind kind = ColumnKind::PositiveInt32;
  int64_t min = 1;
  int64_t max = kMaxInt32;
  std::vector<int64_t> values; ///< OneOf only

  bool accepts(int64_t v) const;
  /// Human-readable domain, e.g. "a positive 32-bit integer (1..2147483647)",
  /// "0 or 1", "a power of two in 1..16", "one of 1, 4, 8".
  std::string describeDomain() const;
};

const std::vector<ColumnSpec> &columnsFor(Provider p);
std::vector<std::string> columnNamesFor(Provider p);
std::optional<size_t> columnIndex(Provider p, std::string_view column);
/// The column of provider `p` that a parameter of semantic `role` consumes (the
/// seven shared columns are named after their role; provider options map to the
/// provider's own column); nullopt for launch-bound roles (`coverage`) and roles
/// the provider has no column for.
std::optional<std::string> columnForRole(Provider p, std::string_view role);

/// Structural families of a provider's table, in canonical order.
const std::vector<std::string> &familiesFor(Provider p);
bool isFamilyOf(Provider p, std::string_view family);

} // namespace intent::tuning

#endif // INTENT_TUNING_COLUMNS_H
