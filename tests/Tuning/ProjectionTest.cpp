// Projection rule (spec/tuning.md section 4): largest domain value <= request,
// else the domain minimum.
#include "intent/Tuning/Columns.h"
#include "intent/Tuning/Projection.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace intent::tuning;

TEST_CASE("projection examples") {
  std::vector<int64_t> d = {16, 32, 64, 128};
  CHECK(projectPreference(d, 64) == 64);
  CHECK(projectPreference(d, 100) == 64);
  CHECK(projectPreference(d, 1000) == 128);
  CHECK(projectPreference(d, 8) == 16);
  CHECK(projectPreference(d, 16) == 16);
  CHECK(projectPreference({5}, 1) == 5);
  CHECK(projectPreference({5}, 99) == 5);
}

TEST_CASE("fixed dimensions stay fixed") {
  ParameterDomain fixed = ParameterDomain::fixed(128);
  CHECK(fixed.isFixed());
  for (int64_t r : {1, 64, 128, 256, 1 << 30})
    CHECK(fixed.project(r) == 128);
}

TEST_CASE("domain constructors") {
  CHECK(ParameterDomain::powersOfTwo(16, 256).values() == std::vector<int64_t>{16, 32, 64, 128, 256});
  CHECK(ParameterDomain::powersOfTwo(3, 20).values() == std::vector<int64_t>{4, 8, 16});
  CHECK(ParameterDomain::powersOfTwo(5, 7).empty());
  CHECK(ParameterDomain::powersOfTwo(1, INT64_MAX).values().size() == 63);
  CHECK(ParameterDomain::range(1, 10, 3).values() == std::vector<int64_t>{1, 4, 7, 10});
  ParameterDomain d = ParameterDomain::of({64, 16, 64, 32});
  CHECK(d.values() == std::vector<int64_t>{16, 32, 64});
  CHECK(d.contains(32));
  CHECK_FALSE(d.contains(48));
  CHECK(d.str() == "{16, 32, 64}");
  CHECK(d.min() == 16);
  CHECK(d.max() == 64);
}

TEST_CASE("projection properties on random domains and requests") {
  std::mt19937_64 rng(20261130);
  std::uniform_int_distribution<int> sizeDist(1, 12);
  std::uniform_int_distribution<int64_t> valueDist(-50, 5000);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<int64_t> raw(sizeDist(rng));
    for (auto &v : raw)
      v = valueDist(rng);
    ParameterDomain dom = ParameterDomain::of(raw);
    const auto &d = dom.values();
    std::vector<int64_t> requests(20);
    for (auto &r : requests)
      r = valueDist(rng);
    requests.push_back(d.front());
    requests.push_back(d.back());
    requests.push_back(d.front() - 1);
    std::sort(requests.begin(), requests.end());
    int64_t previous = INT64_MIN;
    for (int64_t r : requests) {
      int64_t p = projectPreference(d, r);
      // Result is in the domain.
      CHECK(std::binary_search(d.begin(), d.end(), p));
      // Never above the request unless the request is below the domain.
      if (r >= d.front())
        CHECK(p <= r);
      else
        CHECK(p == d.front());
      // It is the largest such value: no domain value lies in (p, r].
      for (int64_t v : d)
        if (v > p)
          CHECK(v > r);
      // Monotone in the request.
      CHECK(p >= previous);
      previous = p;
      // A request that is in the domain is taken as is.
      if (dom.contains(r))
        CHECK(p == r);
    }
  }
}

TEST_CASE("a parameter's role names the profile column it consumes") {
  CHECK(columnForRole(Provider::Triton, "ownership_m") == "ownership_m");
  CHECK(columnForRole(Provider::Triton, "traversal_workers") == "traversal_workers");
  CHECK(columnForRole(Provider::Triton, "warps") == "NUM_WARPS");
  CHECK(columnForRole(Provider::Triton, "stages") == "NUM_STAGES");
  CHECK(columnForRole(Provider::Triton, "ctas") == "NUM_CTAS");
  CHECK(columnForRole(Provider::Triton, "access_form") == "USE_TENSOR_DESCRIPTOR");
  CHECK_FALSE(columnForRole(Provider::Triton, "coverage"));
  CHECK_FALSE(columnForRole(Provider::BangC, "ownership_m")); // BANG C has its own columns
  CHECK(columnForRole(Provider::CuTile, "reduction") == "reduction");
}
