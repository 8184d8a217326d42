// Override merge: family replacement, order, provenance, canonical content.
#include "TestUtil.h"

#include "intent/Tuning/ProfileTable.h"

#include <doctest/doctest.h>

using namespace intent::tuning;
using namespace intent::tuning::test;

namespace {
ProfileTable shippedTriton() {
  auto t = loadProfileTable(configPath("triton.json"), Provider::Triton);
  if (!t)
    FAIL(t.error().str());
  return *t;
}
} // namespace

TEST_CASE("no override: every row is a default row, in file order") {
  ProfileTable defaults = shippedTriton();
  EffectiveTable eff = applyOverride(defaults, nullptr, Provider::Triton);
  for (const std::string &f : familiesFor(Provider::Triton)) {
    const auto &rows = eff.rows(f);
    REQUIRE(rows.size() == defaults.rows(f).size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].values == defaults.rows(f)[i]);
      CHECK(rows[i].source == RowSource::Default);
      CHECK(rows[i].index == i);
    }
  }
  CHECK(canonicalJson(eff) == canonicalJson(defaults));
}

TEST_CASE("a supplied family replaces that family as a whole; others keep defaults") {
  ProfileTable defaults = shippedTriton();
  Override ov = parseOk("{\"triton\": {\"contraction_narrow\": [\n"
                        "  [128, 256, 64, 1, 128, 1, 8, 8, 3, 1, 0],\n"
                        "  [64, 128, 32, 1, 128, 1, 8, 4, 4, 1, 0]]},\n"
                        " \"cutile\": {\"scan\": [[1, 1, 1, 1, 4096, 1, 1, 1, 4, 1, 1, 11]]}}");
  EffectiveTable eff = applyOverride(defaults, &ov, Provider::Triton);
  const auto &cn = eff.rows("contraction_narrow");
  REQUIRE(cn.size() == 2);
  CHECK(cn[0].values == ProfileRow{128, 256, 64, 1, 128, 1, 8, 8, 3, 1, 0});
  CHECK(cn[1].values == ProfileRow{64, 128, 32, 1, 128, 1, 8, 4, 4, 1, 0});
  CHECK(cn[0].source == RowSource::Override);
  CHECK(cn[1].source == RowSource::Override);
  CHECK(cn[0].index == 0);
  CHECK(cn[1].index == 1);
  CHECK(std::string(rowSourceName(cn[1].source)) == "override");
  for (const std::string &f : familiesFor(Provider::Triton)) {
    if (f == "contraction_narrow")
      continue;
    const auto &rows = eff.rows(f);
    REQUIRE(rows.size() == defaults.rows(f).size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].values == defaults.rows(f)[i]);
      CHECK(rows[i].source == RowSource::Default);
    }
  }
  // The cutile namespace was validated but is not applied to triton.
  CHECK(eff.rows("scan").size() == defaults.rows("scan").size());
  CHECK(canonicalJson(eff) != canonicalJson(defaults));
}

TEST_CASE("another provider's override namespace applies only to that provider") {
  auto cutile = loadProfileTable(configPath("cutile.json"), Provider::CuTile);
  REQUIRE(cutile.ok());
  Override ov = parseOk("{\"triton\": {\"scan\": [[1, 1, 1, 1, 2048, 1, 1, 4, 3, 1, 0]]},\n"
                        " \"cutile\": {\"scan\": [[1, 1, 1, 1, 4096, 1, 1, 1, 4, 1, 1, 11]]}}");
  EffectiveTable eff = applyOverride(*cutile, &ov, Provider::CuTile);
  REQUIRE(eff.rows("scan").size() == 1);
  CHECK(eff.rows("scan")[0].values == ProfileRow{1, 1, 1, 1, 4096, 1, 1, 1, 4, 1, 1, 11});
  CHECK(eff.rows("contraction") .size() == cutile->rows("contraction").size());
}

TEST_CASE("an override that restates the defaults gives identical content") {
  ProfileTable defaults = shippedTriton();
  std::string text = "{\"triton\": {\"contraction\": [";
  const auto &rows = defaults.rows("contraction");
  for (size_t i = 0; i < rows.size(); ++i) {
    text += i ? ", [" : "[";
    for (size_t c = 0; c < rows[i].size(); ++c)
      text += (c ? ", " : "") + std::to_string(rows[i][c]);
    text += "]";
  }
  text += "]}}";
  Override ov = parseOk(text);
  EffectiveTable a = applyOverride(defaults, nullptr, Provider::Triton);
  EffectiveTable b = applyOverride(defaults, &ov, Provider::Triton);
  CHECK(canonicalJson(a) == canonicalJson(b));
  for (size_t i = 0; i < rows.size(); ++i)
    CHECK(b.rows("contraction")[i].values == a.rows("contraction")[i].values);
  // Applying the same override twice is deterministic.
  CHECK(canonicalJson(applyOverride(defaults, &ov, Provider::Triton)) == canonicalJson(b));
}

TEST_CASE("empty override and empty namespace keep everything") {
  ProfileTable defaults = shippedTriton();
  Override empty = parseOk("{}");
  Override emptyNs = parseOk("{\"triton\": {}}");
  CHECK(canonicalJson(applyOverride(defaults, &empty, Provider::Triton)) == canonicalJson(defaults));
  CHECK(canonicalJson(applyOverride(defaults, &emptyNs, Provider::Triton)) == canonicalJson(defaults));
}

TEST_CASE("canonical content ignores formatting and key order") {
  std::string row = "[8192, 64, 64, 64, 1024, 16, 262144]";
  std::string cols = "[\"tile\", \"tile_m\", \"tile_n\", \"tile_k\", \"region_tile\", \"tasks\", \"local_bytes\"]";
  auto a = parseProfileTable("{\"columns\": " + cols + ", \"families\": {\"block\": [" + row + "]}}", "a",
                             Provider::BangC);
  auto b = parseProfileTable("{\n  \"families\" : { \"block\" : [\n " + row + " ] },\n  \"columns\":" + cols +
                                 "\n}\n",
                             "b", Provider::BangC);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(canonicalJson(*a) == canonicalJson(*b));
  CHECK(canonicalJson(*a) ==
        "{\"columns\":[\"tile\",\"tile_m\",\"tile_n\",\"tile_k\",\"region_tile\",\"tasks\","
        "\"local_bytes\"],\"families\":{\"block\":[[8192,64,64,64,1024,16,262144]]},"
        "\"provider\":\"bangc\"}");
}
