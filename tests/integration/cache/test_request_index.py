"""The request index (docs/cache.md "Request index"): a repeated request is served without
parsing, and only ever with the keys a full compile of that very request derives."""
import json
import os
import shutil
import sqlite3
import time
from pathlib import Path

from conftest import CONFIGS, INTENTC, base_env, pointwise_kir, read_dir, run



def _body(text):
    lines = text.strip().splitlines()
    return "\n".join(lines[2:-1]) + "\n"  # between the comment + `module {` and its `}`


TWO_KERNELS = ("module {\n" + _body(pointwise_kir(1, "first")) +
               _body(pointwise_kir(2, "second")) + "}\n")


def requests(cache_dir):
    db = sqlite3.connect(Path(cache_dir) / "index.sqlite")
    try:
        return db.execute("SELECT digest, position, kernel, key FROM requests "
                          "ORDER BY digest, position").fetchall()
    finally:
        db.close()


def compiled(kir, env, target, extra=(), binary=None):
    p = run(["compile", kir, "--target", target, "--json", *extra], env, binary=binary, check=0)
    return json.loads(p.stdout)["kernels"]


def printed_keys(kir, env, target, extra=(), binary=None):
    p = run(["compile", kir, "--target", target, "--print-key", "--json", *extra], env,
            binary=binary, check=0)
    return [k["key"] for k in json.loads(p.stdout)["kernels"]]


def test_repeated_request_is_served_from_the_request_index(tmp_path, env, cache_dir, target):
    kir = tmp_path / "two.kir"
    kir.write_text(TWO_KERNELS)
    first = compiled(kir, env, target)
    assert [k["cache"] for k in first] == ["miss", "miss"]
    rows = requests(cache_dir)
    assert [(r[1], r[2], r[3]) for r in rows] == [(0, "first", first[0]["key"]),
                                                  (1, "second", first[1]["key"])]
    again = compiled(kir, env, target)
    assert [k["cache"] for k in again] == ["hit", "hit"]
    assert [(k["name"], k["key"], k["family"], k["candidates"]) for k in again] == \
        [(k["name"], k["key"], k["family"], k["candidates"]) for k in first]
    # The same bytes as an uncached compile, per kernel directory.
    run(["compile", kir, "--target", target, "-o", tmp_path / "hit"], env, check=0)
    run(["compile", kir, "--target", target, "--no-cache", "-o", tmp_path / "plain"], env,
        check=0)
    assert read_dir(tmp_path / "hit") == read_dir(tmp_path / "plain")
    stats = json.loads(run(["cache", "stats", "--json"], env, check=0).stdout)
    assert stats["hits"] == 4 and stats["misses"] == 2
    assert requests(cache_dir) == rows  # a hit records nothing new


def test_a_recorded_request_is_served_from_its_record(tmp_path, env, cache_dir, target):
    """A repeat is answered from the request index, not by parsing: pointed (by hand) at another
    complete entry, the record is what the next compile returns."""
    a, b = tmp_path / "a.kir", tmp_path / "b.kir"
    a.write_text(pointwise_kir(1, "first"))
    b.write_text(pointwise_kir(2, "second"))
    ka, kb = compiled(a, env, target)[0]["key"], compiled(b, env, target)[0]["key"]
    digest_a = [r[0] for r in requests(cache_dir) if r[3] == ka][0]
    db = sqlite3.connect(Path(cache_dir) / "index.sqlite")
    db.execute("UPDATE requests SET kernel = 'second', key = ? WHERE digest = ?", (kb, digest_a))
    db.commit()
    db.close()
    served = compiled(a, env, target)
    assert [(k["name"], k["key"], k["cache"]) for k in served] == [("second", kb, "hit")]


def test_every_input_of_a_request_is_part_of_its_digest(tmp_path, env, cache_dir, target):
    """Variants compiled in turn in one cache, twice each: every cached compile must give the
    key --print-key derives for that very request (a digest that missed an input would serve
    the previous variant's artifact)."""
    kir = tmp_path / "k.kir"
    kir.write_text(TWO_KERNELS)
    spaced = tmp_path / "spaced.kir"
    spaced.write_text("// same kernels, other bytes\n" + TWO_KERNELS.replace("  ", "    "))
    configs = tmp_path / "configs"
    shutil.copytree(CONFIGS, configs)
    table = configs / "triton.json"
    table.write_text(table.read_text().replace("[1, 1024, 1, 1, 1, 1, 1, 4, 3, 1, 0]",
                                               "[1, 512, 1, 1, 1, 1, 1, 4, 3, 1, 0]", 1))
    override = tmp_path / "override.json"
    override.write_text(json.dumps({"triton": {"pointwise": [[1, 256, 1, 1, 1, 1, 1, 4, 3,
                                                               1, 0]]}}))
    binary = tmp_path / "bin" / "intentc"
    binary.parent.mkdir()
    shutil.copy2(INTENTC, binary)
    with open(binary, "ab") as f:
        f.write(b"\0")
    variants = [
        (kir, (), env, None),
        (kir, ("--kernel", "second"), env, None),
        (kir, ("-D", "N=1024"), env, None),
        (kir, ("-D", "N=2048"), env, None),
        (spaced, (), env, None),
        (kir, (), env, str(binary)),
    ]
    if target == "triton":
        variants += [
            (kir, ("--arch", "sm_80"), env, None),
            (kir, ("--tuning-config", override), env, None),
            (kir, (), dict(env, INTENT_CONFIG_DIR=str(configs)), None),
        ]
    seen = set()
    for _ in range(2):
        for source, extra, venv, vbinary in variants:
            want = printed_keys(source, venv, target, extra, vbinary)
            got = compiled(source, venv, target, extra, vbinary)
            assert [k["key"] for k in got] == want, (source, extra)
            seen.add(tuple(want))
    # Whitespace is not identity: same keys as the original, yet its own request.
    assert printed_keys(spaced, env, target) == printed_keys(kir, env, target)
    assert len(seen) == len(variants) - 1
    assert len({r[0] for r in requests(cache_dir)}) >= len(variants)


def test_clear_and_gc_forget_requests(tmp_path, env, cache_dir, target):
    kir = tmp_path / "two.kir"
    kir.write_text(TWO_KERNELS)
    compiled(kir, env, target)
    assert len(requests(cache_dir)) == 2
    run(["cache", "gc", "--max-size", "0"], env, check=0)
    assert requests(cache_dir) == []
    assert [k["cache"] for k in compiled(kir, env, target)] == ["miss", "miss"]
    run(["cache", "clear"], env, check=0)
    assert requests(cache_dir) == []
    assert [k["cache"] for k in compiled(kir, env, target)] == ["miss", "miss"]
    assert [k["cache"] for k in compiled(kir, env, target)] == ["hit", "hit"]


def test_unchanged_outputs_keep_their_timestamps(tmp_path, env, target):
    one = tmp_path / "one.kir"
    one.write_text(pointwise_kir(3, "single"))
    two = tmp_path / "two.kir"
    two.write_text(TWO_KERNELS)
    for kir, out in ((one, tmp_path / "o1"), (two, tmp_path / "o2")):
        run(["compile", kir, "--target", target, "-o", out], env, check=0)
        files = sorted(p for p in out.rglob("*") if p.is_file())
        stamps = {p: p.stat().st_mtime_ns for p in files}
        old = [p for p in files if p.name == "kernel.py"][0]
        old.write_text("# edited by hand\n")
        edited = old.stat().st_mtime_ns
        time.sleep(0.02)
        run(["compile", kir, "--target", target, "-o", out], env, check=0)
        run(["compile", kir, "--target", target, "--no-cache", "-o", tmp_path / "plain"],
            env, check=0)
        for p in files:
            if p == old:
                assert p.stat().st_mtime_ns != edited  # rewritten
            elif kir == one:
                assert p.stat().st_mtime_ns == stamps[p], p  # left alone
        assert "edited by hand" not in old.read_text()
        # Unchanged again: nothing is touched at all.
        now = {p: p.stat().st_mtime_ns for p in files}
        run(["compile", kir, "--target", target, "-o", out], env, check=0)
        assert {p: p.stat().st_mtime_ns for p in files} == now
        shutil.rmtree(tmp_path / "plain")
