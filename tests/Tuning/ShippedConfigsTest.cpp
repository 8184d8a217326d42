// The shipped configs/<provider>.json tables parse and are complete.
#include "TestUtil.h"

#include "intent/Tuning/ProfileTable.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace intent::tuning;
using namespace intent::tuning::test;

namespace {
ProfileTable load(Provider p) {
  auto t = loadProfileTable(configPath(std::string(providerName(p)) + ".json"), p);
  if (!t)
    FAIL(t.error().str());
  return *t;
}
bool isContraction(const std::string &f) { return f.find("contraction") != std::string::npos; }
} // namespace

TEST_CASE("column layouts follow spec/tuning.md section 3") {
  CHECK(columnsFor(Provider::Triton).size() == 11);
  CHECK(columnsFor(Provider::CuTile).size() == 12);
  CHECK(columnsFor(Provider::BangC).size() == 7);
  for (Provider p : {Provider::Triton, Provider::CuTile}) {
    std::vector<std::string> names = columnNamesFor(p);
    names.resize(7);
    CHECK(names ==
          std::vector<std::string>{"ownership_m", "ownership_n", "reduction", "reduction_outer", "scan",
                                   "traversal_workers", "traversal_group"});
  }
  CHECK(columnIndex(Provider::Triton, "USE_TENSOR_DESCRIPTOR") == 10u);
  CHECK(columnsFor(Provider::Triton)[10].kind == ColumnKind::Boolean);
  CHECK(columnIndex(Provider::CuTile, "CUTILE_LOAD_POLICY") == 11u);
  CHECK_FALSE(columnIndex(Provider::BangC, "NUM_WARPS").has_value());
  CHECK(familiesFor(Provider::Triton).size() == 11);
  CHECK(familiesFor(Provider::CuTile) == familiesFor(Provider::Triton));
  CHECK(familiesFor(Provider::BangC) == std::vector<std::string>{"block"});
  for (Provider p : allProviders())
    CHECK(parseProvider(providerName(p)) == p);
  CHECK_FALSE(parseProvider("cuda").has_value());
}

TEST_CASE("shipped tables parse, define every family and keep sensible sizes") {
  for (Provider p : allProviders()) {
    CAPTURE(providerName(p));
    ProfileTable t = load(p);
    for (const std::string &f : familiesFor(p)) {
      CAPTURE(f);
      size_t n = t.rows(f).size();
      CHECK(n >= 1);
      if (p != Provider::BangC) {
        if (isContraction(f))
          CHECK(n <= 20); // tile shapes, split-K and persistent variants
        else
          CHECK((n >= 3 && n <= 16)); // reduction families carry split and column-statistics rows too (one trial each)
      }
    }
    // Canonical content is stable across loads.
    CHECK(canonicalJson(t) == canonicalJson(load(p)));
  }
}

TEST_CASE("triton contraction rows start from known-good Hopper configurations") {
  ProfileTable t = load(Provider::Triton);
  const auto &rows = t.rows("contraction_narrow");
  CHECK(rows.size() >= 8);
  // tma_probe.py: (128, 256, 64) 3 stages 8 warps, GROUP_M 8, tensor descriptors, one program per tile.
  CHECK(std::count(rows.begin(), rows.end(), ProfileRow{128, 256, 64, 1, 1, 1, 8, 8, 3, 1, 1}) == 1);
  // Split K (reduction_outer) for long K with few output tiles: K = 65536, M = N = 128.
  CHECK(std::count(rows.begin(), rows.end(), ProfileRow{64, 64, 64, 32, 1, 1, 8, 4, 4, 1, 1}) == 1);
  // Persistent traversal (traversal_workers = one or two programs per sm_90 SM), measured on the
  // H200 (docs/tuning.md); every other row keeps one program per tile.
  CHECK(std::count(rows.begin(), rows.end(), ProfileRow{128, 256, 64, 1, 1, 132, 8, 8, 3, 1, 1}) == 1);
  CHECK(std::count(rows.begin(), rows.end(), ProfileRow{128, 128, 64, 1, 1, 264, 8, 8, 4, 1, 1}) == 1);
  for (const ProfileRow &r : rows)
    CHECK((r[5] == 1 || r[5] == 132 || r[5] == 264));
  // Every contraction row uses GROUP_M = 8, like the cited kernels.
  for (const char *f : {"contraction", "contraction_narrow"})
    for (const ProfileRow &r : t.rows(f))
      CHECK(r[6] == 8);
}
