#include "intent/Support/Identity.h"

#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/ADT/StringExtras.h"

#include <mutex>

#include <sys/stat.h>
#include <unistd.h>

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace intent;

const char *support::versionString() { return INTENT_VERSION; }

std::string support::executablePath() {
  // /proc/self/exe is exact on Linux; getMainExecutable needs argv0 otherwise.
  return llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&executablePath));
}

std::string support::blake3Hex(std::string_view data) {
  auto digest = llvm::BLAKE3::hash(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data.data()), data.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// Directory memoizing build ids, under the cache root (same precedence as the
/// cache: INTENT_CACHE_DIR, absolute XDG_CACHE_HOME, ~/.cache); empty if none.
static std::string buildIdMemoDir() {
  auto env = [](const char *n) -> std::string {
    const char *v = std::getenv(n);
    return v ? v : "";
  };
  std::string root = env("INTENT_CACHE_DIR");
  if (root.empty()) {
    std::string xdg = env("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/')
      root = xdg + "/intentdsl";
    else if (!env("HOME").empty())
      root = env("HOME") + "/.cache/intentdsl";
  }
  if (root.empty() || root[0] != '/')
    return "";
  return root + "/build-ids";
}

const std::string &support::buildId() {
  static std::once_flag once;
  static std::string id;
  std::call_once(once, [] {
    // Hashing the whole binary costs ~70 ms per process; the result is memoized
    // under the file's identity (device, inode, size, mtime), which any rebuild
    // or edit of the binary changes.
    std::string exe = executablePath();
    struct stat st;
    std::string memo;
    if (::stat(exe.c_str(), &st) == 0) {
      std::string dir = buildIdMemoDir();
      if (!dir.empty())
        memo = dir + "/" + std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino) + "-" +
               std::to_string(st.st_size) + "-" + std::to_string(st.st_mtim.tv_sec) + "." +
               std::to_string(st.st_mtim.tv_nsec);
    }
    if (!memo.empty())
      if (auto cached = llvm::MemoryBuffer::getFile(memo)) {
        llvm::StringRef text = (*cached)->getBuffer().trim();
        if (text.size() == 64 && text.find_first_not_of("0123456789abcdef") == llvm::StringRef::npos) {
          id = text.str();
          return;
        }
      }
    auto buf = llvm::MemoryBuffer::getFile(exe, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    // Hash the mapped file in place: a copy of a >100 MiB binary costs more
    // (page faults) than the hash itself.
    id = buf ? blake3Hex((*buf)->getBuffer()) : std::string("unknown");
    // Memoize only into an existing cache root: commands that promise to write
    // nothing (explain, --print-key) never create one.
    llvm::StringRef memoDir = llvm::sys::path::parent_path(memo);
    if (buf && !memo.empty() && llvm::sys::fs::is_directory(llvm::sys::path::parent_path(memoDir)) &&
        !llvm::sys::fs::create_directories(memoDir)) {
      std::string tmp = memo + ".tmp-" + std::to_string(::getpid());
      std::error_code ec;
      {
        llvm::raw_fd_ostream os(tmp, ec);
        if (!ec)
          os << id << "\n";
      }
      if (ec || llvm::sys::fs::rename(tmp, memo))
        llvm::sys::fs::remove(tmp);
    }
  });
  return id;
}
