//===- Diagnostic.h - Tuning-layer diagnostics and Expected<T> -*- C++ -*-===//
//
// A Diagnostic names the file, the JSON path and (where known) line:col of the
// offending value. Expected<T> carries either a value or one Diagnostic; the
// tuning API never throws.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_DIAGNOSTIC_H
#define INTENT_TUNING_DIAGNOSTIC_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace intent::tuning {

struct Diagnostic {
  std::string file;
  std::string jsonPath; ///< e.g. "triton.contraction_narrow[1][7]"; empty = root
  int line = 0;         ///< 1-based; 0 = unknown
  int col = 0;          ///< 1-based byte column; 0 = unknown
  std::string message;

  /// `FILE:LINE:COL: error: JSONPATH: MESSAGE`; `:LINE:COL` is omitted when
  /// unknown and `JSONPATH: ` when the path is empty (the root).
  std::string str() const;
};

template <class T> class Expected {
public:
  Expected(T value) : storage_(std::in_place_index<0>, std::move(value)) {}
  Expected(Diagnostic diag) : storage_(std::in_place_index<1>, std::move(diag)) {}

  bool ok() const { return storage_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & { assert(ok()); return std::get<0>(storage_); }
  const T &value() const & { assert(ok()); return std::get<0>(storage_); }
  T &&value() && { assert(ok()); return std::get<0>(std::move(storage_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  const Diagnostic &error() const { assert(!ok()); return std::get<1>(storage_); }

private:
  std::variant<T, Diagnostic> storage_;
};

/// Reads a whole file. Failure: `FILE: error: cannot read file: <strerror>`.
Expected<std::string> readFile(const std::string &path);

} // namespace intent::tuning

#endif // INTENT_TUNING_DIAGNOSTIC_H
