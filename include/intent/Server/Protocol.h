//===- Protocol.h - compile-server wire format ------------------*- C++ -*-===//
//
// JSON-RPC 2.0, one JSON object per line, over a per-user Unix socket.
// See docs/protocol.md.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_SERVER_PROTOCOL_H
#define INTENT_SERVER_PROTOCOL_H

#include "intent/Driver/Driver.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace intent::server {

/// Bumped on any incompatible change of a method's params or result.
constexpr int kProtocolVersion = 1;
constexpr uint64_t kDefaultMaxRequestBytes = 16ull << 20;

// JSON-RPC error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kCompileFailed = -32000;   ///< data: {"diagnostics": ...}
constexpr int kPeerRefused = -32001;     ///< peer uid differs from the server's
constexpr int kRequestTooLarge = -32002; ///< line longer than --max-request-bytes
constexpr int kShuttingDown = -32003;
constexpr int kReadTimeout = -32004;     ///< no complete line within the read timeout

/// Default socket: $INTENTC_SOCKET, else $XDG_RUNTIME_DIR/intentc/intentc.sock
/// (absolute XDG_RUNTIME_DIR only), else /tmp/intentc-<uid>/intentc.sock.
std::string defaultSocketPath();

/// Creates the socket's directory (0700) if missing and checks it: a real
/// directory (not a symlink), owned by this uid, no group/other permission bits.
/// Returns an error message, empty when fine.
std::string prepareSocketDir(const std::string &socketPath, bool create = true);

/// Compile request <-> "compile" params.
nlohmann::json requestToParams(const driver::CompileRequest &req);
/// Returns an error message (for -32602) on wrongly typed params.
std::optional<std::string> paramsToRequest(const nlohmann::json &params,
                                           driver::CompileRequest &req);

/// Compile result -> "compile" result. Files of cached kernels are named by
/// their path in the cache entry; files of uncached kernels are inlined.
nlohmann::ordered_json resultToJson(const driver::CompileResult &res);
/// Rebuilds a CompileResult from a reply (reads cached files from their
/// entry). Returns an error message on a malformed reply or unreadable file.
std::optional<std::string> resultFromJson(const nlohmann::json &j, driver::CompileResult &res);

/// Canonical JSON (sorted keys, compact, ASCII) as Python's
/// json.dumps(sort_keys=True, separators=(",", ":")) writes it.
std::string canonicalJson(const nlohmann::json &j);

/// BLAKE2b-256 hex over length-prefixed parts: the intent_runtime tuning-key
/// digest (keys.tuning_key): parts "intent-tuning-v1", artifact, runtime, device.
std::string tuningDigest(const std::string &artifactKey, const std::string &runtimeKey,
                         const std::string &device);
/// BLAKE2b with a 32-byte digest (exposed for tests).
std::string blake2b256Hex(const std::string &data);

} // namespace intent::server

#endif
