//===- Output.cpp - writing compile results --------------------------------===//
#include "intent/CLI/Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

#include <unistd.h>

using namespace intent;

/// Writes `content` to `path`; returns why it could not, or an empty string.
static std::string writeReason(const std::string &path, const std::string &content) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return ec.message();
  os << content;
  os.close();
  if (os.has_error()) {
    std::string reason = os.error().message();
    os.clear_error();
    return reason;
  }
  return {};
}

bool cli::writeFile(const std::string &path, const std::string &content, std::string &error) {
  std::string reason = writeReason(path, content);
  if (!reason.empty())
    error = "cannot write " + path + ": " + reason;
  return reason.empty();
}

bool cli::replaceFile(const std::string &path, const std::string &content, std::string &error) {
  std::string tmp = path + ".intentc-tmp-" + std::to_string(::getpid());
  std::string reason = writeReason(tmp, content);
  if (reason.empty())
    if (std::error_code ec = llvm::sys::fs::rename(tmp, path))
      reason = ec.message();
  if (reason.empty())
    return true;
  llvm::sys::fs::remove(tmp);
  error = "cannot write " + path + ": " + reason;
  return false;
}

/// Whether `path` is a regular file holding exactly `content`. Unchanged
/// outputs are left alone, so a rebuild keeps their timestamps (build systems
/// that compare them do not redo the work downstream).
static bool holdsContent(const std::string &path, const std::string &content) {
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(path, st) || st.type() != llvm::sys::fs::file_type::regular_file ||
      st.getSize() != content.size())
    return false;
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return buf && (*buf)->getBuffer() == content;
}

/// Whether directory `dir` holds exactly the kernel's files, with its content.
static bool holdsKernel(const std::string &dir, const driver::KernelResult &k) {
  std::error_code ec;
  size_t entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    ++entries;
  if (ec || entries != k.files.size())
    return false;
  for (const auto &f : k.files)
    if (!holdsContent(dir + "/" + f.name, f.content))
      return false;
  return true;
}

/// A name for a temporary sibling unique to this process and thread (prebuild
/// publishes from several threads at once).
static std::string uniqueSuffix(const char *tag) {
  return std::string(tag) + std::to_string(::getpid()) + "-" +
         std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
}

bool cli::writeKernelDir(const std::string &final, const driver::KernelResult &k,
                         std::map<std::string, std::string> &paths, std::string &error) {
  auto record = [&] {
    for (const auto &f : k.files)
      paths[f.name] = final + "/" + f.name;
    return true;
  };
  llvm::SmallString<256> parent(llvm::sys::path::parent_path(final));
  if (parent.empty())
    parent = ".";
  if (std::error_code ec = llvm::sys::fs::create_directories(parent)) {
    error = "cannot create " + std::string(parent) + ": " + ec.message();
    return false;
  }
  if (holdsKernel(final, k))
    return record();
  std::string tmp = final + uniqueSuffix(".tmp-");
  llvm::sys::fs::remove_directories(tmp);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmp)) {
    error = "cannot create " + tmp + ": " + ec.message();
    return false;
  }
  for (const auto &f : k.files)
    if (!cli::writeFile(tmp + "/" + f.name, f.content, error)) {
      llvm::sys::fs::remove_directories(tmp);
      return false;
    }
  // Replace an existing artifact directory: move it aside first, and put it
  // back if the new one cannot take its place.
  std::string old = final + uniqueSuffix(".old-");
  bool hadOld = llvm::sys::fs::exists(final);
  if (hadOld) {
    if (std::error_code ec = llvm::sys::fs::rename(final, old)) {
      error = "cannot replace " + final + ": " + ec.message();
      llvm::sys::fs::remove_directories(tmp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, final)) {
    llvm::sys::fs::remove_directories(tmp);
    if (hadOld)
      llvm::sys::fs::rename(old, final);
    // Another writer published the same kernel first: its directory is ours.
    if (holdsKernel(final, k))
      return record();
    error = "cannot publish " + final + ": " + ec.message();
    return false;
  }
  if (hadOld)
    llvm::sys::fs::remove_directories(old);
  return record();
}

bool cli::writeArtifacts(const std::string &dir, const driver::CompileResult &res,
                         WrittenFiles &written, std::string &error) {
  llvm::SmallString<256> abs(dir);
  llvm::sys::fs::make_absolute(abs);
  // create_directories accepts an existing file; catch it here rather than
  // as a failed temporary write beneath it.
  if (llvm::sys::fs::exists(abs) && !llvm::sys::fs::is_directory(abs)) {
    error = "output path exists and is not a directory";
    return false;
  }
  bool perKernel = res.kernels.size() > 1;
  if (!perKernel) {
    // One kernel: the files go directly into DIR (which may already hold
    // others), each through a temporary sibling renamed over the old file.
    if (std::error_code ec = llvm::sys::fs::create_directories(abs)) {
      error = "cannot create directory: " + ec.message();
      return false;
    }
    const auto &k = res.kernels.front();
    // Every destination must be able to take a file before any is replaced, so
    // a failure leaves DIR as it was (renames of files within DIR do not fail).
    for (const auto &f : k.files) {
      std::string dst = std::string(abs) + "/" + f.name;
      if (llvm::sys::fs::is_directory(dst)) {
        error = "cannot publish " + dst + ": a directory is in the way";
        return false;
      }
    }
    std::string suffix = ".intentc-tmp-" + std::to_string(::getpid());
    std::vector<std::pair<std::string, std::string>> renames; // temp -> destination
    auto discard = [&] {
      for (const auto &r : renames)
        llvm::sys::fs::remove(r.first);
    };
    for (const auto &f : k.files) {
      std::string dst = std::string(abs) + "/" + f.name;
      written[k.name][f.name] = dst;
      if (holdsContent(dst, f.content))
        continue;
      renames.emplace_back(std::string(abs) + "/." + f.name + suffix, dst);
      if (!cli::writeFile(renames.back().first, f.content, error)) {
        discard();
        return false;
      }
    }
    for (const auto &[temp, dst] : renames)
      if (std::error_code ec = llvm::sys::fs::rename(temp, dst)) {
        error = "cannot publish " + dst + ": " + ec.message();
        discard();
        return false;
      }
    return true;
  }
  for (const auto &k : res.kernels)
    if (!writeKernelDir(std::string(abs) + "/" + k.name, k, written[k.name], error))
      return false;
  return true;
}

nlohmann::ordered_json cli::compileSummaryJson(const driver::CompileResult &res,
                                               const WrittenFiles &written) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto &k : res.kernels) {
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    auto it = written.find(k.name);
    for (const auto &f : k.files)
      files[f.name] = it != written.end() && it->second.count(f.name) ? it->second.at(f.name)
                                                                      : std::string();
    kernels.push_back({{"name", k.name},
                       {"family", k.family},
                       {"candidates", k.candidates},
                       {"files", files},
                       {"key", k.key},
                       {"cache", k.cacheStatus}});
  }
  return {{"kernels", kernels}};
}
