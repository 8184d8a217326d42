"""Winner storage backends (cache-and-server.md sections 2, 5, 6).

Every backend exposes

    get(tuning_key: str) -> dict | None
        {"found": bool, "winner": config | None, "candidates": [timing, ...]}
    record(tuning_key, artifact_key, runtime_key, device, candidates, winner,
           retune=False) -> config   (the winner actually stored)

where a timing is {"config": {...}, "median_ms": float | None,
"spread_ms": float | None, "status": "ok" | "failed", "message": str | None}.
Configs are compared by their canonical JSON (sort_keys, compact).

Merge rule ("first complete measurement wins"), shared by every writer:
  * timings are merged per canonical config; an already stored config keeps
    its timing unless ``retune``;
  * the stored winner is kept unless ``retune``, or there is none, or the
    record measured configs that were not stored before (an extended
    candidate set: the client's winner was chosen over the larger set).
Errors reaching a backend raise :class:`StoreError`; the tuner treats that as
"store unavailable" (a miss on get, its own winner on record).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import socket
import sqlite3
import tempfile
import threading
import warnings
from typing import Any, Dict, Iterable, List, Optional

from .keys import canonical_json

SCHEMA_SQL = """\
CREATE TABLE IF NOT EXISTS tuning_keys (
    tuning_key    TEXT PRIMARY KEY,      -- hex blake2b digest (keys.tuning_key)
    artifact_key  TEXT NOT NULL,         -- compiled-candidate identity
    runtime_key   TEXT NOT NULL,         -- canonical JSON (keys.runtime_key)
    device        TEXT NOT NULL,         -- e.g. 'NVIDIA H200|sm_90', 'cpu|interpreter'
    winner_config TEXT,                  -- canonical JSON config, NULL = no winner yet
    measured_at   TEXT NOT NULL,         -- ISO-8601 UTC, e.g. '2025-01-31T12:00:00Z'
    host          TEXT
);
CREATE TABLE IF NOT EXISTS candidate_timings (
    tuning_key    TEXT NOT NULL REFERENCES tuning_keys(tuning_key) ON DELETE CASCADE,
    config        TEXT NOT NULL,         -- canonical JSON (sort_keys, compact)
    median_ms     REAL,                  -- NULL when status = 'failed'
    spread_ms     REAL,                  -- max - min of the samples
    status        TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    message       TEXT,                  -- failure message (or NULL)
    measured_at   TEXT NOT NULL,
    PRIMARY KEY (tuning_key, config)
);
"""

PROTOCOL_VERSION = 1


class StoreError(Exception):
    """A backend could not answer (unreachable server, locked db, bad file)."""


def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _host() -> str:
    try:
        return socket.gethostname()
    except Exception:
        return ""


def normalize_timing(t: dict) -> dict:
    return {
        "config": t["config"],
        "median_ms": None if t.get("median_ms") is None else float(t["median_ms"]),
        "spread_ms": None if t.get("spread_ms") is None else float(t["spread_ms"]),
        "status": t.get("status", "ok"),
        "message": t.get("message"),
    }


def merge_record(old: Optional[dict], candidates: Iterable[dict], winner: Any, retune: bool) -> dict:
    """Apply the merge rule. ``old``/result: {"winner": cfg|None, "candidates": {canon: timing}}."""
    old_c = dict(old["candidates"]) if old else {}
    old_w = old.get("winner") if old else None
    new_keys = False
    merged = dict(old_c)
    for t in candidates:
        t = normalize_timing(t)
        k = canonical_json(t["config"])
        if k not in old_c:
            new_keys = True
            merged[k] = t
        elif retune:
            merged[k] = t
    if retune or old_w is None or new_keys:
        w = winner
    else:
        w = old_w
    return {"winner": w, "candidates": merged}


class Store:
    """Base class (in-memory implementation, used when INTENT_WINNERS=off)."""

    name = "memory"

    def __init__(self):
        self._mem: Dict[str, dict] = {}
        self._lock = threading.Lock()

    def lookup(self, key) -> Optional[dict]:
        """Lookup by a keys.TuningKey (backends keyed by the readable parts override this)."""
        return self.get(getattr(key, "digest", key))

    def get(self, tuning_key: str) -> Optional[dict]:
        with self._lock:
            r = self._mem.get(tuning_key)
            if r is None:
                return None
            return {"found": r["winner"] is not None, "winner": r["winner"],
                    "candidates": list(r["candidates"].values())}

    def record(self, tuning_key, artifact_key, runtime_key, device, candidates, winner, retune=False):
        with self._lock:
            r = merge_record(self._mem.get(tuning_key), candidates, winner, retune)
            self._mem[tuning_key] = r
            return r["winner"]


MemoryStore = Store


# ---------------------------------------------------------------------------
# SQLite (cache index, C++ side owns the schema)
# ---------------------------------------------------------------------------
class SqliteStore(Store):
    name = "db"

    def __init__(self, db_path: str, readonly: bool = True, timeout: float = 2.0):
        self.db_path = os.fspath(db_path)
        self.readonly = readonly
        self.timeout = timeout

    def _connect(self) -> sqlite3.Connection:
        try:
            if self.readonly:
                from urllib.parse import quote
                uri = "file:" + quote(os.path.abspath(self.db_path)) + "?mode=ro"
                con = sqlite3.connect(uri, uri=True, timeout=self.timeout, isolation_level=None)
            else:
                con = sqlite3.connect(self.db_path, timeout=self.timeout, isolation_level=None)
            con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            return con
        except sqlite3.Error as e:
            raise StoreError(f"sqlite {self.db_path}: {e}") from e

    def _schema(self, con) -> str:
        cols = {r[1] for r in con.execute("PRAGMA table_info(tuning_keys)")}
        if {"id", "device_name", "device_capability"} <= cols:
            return "intentc-v1"      # cache-schema/001_initial.sql (C++ side)
        return "runtime"             # SCHEMA_SQL below

    def lookup(self, key) -> Optional[dict]:
        """Reads both SCHEMA_SQL (keyed by digest) and the intentc cache index
        (cache-schema/001_initial.sql: keyed by artifact_key, runtime_key,
        device_name, device_capability; device 'name|capability')."""
        if not hasattr(key, "digest"):
            return self.get(key)
        try:
            with contextlib.closing(self._connect()) as con:
                if self._schema(con) != "intentc-v1":
                    return self._get(con, key.digest)
                name, _, cap = key.device.rpartition("|")
                row = con.execute(
                    "SELECT id FROM tuning_keys WHERE artifact_key = ? AND runtime_key = ? AND "
                    "device_name = ? AND device_capability = ?",
                    (key.artifact_key, key.runtime_key, name, cap)).fetchone()
                if row is None:
                    return None
                w = con.execute("SELECT candidate_index, config_json FROM winner WHERE tuning_key_id = ?",
                                (row[0],)).fetchone()
                rows = con.execute("SELECT config_json, median_ms, spread_ms, status, message "
                                   "FROM candidate_timings WHERE tuning_key_id = ?", (row[0],)).fetchall()
        except sqlite3.Error as e:
            raise StoreError(f"sqlite {self.db_path}: {e}") from e
        winner = json.loads(w[1]) if w is not None and w[0] is not None and w[0] >= 0 else None
        cands = [{"config": json.loads(c), "median_ms": m, "spread_ms": sp, "status": st, "message": msg or None}
                 for (c, m, sp, st, msg) in rows]
        return {"found": winner is not None, "winner": winner, "candidates": cands}

    def get(self, tuning_key: str) -> Optional[dict]:
        try:
            with contextlib.closing(self._connect()) as con:
                return self._get(con, tuning_key)
        except sqlite3.Error as e:
            raise StoreError(f"sqlite {self.db_path}: {e}") from e

    def _get(self, con, tuning_key: str) -> Optional[dict]:
        row = con.execute("SELECT winner_config FROM tuning_keys WHERE tuning_key = ?",
                          (tuning_key,)).fetchone()
        rows = con.execute(
            "SELECT config, median_ms, spread_ms, status, message FROM candidate_timings "
            "WHERE tuning_key = ?", (tuning_key,)).fetchall()
        if row is None and not rows:
            return None
        winner = json.loads(row[0]) if row and row[0] else None
        cands = [{"config": json.loads(c), "median_ms": m, "spread_ms": s, "status": st, "message": msg}
                 for (c, m, s, st, msg) in rows]
        return {"found": winner is not None, "winner": winner, "candidates": cands}

    def create_schema(self) -> None:
        if self.readonly:
            raise StoreError("SqliteStore is read-only")
        with contextlib.closing(self._connect()) as con:
            con.executescript(SCHEMA_SQL)

    def record(self, tuning_key, artifact_key, runtime_key, device, candidates, winner, retune=False):
        if self.readonly:
            raise StoreError("SqliteStore is read-only")
        ts = now_iso()
        try:
            with contextlib.closing(self._connect()) as con:
                con.execute("BEGIN IMMEDIATE")
                try:
                    old = None
                    row = con.execute("SELECT winner_config FROM tuning_keys WHERE tuning_key = ?",
                                      (tuning_key,)).fetchone()
                    rows = con.execute("SELECT config, median_ms, spread_ms, status, message "
                                       "FROM candidate_timings WHERE tuning_key = ?", (tuning_key,)).fetchall()
                    if row is not None or rows:
                        old = {"winner": json.loads(row[0]) if row and row[0] else None,
                               "candidates": {c: {"config": json.loads(c), "median_ms": m, "spread_ms": s,
                                                  "status": st, "message": msg}
                                              for (c, m, s, st, msg) in rows}}
                    r = merge_record(old, candidates, winner, retune)
                    con.execute(
                        "INSERT INTO tuning_keys(tuning_key, artifact_key, runtime_key, device, winner_config,"
                        " measured_at, host) VALUES (?,?,?,?,?,?,?) ON CONFLICT(tuning_key) DO UPDATE SET"
                        " winner_config=excluded.winner_config, measured_at=excluded.measured_at,"
                        " host=excluded.host",
                        (tuning_key, artifact_key, runtime_key, device,
                         None if r["winner"] is None else canonical_json(r["winner"]), ts, _host()))
                    old_keys = set(old["candidates"]) if old else set()
                    for k, t in r["candidates"].items():
                        if k in old_keys and not retune:
                            continue
                        con.execute(
                            "INSERT OR REPLACE INTO candidate_timings(tuning_key, config, median_ms, spread_ms,"
                            " status, message, measured_at) VALUES (?,?,?,?,?,?,?)",
                            (tuning_key, k, t["median_ms"], t["spread_ms"], t["status"], t["message"], ts))
                    con.execute("COMMIT")
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
        except sqlite3.Error as e:
            raise StoreError(f"sqlite {self.db_path}: {e}") from e
        return r["winner"]


# ---------------------------------------------------------------------------
# Compile server (JSON-RPC 2.0, one object per line, Unix socket)
# ---------------------------------------------------------------------------
class ServerStore(Store):
    name = "server"

    def __init__(self, socket_path: str, timeout: Optional[float] = None):
        self.socket_path = os.fspath(socket_path)
        if timeout is None:
            timeout = float(os.environ.get("INTENT_SERVER_TIMEOUT", "2.0"))
        self.timeout = timeout
        self._next_id = 0
        self._lock = threading.Lock()

    def call(self, method: str, params: dict) -> Any:
        with self._lock:
            self._next_id += 1
            rid = self._next_id
        req = canonical_json({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n"
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(self.timeout)
                s.connect(self.socket_path)
                s.sendall(req.encode("utf-8"))
                buf = b""
                while b"\n" not in buf:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > (64 << 20):
                        raise StoreError("server reply too large")
        except OSError as e:
            raise StoreError(f"server {self.socket_path}: {e}") from e
        line = buf.split(b"\n", 1)[0]
        try:
            resp = json.loads(line)
        except ValueError as e:
            raise StoreError(f"server {self.socket_path}: malformed reply") from e
        if not isinstance(resp, dict) or resp.get("id") != rid:
            raise StoreError(f"server {self.socket_path}: unexpected reply")
        if "error" in resp:
            err = resp["error"] or {}
            raise StoreError(f"server {self.socket_path}: {method}: {err.get('message', err)}")
        return resp.get("result")

    def get(self, tuning_key: str) -> Optional[dict]:
        r = self.call("winners.get", {"tuning_key": tuning_key})
        if not isinstance(r, dict):
            raise StoreError("winners.get: result is not an object")
        if not r.get("found") and not r.get("candidates"):
            return None
        return {"found": bool(r.get("found")), "winner": r.get("winner"),
                "candidates": [normalize_timing(t) for t in r.get("candidates") or []]}

    def record(self, tuning_key, artifact_key, runtime_key, device, candidates, winner, retune=False):
        r = self.call("winners.record", {
            "tuning_key": tuning_key, "artifact_key": artifact_key, "runtime_key": runtime_key,
            "device": device, "candidates": [normalize_timing(t) for t in candidates],
            "winner": winner, "retune": bool(retune)})
        if not isinstance(r, dict) or "winner" not in r:
            raise StoreError("winners.record: result has no winner")
        return r["winner"]


def server_connectable(path: str, timeout: float = 0.2) -> bool:
    try:
        st = os.stat(path)
        if st.st_uid != os.getuid():
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# JSON file fallback (pending winners, later `intentc winners import`)
# ---------------------------------------------------------------------------
class JsonFileStore(Store):
    """{"version": 1, "records": {tuning_key: {artifact_key, runtime_key, device,
    winner, candidates: [timing...], measured_at, host}}}"""

    name = "file"
    FORMAT_VERSION = 1

    def __init__(self, path: str):
        self.path = os.fspath(path)
        self.lock_path = self.path + ".lock"

    @contextlib.contextmanager
    def _locked(self, exclusive: bool):
        d = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(d, exist_ok=True)
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise StoreError(f"winners file {self.path}: {e}") from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # releases the flock

    def _read(self) -> dict:
        try:
            with open(self.path, "r", encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            return {"version": self.FORMAT_VERSION, "records": {}}
        except (OSError, ValueError) as e:
            raise StoreError(f"winners file {self.path}: {e}") from e
        if not isinstance(data, dict) or not isinstance(data.get("records"), dict):
            raise StoreError(f"winners file {self.path}: bad format")
        return data

    def _write(self, data: dict) -> None:
        d = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".winners-", suffix=".tmp", dir=d)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, tuning_key: str) -> Optional[dict]:
        if not os.path.exists(self.path):
            return None
        with self._locked(exclusive=False):
            rec = self._read()["records"].get(tuning_key)
        if rec is None:
            return None
        return {"found": rec.get("winner") is not None, "winner": rec.get("winner"),
                "candidates": [normalize_timing(t) for t in rec.get("candidates", [])]}

    def record(self, tuning_key, artifact_key, runtime_key, device, candidates, winner, retune=False):
        try:
            with self._locked(exclusive=True):
                data = self._read()
                rec = data["records"].get(tuning_key)
                old = None
                if rec is not None:
                    old = {"winner": rec.get("winner"),
                           "candidates": {canonical_json(t["config"]): normalize_timing(t)
                                          for t in rec.get("candidates", [])}}
                r = merge_record(old, candidates, winner, retune)
                data["records"][tuning_key] = {
                    "artifact_key": artifact_key, "runtime_key": runtime_key, "device": device,
                    "winner": r["winner"],
                    "candidates": [r["candidates"][k] for k in sorted(r["candidates"])],
                    "measured_at": now_iso(), "host": _host(),
                }
                data["version"] = self.FORMAT_VERSION
                self._write(data)
        except OSError as e:
            raise StoreError(f"winners file {self.path}: {e}") from e
        return r["winner"]


# ---------------------------------------------------------------------------
# Fallback combination: read db + pending file, write pending file
# ---------------------------------------------------------------------------
class FallbackStore(Store):
    """Lookups go to each reader in order (first found winner wins; if none
    has a winner, timings of the first non-empty answer are returned); records
    go to ``writer``."""

    name = "fallback"

    def __init__(self, readers: List[Store], writer: Optional[Store]):
        self.readers = readers
        self.writer = writer

    def get(self, tuning_key: str) -> Optional[dict]:
        return self.lookup(tuning_key)

    def lookup(self, key) -> Optional[dict]:
        partial = None
        for r in self.readers:
            try:
                res = r.lookup(key) if hasattr(r, "lookup") else r.get(getattr(key, "digest", key))
            except StoreError:
                continue
            if res is None:
                continue
            if res.get("found"):
                return res
            partial = partial or res
        return partial

    def record(self, tuning_key, artifact_key, runtime_key, device, candidates, winner, retune=False):
        if self.writer is None:
            return winner
        return self.writer.record(tuning_key, artifact_key, runtime_key, device, candidates, winner, retune)


# ---------------------------------------------------------------------------
# Resolution
# ---------------------------------------------------------------------------
def default_socket_path() -> str:
    p = os.environ.get("INTENTC_SOCKET")
    if p:
        return p
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "intentc", "intentc.sock")
    return os.path.join("/tmp", f"intentc-{os.getuid()}", "intentc.sock")


def cache_dir() -> str:
    """Cache root per cache-and-server.md section 1 (raises ValueError on a bad INTENT_CACHE_DIR)."""
    if "INTENT_CACHE_DIR" in os.environ:
        v = os.environ["INTENT_CACHE_DIR"]
        if not v or not os.path.isabs(v):
            raise ValueError(f"INTENT_CACHE_DIR must be an absolute path (got {v!r})")
        return v
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "intentdsl")
    return os.path.join(os.path.expanduser("~"), ".cache", "intentdsl")


def _file_store(root: Optional[str]) -> Optional[JsonFileStore]:
    p = os.environ.get("INTENT_WINNERS_FILE")
    if p:
        return JsonFileStore(p)
    if root is None:
        return None
    return JsonFileStore(os.path.join(root, "winners-pending.json"))


def resolve_store() -> Store:
    """Pick the winner store from the environment.

    INTENT_WINNERS: auto (default) | server | db | file | off
    """
    mode = os.environ.get("INTENT_WINNERS", "auto").strip().lower() or "auto"
    if mode == "off":
        return MemoryStore()
    if mode == "server":
        return ServerStore(default_socket_path())
    try:
        root = cache_dir()
    except ValueError as e:
        warnings.warn(f"intent_runtime: {e}; winners kept in memory only")
        root = None
    db = SqliteStore(os.path.join(root, "index.sqlite"), readonly=True) if root else None
    if mode == "db":
        return FallbackStore([db] if db else [], None)
    if mode == "file":
        fs = _file_store(root)
        return fs if fs is not None else MemoryStore()
    if mode != "auto":
        warnings.warn(f"intent_runtime: unknown INTENT_WINNERS={mode!r}, using auto")
    sock = default_socket_path()
    if server_connectable(sock):
        return ServerStore(sock)
    fs = _file_store(root)
    readers: List[Store] = []
    if fs is not None:
        readers.append(fs)
    if db is not None:
        readers.append(db)  # a missing db is a StoreError -> skipped
    if not readers and fs is None:
        return MemoryStore()
    return FallbackStore(readers, fs)
