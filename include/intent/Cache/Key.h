//===- Key.h - artifact identity keys ---------------------------*- C++ -*-===//
//
// A key is the lowercase hex of a 32-byte BLAKE3 digest over a domain tag, the
// cache format version and an ordered list of named, length-prefixed
// components. The cache layer does not know what the components mean; the
// driver adds them (compiler identity, canonical KIR, ABI, target, profile
// table, tuning override, output-affecting options, ...).
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_CACHE_KEY_H
#define INTENT_CACHE_KEY_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace intent::cache {

/// Bump when the key derivation, entry layout or anything else that makes old
/// entries unusable changes. Hashed into every key.
constexpr uint32_t kCacheFormatVersion = 1;

/// One named input of a key, for `intentc compile --print-key`.
struct KeyComponent {
  std::string name;
  std::string digest; ///< lowercase hex BLAKE3 of the component content
  uint64_t size = 0;  ///< content length in bytes
};

struct Key {
  std::string hex; ///< 64 lowercase hex chars
  uint32_t formatVersion = kCacheFormatVersion;
  std::vector<KeyComponent> components; ///< in the order they were added

  /// Multi-line human description: key, format version, one line per component.
  std::string describe() const;
};

class KeyBuilder {
public:
  /// Appends a component. Order matters; names and contents are
  /// length-prefixed, so ("ab","c") and ("a","bc") never collide.
  KeyBuilder &add(std::string_view componentName, std::string_view content);
  /// Computes the key. The builder stays usable (more add() calls extend it).
  Key finish() const;

private:
  std::string stream_; ///< the length-prefixed encoding hashed by finish()
  std::vector<KeyComponent> components_;
};

/// True if `key` can name a cache entry: 16..128 lowercase hex characters.
bool isValidKey(std::string_view key);

} // namespace intent::cache

#endif // INTENT_CACHE_KEY_H
