#ifndef INTENT_TESTS_CACHE_TESTUTIL_H
#define INTENT_TESTS_CACHE_TESTUTIL_H

#include "intent/Cache/Cache.h"
#include "intent/Cache/Key.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace intent::cache::test {

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "intent-cache-test-XXXXXX").string();
    char *p = ::mkdtemp(tmpl.data());
    path = p ? p : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir &) = delete;
};

inline void writeFile(const std::string &path, const std::string &content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << content;
}

inline std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string keyFor(const std::string &s) {
  return KeyBuilder().add("test", s).finish().hex;
}

/// A build that writes a kernel.kir and kernel.py of ~`size` bytes.
inline BuildFn simpleBuild(const std::string &content, size_t size = 0) {
  return [content, size](const std::string &dir) {
    writeFile(dir + "/kernel.kir", "input:" + content);
    std::string py = "source:" + content;
    if (py.size() < size)
      py.append(size - py.size(), '#');
    writeFile(dir + "/kernel.py", py);
    return BuildOutcome::ok();
  };
}

} // namespace intent::cache::test

#endif
