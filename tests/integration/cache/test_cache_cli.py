"""intentc cache dir|stats|list|show|verify|gc|clear."""
import json
import time

from conftest import base_env, cache_json, compile_json, pointwise_kir, run, write_kernels


def test_dir(tmp_path, env, cache_dir):
    assert run(["cache", "dir"], env, check=0).stdout.strip() == str(cache_dir)
    assert cache_json(["dir"], env)["dir"] == str(cache_dir)
    xdg = dict(env, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    del xdg["INTENT_CACHE_DIR"]
    assert run(["cache", "dir"], xdg, check=0).stdout.strip() == str(tmp_path / "xdg" / "intentdsl")


def test_stats_list_show(tmp_path, env, target):
    kirs = write_kernels(tmp_path / "kir", 3)
    keys = [compile_json(k, env, target)["kernels"][0]["key"] for k in kirs]
    compile_json(kirs[0], env, target)  # a hit
    s = cache_json(["stats"], env)
    assert s["entries"] == 3 and s["complete_entries"] == 3 and s["failed_entries"] == 0
    assert s["hits"] >= 1 and s["misses"] >= 3 and s["bytes"] > 0
    human = run(["cache", "stats"], env, check=0).stdout
    assert "entries" in human and "hits" in human

    listed = cache_json(["list"], env)
    entries = listed if isinstance(listed, list) else listed["entries"]
    assert sorted(e["key"] for e in entries) == sorted(keys)
    assert entries[0]["key"] == keys[0]  # most recently used first
    assert all(e["provider"] == target for e in entries)
    human = run(["cache", "list"], env, check=0).stdout
    assert all(k[:12] in human for k in keys)

    shown = cache_json(["show", keys[1][:10]], env)
    assert shown["key"] == keys[1] and shown["state"] == "complete" and shown["files"]
    assert shown["kernel"] == "pw1"
    assert keys[1] in run(["cache", "show", keys[1]], env, check=0).stdout
    missing = run(["cache", "show", "0123456789abcdef"], env)
    assert missing.returncode == 1 and missing.stderr


def test_gc_evicts_least_recently_used(tmp_path, env, target):
    kirs = write_kernels(tmp_path / "kir", 3)
    keys = []
    for k in kirs:
        keys.append(compile_json(k, env, target)["kernels"][0]["key"])
        time.sleep(0.01)
    assert compile_json(kirs[0], env, target)["kernels"][0]["cache"] == "hit"  # 0 is fresh now
    entries = {e["key"]: e for e in _entries(env)}
    total = sum(e["size_bytes"] for e in entries.values())
    r = cache_json(["gc", "--max-size", str(total - 1)], env)
    assert r["evicted"] == [keys[1]], r  # the least recently used one only
    assert r["bytes_before"] == total and r["bytes_after"] == total - entries[keys[1]]["size_bytes"]
    assert sorted(e["key"] for e in _entries(env)) == sorted([keys[0], keys[2]])
    assert compile_json(kirs[1], env, target)["kernels"][0]["cache"] == "miss"
    assert compile_json(kirs[0], env, target)["kernels"][0]["cache"] == "hit"
    human = run(["cache", "gc", "--max-size", "0"], env, check=0).stdout
    assert human
    assert _entries(env) == []
    bad = run(["cache", "gc", "--max-size", "lots"], env)
    assert bad.returncode == 1 and "max-size" in bad.stderr
    assert run(["cache", "gc"], env).returncode != 0  # --max-size is required


def test_gc_units(tmp_path, env, target):
    for k in write_kernels(tmp_path / "kir", 2):
        compile_json(k, env, target)
    assert cache_json(["gc", "--max-size", "1G"], env)["evicted"] == []
    assert cache_json(["gc", "--max-size", "1.5MiB"], env)["evicted"] == []


def test_clear_and_verify(tmp_path, env, cache_dir, target):
    kirs = write_kernels(tmp_path / "kir", 2)
    for k in kirs:
        compile_json(k, env, target)
    v = run(["cache", "verify"], env, check=0)
    assert v.stdout
    assert cache_json(["verify"], env)["clean"]
    assert cache_json(["clear"], env)["removed_entries"] == 2
    assert _entries(env) == []
    s = cache_json(["stats"], env)
    assert s["entries"] == 0 and s["hits"] == 0 and s["misses"] == 0
    assert not list((cache_dir / "entries").rglob("*.kir"))
    assert compile_json(kirs[0], env, target)["kernels"][0]["cache"] == "miss"
    run(["cache", "clear"], env, check=0)


def test_compile_reports_cache_status(tmp_path, env, cache_dir, target):
    kir = tmp_path / "k.kir"
    kir.write_text(pointwise_kir(2, "status"))
    assert "status: cache: miss" in run(["compile", kir, "--target", target], env, check=0).stderr
    assert "status: cache: hit" in run(["compile", kir, "--target", target], env, check=0).stderr
    p = run(["compile", kir, "--target", target, "--no-cache", "--json"], env, check=0)
    assert json.loads(p.stdout)["kernels"][0]["cache"] == "off"
    assert "cache:" not in p.stderr  # --json carries it instead
    off = run(["compile", kir, "--target", target, "--no-cache"], env, check=0)
    hit = run(["compile", kir, "--target", target], env, check=0)
    assert "status: cache: off" in off.stderr
    assert off.stdout == hit.stdout  # byte-identical either way
    assert cache_json(["stats"], env)["entries"] == 1


def _entries(env):
    listed = cache_json(["list"], env)
    return listed if isinstance(listed, list) else listed["entries"]
