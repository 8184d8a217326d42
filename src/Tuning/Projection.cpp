//===- Projection.cpp - Projection of profile preferences -----------------===//
#include "intent/Tuning/Projection.h"

#include <algorithm>
#include <cassert>

namespace intent::tuning {

int64_t projectPreference(const std::vector<int64_t> &domain, int64_t request) {
  assert(!domain.empty() && "projection onto an empty domain");
  assert(std::is_sorted(domain.begin(), domain.end()) && "domain must be sorted");
  if (domain.empty())
    return request;
  // First element > request; the one before it is the largest <= request.
  auto it = std::upper_bound(domain.begin(), domain.end(), request);
  if (it == domain.begin())
    return domain.front();
  return *std::prev(it);
}

ParameterDomain ParameterDomain::of(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  ParameterDomain d;
  d.values_ = std::move(values);
  return d;
}

ParameterDomain ParameterDomain::fixed(int64_t value) { return of({value}); }

ParameterDomain ParameterDomain::powersOfTwo(int64_t lo, int64_t hi) {
  std::vector<int64_t> vs;
  for (int64_t p = 1; p > 0 && p <= hi; p *= 2) {
    if (p >= lo)
      vs.push_back(p);
    if (p > INT64_MAX / 2)
      break;
  }
  return of(std::move(vs));
}

ParameterDomain ParameterDomain::range(int64_t lo, int64_t hi, int64_t step) {
  assert(step >= 1);
  std::vector<int64_t> vs;
  for (int64_t v = lo; v <= hi; v += step) {
    vs.push_back(v);
    if (v > INT64_MAX - step)
      break;
  }
  return of(std::move(vs));
}

bool ParameterDomain::contains(int64_t v) const {
  return std::binary_search(values_.begin(), values_.end(), v);
}

int64_t ParameterDomain::project(int64_t request) const {
  return projectPreference(values_, request);
}

std::string ParameterDomain::str() const {
  std::string s = "{";
  for (size_t i = 0; i < values_.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values_[i]);
  return s + "}";
}

} // namespace intent::tuning
