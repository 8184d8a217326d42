//===- CacheImpl.h - Cache::Impl (private) ----------------------*- C++ -*-===//
#ifndef INTENT_SRC_CACHE_CACHEIMPL_H
#define INTENT_SRC_CACHE_CACHEIMPL_H

#include "Index.h"
#include "intent/Cache/Cache.h"

#include <mutex>

namespace intent::cache {

struct Cache::Impl {
  std::string root;
  OpenOptions opts;
  std::unique_ptr<detail::Db> db;
  std::mutex mu; ///< guards db; never held while a build callback runs
  std::optional<std::string> recoveredCorrupt;
};

namespace detail {
int64_t nowMs();
std::string hostName();
} // namespace detail

} // namespace intent::cache

#endif
