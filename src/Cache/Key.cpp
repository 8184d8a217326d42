//===- Key.cpp - artifact identity keys -----------------------------------===//
#include "intent/Cache/Key.h"

#include "llvm/Support/BLAKE3.h"

namespace intent::cache {

namespace {
const char kHexDigits[] = "0123456789abcdef";

template <size_t N> std::string toHex(const std::array<uint8_t, N> &bytes) {
  std::string out;
  out.reserve(2 * N);
  for (uint8_t b : bytes) {
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 15]);
  }
  return out;
}

void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff)); // little endian, fixed width
}
} // namespace

std::string blake3Hex(std::string_view data) {
  llvm::BLAKE3 h;
  h.update(llvm::StringRef(data.data(), data.size()));
  return toHex(h.final());
}

KeyBuilder &KeyBuilder::add(std::string_view componentName, std::string_view content) {
  // Component record: 'C', u64 len(name), name, u64 len(content), content.
  stream_.push_back('C');
  appendU64(stream_, componentName.size());
  stream_.append(componentName.data(), componentName.size());
  appendU64(stream_, content.size());
  stream_.append(content.data(), content.size());
  components_.push_back({std::string(componentName), blake3Hex(content), content.size()});
  return *this;
}

Key KeyBuilder::finish() const {
  llvm::BLAKE3 h;
  // Domain tag + format version + component count, then the records.
  std::string header = "intentc-artifact-key";
  header.push_back('\0');
  appendU64(header, kCacheFormatVersion);
  appendU64(header, components_.size());
  h.update(header);
  h.update(stream_);
  Key k;
  k.hex = toHex(h.final());
  k.formatVersion = kCacheFormatVersion;
  k.components = components_;
  return k;
}

std::string Key::describe() const {
  std::string out = "key: " + hex + "\n";
  out += "cache-format-version: " + std::to_string(formatVersion) + "\n";
  size_t width = 0;
  for (const KeyComponent &c : components)
    width = std::max(width, c.name.size());
  for (const KeyComponent &c : components) {
    out += "  " + c.name + std::string(width - c.name.size(), ' ') + "  " + c.digest + "  (" +
           std::to_string(c.size) + " bytes)\n";
  }
  return out;
}

bool isValidKey(std::string_view key) {
  if (key.size() < 16 || key.size() > 128)
    return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

} // namespace intent::cache
