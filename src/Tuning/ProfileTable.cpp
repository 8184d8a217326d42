//===- ProfileTable.cpp - Parse, validate and merge profile tables --------===//
#include "intent/Tuning/ProfileTable.h"

#include "PositionedJson.h"

#include <nlohmann/json.hpp>

#include <cassert>

namespace intent::tuning {

using detail::appendIndex;
using detail::appendKey;
using detail::JsonValue;
using detail::SourceContext;
using Kind = detail::JsonValue::Kind;

namespace {

std::string joinNames(const std::vector<std::string> &names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + names[i];
  return s;
}

std::string rowCountText(size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

/// Validates one family value (array of rows) into `out`.
std::optional<Diagnostic> parseFamily(const SourceContext &ctx, const JsonValue &fam,
                                      const std::string &path, const std::string &family,
                                      Provider p, std::vector<ProfileRow> &out) {
  if (fam.kind != Kind::Array)
    return ctx.error(fam.offset, path,
                     "family \"" + family + "\" must be an array of rows, found " + fam.kindName());
  if (fam.items.empty())
    return ctx.error(fam.offset, path,
                     "family \"" + family +
                         "\" is empty; supply at least one row or omit the family");
  const auto &cols = columnsFor(p);
  for (size_t r = 0; r < fam.items.size(); ++r) {
    const JsonValue &row = fam.items[r];
    std::string rowPath = appendIndex(path, r);
    if (row.kind != Kind::Array)
      return ctx.error(row.offset, rowPath,
                       std::string("row must be an array of ") + std::to_string(cols.size()) +
                           " integers, found " + row.kindName());
    if (row.items.size() != cols.size())
      return ctx.error(row.offset, rowPath,
                       "row has " + rowCountText(row.items.size()) + ", expected " +
                           std::to_string(cols.size()) + " columns for " + providerName(p) + ": " +
                           joinNames(columnNamesFor(p)));
    ProfileRow values;
    for (size_t c = 0; c < cols.size(); ++c) {
      const JsonValue &v = row.items[c];
      std::string valuePath = appendIndex(rowPath, c);
      const ColumnSpec &col = cols[c];
      if (v.kind == Kind::Unsigned || v.isOversizedIntegerLiteral())
        return ctx.error(v.offset, valuePath,
                         "value " + v.text + " of column " + col.name + " is out of range; expected " +
                             col.describeDomain());
      if (v.kind != Kind::Integer)
        return ctx.error(v.offset, valuePath,
                         "column " + col.name + " expects an integer, found " + v.describe());
      if (!col.accepts(v.integer))
        return ctx.error(v.offset, valuePath,
                         "value " + std::to_string(v.integer) + " of column " + col.name +
                             " is out of range; expected " + col.describeDomain());
      values.push_back(v.integer);
    }
    for (size_t earlier = 0; earlier < out.size(); ++earlier)
      if (out[earlier] == values)
        return ctx.error(row.offset, rowPath,
                         "duplicate row: identical to row " + std::to_string(earlier) +
                             " of family \"" + family + "\"");
    out.push_back(std::move(values));
  }
  return std::nullopt;
}

Diagnostic notAnObject(const SourceContext &ctx, const JsonValue &root, const char *what) {
  return ctx.error(root.offset, "",
                   std::string("top-level value must be an object (") + what + "), found " +
                       root.kindName());
}

/// Validates `{"<family>": rows, ...}` of one provider into `out`.
std::optional<Diagnostic> parseFamilies(const SourceContext &ctx, const JsonValue &obj,
                                        const std::string &path, Provider p, FamilyRows &out) {
  for (const auto &m : obj.members) {
    std::string famPath = appendKey(path, m.key);
    if (!isFamilyOf(p, m.key))
      return ctx.error(m.keyOffset, famPath,
                       "unknown family \"" + m.key + "\" for provider " + providerName(p) +
                           "; valid families: " + joinNames(familiesFor(p)));
    std::vector<ProfileRow> rows;
    if (auto d = parseFamily(ctx, m.value, famPath, m.key, p, rows))
      return d;
    out[m.key] = std::move(rows);
  }
  return std::nullopt;
}

} // namespace

const std::vector<ProfileRow> &ProfileTable::rows(const std::string &family) const {
  static const std::vector<ProfileRow> none;
  auto it = families.find(family);
  return it == families.end() ? none : it->second;
}

const std::vector<ProfileRow> *Override::find(Provider p, const std::string &family) const {
  auto ns = namespaces.find(p);
  if (ns == namespaces.end())
    return nullptr;
  auto it = ns->second.find(family);
  return it == ns->second.end() ? nullptr : &it->second;
}

const char *rowSourceName(RowSource s) { return s == RowSource::Default ? "default" : "override"; }

const std::vector<EffectiveRow> &EffectiveTable::rows(const std::string &family) const {
  static const std::vector<EffectiveRow> none;
  auto it = families.find(family);
  return it == families.end() ? none : it->second;
}

Expected<ProfileTable> parseProfileTable(std::string_view text, const std::string &fileName,
                                         Provider provider) {
  SourceContext ctx(text, fileName);
  auto parsed = detail::parsePositionedJson(ctx);
  if (!parsed)
    return parsed.error();
  const JsonValue &root = *parsed;
  if (root.kind != Kind::Object)
    return notAnObject(ctx, root, "a profile table with \"columns\" and \"families\"");

  for (const auto &m : root.members)
    if (m.key != "columns" && m.key != "families")
      return ctx.error(m.keyOffset, m.key,
                       "unknown key \"" + m.key +
                           "\"; a profile table has exactly the keys \"columns\" and \"families\"");

  const std::vector<std::string> expected = columnNamesFor(provider);
  auto columnsOr = detail::requiredRootMember(ctx, root, "columns", Kind::Array, "an array of column names");
  if (!columnsOr)
    return columnsOr.error();
  const JsonValue *columns = *columnsOr;
  for (size_t i = 0; i < columns->items.size() && i < expected.size(); ++i) {
    const JsonValue &c = columns->items[i];
    if (c.kind != Kind::String || c.text != expected[i])
      return ctx.error(c.offset, appendIndex("columns", i),
                       "column " + std::to_string(i) + " is " + c.brief() + ", expected \"" +
                           expected[i] + "\"; the " + providerName(provider) + " columns are: " +
                           joinNames(expected));
  }
  if (columns->items.size() != expected.size())
    return ctx.error(columns->offset, "columns",
                     "found " + std::to_string(columns->items.size()) + " columns, expected " +
                         std::to_string(expected.size()) + " for " + providerName(provider) + ": " +
                         joinNames(expected));

  auto familiesOr =
      detail::requiredRootMember(ctx, root, "families", Kind::Object, "an object mapping families to rows");
  if (!familiesOr)
    return familiesOr.error();
  const JsonValue *families = *familiesOr;

  ProfileTable table;
  table.provider = provider;
  table.fileName = fileName;
  if (auto d = parseFamilies(ctx, *families, "families", provider, table.families))
    return *d;
  for (const std::string &f : familiesFor(provider))
    if (!table.families.count(f))
      return ctx.error(families->offset, "families",
                       "missing family \"" + f + "\"; a default table must define every " +
                           providerName(provider) + " family: " + joinNames(familiesFor(provider)));
  return table;
}

Expected<ProfileTable> loadProfileTable(const std::string &path, Provider provider) {
  auto text = readFile(path);
  if (!text)
    return text.error();
  return parseProfileTable(*text, path, provider);
}

Expected<Override> parseOverride(std::string_view text, const std::string &fileName) {
  SourceContext ctx(text, fileName);
  auto parsed = detail::parsePositionedJson(ctx);
  if (!parsed)
    return parsed.error();
  const JsonValue &root = *parsed;
  if (root.kind != Kind::Object)
    return notAnObject(ctx, root, "mapping provider namespaces to families");

  Override ov;
  ov.fileName = fileName;
  std::vector<std::string> providerNames;
  for (Provider p : allProviders())
    providerNames.push_back(providerName(p));
  for (const auto &m : root.members) {
    auto p = parseProvider(m.key);
    if (!p)
      return ctx.error(m.keyOffset, m.key,
                       "unknown provider namespace \"" + m.key +
                           "\"; expected one of: " + joinNames(providerNames));
    if (m.value.kind != Kind::Object)
      return ctx.error(m.value.offset, m.key,
                       "provider namespace \"" + m.key +
                           "\" must be an object mapping families to rows, found " +
                           m.value.kindName());
    FamilyRows rows;
    if (auto d = parseFamilies(ctx, m.value, m.key, *p, rows))
      return *d;
    ov.namespaces[*p] = std::move(rows);
  }
  return ov;
}

Expected<Override> loadOverride(const std::string &path) {
  auto text = readFile(path);
  if (!text)
    return text.error();
  return parseOverride(*text, path);
}

EffectiveTable applyOverride(const ProfileTable &defaults, const Override *ov, Provider provider) {
  assert(defaults.provider == provider && "default table of another provider");
  EffectiveTable out;
  out.provider = provider;
  for (const std::string &family : familiesFor(provider)) {
    const std::vector<ProfileRow> *supplied = ov ? ov->find(provider, family) : nullptr;
    const std::vector<ProfileRow> &rows = supplied ? *supplied : defaults.rows(family);
    RowSource source = supplied ? RowSource::Override : RowSource::Default;
    std::vector<EffectiveRow> &dst = out.families[family];
    for (size_t i = 0; i < rows.size(); ++i)
      dst.push_back(EffectiveRow{rows[i], source, i});
  }
  return out;
}

namespace {
std::string canonical(Provider p, const std::map<std::string, nlohmann::json> &families) {
  nlohmann::json j;
  j["provider"] = providerName(p);
  j["columns"] = columnNamesFor(p);
  j["families"] = nlohmann::json::object();
  for (const auto &[name, rows] : families)
    j["families"][name] = rows;
  return j.dump(); // std::map-backed object: keys sorted, compact, deterministic
}
} // namespace

std::string canonicalJson(const ProfileTable &table) {
  std::map<std::string, nlohmann::json> fams;
  for (const auto &[name, rows] : table.families)
    fams[name] = rows;
  return canonical(table.provider, fams);
}

std::string canonicalJson(const EffectiveTable &table) {
  std::map<std::string, nlohmann::json> fams;
  for (const auto &[name, rows] : table.families) {
    nlohmann::json arr = nlohmann::json::array();
    for (const EffectiveRow &r : rows)
      arr.push_back(r.values);
    fams[name] = std::move(arr);
  }
  return canonical(table.provider, fams);
}

} // namespace intent::tuning
