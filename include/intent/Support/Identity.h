//===- Identity.h - who this compiler is ------------------------*- C++ -*-===//
#ifndef INTENT_SUPPORT_IDENTITY_H
#define INTENT_SUPPORT_IDENTITY_H

#include <string>
#include <string_view>

namespace intent::support {

/// "0.1.0"
const char *versionString();
/// Path of the running executable.
std::string executablePath();
/// BLAKE3 (hex) of the running executable's bytes: changes with every rebuild,
/// so artifacts built by another binary never hit. Computed once per process.
const std::string &buildId();
/// Lowercase hex BLAKE3-256 of arbitrary bytes.
std::string blake3Hex(std::string_view data);

} // namespace intent::support

#endif
