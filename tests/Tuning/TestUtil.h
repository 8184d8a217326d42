// Shared helpers for the tuning unit tests.
#ifndef INTENT_TESTS_TUNING_TESTUTIL_H
#define INTENT_TESTS_TUNING_TESTUTIL_H

#include "intent/Tuning/ProfileTable.h"

#include <doctest/doctest.h>
#include <string>

namespace intent::tuning::test {

inline std::string configPath(const std::string &name) {
  return std::string(INTENT_SOURCE_DIR) + "/configs/" + name;
}

/// A triton override whose second contraction_narrow row is `secondRow`; the
/// second row starts at line 5, column 7.
inline std::string tritonOverrideWithRow(const std::string &secondRow) {
  return "{\n"
         "  \"triton\": {\n"
         "    \"contraction_narrow\": [\n"
         "      [128, 256, 64, 1, 1, 1, 8, 8, 3, 1, 0],\n"
         "      " + secondRow + "\n"
         "    ]\n"
         "  }\n"
         "}\n";
}

inline Diagnostic overrideError(const std::string &text) {
  auto r = parseOverride(text, "ov.json");
  REQUIRE_FALSE(r.ok());
  return r.error();
}

inline Override parseOk(const std::string &text) {
  auto r = parseOverride(text, "ov.json");
  if (!r)
    FAIL(r.error().str());
  return *r;
}

} // namespace intent::tuning::test

#endif
