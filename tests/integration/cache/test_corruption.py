"""A damaged cache is repaired or refused cleanly, never served (docs/cache.md §5-6)."""
import json
import shutil
import sqlite3
from pathlib import Path

from conftest import cache_json, compile_json, pointwise_kir, read_dir, run


def _prime(tmp_path, env, target):
    kir = tmp_path / "k.kir"
    kir.write_text(pointwise_kir(3, "corrupt"))
    out = tmp_path / "first"
    p = run(["compile", kir, "--target", target, "--json", "-o", out], env, check=0)
    res = json.loads(p.stdout)["kernels"][0]
    assert res["cache"] == "miss"
    entry = cache_json(["show", res["key"]], env)
    return kir, res["key"], Path(entry["dir"]), read_dir(out)


def _compile_to(kir, env, target, out):
    p = run(["compile", kir, "--target", target, "--json", "-o", out], env, check=0)
    return json.loads(p.stdout)["kernels"][0], p


def test_truncated_artifact_file_is_a_repaired_miss(tmp_path, env, cache_dir, target):
    kir, key, entry_dir, expected = _prime(tmp_path, env, target)
    victim = next(p for p in sorted(entry_dir.iterdir()) if p.stat().st_size > 1)
    with open(victim, "r+b") as f:
        f.truncate(victim.stat().st_size // 2)
    res, _ = _compile_to(kir, env, target, tmp_path / "second")
    assert res["cache"] == "miss" and res["key"] == key
    assert read_dir(tmp_path / "second") == expected
    res, _ = _compile_to(kir, env, target, tmp_path / "third")
    assert res["cache"] == "hit"
    assert read_dir(tmp_path / "third") == expected
    assert cache_json(["verify"], env)["clean"]


def test_tampered_artifact_file_same_size_is_a_miss(tmp_path, env, target):
    kir, key, entry_dir, expected = _prime(tmp_path, env, target)
    victim = sorted(entry_dir.iterdir())[0]
    data = bytearray(victim.read_bytes())
    data[0] ^= 0x01
    victim.write_bytes(bytes(data))
    report = run(["cache", "verify", "--json"], env)
    assert report.returncode == 1  # a broken complete row
    assert any(i["on_complete_row"] for i in json.loads(report.stdout)["issues"])
    res, _ = _compile_to(kir, env, target, tmp_path / "second")
    assert res["cache"] == "miss"
    assert read_dir(tmp_path / "second") == expected


def test_deleted_entry_dir_is_a_miss(tmp_path, env, target):
    kir, key, entry_dir, expected = _prime(tmp_path, env, target)
    shutil.rmtree(entry_dir)
    res, _ = _compile_to(kir, env, target, tmp_path / "second")
    assert res["cache"] == "miss"
    assert read_dir(tmp_path / "second") == expected
    assert entry_dir.is_dir()


def test_garbage_index_warns_and_works(tmp_path, env, cache_dir, target):
    kir, key, entry_dir, expected = _prime(tmp_path, env, target)
    for suffix in ("-wal", "-shm"):
        (cache_dir / ("index.sqlite" + suffix)).unlink(missing_ok=True)
    (cache_dir / "index.sqlite").write_bytes(b"this is not a sqlite database\n" * 100)
    res, p = _compile_to(kir, env, target, tmp_path / "second")
    assert "warning" in p.stderr and "index" in p.stderr, p.stderr
    assert res["cache"] == "miss"  # the old entry is an orphan now, rebuilt
    assert read_dir(tmp_path / "second") == expected
    assert list(cache_dir.glob("index.sqlite.corrupt-*"))
    res, p = _compile_to(kir, env, target, tmp_path / "third")
    assert res["cache"] == "hit" and "warning" not in p.stderr


def test_newer_schema_is_refused_cleanly(tmp_path, env, cache_dir, target):
    kir, key, entry_dir, expected = _prime(tmp_path, env, target)
    db = sqlite3.connect(cache_dir / "index.sqlite")
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    p = run(["compile", kir, "--target", target], env)
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert "newer" in p.stderr and "999" in p.stderr, p.stderr
    assert "--no-cache" in p.stderr
    for args in (["cache", "stats"], ["cache", "list"], ["cache", "verify"]):
        q = run(args, env)
        assert q.returncode == 1 and "newer" in q.stderr, (args, q.returncode, q.stderr)
    # --no-cache does not touch the index at all.
    run(["compile", kir, "--target", target, "--no-cache"], env, check=0)


def test_bad_cache_dir_is_a_clear_error(tmp_path, env, target):
    kir = tmp_path / "k.kir"
    kir.write_text(pointwise_kir(1))
    for bad in ("", "relative/dir"):
        p = run(["compile", kir, "--target", target], dict(env, INTENT_CACHE_DIR=bad))
        assert p.returncode == 1 and "INTENT_CACHE_DIR" in p.stderr, (bad, p.stderr)
        q = run(["cache", "dir"], dict(env, INTENT_CACHE_DIR=bad))
        assert q.returncode == 1 and "INTENT_CACHE_DIR" in q.stderr
    p = run(["compile", kir, "--target", target, "--no-cache"],
            dict(env, INTENT_CACHE_DIR="relative/dir"), check=0)
    assert "cache: off" in p.stderr
