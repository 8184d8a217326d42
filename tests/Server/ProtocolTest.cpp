//===- ProtocolTest.cpp - server protocol helpers --------------------------===//
#include "intent/Server/Client.h"
#include "intent/Server/Protocol.h"
#include "intent/Server/WinnersRpc.h"

#include <doctest/doctest.h>

using namespace intent;
using nlohmann::json;

TEST_CASE("BLAKE2b-256 matches hashlib") {
  CHECK(server::blake2b256Hex("") ==
        "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  CHECK(server::blake2b256Hex("abc") ==
        "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
  CHECK(server::blake2b256Hex(std::string(300, 'x')) ==
        "5aa7fbbf37986bb2a5d547c0d3c4d4326a24d786e7d57bf93fc784176e38b33d");
  CHECK(server::blake2b256Hex(std::string(256, 'y')) ==
        "291f03cbcce43aceba8aa6bf94daafa588e10084925a42cacaea6603cfa88818");
}

TEST_CASE("tuning digest matches intent_runtime.keys.tuning_key") {
  std::string ak(64, ' ');
  for (size_t i = 0; i < 64; i += 2)
    ak[i] = 'a', ak[i + 1] = 'b';
  CHECK(server::tuningDigest(ak, "{\"n\":1}", "NVIDIA H200|sm_90") ==
        "b80b8b9fdd90a1329a6dd07f4967d1999e0db770a4d8dc53b9fe107ea6f83ed5");
  auto k = server::tuningKeyFromParts(ak, "r", "A|B|sm_90");
  CHECK(k.deviceName == "A|B");
  CHECK(k.deviceCapability == "sm_90");
}

TEST_CASE("canonical JSON sorts keys, compact, ASCII") {
  CHECK(server::canonicalJson(json::parse(R"({"b":1,"a":[1,{"d":"é","c":2}]})")) ==
        R"({"a":[1,{"c":2,"d":"\u00e9"}],"b":1})");
}

static cache::CandidateTiming timing(int block, double ms) {
  cache::CandidateTiming t;
  t.config = {{"BLOCK", block}};
  t.medianMs = ms;
  return t;
}

TEST_CASE("merge rule: first complete measurement wins unless retune or new configs") {
  cache::TuningKey key{"a", "r", "dev", "sm_90"};
  auto first = server::mergeRecord(std::nullopt, key, {timing(64, 1), timing(128, 2)},
                                   json{{"BLOCK", 64}}, false);
  REQUIRE(first.winner());
  CHECK(first.winner()->config == json{{"BLOCK", 64}});
  auto second = server::mergeRecord(first, key, {timing(64, 5), timing(128, 0.5)},
                                    json{{"BLOCK", 128}}, false);
  CHECK(second.winner()->config == json{{"BLOCK", 64}});
  CHECK(*second.candidates[second.winnerIndex].medianMs == 1); // stored timing kept
  auto extended = server::mergeRecord(first, key, {timing(256, 0.1)}, json{{"BLOCK", 256}}, false);
  CHECK(extended.winner()->config == json{{"BLOCK", 256}});
  CHECK(extended.candidates.size() == 3);
  auto retuned = server::mergeRecord(first, key, {timing(64, 5), timing(128, 0.5)},
                                     json{{"BLOCK", 128}}, true);
  CHECK(retuned.winner()->config == json{{"BLOCK", 128}});
  auto none = server::mergeRecord(std::nullopt, key, {}, nullptr, false);
  CHECK(none.winnerIndex == -1);
}

TEST_CASE("compile params round-trip and type errors") {
  driver::CompileRequest req;
  req.source = "module {}";
  req.sourceName = "x.kir";
  req.kernel = "k";
  req.target = "reference";
  req.defines = {{"M", "4"}};
  req.tuningConfig = "{}";
  driver::CompileRequest back;
  REQUIRE_FALSE(server::paramsToRequest(server::requestToParams(req), back));
  CHECK(back.source == req.source);
  CHECK(back.kernel == req.kernel);
  CHECK(back.defines == req.defines);
  CHECK(back.tuningConfig == req.tuningConfig);
  driver::CompileRequest bad;
  CHECK(server::paramsToRequest(json{{"source", 1}}, bad));
  CHECK(server::paramsToRequest(json{{"path", "rel/x.kir"}}, bad));
  CHECK(server::paramsToRequest(json{{"source", "x"}, {"defines", json::array()}}, bad));
  CHECK(server::paramsToRequest(json::object(), bad));
}

TEST_CASE("server modes") {
  CHECK(server::parseServerMode("spawn") == server::ServerMode::Spawn);
  CHECK_FALSE(server::parseServerMode("sometimes"));
}
