//===- Targets.cpp - Hardware capability records --------------------------===//
#include "intent/Tuning/Targets.h"

#include "PositionedJson.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace intent::tuning {

using detail::appendKey;
using detail::JsonValue;
using detail::SourceContext;
using Kind = detail::JsonValue::Kind;

namespace {

enum class FieldType { String, Bool, Int32, Int64 };

struct Field {
  const char *name;
  FieldType type;
  std::function<void(TargetCaps &, const JsonValue &)> set;
};

const char *typeText(FieldType t) {
  switch (t) {
  case FieldType::String: return "a string";
  case FieldType::Bool: return "true or false";
  case FieldType::Int32: return "a positive 32-bit integer";
  case FieldType::Int64: return "a positive integer";
  }
  return "";
}

#define STR_FIELD(key, member) Field{key, FieldType::String, [](TargetCaps &t, const JsonValue &v) { t.member = v.text; }}
#define BOOL_FIELD(key, member) Field{key, FieldType::Bool, [](TargetCaps &t, const JsonValue &v) { t.member = v.boolean; }}
#define I32_FIELD(key, member) Field{key, FieldType::Int32, [](TargetCaps &t, const JsonValue &v) { t.member = static_cast<int>(v.integer); }}
#define I64_FIELD(key, member) Field{key, FieldType::Int64, [](TargetCaps &t, const JsonValue &v) { t.member = v.integer; }}

const std::vector<Field> &commonFields() {
  static const std::vector<Field> f = {
      STR_FIELD("provider_family", providerFamily), STR_FIELD("description", description),
      STR_FIELD("source", source), BOOL_FIELD("matrix_units", matrixUnits), BOOL_FIELD("tma", tma)};
  return f;
}

const std::vector<Field> &cudaFields() {
  static const std::vector<Field> f = {
      I32_FIELD("multiprocessors", sms),
      I32_FIELD("compute_capability", computeCapability),
      I64_FIELD("smem_per_block_bytes", smemPerBlock),
      I64_FIELD("smem_per_multiprocessor_bytes", smemPerSM),
      I32_FIELD("registers_per_multiprocessor", regsPerSM),
      I32_FIELD("max_threads_per_block", maxThreadsPerBlock),
      I32_FIELD("warp_size", warpSize),
      BOOL_FIELD("thread_block_clusters", clusters)};
  return f;
}

const std::vector<Field> &bangFields() {
  static const std::vector<Field> f = {
      I32_FIELD("clusters", mluClusters), I32_FIELD("cores_per_cluster", coresPerCluster),
      I64_FIELD("nram_bytes_per_core", nramBytesPerCore),
      I64_FIELD("wram_bytes_per_core", wramBytesPerCore),
      I64_FIELD("sram_bytes_per_cluster", sramBytesPerCluster)};
  return f;
}

#undef STR_FIELD
#undef BOOL_FIELD
#undef I32_FIELD
#undef I64_FIELD

bool typeMatches(FieldType t, const JsonValue &v) {
  switch (t) {
  case FieldType::String: return v.kind == Kind::String;
  case FieldType::Bool: return v.kind == Kind::Boolean;
  case FieldType::Int32: return v.kind == Kind::Integer && v.integer >= 1 && v.integer <= kMaxInt32;
  case FieldType::Int64: return v.kind == Kind::Integer && v.integer >= 1;
  }
  return false;
}

std::optional<Diagnostic> parseRecord(const SourceContext &ctx, const std::string &arch,
                                      const JsonValue &rec, const std::string &path,
                                      TargetCaps &out) {
  if (rec.kind != Kind::Object)
    return ctx.error(rec.offset, path,
                     std::string("a target record must be an object, found ") + rec.kindName());
  const JsonValue *fam = rec.find("provider_family");
  if (!fam)
    return ctx.error(rec.offset, path, "missing required field \"provider_family\"");
  if (fam->kind != Kind::String || (fam->text != "cuda" && fam->text != "bang"))
    return ctx.error(fam->offset, appendKey(path, "provider_family"),
                     "expected \"cuda\" or \"bang\", found " + fam->brief());
  std::vector<const Field *> fields;
  for (const Field &f : commonFields())
    fields.push_back(&f);
  for (const Field &f : fam->text == "cuda" ? cudaFields() : bangFields())
    fields.push_back(&f);

  out = TargetCaps{};
  out.arch = arch;
  for (const auto &m : rec.members) {
    const Field *field = nullptr;
    for (const Field *f : fields)
      if (m.key == f->name)
        field = f;
    if (!field)
      return ctx.error(m.keyOffset, appendKey(path, m.key),
                       "unknown field \"" + m.key + "\" for a " + fam->text + " target record");
    if (!typeMatches(field->type, m.value))
      return ctx.error(m.value.offset, appendKey(path, m.key),
                       std::string("expected ") + typeText(field->type) + ", found " +
                           m.value.describe());
    field->set(out, m.value);
  }
  for (const Field *f : fields)
    if (!rec.find(f->name))
      return ctx.error(rec.offset, path,
                       std::string("missing required field \"") + f->name + "\"");
  return std::nullopt;
}

} // namespace

Expected<TargetTable> parseTargets(std::string_view text, const std::string &fileName) {
  SourceContext ctx(text, fileName);
  auto parsed = detail::parsePositionedJson(ctx);
  if (!parsed)
    return parsed.error();
  const JsonValue &root = *parsed;
  if (root.kind != Kind::Object)
    return ctx.error(root.offset, "",
                     std::string("top-level value must be an object with key \"targets\", found ") +
                         root.kindName());
  for (const auto &m : root.members)
    if (m.key != "targets")
      return ctx.error(m.keyOffset, m.key,
                       "unknown key \"" + m.key + "\"; a target table has exactly the key \"targets\"");
  auto targetsOr =
      detail::requiredRootMember(ctx, root, "targets", Kind::Object, "an object mapping arch names to records");
  if (!targetsOr)
    return targetsOr.error();
  const JsonValue *targets = *targetsOr;
  TargetTable table;
  for (const auto &m : targets->members) {
    TargetCaps caps;
    if (auto d = parseRecord(ctx, m.key, m.value, appendKey("targets", m.key), caps))
      return *d;
    table[m.key] = std::move(caps);
  }
  return table;
}

Expected<TargetTable> loadTargets(const std::string &path) {
  auto text = readFile(path);
  if (!text)
    return text.error();
  return parseTargets(*text, path);
}

std::string canonicalJson(const TargetCaps &t) {
  nlohmann::json j;
  j["arch"] = t.arch;
  j["provider_family"] = t.providerFamily;
  j["matrix_units"] = t.matrixUnits;
  j["tma"] = t.tma;
  if (t.providerFamily == "cuda") {
    j["multiprocessors"] = t.sms;
    j["compute_capability"] = t.computeCapability;
    j["smem_per_block_bytes"] = t.smemPerBlock;
    j["smem_per_multiprocessor_bytes"] = t.smemPerSM;
    j["registers_per_multiprocessor"] = t.regsPerSM;
    j["max_threads_per_block"] = t.maxThreadsPerBlock;
    j["warp_size"] = t.warpSize;
    j["thread_block_clusters"] = t.clusters;
  } else {
    j["clusters"] = t.mluClusters;
    j["cores_per_cluster"] = t.coresPerCluster;
    j["nram_bytes_per_core"] = t.nramBytesPerCore;
    j["wram_bytes_per_core"] = t.wramBytesPerCore;
    j["sram_bytes_per_cluster"] = t.sramBytesPerCluster;
  }
  return j.dump();
}

const char *providerFamilyFor(Provider p) { return p == Provider::BangC ? "bang" : "cuda"; }

const char *defaultArchFor(Provider p) { return p == Provider::BangC ? "mlu370" : "sm_90"; }

} // namespace intent::tuning
