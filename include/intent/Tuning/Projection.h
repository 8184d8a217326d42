//===- Projection.h - Projection of profile preferences ---------*- C++ -*-===//
//
// spec/tuning.md section 4: a row value r is a preference; for a parameter with
// typed domain D the bound value is the largest element of D that is <= r, or
// min(D) if there is none. A dimension the program already fixed has a
// one-element domain, so it stays fixed.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_PROJECTION_H
#define INTENT_TUNING_PROJECTION_H

#include <cstdint>
#include <string>
#include <vector>

namespace intent::tuning {

/// `domain` must be sorted ascending and non-empty (asserted).
int64_t projectPreference(const std::vector<int64_t> &domain, int64_t request);

/// A finite, sorted, duplicate-free set of candidate values of one parameter.
class ParameterDomain {
public:
  /// Sorts and deduplicates `values`.
  static ParameterDomain of(std::vector<int64_t> values);
  /// A dimension the program already fixed: exactly one value.
  static ParameterDomain fixed(int64_t value);
  /// Powers of two p with lo <= p <= hi (lo, hi >= 1). Empty if none.
  static ParameterDomain powersOfTwo(int64_t lo, int64_t hi);
  /// lo, lo+step, ... <= hi (step >= 1).
  static ParameterDomain range(int64_t lo, int64_t hi, int64_t step = 1);

  const std::vector<int64_t> &values() const { return values_; }
  bool empty() const { return values_.empty(); }
  bool isFixed() const { return values_.size() == 1; }
  bool contains(int64_t v) const;
  int64_t min() const { return values_.front(); }
  int64_t max() const { return values_.back(); }
  /// projectPreference(values(), request); the domain must be non-empty.
  int64_t project(int64_t request) const;
  /// "{16, 32, 64}"
  std::string str() const;

private:
  std::vector<int64_t> values_;
};

} // namespace intent::tuning

#endif // INTENT_TUNING_PROJECTION_H
