-- intentc cache index, schema version 2: the request index.
-- A request digest covers every byte a compile reads (KIR source, options,
-- tuning override, bundled tables, compiler identity; docs/cache.md "Request
-- index"). It names the artifact keys that request produced, one row per
-- kernel in output order, so a repeated request is served without parsing.
-- The rows are a shortcut, never the identity: a lookup through them still
-- verifies each artifact row and its files.
CREATE TABLE requests (
  digest          TEXT NOT NULL,              -- lowercase hex BLAKE3
  position        INTEGER NOT NULL,           -- kernel order in the output
  kernel          TEXT NOT NULL,
  key             TEXT NOT NULL,              -- artifacts.key
  components_json TEXT NOT NULL DEFAULT '[]', -- the key's [name, digest] pairs
  PRIMARY KEY (digest, position)
) WITHOUT ROWID;

CREATE INDEX requests_key ON requests (key);

-- A request whose artifact is gone (gc, clear, repair) is forgotten entirely,
-- so a lookup never sees a partial kernel list.
CREATE TRIGGER requests_forget AFTER DELETE ON artifacts
BEGIN
  DELETE FROM requests WHERE digest IN (SELECT digest FROM requests WHERE key = old.key);
END;
