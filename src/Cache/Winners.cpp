//===- Winners.cpp - winner timings table ---------------------------------===//
#include "CacheImpl.h"
#include "intent/Cache/Winners.h"

using nlohmann::json;

namespace intent::cache {

json winnerToJson(const WinnerRecord &r) {
  json cands = json::array();
  for (const CandidateTiming &c : r.candidates) {
    json j = {{"config", c.config},
              {"status", c.ok ? "ok" : "failed"},
              {"median_ms", c.medianMs ? json(*c.medianMs) : json(nullptr)},
              {"spread_ms", c.spreadMs ? json(*c.spreadMs) : json(nullptr)}};
    if (!c.message.empty())
      j["message"] = c.message;
    cands.push_back(std::move(j));
  }
  return {{"tuning_key",
           {{"artifact_key", r.key.artifactKey},
            {"runtime_key", r.key.runtimeKey},
            {"device_name", r.key.deviceName},
            {"device_capability", r.key.deviceCapability}}},
          {"winner_index", r.winnerIndex},
          {"measured_at_ms", r.measuredAtMs},
          {"host", r.host},
          {"candidates", std::move(cands)}};
}

std::optional<WinnerRecord> winnerFromJson(const json &j, std::string &error) {
  auto str = [&](const json &o, const char *k, std::string &out) {
    if (!o.contains(k) || !o[k].is_string()) {
      error = std::string("winner record: '") + k + "' must be a string";
      return false;
    }
    out = o[k].get<std::string>();
    return true;
  };
  if (!j.is_object() || !j.contains("tuning_key") || !j["tuning_key"].is_object()) {
    error = "winner record: expected an object with 'tuning_key'";
    return std::nullopt;
  }
  WinnerRecord r;
  const json &k = j["tuning_key"];
  if (!str(k, "artifact_key", r.key.artifactKey) || !str(k, "runtime_key", r.key.runtimeKey) ||
      !str(k, "device_name", r.key.deviceName) ||
      !str(k, "device_capability", r.key.deviceCapability))
    return std::nullopt;
  if (!j.contains("winner_index") || !j["winner_index"].is_number_integer()) {
    error = "winner record: 'winner_index' must be an integer";
    return std::nullopt;
  }
  r.winnerIndex = j["winner_index"].get<int>();
  if (j.contains("measured_at_ms") && j["measured_at_ms"].is_number_integer())
    r.measuredAtMs = j["measured_at_ms"].get<int64_t>();
  if (j.contains("host") && j["host"].is_string())
    r.host = j["host"].get<std::string>();
  if (!j.contains("candidates") || !j["candidates"].is_array()) {
    error = "winner record: 'candidates' must be an array";
    return std::nullopt;
  }
  for (const json &c : j["candidates"]) {
    if (!c.is_object() || !c.contains("config") || !c.contains("status") ||
        !c["status"].is_string()) {
      error = "winner record: each candidate needs 'config' and 'status'";
      return std::nullopt;
    }
    CandidateTiming t;
    t.config = c["config"];
    std::string status = c["status"].get<std::string>();
    if (status != "ok" && status != "failed") {
      error = "winner record: candidate status must be 'ok' or 'failed'";
      return std::nullopt;
    }
    t.ok = status == "ok";
    if (c.contains("median_ms") && c["median_ms"].is_number())
      t.medianMs = c["median_ms"].get<double>();
    if (c.contains("spread_ms") && c["spread_ms"].is_number())
      t.spreadMs = c["spread_ms"].get<double>();
    if (c.contains("message") && c["message"].is_string())
      t.message = c["message"].get<std::string>();
    r.candidates.push_back(std::move(t));
  }
  if (r.winnerIndex < -1 || r.winnerIndex >= int(r.candidates.size())) {
    error = "winner record: 'winner_index' out of range";
    return std::nullopt;
  }
  return r;
}

namespace {
using detail::Db;

Status insertWinner(Db &db, const WinnerRecord &in) {
  WinnerRecord r = in;
  if (r.measuredAtMs == 0)
    r.measuredAtMs = detail::nowMs();
  if (r.host.empty())
    r.host = detail::hostName();
  if (r.winnerIndex < -1 || r.winnerIndex >= int(r.candidates.size()))
    return makeError("winner index " + std::to_string(r.winnerIndex) + " is out of range");
  auto up = db.prepare("INSERT INTO tuning_keys (artifact_key, runtime_key, device_name, "
                       "device_capability) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING");
  if (!up)
    return up.takeError();
  up->bind(1, r.key.artifactKey).bind(2, r.key.runtimeKey).bind(3, r.key.deviceName)
      .bind(4, r.key.deviceCapability);
  if (Status s = up->run(); !s)
    return s;
  auto id = db.prepare("SELECT id FROM tuning_keys WHERE artifact_key = ? AND runtime_key = ? "
                       "AND device_name = ? AND device_capability = ?");
  if (!id)
    return id.takeError();
  id->bind(1, r.key.artifactKey).bind(2, r.key.runtimeKey).bind(3, r.key.deviceName)
      .bind(4, r.key.deviceCapability);
  auto got = id->step();
  if (!got)
    return got.takeError();
  if (!*got)
    return makeError("internal error: tuning key row vanished");
  int64_t tid = id->int64(0);
  for (const char *sql : {"DELETE FROM candidate_timings WHERE tuning_key_id = ?",
                          "DELETE FROM winner WHERE tuning_key_id = ?"}) {
    auto d = db.prepare(sql);
    if (!d)
      return d.takeError();
    d->bind(1, tid);
    if (Status s = d->run(); !s)
      return s;
  }
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const CandidateTiming &c = r.candidates[i];
    auto ins = db.prepare("INSERT INTO candidate_timings (tuning_key_id, candidate_index, "
                          "config_json, median_ms, spread_ms, status, message) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!ins)
      return ins.takeError();
    ins->bind(1, tid).bind(2, int64_t(i)).bind(3, c.config.dump());
    ins->bindDouble(4, c.medianMs).bindDouble(5, c.spreadMs);
    ins->bind(6, std::string(c.ok ? "ok" : "failed")).bind(7, c.message);
    if (Status s = ins->run(); !s)
      return s;
  }
  auto w = db.prepare("INSERT INTO winner (tuning_key_id, candidate_index, config_json, "
                      "measured_at, host) VALUES (?, ?, ?, ?, ?)");
  if (!w)
    return w.takeError();
  const CandidateTiming *win = r.winner();
  w->bind(1, tid).bind(2, int64_t(r.winnerIndex))
      .bind(3, win ? win->config.dump() : std::string("null"))
      .bind(4, r.measuredAtMs).bind(5, r.host);
  return w->run();
}

/// Loads records; `where` filters tuning_keys (alias t), binding `binds`.
Expected<std::vector<WinnerRecord>> loadWinners(Db &db, const std::string &where,
                                                const std::vector<std::string> &binds) {
  std::vector<WinnerRecord> out;
  std::vector<int64_t> ids;
  auto st = db.prepare("SELECT t.id, t.artifact_key, t.runtime_key, t.device_name, "
                       "t.device_capability, w.candidate_index, w.measured_at, w.host "
                       "FROM tuning_keys t JOIN winner w ON w.tuning_key_id = t.id " +
                       where + " ORDER BY t.artifact_key, t.runtime_key, t.device_name, "
                               "t.device_capability");
  if (!st)
    return st.takeError();
  for (size_t i = 0; i < binds.size(); ++i)
    st->bind(int(i + 1), binds[i]);
  Status scanned = st->forEachRow([&] {
    WinnerRecord w;
    ids.push_back(st->int64(0));
    w.key = {st->text(1), st->text(2), st->text(3), st->text(4)};
    w.winnerIndex = int(st->int64(5));
    w.measuredAtMs = st->int64(6);
    w.host = st->text(7);
    out.push_back(std::move(w));
  });
  if (!scanned.ok())
    return scanned.takeError();
  for (size_t i = 0; i < out.size(); ++i) {
    auto c = db.prepare("SELECT config_json, median_ms, spread_ms, status, message FROM "
                        "candidate_timings WHERE tuning_key_id = ? ORDER BY candidate_index");
    if (!c)
      return c.takeError();
    c->bind(1, ids[i]);
    Status scanned = c->forEachRow([&] {
      CandidateTiming t;
      t.config = json::parse(c->text(0), nullptr, false);
      if (t.config.is_discarded())
        t.config = nullptr;
      t.medianMs = c->optDouble(1);
      t.spreadMs = c->optDouble(2);
      t.ok = c->text(3) == "ok";
      t.message = c->text(4);
      out[i].candidates.push_back(std::move(t));
    });
    if (!scanned.ok())
      return scanned.takeError();
  }
  return out;
}
} // namespace

Status Cache::recordWinner(const WinnerRecord &record) {
  std::lock_guard<std::mutex> g(impl_->mu);
  return impl_->db->immediate([&] { return insertWinner(*impl_->db, record); });
}

Expected<std::optional<WinnerRecord>> Cache::getWinner(const TuningKey &key) {
  std::lock_guard<std::mutex> g(impl_->mu);
  auto r = loadWinners(*impl_->db,
                       "WHERE t.artifact_key = ? AND t.runtime_key = ? AND t.device_name = ? "
                       "AND t.device_capability = ?",
                       {key.artifactKey, key.runtimeKey, key.deviceName, key.deviceCapability});
  if (!r)
    return r.takeError();
  if (r->empty())
    return std::optional<WinnerRecord>();
  return std::optional<WinnerRecord>(std::move(r->front()));
}

Expected<std::vector<WinnerRecord>> Cache::listWinners() {
  std::lock_guard<std::mutex> g(impl_->mu);
  return loadWinners(*impl_->db, "", {});
}

Expected<json> Cache::exportWinners() {
  auto all = listWinners();
  if (!all)
    return all.takeError();
  json arr = json::array();
  for (const WinnerRecord &r : *all)
    arr.push_back(winnerToJson(r));
  return json{{"format", "intentc-winners"}, {"version", 1}, {"winners", std::move(arr)}};
}

Expected<size_t> Cache::importWinners(const json &doc) {
  if (!doc.is_object() || doc.value("format", "") != "intentc-winners" ||
      !doc.contains("winners") || !doc["winners"].is_array())
    return makeError("not an intentc winners export (expected {\"format\": \"intentc-winners\", "
                     "\"version\": 1, \"winners\": [...]})");
  if (!doc.contains("version") || !doc["version"].is_number_integer() ||
      doc["version"].get<int>() != 1)
    return makeError("unsupported winners export version");
  std::vector<WinnerRecord> recs;
  for (size_t i = 0; i < doc["winners"].size(); ++i) {
    std::string err;
    auto r = winnerFromJson(doc["winners"][i], err);
    if (!r)
      return makeError("winners[" + std::to_string(i) + "]: " + err);
    recs.push_back(std::move(*r));
  }
  std::lock_guard<std::mutex> g(impl_->mu);
  Status s = impl_->db->immediate([&]() -> Status {
    for (const WinnerRecord &r : recs)
      if (Status s2 = insertWinner(*impl_->db, r); !s2)
        return s2;
    return Status();
  });
  if (!s)
    return s.takeError();
  return recs.size();
}

Expected<size_t> Cache::clearWinners() {
  std::lock_guard<std::mutex> g(impl_->mu);
  size_t n = 0;
  Status s = impl_->db->immediate([&]() -> Status {
    auto c = impl_->db->prepare("SELECT count(*) FROM winner");
    if (!c)
      return c.takeError();
    auto r = c->step();
    if (!r)
      return r.takeError();
    n = size_t(c->int64(0));
    return impl_->db->exec("DELETE FROM candidate_timings; DELETE FROM winner; "
                           "DELETE FROM tuning_keys;");
  });
  if (!s)
    return s.takeError();
  return n;
}

} // namespace intent::cache
