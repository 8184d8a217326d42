//===- Columns.cpp - Column layouts and families per provider -------------===//
#include "intent/Tuning/Columns.h"

#include <algorithm>

namespace intent::tuning {

const char *providerName(Provider p) {
  switch (p) {
  case Provider::Triton: return "triton";
  case Provider::CuTile: return "cutile";
  case Provider::BangC: return "bangc";
  }
  return "unknown";
}

std::optional<Provider> parseProvider(std::string_view name) {
  for (Provider p : allProviders())
    if (name == providerName(p))
      return p;
  return std::nullopt;
}

const std::vector<Provider> &allProviders() {
  static const std::vector<Provider> all = {Provider::Triton, Provider::CuTile, Provider::BangC};
  return all;
}

bool ColumnSpec::accepts(int64_t v) const {
  switch (kind) {
  case ColumnKind::PositiveInt32: return v >= 1 && v <= kMaxInt32;
  case ColumnKind::Boolean: return v == 0 || v == 1;
  case ColumnKind::Range: return v >= min && v <= max;
  case ColumnKind::PowerOfTwoRange: return v >= min && v <= max && v > 0 && (v & (v - 1)) == 0;
  case ColumnKind::OneOf: return std::find(values.begin(), values.end(), v) != values.end();
  }
  return false;
}

std::string ColumnSpec::describeDomain() const {
  switch (kind) {
  case ColumnKind::PositiveInt32: return "a positive 32-bit integer (1..2147483647)";
  case ColumnKind::Boolean: return "0 or 1";
  case ColumnKind::Range: return "an integer in " + std::to_string(min) + ".." + std::to_string(max);
  case ColumnKind::PowerOfTwoRange:
    return "a power of two in " + std::to_string(min) + ".." + std::to_string(max);
  case ColumnKind::OneOf: {
    std::string s = "one of ";
    for (size_t i = 0; i < values.size(); ++i)
      s += (i ? ", " : "") + std::to_string(values[i]);
    return s;
  }
  }
  return "";
}

namespace {

ColumnSpec positive(const char *name) { return {name, ColumnKind::PositiveInt32, 1, kMaxInt32, {}}; }
ColumnSpec boolean(const char *name) { return {name, ColumnKind::Boolean, 0, 1, {}}; }
ColumnSpec range(const char *name, int64_t lo, int64_t hi) { return {name, ColumnKind::Range, lo, hi, {}}; }
ColumnSpec pow2(const char *name, int64_t lo, int64_t hi) {
  return {name, ColumnKind::PowerOfTwoRange, lo, hi, {}};
}
ColumnSpec oneOf(const char *name, std::vector<int64_t> vs) {
  return {name, ColumnKind::OneOf, vs.front(), vs.back(), vs};
}

std::vector<ColumnSpec> sharedGpuColumns() {
  return {positive("ownership_m"), positive("ownership_n"),       positive("reduction"),
          positive("reduction_outer"), positive("scan"), positive("traversal_workers"),
          positive("traversal_group")};
}

} // namespace

const std::vector<ColumnSpec> &columnsFor(Provider p) {
  static const std::vector<ColumnSpec> triton = [] {
    auto c = sharedGpuColumns();
    c.push_back(positive("NUM_WARPS"));
    c.push_back(positive("NUM_STAGES"));
    c.push_back(positive("NUM_CTAS"));
    c.push_back(boolean("USE_TENSOR_DESCRIPTOR"));
    return c;
  }();
  static const std::vector<ColumnSpec> cutile = [] {
    auto c = sharedGpuColumns();
    c.push_back(pow2("CUTILE_CTAS", 1, 16));
    c.push_back(oneOf("CUTILE_WORKER_WARPS", {1, 4, 8}));
    c.push_back(range("CUTILE_OCCUPANCY", 1, 32));
    c.push_back(range("CUTILE_ACCESS_FORM", 1, 3));
    c.push_back(range("CUTILE_LOAD_POLICY", 1, 11));
    return c;
  }();
  static const std::vector<ColumnSpec> bangc = {positive("tile"),   positive("tile_m"),
                                                positive("tile_n"), positive("tile_k"),
                                                positive("region_tile"), positive("tasks"),
                                                positive("local_bytes")};
  switch (p) {
  case Provider::Triton: return triton;
  case Provider::CuTile: return cutile;
  case Provider::BangC: return bangc;
  }
  return triton;
}

std::vector<std::string> columnNamesFor(Provider p) {
  std::vector<std::string> names;
  for (const ColumnSpec &c : columnsFor(p))
    names.push_back(c.name);
  return names;
}

std::optional<size_t> columnIndex(Provider p, std::string_view column) {
  const auto &cols = columnsFor(p);
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].name == column)
      return i;
  return std::nullopt;
}

std::optional<std::string> columnForRole(Provider p, std::string_view role) {
  std::string column(role);
  if (p == Provider::Triton) {
    static const std::pair<std::string_view, std::string_view> options[] = {
        {"warps", "NUM_WARPS"},
        {"stages", "NUM_STAGES"},
        {"ctas", "NUM_CTAS"},
        {"access_form", "USE_TENSOR_DESCRIPTOR"}};
    for (auto [r, c] : options)
      if (r == role)
        column = c;
  }
  if (!columnIndex(p, column))
    return std::nullopt;
  return column;
}

const std::vector<std::string> &familiesFor(Provider p) {
  static const std::vector<std::string> gpu = {
      "pointwise",   "pointwise_narrow", "reduction",          "multi_axis_reduction",
      "region_reduction", "scan",        "outer_reduction",    "outer_scan",
      "contraction", "contraction_narrow", "region_contraction"};
  static const std::vector<std::string> bang = {"block"};
  return p == Provider::BangC ? bang : gpu;
}

bool isFamilyOf(Provider p, std::string_view family) {
  const auto &fs = familiesFor(p);
  return std::find(fs.begin(), fs.end(), family) != fs.end();
}

} // namespace intent::tuning
