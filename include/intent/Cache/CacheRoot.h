//===- CacheRoot.h - where the cache lives ----------------------*- C++ -*-===//
#ifndef INTENT_CACHE_CACHEROOT_H
#define INTENT_CACHE_CACHEROOT_H

#include "intent/Cache/Expected.h"

#include <functional>
#include <optional>
#include <string>

namespace intent::cache {

/// Looks up an environment variable; std::nullopt when unset. Tests pass a fake.
using EnvLookup = std::function<std::optional<std::string>(const char *)>;

/// The real process environment (getenv).
EnvLookup processEnv();

/// Resolves the cache root directory (not created):
///   1. $INTENT_CACHE_DIR if set; an empty or relative value is an error that
///      names the variable;
///   2. $XDG_CACHE_HOME/intentdsl if XDG_CACHE_HOME is set and absolute
///      (a relative or empty value is ignored, per the XDG spec);
///   3. $HOME/.cache/intentdsl (error if HOME is unset/empty/relative).
Expected<std::string> resolveCacheRoot(const EnvLookup &env);

} // namespace intent::cache

#endif // INTENT_CACHE_CACHEROOT_H
