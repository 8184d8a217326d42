#include "intent/Support/Identity.h"

#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/ADT/StringExtras.h"

#include <mutex>

using namespace intent;

const char *support::versionString() { return INTENT_VERSION; }

std::string support::executablePath() {
  // /proc/self/exe is exact on Linux; getMainExecutable needs argv0 otherwise.
  return llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&executablePath));
}

std::string support::blake3Hex(const std::string &data) {
  auto digest = llvm::BLAKE3::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

const std::string &support::buildId() {
  static std::once_flag once;
  static std::string id;
  std::call_once(once, [] {
    auto buf = llvm::MemoryBuffer::getFile(executablePath(), /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    id = buf ? blake3Hex((*buf)->getBuffer().str()) : std::string("unknown");
  });
  return id;
}
