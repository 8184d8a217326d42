-- intentc cache index, schema version 1.
-- Migrations are forward-only: never edit a released file, add NNN_<name>.sql.
-- The runner applies each file inside one BEGIN IMMEDIATE transaction and then
-- sets PRAGMA user_version to the file's number.
-- Times are unix milliseconds (INTEGER).

-- One row per published entry directory.
CREATE TABLE artifacts (
  key           TEXT PRIMARY KEY NOT NULL,        -- lowercase hex BLAKE3
  state         TEXT NOT NULL CHECK (state IN ('complete', 'failed')),
  kernel        TEXT NOT NULL DEFAULT '',
  provider      TEXT NOT NULL DEFAULT '',
  arch          TEXT NOT NULL DEFAULT '',
  size_bytes    INTEGER NOT NULL DEFAULT 0,       -- sum of the entry's file sizes
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER NOT NULL,
  hit_count     INTEGER NOT NULL DEFAULT 0,
  entry_dir     TEXT NOT NULL,                    -- relative to the root: entries/ab/<key>
  files_json    TEXT NOT NULL DEFAULT '{}'        -- {"relative/path": {"blake3": hex, "size": n}}
) WITHOUT ROWID;

CREATE INDEX artifacts_lru ON artifacts (state, last_used_at);

-- Monotonic counters: hits, misses, failures.
CREATE TABLE stats (
  name  TEXT PRIMARY KEY NOT NULL,
  value INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

INSERT INTO stats (name, value) VALUES ('hits', 0), ('misses', 0), ('failures', 0);

-- Winner timings: identity of one tuning problem.
-- tuning key = artifact key + runtime shape/dtype/stride key + device.
CREATE TABLE tuning_keys (
  id                INTEGER PRIMARY KEY,
  artifact_key      TEXT NOT NULL,
  runtime_key       TEXT NOT NULL,
  device_name       TEXT NOT NULL,
  device_capability TEXT NOT NULL,
  UNIQUE (artifact_key, runtime_key, device_name, device_capability)
);

-- The chosen winner of one tuning problem (at most one row per tuning key).
CREATE TABLE winner (
  tuning_key_id   INTEGER PRIMARY KEY NOT NULL REFERENCES tuning_keys (id) ON DELETE CASCADE,
  candidate_index INTEGER NOT NULL,        -- index into candidate_timings; -1: none succeeded
  config_json     TEXT NOT NULL,           -- the winner's complete configuration (copy)
  measured_at     INTEGER NOT NULL,
  host            TEXT NOT NULL
);

-- Every measured candidate of one tuning problem.
CREATE TABLE candidate_timings (
  tuning_key_id   INTEGER NOT NULL REFERENCES tuning_keys (id) ON DELETE CASCADE,
  candidate_index INTEGER NOT NULL,
  config_json     TEXT NOT NULL,           -- complete configuration
  median_ms       REAL,
  spread_ms       REAL,
  status          TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  message         TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (tuning_key_id, candidate_index)
);
