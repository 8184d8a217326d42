//===- Diagnostic.cpp -----------------------------------------------------===//
#include "intent/Tuning/Diagnostic.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace intent::tuning {

std::string Diagnostic::str() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (col > 0)
      out += ":" + std::to_string(col);
  }
  out += ": error: ";
  if (!jsonPath.empty())
    out += jsonPath + ": ";
  out += message;
  return out;
}

Expected<std::string> readFile(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Diagnostic{path, "", 0, 0, std::string("cannot read file: ") + std::strerror(EISDIR)};
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno ? errno : ENOENT;
    return Diagnostic{path, "", 0, 0, std::string("cannot read file: ") + std::strerror(err)};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    int err = errno ? errno : EIO;
    return Diagnostic{path, "", 0, 0, std::string("cannot read file: ") + std::strerror(err)};
  }
  return ss.str();
}

} // namespace intent::tuning
