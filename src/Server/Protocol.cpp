//===- Protocol.cpp - compile-server wire format ---------------------------===//
#include "intent/Server/Protocol.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace intent::server {

std::string defaultSocketPath() {
  if (const char *p = std::getenv("INTENTC_SOCKET"); p && *p)
    return p;
  if (const char *x = std::getenv("XDG_RUNTIME_DIR"); x && x[0] == '/')
    return std::string(x) + "/intentc/intentc.sock";
  return "/tmp/intentc-" + std::to_string(::getuid()) + "/intentc.sock";
}

std::string prepareSocketDir(const std::string &socketPath, bool create) {
  size_t slash = socketPath.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : socketPath.substr(0, slash));
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (!create)
      return dir + ": " + std::strerror(errno);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create socket directory " + dir + ": " + std::strerror(errno);
    if (::lstat(dir.c_str(), &st) != 0)
      return dir + ": " + std::strerror(errno);
  }
  if (S_ISLNK(st.st_mode))
    return "refusing socket directory " + dir + ": it is a symbolic link";
  if (!S_ISDIR(st.st_mode))
    return "refusing socket directory " + dir + ": not a directory";
  if (st.st_uid != ::getuid())
    return "refusing socket directory " + dir + ": owned by uid " + std::to_string(st.st_uid) +
           ", not " + std::to_string(::getuid());
  if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return "refusing socket directory " + dir + ": mode " + mode +
           " gives group/other access (must be 0700)";
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Requests and results
//===----------------------------------------------------------------------===//

json requestToParams(const driver::CompileRequest &req) {
  json p = json::object();
  p["source"] = req.source;
  p["source_name"] = req.sourceName;
  if (req.kernel)
    p["kernel"] = *req.kernel;
  p["target"] = req.target;
  if (req.arch)
    p["arch"] = *req.arch;
  p["defines"] = json(req.defines);
  if (req.tuningConfig) {
    p["tuning_config"] = *req.tuningConfig;
    p["tuning_config_name"] = req.tuningConfigName;
  }
  p["stage"] = driver::stageName(req.stage);
  if (req.printIRAfterAll)
    p["print_ir_after_all"] = true;
  return p;
}

std::optional<std::string> paramsToRequest(const json &p, driver::CompileRequest &req) {
  if (!p.is_object())
    return std::string("compile: params must be an object");
  auto optStr = [&](const char *k, std::optional<std::string> &out) -> std::optional<std::string> {
    if (!p.contains(k) || p[k].is_null())
      return std::nullopt;
    if (!p[k].is_string())
      return std::string("compile: '") + k + "' must be a string";
    out = p[k].get<std::string>();
    return std::nullopt;
  };
  std::optional<std::string> source, path, name, kernel, target, arch, cfg, cfgName, stage;
  for (auto &[k, out] : std::initializer_list<std::pair<const char *, std::optional<std::string> *>>{
           {"source", &source}, {"path", &path}, {"source_name", &name}, {"kernel", &kernel},
           {"target", &target}, {"arch", &arch}, {"tuning_config", &cfg},
           {"tuning_config_name", &cfgName}, {"stage", &stage}})
    if (auto e = optStr(k, *out))
      return e;
  if (source && path)
    return std::string("compile: give either 'source' or 'path', not both");
  if (path) {
    if (path->empty() || (*path)[0] != '/')
      return std::string("compile: 'path' must be absolute (clients resolve paths and should "
                         "send 'source')");
    std::ifstream in(*path, std::ios::binary);
    if (!in)
      return "compile: cannot read '" + *path + "'";
    std::ostringstream ss;
    ss << in.rdbuf();
    req.source = ss.str();
    req.sourceName = name ? *name : *path;
  } else if (source) {
    req.source = *source;
    req.sourceName = name ? *name : "<source>";
  } else {
    return std::string("compile: 'source' (KIR text) or an absolute 'path' is required");
  }
  req.kernel = kernel;
  if (target)
    req.target = *target;
  req.arch = arch;
  req.tuningConfig = cfg;
  if (cfgName)
    req.tuningConfigName = *cfgName;
  if (stage) {
    auto s = driver::parseStage(*stage);
    if (!s)
      return "compile: unknown stage '" + *stage + "' (kir, shared, provider, full)";
    req.stage = *s;
  }
  if (p.contains("defines") && !p["defines"].is_null()) {
    if (!p["defines"].is_object())
      return std::string("compile: 'defines' must be an object of strings");
    for (auto it = p["defines"].begin(); it != p["defines"].end(); ++it) {
      if (it.value().is_string())
        req.defines[it.key()] = it.value().get<std::string>();
      else if (it.value().is_number_integer())
        req.defines[it.key()] = std::to_string(it.value().get<long long>());
      else
        return "compile: define '" + it.key() + "' must be a string";
    }
  }
  if (p.contains("print_ir_after_all")) {
    if (!p["print_ir_after_all"].is_boolean())
      return std::string("compile: 'print_ir_after_all' must be a boolean");
    req.printIRAfterAll = p["print_ir_after_all"].get<bool>();
  }
  return std::nullopt;
}

nlohmann::ordered_json resultToJson(const driver::CompileResult &res) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto &k : res.kernels) {
    nlohmann::ordered_json files = nlohmann::ordered_json::object();
    nlohmann::ordered_json inl = nlohmann::ordered_json::object();
    nlohmann::ordered_json order = nlohmann::ordered_json::array();
    for (const auto &f : k.files) {
      order.push_back(f.name);
      if (!k.entryDir.empty())
        files[f.name] = k.entryDir + "/" + f.name;
      else
        inl[f.name] = f.content;
    }
    nlohmann::ordered_json kj = {{"name", k.name},
                                 {"family", k.family},
                                 {"candidates", k.candidates},
                                 {"key", k.key},
                                 {"cache", k.cacheStatus},
                                 {"entry_dir", k.entryDir},
                                 {"files", files},
                                 {"file_order", order}};
    if (!inl.empty())
      kj["contents"] = inl;
    nlohmann::ordered_json comps = nlohmann::ordered_json::array();
    for (const auto &[n, d] : k.keyComponents)
      comps.push_back({n, d});
    kj["key_components"] = comps;
    kernels.push_back(std::move(kj));
  }
  return {{"ok", res.ok},
          {"kernels", kernels},
          {"diagnostics", res.diagnostics},
          {"log", res.log},
          {"stage_text", res.stageText}};
}

std::optional<std::string> resultFromJson(const json &j, driver::CompileResult &res) {
  if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
    return std::string("malformed compile reply: no 'kernels' array");
  res = {};
  res.ok = j.value("ok", true);
  res.diagnostics = j.value("diagnostics", std::string());
  res.log = j.value("log", std::string());
  res.stageText = j.value("stage_text", std::string());
  for (const json &kj : j["kernels"]) {
    if (!kj.is_object())
      return std::string("malformed compile reply: kernel is not an object");
    driver::KernelResult k;
    k.name = kj.value("name", std::string());
    k.family = kj.value("family", std::string());
    k.candidates = kj.value("candidates", 0);
    k.key = kj.value("key", std::string());
    k.cacheStatus = kj.value("cache", std::string("off"));
    k.entryDir = kj.value("entry_dir", std::string());
    if (kj.contains("key_components") && kj["key_components"].is_array())
      for (const json &c : kj["key_components"])
        if (c.is_array() && c.size() == 2 && c[0].is_string() && c[1].is_string())
          k.keyComponents.emplace_back(c[0].get<std::string>(), c[1].get<std::string>());
    std::vector<std::string> order;
    if (kj.contains("file_order") && kj["file_order"].is_array())
      for (const json &n : kj["file_order"])
        order.push_back(n.get<std::string>());
    const json files = kj.value("files", json::object());
    const json inl = kj.value("contents", json::object());
    if (order.empty()) {
      for (auto it = files.begin(); it != files.end(); ++it)
        order.push_back(it.key());
      for (auto it = inl.begin(); it != inl.end(); ++it)
        order.push_back(it.key());
    }
    for (const std::string &name : order) {
      if (inl.contains(name) && inl[name].is_string()) {
        k.files.push_back({name, inl[name].get<std::string>()});
        continue;
      }
      if (!files.contains(name) || !files[name].is_string())
        return "malformed compile reply: no content or path for file '" + name + "'";
      std::string path = files[name].get<std::string>();
      std::ifstream in(path, std::ios::binary);
      if (!in)
        return "cannot read '" + path + "' of the server's cache entry";
      std::ostringstream ss;
      ss << in.rdbuf();
      k.files.push_back({name, ss.str()});
    }
    res.kernels.push_back(std::move(k));
  }
  return std::nullopt;
}

std::string canonicalJson(const json &j) {
  // nlohmann::json objects are std::map-backed: keys come out sorted.
  return j.dump(-1, ' ', /*ensure_ascii=*/true);
}

//===----------------------------------------------------------------------===//
// BLAKE2b (RFC 7693), 32-byte digest, no key.
//===----------------------------------------------------------------------===//

namespace {
constexpr uint64_t kIV[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                             0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                             0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

inline uint64_t rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

void compress(uint64_t h[8], const uint8_t block[128], uint64_t t, bool last) {
  uint64_t m[16], v[16];
  for (int i = 0; i < 16; ++i) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b)
      w = (w << 8) | block[i * 8 + b];
    m[i] = w;
  }
  for (int i = 0; i < 8; ++i) {
    v[i] = h[i];
    v[i + 8] = kIV[i];
  }
  v[12] ^= t;
  if (last)
    v[14] = ~v[14];
  auto G = [&](int a, int b, int c, int d, uint64_t x, uint64_t y) {
    v[a] = v[a] + v[b] + x;
    v[d] = rotr(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr(v[b] ^ v[c], 63);
  };
  for (int r = 0; r < 12; ++r) {
    const uint8_t *s = kSigma[r];
    G(0, 4, 8, 12, m[s[0]], m[s[1]]);
    G(1, 5, 9, 13, m[s[2]], m[s[3]]);
    G(2, 6, 10, 14, m[s[4]], m[s[5]]);
    G(3, 7, 11, 15, m[s[6]], m[s[7]]);
    G(0, 5, 10, 15, m[s[8]], m[s[9]]);
    G(1, 6, 11, 12, m[s[10]], m[s[11]]);
    G(2, 7, 8, 13, m[s[12]], m[s[13]]);
    G(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i)
    h[i] ^= v[i] ^ v[i + 8];
}
} // namespace

std::string blake2b256Hex(const std::string &data) {
  const size_t outLen = 32;
  uint64_t h[8];
  for (int i = 0; i < 8; ++i)
    h[i] = kIV[i];
  h[0] ^= 0x01010000ULL ^ outLen;
  size_t n = data.size(), off = 0;
  uint8_t block[128];
  // Every full block except the last one is compressed as non-final.
  while (n - off > 128) {
    std::memcpy(block, data.data() + off, 128);
    off += 128;
    compress(h, block, off, false);
  }
  std::memset(block, 0, sizeof block);
  std::memcpy(block, data.data() + off, n - off);
  compress(h, block, n, true);
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < outLen; ++i) {
    uint8_t b = uint8_t(h[i / 8] >> (8 * (i % 8)));
    out.push_back(hex[b >> 4]);
    out.push_back(hex[b & 15]);
  }
  return out;
}

std::string tuningDigest(const std::string &artifactKey, const std::string &runtimeKey,
                         const std::string &device) {
  std::string buf;
  for (const std::string *part :
       {static_cast<const std::string *>(nullptr), &artifactKey, &runtimeKey, &device}) {
    std::string s = part ? *part : std::string("intent-tuning-v1");
    uint64_t len = s.size();
    for (int i = 0; i < 8; ++i)
      buf.push_back(char((len >> (8 * i)) & 0xff));
    buf += s;
  }
  return blake2b256Hex(buf);
}

} // namespace intent::server
