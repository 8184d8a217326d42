// configs/targets.json parsing, validation and canonical records.
#include "TestUtil.h"

#include "intent/Tuning/Targets.h"

#include <doctest/doctest.h>

using namespace intent::tuning;
using namespace intent::tuning::test;

TEST_CASE("shipped targets.json parses with the documented records") {
  auto t = loadTargets(configPath("targets.json"));
  if (!t)
    FAIL(t.error().str());
  for (const char *arch : {"sm_80", "sm_90", "sm_100", "mlu370"})
    REQUIRE(t->count(arch));
  const TargetCaps &a100 = t->at("sm_80");
  CHECK(a100.providerFamily == "cuda");
  CHECK(a100.sms == 108);
  CHECK(a100.computeCapability == 80);
  CHECK(a100.smemPerBlock == 163 * 1024);
  CHECK(a100.smemPerSM == 164 * 1024);
  CHECK(a100.regsPerSM == 65536);
  CHECK(a100.maxThreadsPerBlock == 1024);
  CHECK(a100.matrixUnits);
  CHECK_FALSE(a100.tma);
  CHECK_FALSE(a100.clusters);
  const TargetCaps &h = t->at("sm_90");
  CHECK(h.sms == 132);
  CHECK(h.computeCapability == 90);
  CHECK(h.smemPerBlock == 227 * 1024);
  CHECK(h.smemPerSM == 228 * 1024);
  CHECK(h.tma);
  CHECK(h.clusters);
  const TargetCaps &b = t->at("sm_100");
  CHECK(b.sms == 148);
  CHECK(b.computeCapability == 100);
  CHECK(b.tma);
  const TargetCaps &m = t->at("mlu370");
  CHECK(m.providerFamily == "bang");
  CHECK(m.mluClusters > 0);
  CHECK(m.coresPerCluster > 0);
  CHECK(m.nramBytesPerCore > 0);
  CHECK(m.sms == 0);
  CHECK(t->count(defaultArchFor(Provider::Triton)));
  CHECK(t->count(defaultArchFor(Provider::CuTile)));
  CHECK(t->count(defaultArchFor(Provider::BangC)));
  CHECK(t->at(defaultArchFor(Provider::BangC)).providerFamily == providerFamilyFor(Provider::BangC));
  CHECK(t->at(defaultArchFor(Provider::Triton)).providerFamily == providerFamilyFor(Provider::Triton));
}

TEST_CASE("canonical target record") {
  auto t = loadTargets(configPath("targets.json"));
  REQUIRE(t.ok());
  CHECK(canonicalJson(t->at("sm_90")) ==
        "{\"arch\":\"sm_90\",\"compute_capability\":90,\"matrix_units\":true,\"max_threads_per_block\":"
        "1024,\"multiprocessors\":132,\"provider_family\":\"cuda\",\"registers_per_multiprocessor\":"
        "65536,\"smem_per_block_bytes\":232448,\"smem_per_multiprocessor_bytes\":233472,"
        "\"thread_block_clusters\":true,\"tma\":true,\"warp_size\":32}");
  // Description and source text are not part of the identity.
  TargetCaps copy = t->at("sm_90");
  copy.description = "something else";
  CHECK(canonicalJson(copy) == canonicalJson(t->at("sm_90")));
  copy.sms = 114;
  CHECK(canonicalJson(copy) != canonicalJson(t->at("sm_90")));
}

TEST_CASE("target diagnostics") {
  auto err = [](const std::string &text) {
    auto r = parseTargets(text, "targets.json");
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  Diagnostic d = err("{\"targets\": {\"sm_90\": {\"provider_family\": \"rocm\"}}}");
  CHECK(d.str() == "targets.json:1:43: error: targets.sm_90.provider_family: expected \"cuda\" or "
                   "\"bang\", found \"rocm\"");
  d = err("{\"targets\": {\"x\": {\"provider_family\": \"bang\", \"multiprocessors\": 4}}}");
  CHECK(d.jsonPath == "targets.x.multiprocessors");
  CHECK(d.message == "unknown field \"multiprocessors\" for a bang target record");
  d = err("{\"targets\": {\"x\": {\"provider_family\": \"cuda\"}}}");
  CHECK(d.jsonPath == "targets.x");
  CHECK(d.line == 1);
  CHECK(d.col == 19);
  CHECK(d.message == "missing required field \"description\"");
  d = err("{\"targets\": {\"x\": {\"provider_family\": \"cuda\", \"tma\": 1}}}");
  CHECK(d.jsonPath == "targets.x.tma");
  CHECK(d.message == "expected true or false, found integer 1");
  d = err("{\"targets\": {\"x\": {\"provider_family\": \"cuda\", \"warp_size\": 0}}}");
  CHECK(d.message == "expected a positive 32-bit integer, found integer 0");
  d = err("[]");
  CHECK(d.message == "top-level value must be an object with key \"targets\", found array");
  d = err("{\"targets\": {}, \"targets\": {}}");
  CHECK(d.message == "duplicate key \"targets\" (first defined at line 1, column 2)");
}
