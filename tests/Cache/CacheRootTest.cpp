#include "intent/Cache/CacheRoot.h"

#include <doctest/doctest.h>

#include <map>

using namespace intent::cache;

static EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const char *name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  };
}

TEST_CASE("cache root: INTENT_CACHE_DIR wins") {
  auto r = resolveCacheRoot(fakeEnv({{"INTENT_CACHE_DIR", "/srv/cache/"},
                                     {"XDG_CACHE_HOME", "/xdg"},
                                     {"HOME", "/home/u"}}));
  REQUIRE(r.ok());
  CHECK(*r == "/srv/cache");
}

TEST_CASE("cache root: empty or relative INTENT_CACHE_DIR is an error naming the variable") {
  auto empty = resolveCacheRoot(fakeEnv({{"INTENT_CACHE_DIR", ""}, {"HOME", "/home/u"}}));
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().find("INTENT_CACHE_DIR") != std::string::npos);
  auto rel = resolveCacheRoot(fakeEnv({{"INTENT_CACHE_DIR", "rel/dir"}, {"HOME", "/home/u"}}));
  REQUIRE_FALSE(rel.ok());
  CHECK(rel.error().find("INTENT_CACHE_DIR") != std::string::npos);
  CHECK(rel.error().find("rel/dir") != std::string::npos);
}

TEST_CASE("cache root: absolute XDG_CACHE_HOME") {
  auto r = resolveCacheRoot(fakeEnv({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}}));
  REQUIRE(r.ok());
  CHECK(*r == "/xdg/intentdsl");
}

TEST_CASE("cache root: relative or empty XDG_CACHE_HOME is ignored") {
  auto rel = resolveCacheRoot(fakeEnv({{"XDG_CACHE_HOME", "xdg"}, {"HOME", "/home/u"}}));
  REQUIRE(rel.ok());
  CHECK(*rel == "/home/u/.cache/intentdsl");
  auto empty = resolveCacheRoot(fakeEnv({{"XDG_CACHE_HOME", ""}, {"HOME", "/home/u"}}));
  REQUIRE(empty.ok());
  CHECK(*empty == "/home/u/.cache/intentdsl");
}

TEST_CASE("cache root: HOME fallback and no HOME") {
  auto r = resolveCacheRoot(fakeEnv({{"HOME", "/home/u"}}));
  REQUIRE(r.ok());
  CHECK(*r == "/home/u/.cache/intentdsl");
  CHECK(*resolveCacheRoot(fakeEnv({{"HOME", "/"}})) == "/.cache/intentdsl");
  CHECK(*resolveCacheRoot(fakeEnv({{"XDG_CACHE_HOME", "/"}})) == "/intentdsl");
  auto none = resolveCacheRoot(fakeEnv({}));
  CHECK_FALSE(none.ok());
  CHECK_FALSE(none.error().empty());
}

TEST_CASE("cache root: processEnv reads the real environment") {
  ::setenv("INTENT_CACHE_TEST_VAR", "x", 1);
  CHECK(processEnv()("INTENT_CACHE_TEST_VAR") == std::optional<std::string>("x"));
  ::unsetenv("INTENT_CACHE_TEST_VAR");
  CHECK_FALSE(processEnv()("INTENT_CACHE_TEST_VAR").has_value());
}
