//===- PositionedJson.cpp - JSON tree with source offsets ------------------===//
//
// Positions: nlohmann's lexer reads its input through an iterator pair; we hand
// it an iterator that records how many bytes have been consumed. A SAX event is
// emitted right after the lexer finished the token (numbers: plus one byte of
// look-ahead, none at end of input), so each token's first byte is recovered by
// scanning back from the consumed count over the token's own characters.
//
//===----------------------------------------------------------------------===//
#include "PositionedJson.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <iterator>
#include <map>

namespace intent::tuning::detail {

namespace {

/// Input iterator over the source bytes that publishes the consumed count.
struct CountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;

  const char *pos = nullptr;
  const char *base = nullptr;
  size_t *consumed = nullptr;

  reference operator*() const { return *pos; }
  CountingIterator &operator++() {
    ++pos;
    *consumed = static_cast<size_t>(pos - base);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator &o) const { return pos == o.pos; }
  bool operator!=(const CountingIterator &o) const { return pos != o.pos; }
};

bool isNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

class Builder : public nlohmann::json_sax<nlohmann::json> {
public:
  Builder(const SourceContext &ctx, const size_t &consumed) : ctx_(ctx), consumed_(consumed) {}

  std::optional<Diagnostic> failure;
  JsonValue root;

  bool null() override { return literal(JsonValue::Kind::Null, 4); }
  bool boolean(bool v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::Boolean;
    j.boolean = v;
    j.offset = lastByte() + 1 - (v ? 4 : 5);
    return add(std::move(j));
  }
  bool number_integer(number_integer_t v) override {
    JsonValue j = number(JsonValue::Kind::Integer);
    j.integer = v;
    return add(std::move(j));
  }
  bool number_unsigned(number_unsigned_t v) override {
    JsonValue j = number(JsonValue::Kind::Unsigned);
    j.unsignedInteger = v;
    if (v <= static_cast<uint64_t>(INT64_MAX)) {
      j.kind = JsonValue::Kind::Integer;
      j.integer = static_cast<int64_t>(v);
    }
    return add(std::move(j));
  }
  bool number_float(number_float_t v, const string_t &) override {
    JsonValue j = number(JsonValue::Kind::Float);
    j.floating = v;
    return add(std::move(j));
  }
  bool string(string_t &v) override {
    JsonValue j;
    j.kind = JsonValue::Kind::String;
    j.text = v;
    j.offset = stringStart();
    return add(std::move(j));
  }
  bool binary(binary_t &) override { return true; } // not produced by JSON input
  bool start_object(std::size_t) override { return open(JsonValue::Kind::Object); }
  bool start_array(std::size_t) override { return open(JsonValue::Kind::Array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t &k) override {
    Frame &top = stack_.back();
    size_t off = stringStart();
    auto it = top.seen.find(k);
    if (it != top.seen.end()) {
      auto [l, c] = ctx_.lineCol(it->second);
      failure = ctx_.error(off, appendKey(currentPath(), k),
                           "duplicate key \"" + k + "\" (first defined at line " +
                               std::to_string(l) + ", column " + std::to_string(c) + ")");
      return false;
    }
    top.seen.emplace(k, off);
    top.pendingKey = k;
    top.pendingKeyOffset = off;
    return true;
  }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    std::string msg = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
    if (auto p = msg.find("] "); p != std::string::npos && msg.rfind("[json.exception.", 0) == 0)
      msg = msg.substr(p + 2);
    if (msg.rfind("parse error at line ", 0) == 0)
      if (auto p = msg.find(": "); p != std::string::npos)
        msg = msg.substr(p + 2);
    size_t off = position > 0 ? position - 1 : 0;
    failure = ctx_.error(off, "", "invalid JSON: " + msg);
    return false;
  }

private:
  struct Frame {
    JsonValue value;
    std::string pendingKey;
    size_t pendingKeyOffset = 0;
    std::map<std::string, size_t> seen;
  };

  size_t lastByte() const { return consumed_ > 0 ? consumed_ - 1 : 0; }

  bool literal(JsonValue::Kind k, size_t len) {
    JsonValue j;
    j.kind = k;
    j.offset = lastByte() + 1 - len;
    return add(std::move(j));
  }

  JsonValue number(JsonValue::Kind k) {
    std::string_view src = ctx_.text();
    size_t end = lastByte(); // inclusive, unless it is the look-ahead byte
    if (end < src.size() && !isNumberChar(src[end]))
      --end;
    size_t start = end;
    while (start > 0 && isNumberChar(src[start - 1]))
      --start;
    JsonValue j;
    j.kind = k;
    j.offset = start;
    j.text = std::string(src.substr(start, end - start + 1));
    return j;
  }

  size_t stringStart() const {
    std::string_view src = ctx_.text();
    size_t close = lastByte(); // the closing quote
    for (size_t i = close; i-- > 0;) {
      if (src[i] != '"')
        continue;
      size_t backslashes = 0;
      while (i >= backslashes + 1 && src[i - backslashes - 1] == '\\')
        ++backslashes;
      if (backslashes % 2 == 0)
        return i;
    }
    return 0;
  }

  std::string currentPath() const {
    std::string path;
    for (size_t i = 1; i < stack_.size(); ++i) {
      const Frame &parent = stack_[i - 1];
      if (parent.value.kind == JsonValue::Kind::Object)
        path = appendKey(path, parent.pendingKey);
      else
        path = appendIndex(path, parent.value.items.size());
    }
    return path;
  }

  bool open(JsonValue::Kind k) {
    Frame f;
    f.value.kind = k;
    f.value.offset = lastByte();
    stack_.push_back(std::move(f));
    return true;
  }

  bool close() {
    JsonValue v = std::move(stack_.back().value);
    stack_.pop_back();
    return add(std::move(v));
  }

  bool add(JsonValue v) {
    if (stack_.empty()) {
      root = std::move(v);
      return true;
    }
    Frame &top = stack_.back();
    if (top.value.kind == JsonValue::Kind::Array) {
      top.value.items.push_back(std::move(v));
    } else {
      JsonMember m;
      m.key = top.pendingKey;
      m.keyOffset = top.pendingKeyOffset;
      m.value = std::move(v);
      top.value.members.push_back(std::move(m));
    }
    return true;
  }

  const SourceContext &ctx_;
  const size_t &consumed_;
  std::vector<Frame> stack_;
};

} // namespace

const JsonMember *JsonValue::findMember(std::string_view key) const {
  for (const JsonMember &m : members)
    if (m.key == key)
      return &m;
  return nullptr;
}

const JsonValue *JsonValue::find(std::string_view key) const {
  const JsonMember *m = findMember(key);
  return m ? &m->value : nullptr;
}

const char *JsonValue::kindName() const {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Boolean: return "boolean";
  case Kind::Integer:
  case Kind::Unsigned: return "integer";
  case Kind::Float: return "floating-point number";
  case Kind::String: return "string";
  case Kind::Array: return "array";
  case Kind::Object: return "object";
  }
  return "value";
}

std::string JsonValue::brief() const {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Boolean: return boolean ? "true" : "false";
  case Kind::Integer:
  case Kind::Unsigned:
  case Kind::Float: return text;
  case Kind::String: return "\"" + text + "\"";
  case Kind::Array: return "array";
  case Kind::Object: return "object";
  }
  return "value";
}

std::string JsonValue::describe() const {
  switch (kind) {
  case Kind::Null:
  case Kind::Array:
  case Kind::Object: return kindName();
  default: return std::string(kindName()) + " " + brief();
  }
}

bool JsonValue::isOversizedIntegerLiteral() const {
  if (kind != Kind::Float || text.empty())
    return false;
  return text.find_first_of(".eE") == std::string::npos;
}

std::pair<int, int> SourceContext::lineCol(size_t offset) const {
  if (offset > text_.size())
    offset = text_.size();
  int line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text_[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  return {line, static_cast<int>(offset - lineStart) + 1};
}

Diagnostic SourceContext::error(size_t offset, std::string jsonPath, std::string message) const {
  Diagnostic d;
  d.file = fileName_;
  d.jsonPath = std::move(jsonPath);
  std::tie(d.line, d.col) = lineCol(offset);
  d.message = std::move(message);
  return d;
}

Expected<JsonValue> parsePositionedJson(const SourceContext &ctx) {
  size_t consumed = 0;
  std::string_view text = ctx.text();
  CountingIterator first{text.data(), text.data(), &consumed};
  CountingIterator last{text.data() + text.size(), text.data(), &consumed};
  Builder builder(ctx, consumed);
  bool ok = nlohmann::json::sax_parse(first, last, &builder);
  if (builder.failure)
    return *builder.failure;
  if (!ok)
    return ctx.error(consumed, "", "invalid JSON");
  return std::move(builder.root);
}

std::string appendKey(const std::string &path, std::string_view key) {
  if (path.empty())
    return std::string(key);
  return path + "." + std::string(key);
}

std::string appendIndex(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Expected<const JsonValue *> requiredRootMember(const SourceContext &ctx, const JsonValue &root,
                                               std::string_view key, JsonValue::Kind kind,
                                               const std::string &mustBe) {
  const JsonValue *v = root.find(key);
  if (!v)
    return ctx.error(root.offset, "", "missing required key \"" + std::string(key) + "\"");
  if (v->kind != kind)
    return ctx.error(v->offset, std::string(key), "must be " + mustBe + ", found " + v->kindName());
  return v;
}

} // namespace intent::tuning::detail
