import json
import os
import shutil
import socket
import sqlite3
import tempfile
import threading

import pytest
import torch

from _helpers import fake_timer
from intent_runtime import (SCHEMA_SQL, FallbackStore, JsonFileStore, MemoryStore, ServerStore,
                            SqliteStore, StoreError, TunedKernel, canonical_json, resolve_store)
from intent_runtime.store import merge_record

CANDS = [{"BLOCK": 64, "num_warps": 4}, {"BLOCK": 128, "num_warps": 4}, {"BLOCK": 256, "num_warps": 8}]


def timing(cfg, ms, status="ok", msg=None):
    return {"config": cfg, "median_ms": ms, "spread_ms": 0.01, "status": status, "message": msg}


def make_kernel(store, calls):
    def run(cfg, args):
        calls.append(cfg)
        args[1].copy_(args[0] * 2)

    return TunedKernel("k", "art-1", CANDS, run, ["in", "out"], store=store,
                       timer=fake_timer({64: 3.0, 128: 1.0, 256: 2.0}))


# fake_timer indexes table[config["id"]]; give the configs an "id" view
for c in CANDS:
    c["id"] = c["BLOCK"]


# --------------------------------------------------------------------------- sqlite
def test_sqlite_readonly_lookup(tmp_path):
    db = str(tmp_path / "index.sqlite")
    con = sqlite3.connect(db)
    con.executescript(SCHEMA_SQL)
    x, y = torch.ones(16), torch.empty(16)
    calls = []
    k = make_kernel(SqliteStore(db, readonly=True), calls)
    tk = k.key_for([x, y])
    con.execute("INSERT INTO tuning_keys VALUES (?,?,?,?,?,?,?)",
                (tk.digest, tk.artifact_key, tk.runtime_key, tk.device, canonical_json(CANDS[2]),
                 "2025-01-01T00:00:00Z", "gpu-runner"))
    for c, ms in zip(CANDS, (3.0, 1.5, 1.0)):
        con.execute("INSERT INTO candidate_timings VALUES (?,?,?,?,?,?,?)",
                    (tk.digest, canonical_json(c), ms, 0.1, "ok", None, "2025-01-01T00:00:00Z"))
    con.commit()
    con.close()
    k(x, y)
    assert calls == [CANDS[2]] and k.stats["tunings"] == 0 and k.stats["hits"] == 1
    assert torch.equal(y, x * 2)
    ro = SqliteStore(db, readonly=True)
    with pytest.raises(StoreError):
        ro.record(tk.digest, "a", "r", "d", [], CANDS[0])
    # a miss on a read-only db tunes and reports the failed record without raising
    calls.clear()
    with pytest.warns(UserWarning, match="could not record"):
        k(torch.ones(8), torch.empty(8))
    assert k.stats["tunings"] == 1 and calls[-1] == CANDS[1]


def test_sqlite_readonly_rejects_sql_writes(tmp_path):
    db = str(tmp_path / "index.sqlite")
    sqlite3.connect(db).executescript(SCHEMA_SQL)
    con = SqliteStore(db, readonly=True)._connect()
    with pytest.raises(sqlite3.OperationalError):
        con.execute("DELETE FROM tuning_keys")


def test_sqlite_missing_db_is_store_error(tmp_path):
    with pytest.raises(StoreError):
        SqliteStore(str(tmp_path / "missing.sqlite")).get("k")


def test_sqlite_writable_merge_rule(tmp_path):
    s = SqliteStore(str(tmp_path / "w.sqlite"), readonly=False)
    s.create_schema()
    assert s.record("k", "a", "r", "d", [timing(CANDS[0], 2.0), timing(CANDS[1], 1.0)], CANDS[1]) == CANDS[1]
    # same configs again, different opinion: first complete measurement wins
    assert s.record("k", "a", "r", "d", [timing(CANDS[0], 0.5), timing(CANDS[1], 1.0)], CANDS[0]) == CANDS[1]
    # extended candidate set: client's winner over the larger set is taken
    assert s.record("k", "a", "r", "d", [timing(CANDS[2], 0.1)], CANDS[2]) == CANDS[2]
    # retune replaces timings and winner
    assert s.record("k", "a", "r", "d", [timing(CANDS[0], 0.01)], CANDS[0], retune=True) == CANDS[0]
    got = s.get("k")
    ms = {canonical_json(t["config"]): t["median_ms"] for t in got["candidates"]}
    assert got["found"] and ms[canonical_json(CANDS[0])] == 0.01 and len(ms) == 3


# --------------------------------------------------------------------------- json file
def test_json_file_store_rules_and_atomicity(tmp_path):
    p = str(tmp_path / "sub" / "winners-pending.json")
    s = JsonFileStore(p)
    assert s.get("k") is None
    assert s.record("k", "a", "r", "d", [timing(CANDS[0], 2.0), timing(CANDS[1], 1.0, )], CANDS[1]) == CANDS[1]
    assert s.record("k", "a", "r", "d", [timing(CANDS[0], 0.5)], CANDS[0]) == CANDS[1]
    assert s.record("k", "a", "r", "d", [timing(CANDS[2], 0.1, "failed", "x")], CANDS[1]) == CANDS[1]
    data = json.load(open(p))
    assert data["version"] == 1 and data["records"]["k"]["winner"] == CANDS[1]
    assert [f for f in os.listdir(os.path.dirname(p)) if f.endswith(".tmp")] == []
    got = s.get("k")
    assert got["found"] and {t["status"] for t in got["candidates"]} == {"ok", "failed"}


def test_merge_record_failures_only_keep_no_winner():
    r = merge_record(None, [timing(CANDS[0], None, "failed", "e")], None, False)
    assert r["winner"] is None
    r = merge_record(r, [timing(CANDS[1], 1.0)], CANDS[1], False)
    assert r["winner"] == CANDS[1]


# --------------------------------------------------------------------------- fake server
class FakeServer:
    def __init__(self, path):
        self.path = path
        self.db = MemoryStore()
        self.requests = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        os.chmod(path, 0o600)
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                f = conn.makefile("rwb")
                line = f.readline()
                if not line.strip():  # resolve_store's connect probe sends nothing
                    continue
                req = json.loads(line)
                self.requests.append(req)
                p = req["params"]
                if req["method"] == "winners.get":
                    r = self.db.get(p["tuning_key"]) or {"found": False, "winner": None, "candidates": []}
                    resp = {"jsonrpc": "2.0", "id": req["id"], "result": r}
                elif req["method"] == "winners.record":
                    w = self.db.record(p["tuning_key"], p["artifact_key"], p["runtime_key"], p["device"],
                                       p["candidates"], p["winner"], p["retune"])
                    resp = {"jsonrpc": "2.0", "id": req["id"], "result": {"winner": w}}
                else:
                    resp = {"jsonrpc": "2.0", "id": req["id"],
                            "error": {"code": -32601, "message": "Method not found"}}
                f.write((json.dumps(resp) + "\n").encode())
                f.flush()

    def close(self):
        self.sock.close()


@pytest.fixture
def short_dir():
    d = tempfile.mkdtemp(prefix="irt-", dir="/tmp")  # unix socket paths are limited to ~108 bytes
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_server_store_roundtrip(short_dir):
    srv = FakeServer(os.path.join(short_dir, "s.sock"))
    try:
        store = ServerStore(srv.path, timeout=2.0)
        calls = []
        k = make_kernel(store, calls)
        x, y = torch.ones(4), torch.empty(4)
        k(x, y)
        assert calls[-1] == CANDS[1] and k.stats["tunings"] == 1
        methods = [r["method"] for r in srv.requests]
        assert methods == ["winners.get", "winners.record"]
        rec = srv.requests[1]
        assert rec["jsonrpc"] == "2.0" and set(rec["params"]) == {
            "tuning_key", "artifact_key", "runtime_key", "device", "candidates", "winner", "retune"}
        assert {tuple(sorted(c)) for c in rec["params"]["candidates"]} == {
            ("config", "median_ms", "message", "spread_ms", "status")}
        # server already holds a different winner (another process was first)
        tk = k.key_for([x, y])
        srv.db._mem[tk.digest]["winner"] = CANDS[2]
        calls2 = []
        k2 = make_kernel(store, calls2)
        k2(x, y)
        assert calls2 == [CANDS[2]] and k2.stats["hits"] == 1 and k2.stats["trials"] == 0
        with pytest.raises(StoreError):
            store.call("nope", {})
    finally:
        srv.close()


def test_server_unreachable_is_a_miss(short_dir):
    store = ServerStore(os.path.join(short_dir, "absent.sock"), timeout=0.2)
    with pytest.raises(StoreError):
        store.get("x")
    calls = []
    k = make_kernel(store, calls)
    with pytest.warns(UserWarning):
        k(torch.ones(4), torch.empty(4))
    assert calls[-1] == CANDS[1] and k.stats["store_errors"] == 2


# --------------------------------------------------------------------------- resolve
def test_resolve_store_modes(tmp_path, short_dir, monkeypatch):
    monkeypatch.setenv("INTENT_WINNERS", "off")
    assert type(resolve_store()) is MemoryStore
    monkeypatch.setenv("INTENT_WINNERS", "file")
    s = resolve_store()
    assert isinstance(s, JsonFileStore) and s.path == str(tmp_path / "cache" / "winners-pending.json")
    monkeypatch.setenv("INTENT_WINNERS_FILE", str(tmp_path / "w.json"))
    assert resolve_store().path == str(tmp_path / "w.json")
    monkeypatch.delenv("INTENT_WINNERS_FILE")
    monkeypatch.setenv("INTENT_WINNERS", "auto")
    s = resolve_store()
    assert isinstance(s, FallbackStore) and isinstance(s.writer, JsonFileStore)
    assert any(isinstance(r, SqliteStore) and r.readonly and r.db_path.endswith("index.sqlite")
               for r in s.readers)
    # auto: tuning with no server, no db -> records into the pending file, next kernel hits it
    calls = []
    k = make_kernel(None, calls)
    k(torch.ones(4), torch.empty(4))
    assert os.path.exists(tmp_path / "cache" / "winners-pending.json")
    k2 = make_kernel(None, [])
    k2.prepare(torch.ones(4), torch.empty(4))
    assert k2.stats["hits"] == 1 and k2.stats["trials"] == 0
    # a running server is preferred
    srv = FakeServer(os.path.join(short_dir, "s.sock"))
    try:
        monkeypatch.setenv("INTENTC_SOCKET", srv.path)
        assert isinstance(resolve_store(), ServerStore)
    finally:
        srv.close()
    monkeypatch.setenv("INTENT_CACHE_DIR", "relative/dir")
    monkeypatch.setenv("INTENTC_SOCKET", os.path.join(short_dir, "gone.sock"))
    with pytest.warns(UserWarning, match="INTENT_CACHE_DIR"):
        assert type(resolve_store()) is MemoryStore


# --------------------------------------------------------------------------- intentc cache index schema
_MIGRATION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "cache-schema", "001_initial.sql")


@pytest.mark.skipif(not os.path.exists(_MIGRATION), reason="cache-schema/001_initial.sql not present")
def test_sqlite_reads_intentc_cache_index_schema(tmp_path):
    db = str(tmp_path / "index.sqlite")
    con = sqlite3.connect(db)
    con.executescript(open(_MIGRATION).read())
    x, y = torch.ones(16), torch.empty(16)
    calls = []
    k = make_kernel(SqliteStore(db, readonly=True), calls)
    tk = k.key_for([x, y])
    name, _, cap = tk.device.rpartition("|")
    con.execute("INSERT INTO tuning_keys (id, artifact_key, runtime_key, device_name, device_capability)"
                " VALUES (1, ?, ?, ?, ?)", (tk.artifact_key, tk.runtime_key, name, cap))
    for i, c in enumerate(CANDS):
        con.execute("INSERT INTO candidate_timings VALUES (1, ?, ?, ?, 0.1, 'ok', '')",
                    (i, json.dumps(c), 1.0 + i))
    con.execute("INSERT INTO winner VALUES (1, 2, ?, 0, 'h')", (json.dumps(CANDS[2]),))
    con.commit()
    con.close()
    k(x, y)
    assert calls == [CANDS[2]] and k.stats["tunings"] == 0 and k.stats["hits"] == 1
    # through the auto-resolved fallback as well
    fb = FallbackStore([JsonFileStore(str(tmp_path / "p.json")), SqliteStore(db)], None)
    assert fb.lookup(tk)["winner"] == CANDS[2]
