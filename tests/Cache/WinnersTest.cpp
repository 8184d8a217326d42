#include "TestUtil.h"

#include <doctest/doctest.h>

using namespace intent::cache;
using namespace intent::cache::test;

static WinnerRecord sample(const std::string &runtimeKey, int winner) {
  WinnerRecord r;
  r.key = {keyFor("artifact"), runtimeKey, "NVIDIA H200", "sm_90"};
  for (int i = 0; i < 3; ++i) {
    CandidateTiming c;
    c.config = {{"BLOCK_M", 64 << i}, {"num_warps", 4}};
    c.medianMs = 1.0 + i;
    c.spreadMs = 0.1;
    r.candidates.push_back(c);
  }
  r.candidates[2].ok = false;
  r.candidates[2].medianMs.reset();
  r.candidates[2].message = "out of resources";
  r.winnerIndex = winner;
  r.measuredAtMs = 1700000000000;
  r.host = "gpu-runner-1";
  return r;
}

TEST_CASE("winners: record, get, replace, list") {
  TempDir t;
  auto c = Cache::open(t.path);
  REQUIRE(c.ok());
  TuningKey k{keyFor("artifact"), "M=128,N=256:f16:rowmajor", "NVIDIA H200", "sm_90"};
  CHECK_FALSE(c->getWinner(k)->has_value());
  REQUIRE(c->recordWinner(sample(k.runtimeKey, 0)).ok());
  auto w = c->getWinner(k);
  REQUIRE(w.ok());
  REQUIRE(w->has_value());
  const WinnerRecord &r = **w;
  CHECK(r.key == k);
  CHECK(r.candidates.size() == 3);
  CHECK(r.winnerIndex == 0);
  CHECK(r.winner()->config["BLOCK_M"] == 64);
  CHECK(r.candidates[2].ok == false);
  CHECK(r.candidates[2].message == "out of resources");
  CHECK_FALSE(r.candidates[2].medianMs.has_value());
  CHECK(r.host == "gpu-runner-1");

  // Re-recording replaces.
  REQUIRE(c->recordWinner(sample(k.runtimeKey, 1)).ok());
  CHECK((*c->getWinner(k))->winnerIndex == 1);
  REQUIRE(c->recordWinner(sample("other", 0)).ok());
  CHECK(c->listWinners()->size() == 2);
  // A different device is a different tuning key.
  TuningKey other = k;
  other.deviceName = "NVIDIA H100";
  CHECK_FALSE(c->getWinner(other)->has_value());

  // Out-of-range winner index is rejected.
  CHECK_FALSE(c->recordWinner(sample("bad", 7)).ok());
}

TEST_CASE("winners: export/import round trip") {
  TempDir a, b;
  auto ca = Cache::open(a.path);
  auto cb = Cache::open(b.path);
  REQUIRE(ca.ok());
  REQUIRE(cb.ok());
  REQUIRE(ca->recordWinner(sample("r1", 0)).ok());
  REQUIRE(ca->recordWinner(sample("r2", 1)).ok());
  auto doc = ca->exportWinners();
  REQUIRE(doc.ok());
  CHECK((*doc)["format"] == "intentc-winners");
  auto n = cb->importWinners(nlohmann::json::parse(doc->dump()));
  REQUIRE_MESSAGE(n.ok(), n.error());
  CHECK(*n == 2);
  CHECK(*cb->exportWinners() == *doc);
  CHECK_FALSE(cb->importWinners(nlohmann::json::object()).ok());
  auto bad = *doc;
  bad["winners"][0]["winner_index"] = 17;
  CHECK_FALSE(cb->importWinners(bad).ok());
  CHECK(*cb->clearWinners() == 2);
  CHECK(cb->listWinners()->empty());
}
