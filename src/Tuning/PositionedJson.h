//===- PositionedJson.h - JSON tree with source offsets (internal) --------===//
//
// Parses JSON with nlohmann::json's SAX interface into a small tree whose every
// value and key remembers its byte offset in the source, so diagnostics can
// point at the offending value. Duplicate keys are rejected while parsing.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_POSITIONEDJSON_H
#define INTENT_TUNING_POSITIONEDJSON_H

#include "intent/Tuning/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace intent::tuning::detail {

struct JsonMember;

struct JsonValue {
  enum class Kind { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;
  uint64_t unsignedInteger = 0;
  double floating = 0;
  std::string text; ///< string value, or the raw source text of a number
  std::vector<JsonValue> items;    ///< arrays
  std::vector<JsonMember> members; ///< objects, in source order
  size_t offset = 0;               ///< byte offset of the value's first character

  const JsonValue *find(std::string_view key) const;
  const JsonMember *findMember(std::string_view key) const;
  /// "null", "boolean", "integer", "floating-point number", "string", "array", "object"
  const char *kindName() const;
  /// Short rendering for messages: `1.0`, `"8"`, `true`, `null`, `array`.
  std::string brief() const;
  /// Kind and value for messages: `floating-point number 1.0`, `string "8"`,
  /// `boolean true`, `null`, `array`.
  std::string describe() const;
  /// Integer literal whose value does not fit in int64/uint64 (parsed as float).
  bool isOversizedIntegerLiteral() const;
};

struct JsonMember {
  std::string key;
  size_t keyOffset = 0;
  JsonValue value;
};

/// Source text + file name: turns byte offsets into diagnostics.
class SourceContext {
public:
  SourceContext(std::string_view text, std::string fileName)
      : text_(text), fileName_(std::move(fileName)) {}
  std::pair<int, int> lineCol(size_t offset) const;
  Diagnostic error(size_t offset, std::string jsonPath, std::string message) const;
  const std::string &fileName() const { return fileName_; }
  std::string_view text() const { return text_; }

private:
  std::string_view text_;
  std::string fileName_;
};

/// Parses `ctx.text()`. Invalid JSON -> "invalid JSON: ..." at the error
/// position; duplicate key -> diagnostic at the second occurrence.
Expected<JsonValue> parsePositionedJson(const SourceContext &ctx);

/// The member `key` of the root object `root` with kind `kind`, or the diagnostic
/// `missing required key "KEY"` / `KEY: must be MUSTBE, found KIND`.
Expected<const JsonValue *> requiredRootMember(const SourceContext &ctx, const JsonValue &root,
                                               std::string_view key, JsonValue::Kind kind,
                                               const std::string &mustBe);

/// Path helpers: appendKey("triton", "x") == "triton.x"; appendIndex("a", 3) == "a[3]".
std::string appendKey(const std::string &path, std::string_view key);
std::string appendIndex(const std::string &path, size_t index);

} // namespace intent::tuning::detail

#endif // INTENT_TUNING_POSITIONEDJSON_H
