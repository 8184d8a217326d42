"""intentc winners list|show|import|export|clear and intentc prebuild."""
import json
import os
import sys

from server_helpers import ADD_KIR, REPO, TARGET, make_env, run

sys.path.insert(0, str(REPO / "python"))


def _pending(tmp_path, key, winner, measured_at="2025-01-31T12:00:00Z"):
    from intent_runtime.keys import tuning_key
    tk = tuning_key(key, '{"n":4}', "NVIDIA H200|sm_90")
    doc = {"version": 1, "records": {tk.digest: {
        "artifact_key": tk.artifact_key, "runtime_key": tk.runtime_key, "device": tk.device,
        "winner": winner,
        "candidates": [{"config": {"B": 1}, "median_ms": 2.0, "spread_ms": 0.5, "status": "ok", "message": None},
                       {"config": {"B": 2}, "median_ms": 1.0, "spread_ms": 0.5, "status": "ok", "message": None}],
        "measured_at": measured_at, "host": "gpu-runner"}}}
    p = tmp_path / "winners-pending.json"
    p.write_text(json.dumps(doc))
    return p, tk


def test_pending_import_export_roundtrip(tmp_path):
    env = make_env(tmp_path)
    pending, tk = _pending(tmp_path, "cd" * 32, {"B": 2})
    assert "imported 1" in run(["winners", "import", pending], env, check=0).stdout
    shown = json.loads(run(["winners", "show", tk.digest[:10], "--json"], env, check=0).stdout)
    assert shown[0]["digest"] == tk.digest
    assert shown[0]["candidates"][shown[0]["winner_index"]]["config"] == {"B": 2}
    assert shown[0]["host"] == "gpu-runner"
    # The Python runtime reads it back from the db (read-only).
    from intent_runtime.store import SqliteStore
    got = SqliteStore(os.path.join(env["INTENT_CACHE_DIR"], "index.sqlite")).lookup(tk)
    assert got["found"] and got["winner"] == {"B": 2}

    exp1 = tmp_path / "e1.json"
    run(["winners", "export", exp1], env, check=0)
    env2 = make_env(tmp_path / "other")
    run(["winners", "import", exp1], env2, check=0)
    exp2 = tmp_path / "e2.json"
    run(["winners", "export", exp2], env2, check=0)
    assert exp1.read_bytes() == exp2.read_bytes()

    # Merge by tuning key: an older measurement does not replace a newer one...
    older, _ = _pending(tmp_path, "cd" * 32, {"B": 1}, measured_at="2020-01-01T00:00:00Z")
    assert "kept 1" in run(["winners", "import", older], env, check=0).stdout
    # ...a newer one does, unless --keep-existing.
    newer, _ = _pending(tmp_path, "cd" * 32, {"B": 1}, measured_at="2030-01-01T00:00:00Z")
    assert "kept 1" in run(["winners", "import", newer, "--keep-existing"], env, check=0).stdout
    assert "imported 1" in run(["winners", "import", newer], env, check=0).stdout
    shown = json.loads(run(["winners", "show", tk.digest, "--json"], env, check=0).stdout)[0]
    assert shown["candidates"][shown["winner_index"]]["config"] == {"B": 1}

    assert "1 winner record" in run(["winners", "list"], env, check=0).stdout
    assert "removed 1" in run(["winners", "clear"], env, check=0).stdout
    assert json.loads(run(["winners", "list", "--json"], env, check=0).stdout) == []
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nope"}')
    assert run(["winners", "import", bad], env).returncode == 1


def test_prebuild(tmp_path):
    env = make_env(tmp_path)
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "add.kir").write_text(ADD_KIR)
    (tmp_path / "k" / "broken.kir").write_text("module { this is not kir }\n")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"kernels": [
        {"file": "k/add.kir", "kernels": ["add"], "targets": [TARGET],
         "defines": [{"M": "64"}, {"M": "128"}, {}]}]}))
    out = tmp_path / "out"
    p = run(["prebuild", manifest, "-j", "3", "-o", out, "--server", "never"], env, check=0)
    assert "3 built, 0 cached, 0 failed" in p.stdout
    index = json.loads((out / "index.json").read_text())
    assert len(index["artifacts"]) == 3 and not index["failed"]
    for a in index["artifacts"]:
        assert (out / a["dir"] / "kernel.py").exists()
        assert a["dir"].startswith(f"add-{TARGET}-default-")
    p = run(["prebuild", manifest, "-o", out, "--server", "spawn"], env, check=0)
    assert "0 built, 3 cached, 0 failed" in p.stdout
    run(["server", "stop"], env, check=0)

    manifest.write_text(json.dumps({"kernels": [
        {"file": "k/add.kir", "targets": [TARGET]}, {"file": "k/broken.kir", "targets": [TARGET]}]}))
    p = run(["prebuild", manifest, "-o", tmp_path / "out2"], env)
    assert p.returncode == 1
    assert "1 cached, 1 failed" in p.stdout and "FAILED k/broken.kir" in p.stdout


def test_prebuild_republishes_atomically(tmp_path):
    """A rebuild leaves an unchanged artifact directory alone (timestamps kept), replaces one that
    differs as a whole, and leaves no temporary siblings; jobs publishing the same directory from
    several threads all succeed."""
    env = make_env(tmp_path)
    (tmp_path / "add.kir").write_text(ADD_KIR)
    manifest = tmp_path / "manifest.json"
    # The same request twice: two threads publish one directory.
    entry = {"file": "add.kir", "kernels": ["add"], "targets": [TARGET]}
    manifest.write_text(json.dumps({"kernels": [entry, entry]}))
    out = tmp_path / "out"
    p = run(["prebuild", manifest, "-j", "2", "-o", out, "--server", "never"], env, check=0)
    assert "0 failed" in p.stdout
    (d,) = [c for c in out.iterdir() if c.is_dir()]
    kernel_py = d / "kernel.py"
    os.utime(kernel_py, (1_000_000_000, 1_000_000_000))
    run(["prebuild", manifest, "-o", out, "--server", "never"], env, check=0)
    assert kernel_py.stat().st_mtime == 1_000_000_000  # unchanged: left alone

    (d / "stale.txt").write_text("from an older layout")
    kernel_py.write_text("# edited by hand\n")
    run(["prebuild", manifest, "-o", out, "--server", "never"], env, check=0)
    assert sorted(c.name for c in out.iterdir()) == sorted([d.name, "index.json"])
    assert not (d / "stale.txt").exists()
    assert kernel_py.read_text().startswith("# Generated by intentc")
