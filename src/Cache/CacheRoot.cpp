//===- CacheRoot.cpp - cache root resolution ------------------------------===//
#include "intent/Cache/CacheRoot.h"

#include <cstdlib>

namespace intent::cache {

EnvLookup processEnv() {
  return [](const char *name) -> std::optional<std::string> {
    if (const char *v = std::getenv(name))
      return std::string(v);
    return std::nullopt;
  };
}

static std::string stripTrailingSlashes(std::string p) {
  while (!p.empty() && p.back() == '/')
    p.pop_back();
  return p; // "/" becomes "", so "<p>/sub" stays a clean absolute path
}

Expected<std::string> resolveCacheRoot(const EnvLookup &env) {
  if (auto dir = env("INTENT_CACHE_DIR")) {
    if (dir->empty())
      return makeError("INTENT_CACHE_DIR is set but empty; set it to an absolute directory "
                       "or unset it");
    if ((*dir)[0] != '/')
      return makeError("INTENT_CACHE_DIR must be an absolute path, got '" + *dir + "'");
    std::string root = stripTrailingSlashes(*dir);
    return root.empty() ? std::string("/") : root;
  }
  if (auto xdg = env("XDG_CACHE_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/')
    return stripTrailingSlashes(*xdg) + "/intentdsl";
  auto home = env("HOME");
  if (!home || home->empty() || (*home)[0] != '/')
    return makeError("cannot determine the cache directory: INTENT_CACHE_DIR and "
                     "XDG_CACHE_HOME are unset and HOME is not an absolute path");
  return stripTrailingSlashes(*home) + "/.cache/intentdsl";
}

} // namespace intent::cache
