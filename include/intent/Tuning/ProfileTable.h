//===- ProfileTable.h - Profile tables, overrides and merge ----*- C++ -*-===//
//
// Parsing and validation of the shipped default tables (configs/<provider>.json)
// and of --tuning-config override files, the family-replacement merge, and the
// canonical content used for cache identity. See docs/tuning.md.
//
//===----------------------------------------------------------------------===//
#ifndef INTENT_TUNING_PROFILETABLE_H
#define INTENT_TUNING_PROFILETABLE_H

#include "intent/Tuning/Columns.h"
#include "intent/Tuning/Diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace intent::tuning {

/// One complete, correlated configuration: one value per provider column.
using ProfileRow = std::vector<int64_t>;
using FamilyRows = std::map<std::string, std::vector<ProfileRow>>;

/// A provider's default table: `{"columns": [...], "families": {...}}`.
struct ProfileTable {
  Provider provider = Provider::Triton;
  std::string fileName;
  FamilyRows families; ///< every family of the provider, non-empty

  const std::vector<ProfileRow> &rows(const std::string &family) const;
};

/// An override file: provider namespace -> family -> rows. Every namespace is
/// validated; only the selected provider's namespace is applied.
struct Override {
  std::string fileName;
  std::map<Provider, FamilyRows> namespaces;

  /// The rows supplied for (provider, family), or nullptr if not supplied.
  const std::vector<ProfileRow> *find(Provider p, const std::string &family) const;
};

enum class RowSource { Default, Override };
const char *rowSourceName(RowSource s); ///< "default" / "override"

struct EffectiveRow {
  ProfileRow values;
  RowSource source = RowSource::Default;
  size_t index = 0; ///< index within its family in the file it came from
};

struct EffectiveTable {
  Provider provider = Provider::Triton;
  std::map<std::string, std::vector<EffectiveRow>> families;

  const std::vector<EffectiveRow> &rows(const std::string &family) const;
};

Expected<ProfileTable> parseProfileTable(std::string_view text, const std::string &fileName,
                                         Provider provider);
Expected<ProfileTable> loadProfileTable(const std::string &path, Provider provider);

Expected<Override> parseOverride(std::string_view text, const std::string &fileName);
Expected<Override> loadOverride(const std::string &path);

/// A supplied family replaces that family's default rows as a whole; omitted
/// families keep the defaults; other providers' namespaces are ignored.
/// `ov` may be null (defaults only). Row order is preserved.
EffectiveTable applyOverride(const ProfileTable &defaults, const Override *ov, Provider provider);

/// Deterministic, compact JSON of the table content:
/// `{"columns":[...],"families":{...sorted...},"provider":"triton"}`.
/// Equal content gives equal strings regardless of formatting or key order in
/// the source file. The EffectiveTable form omits row sources, so an override
/// that restates the defaults has the same content as no override.
std::string canonicalJson(const ProfileTable &table);
std::string canonicalJson(const EffectiveTable &table);

} // namespace intent::tuning

#endif // INTENT_TUNING_PROFILETABLE_H
