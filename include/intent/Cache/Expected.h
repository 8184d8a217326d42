//===- Expected.h - value-or-error result for the cache layer ---*- C++ -*-===//
//
// The cache API never throws; every fallible call returns Expected<T> (a value
// or an error message) or Status (success or an error message).
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_CACHE_EXPECTED_H
#define INTENT_CACHE_EXPECTED_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace intent::cache {

/// An error message. Implicitly converts into any Expected<T> or Status.
struct Error {
  std::string message;
  explicit Error(std::string msg) : message(std::move(msg)) {}
};

inline Error makeError(std::string msg) { return Error(std::move(msg)); }

template <typename T> class Expected {
public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error err) : storage_(std::in_place_index<1>, std::move(err)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & {
    assert(ok());
    return std::get<0>(storage_);
  }
  const T &value() const & {
    assert(ok());
    return std::get<0>(storage_);
  }
  T &&value() && {
    assert(ok());
    return std::get<0>(std::move(storage_));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  /// The error message; empty when ok().
  const std::string &error() const {
    static const std::string empty;
    return ok() ? empty : std::get<1>(storage_).message;
  }
  Error takeError() const { return Error(error()); }

private:
  std::variant<T, Error> storage_;
};

/// Success or an error message.
class Status {
public:
  Status() = default;
  Status(Error err) : error_(std::move(err.message)) {}
  static Status success() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string &error() const {
    static const std::string empty;
    return error_ ? *error_ : empty;
  }
  Error takeError() const { return Error(error()); }

private:
  std::optional<std::string> error_;
};

} // namespace intent::cache

#endif // INTENT_CACHE_EXPECTED_H
