"""What is and is not part of the artifact key (cache-and-server.md §3)."""
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import CONFIGS, INTENTC, base_env, pointwise_kir, run

GPU_TARGETS = ("triton", "cutile")


def key_of(kir, env, target, extra=(), cwd=None, binary=None):
    p = run(["compile", kir, "--target", target, "--print-key", "--json", *extra], env, cwd=cwd,
            binary=binary, check=0)
    kernels = json.loads(p.stdout)["kernels"]
    assert len(kernels) == 1
    return kernels[0]


@pytest.fixture
def kir(tmp_path):
    p = tmp_path / "src" / "k.kir"
    p.parent.mkdir()
    p.write_text(pointwise_kir(5, "keyed"))
    return p


def test_print_key_writes_nothing(tmp_path, env, cache_dir, kir, target):
    p = run(["compile", kir, "--target", target, "--print-key", "-o", tmp_path / "out"], env,
            check=0)
    assert "key" in p.stdout and "kir" in p.stdout, p.stdout
    k = key_of(kir, env, target)
    assert len(k["key"]) == 64
    assert {"compiler", "kir", "abi", "target", "options"} <= set(k["components"])
    assert not cache_dir.exists()
    assert not (tmp_path / "out").exists()
    # And the printed key is the key the cache uses.
    res = json.loads(run(["compile", kir, "--target", target, "--json"], env, check=0).stdout)
    assert res["kernels"][0]["key"] == k["key"]


def test_path_cwd_and_unrelated_env_do_not_change_the_key(tmp_path, env, kir, target):
    base = key_of(kir, env, target)["key"]
    moved = tmp_path / "elsewhere" / "renamed.kir"
    moved.parent.mkdir()
    shutil.copy(kir, moved)
    assert key_of(moved, env, target)["key"] == base
    other = tmp_path / "cwd"
    other.mkdir()
    assert key_of(os.path.relpath(kir, other), env, target, cwd=other)["key"] == base
    assert key_of(kir, dict(env, SOME_UNRELATED_VAR="x", TZ="Asia/Tokyo", LANG="C"),
                  target)["key"] == base
    # A different cache dir does not change the key either.
    assert key_of(kir, dict(env, INTENT_CACHE_DIR=str(tmp_path / "c2")), target)["key"] == base


def test_define_changes_the_key(tmp_path, env, kir, target):
    base = key_of(kir, env, target)
    k1 = key_of(kir, env, target, ["-D", "N=1024"])
    k2 = key_of(kir, env, target, ["-D", "N=2048"])
    assert len({base["key"], k1["key"], k2["key"]}) == 3
    assert k1["components"]["kir"] != k2["components"]["kir"]


def test_kir_content_changes_the_key(tmp_path, env, target):
    a = tmp_path / "a.kir"
    b = tmp_path / "b.kir"
    a.write_text(pointwise_kir(1, "same"))
    b.write_text(pointwise_kir(2, "same"))
    assert key_of(a, env, target)["key"] != key_of(b, env, target)["key"]


def test_default_table_changes_the_key(tmp_path, env, kir, target):
    base = key_of(kir, env, target)
    configs = tmp_path / "configs"
    shutil.copytree(CONFIGS, configs)
    same = key_of(kir, dict(env, INTENT_CONFIG_DIR=str(configs)), target)
    assert same["key"] == base["key"]  # same content, other path
    table = configs / "triton.json"
    text = table.read_text()
    assert "[1, 1024, 1, 1, 1, 1, 1, 4, 3, 1, 0]" in text
    table.write_text(text.replace("[1, 1024, 1, 1, 1, 1, 1, 4, 3, 1, 0]",
                                  "[1, 512, 1, 1, 1, 1, 1, 4, 3, 1, 0]", 1))
    changed = key_of(kir, dict(env, INTENT_CONFIG_DIR=str(configs)), target)
    assert changed["key"] != base["key"]
    if target == "triton":
        assert changed["components"]["profile-defaults"] != base["components"]["profile-defaults"]


def _need_gpu_target(target):
    if target not in GPU_TARGETS:
        pytest.skip(f"target {target} has no tuning table / arch")


def test_tuning_override_content_not_path_changes_the_key(tmp_path, env, kir, target):
    _need_gpu_target(target)
    base = key_of(kir, env, target)["key"]
    a = tmp_path / "a.json"
    a.write_text(json.dumps({target: {"pointwise": [[1, 512, 1, 1, 1, 1, 1, 4, 3, 1, 0]]}}))
    b = tmp_path / "dir" / "b.json"
    b.parent.mkdir()
    shutil.copy(a, b)
    c = tmp_path / "c.json"
    c.write_text(json.dumps({target: {"pointwise": [[1, 256, 1, 1, 1, 1, 1, 4, 3, 1, 0]]}}))
    ka = key_of(kir, env, target, ["--tuning-config", a])["key"]
    kb = key_of(kir, env, target, ["--tuning-config", b])["key"]
    kc = key_of(kir, env, target, ["--tuning-config", c])["key"]
    assert ka == kb
    assert len({base, ka, kc}) == 3


def test_arch_changes_the_key(tmp_path, env, kir, target):
    _need_gpu_target(target)
    k90 = key_of(kir, env, target, ["--arch", "sm_90"])["key"]
    k80 = key_of(kir, env, target, ["--arch", "sm_80"])["key"]
    assert k90 != k80
    assert key_of(kir, env, target)["key"] == k90  # sm_90 is the default


def test_compiler_binary_changes_the_key(tmp_path, env, kir, target):
    base = key_of(kir, env, target)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    copy = bindir / "intentc"
    shutil.copy2(INTENTC, copy)
    # Same bytes at another path: same compiler, same key.
    assert key_of(kir, env, target, binary=str(copy))["key"] == base["key"]
    with open(copy, "ab") as f:
        f.write(b"\0")
    changed = key_of(kir, env, target, binary=str(copy))
    assert changed["key"] != base["key"]
    assert changed["components"]["compiler"] != base["components"]["compiler"]
    assert changed["components"]["kir"] == base["components"]["kir"]
