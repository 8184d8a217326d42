#include "intent/Cache/Format.h"
#include "intent/Cache/Key.h"
#include "intent/Support/Identity.h"

#include "llvm/Support/MemoryBuffer.h"

#include <doctest/doctest.h>

#include <set>

using namespace intent::cache;

static Key baseKey() {
  return KeyBuilder()
      .add("compiler", "intentc 0.1 abc")
      .add("kir", "kir.func @k() {}")
      .add("target", "triton sm_90")
      .add("options", "stage=provider")
      .finish();
}

TEST_CASE("key: deterministic, 64 lowercase hex") {
  Key a = baseKey(), b = baseKey();
  CHECK(a.hex == b.hex);
  CHECK(a.hex.size() == 64);
  CHECK(isValidKey(a.hex));
  CHECK(a.formatVersion == kCacheFormatVersion);
}

TEST_CASE("key: sensitive to each component's name, content and order") {
  std::set<std::string> keys;
  keys.insert(baseKey().hex);
  const char *names[] = {"compiler", "kir", "target", "options"};
  const char *contents[] = {"intentc 0.1 abc", "kir.func @k() {}", "triton sm_90",
                            "stage=provider"};
  for (int i = 0; i < 4; ++i) {
    // change content i
    KeyBuilder kb, kn;
    for (int j = 0; j < 4; ++j) {
      kb.add(names[j], j == i ? std::string(contents[j]) + " " : std::string(contents[j]));
      kn.add(j == i ? std::string(names[j]) + "x" : std::string(names[j]), contents[j]);
    }
    keys.insert(kb.finish().hex);
    keys.insert(kn.finish().hex);
  }
  // Order.
  keys.insert(KeyBuilder()
                  .add("kir", "kir.func @k() {}")
                  .add("compiler", "intentc 0.1 abc")
                  .add("target", "triton sm_90")
                  .add("options", "stage=provider")
                  .finish()
                  .hex);
  // Dropping a component.
  keys.insert(KeyBuilder()
                  .add("compiler", "intentc 0.1 abc")
                  .add("kir", "kir.func @k() {}")
                  .add("target", "triton sm_90")
                  .finish()
                  .hex);
  CHECK(keys.size() == 1 + 8 + 1 + 1);
}

TEST_CASE("key: length prefixing prevents concatenation collisions") {
  std::string a = KeyBuilder().add("x", "ab").add("y", "c").finish().hex;
  std::string b = KeyBuilder().add("x", "a").add("y", "bc").finish().hex;
  std::string c = KeyBuilder().add("x", "abc").finish().hex;
  std::string d = KeyBuilder().add("xa", "bc").finish().hex;
  CHECK(a != b);
  CHECK(c != d);
  CHECK(KeyBuilder().finish().hex != KeyBuilder().add("", "").finish().hex);
}

TEST_CASE("key: per-component digests") {
  Key k = baseKey();
  REQUIRE(k.components.size() == 4);
  CHECK(k.components[1].name == "kir");
  CHECK(k.components[1].digest == intent::support::blake3Hex("kir.func @k() {}"));
  CHECK(k.components[1].size == std::string("kir.func @k() {}").size());
  // BLAKE3 test vector: empty input.
  CHECK(intent::support::blake3Hex("") == "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
  std::string d = k.describe();
  CHECK(d.find(k.hex) != std::string::npos);
  CHECK(d.find("cache-format-version: 1") != std::string::npos);
  CHECK(d.find(k.components[2].digest) != std::string::npos);
}

TEST_CASE("key: the compiler component is the BLAKE3 of the running binary's bytes") {
  // buildId() hashes the mapped file in place (or reads its memo); a plain read must agree.
  auto buf = llvm::MemoryBuffer::getFile(intent::support::executablePath(), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  REQUIRE(buf);
  CHECK(intent::support::buildId() == intent::support::blake3Hex((*buf)->getBuffer().str()));
}

TEST_CASE("key: validity") {
  CHECK_FALSE(isValidKey("../../etc/passwd"));
  CHECK_FALSE(isValidKey("ABCDEF0123456789"));
  CHECK_FALSE(isValidKey("abc"));
  CHECK(isValidKey("0123456789abcdef"));
}

TEST_CASE("parseSize") {
  CHECK(*parseSize("1234") == 1234u);
  CHECK(*parseSize("100K") == 100u * 1024);
  CHECK(*parseSize("512M") == 512ull << 20);
  CHECK(*parseSize("10G") == 10ull << 30);
  CHECK(*parseSize("10g") == 10ull << 30);
  CHECK(*parseSize("10GiB") == 10ull << 30);
  CHECK(*parseSize("10GB") == 10ull << 30);
  CHECK(*parseSize("1T") == 1ull << 40);
  CHECK(*parseSize("1.5G") == 3ull << 29);
  CHECK(*parseSize("0") == 0u);
  CHECK(*parseSize("7B") == 7u);
  CHECK_FALSE(parseSize("").ok());
  CHECK_FALSE(parseSize("G").ok());
  CHECK_FALSE(parseSize("10X").ok());
  CHECK_FALSE(parseSize("-5").ok());
  CHECK_FALSE(parseSize("1.2.3").ok());
  CHECK_FALSE(parseSize("99999999999999999999").ok());
  CHECK_FALSE(parseSize("99999999999T").ok());
  CHECK(parseSize("10X").error().find("10X") != std::string::npos);
}

TEST_CASE("formatSize / formatStatsHuman / statsToJson") {
  CHECK(formatSize(0) == "0 B");
  CHECK(formatSize(1536) == "1.5 KiB");
  CHECK(formatSize(10ull << 30) == "10.0 GiB");
  CacheStats s;
  s.entries = 3;
  s.completeEntries = 2;
  s.failedEntries = 1;
  s.bytes = 2048;
  s.hits = 3;
  s.misses = 1;
  s.failures = 1;
  std::string h = formatStatsHuman(s, "/c");
  CHECK(h.find("entries:   3") != std::string::npos);
  CHECK(h.find("75.0%") != std::string::npos);
  auto j = statsToJson(s, "/c");
  CHECK(j["hits"] == 3);
  CHECK(j["bytes"] == 2048);
  CHECK(j["dir"] == "/c");
}
