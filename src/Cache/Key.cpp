//===- Key.cpp - artifact identity keys -----------------------------------===//
#include "intent/Cache/Key.h"
#include "intent/Support/Identity.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"

namespace intent::cache {

namespace {
void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(char((v >> (8 * i)) & 0xff)); // little endian, fixed width
}
} // namespace

KeyBuilder &KeyBuilder::add(std::string_view componentName, std::string_view content) {
  // Component record: 'C', u64 len(name), name, u64 len(content), content.
  stream_.push_back('C');
  appendU64(stream_, componentName.size());
  stream_.append(componentName.data(), componentName.size());
  appendU64(stream_, content.size());
  stream_.append(content.data(), content.size());
  components_.push_back({std::string(componentName), support::blake3Hex(content), content.size()});
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
  k.hex = llvm::toHex(h.final(), /*LowerCase=*/true);
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
