"""SIGKILL at every publishing step (docs/cache.md §8, INTENT_CACHE_FAULT)."""
import json
import signal
from pathlib import Path

import pytest

from conftest import base_env, cache_json, compile_json, pointwise_kir, read_dir, run

NON_FILE_STEPS = ["before-rename", "after-rename", "before-index", "after-index"]


def _entry_files(tmp_path, target):
    """The relative file names of an entry (they depend on the provider)."""
    env = base_env(tmp_path / "probe-cache")
    kir = tmp_path / "probe.kir"
    kir.write_text(pointwise_kir(7, "crash"))
    res = compile_json(kir, env, target)
    shown = cache_json(["show", res["kernels"][0]["key"]], env)
    return sorted(shown["files"].keys())


def _steps(tmp_path, target):
    files = _entry_files(tmp_path, target)
    assert files
    return [f"{w}-file:{f}" for f in files for w in ("before", "after")] + NON_FILE_STEPS


def test_sigkill_at_every_step_never_serves_a_half_entry(tmp_path, target):
    steps = _steps(tmp_path, target)
    kir = tmp_path / "crash.kir"
    kir.write_text(pointwise_kir(7, "crash"))
    baseline = run(["compile", kir, "--target", target, "--no-cache", "-o", tmp_path / "base"],
                   base_env(tmp_path / "unused"), check=0)
    # The cached entry also carries compile.log (not produced by --no-cache);
    # compare the artifacts proper.
    expected = read_dir(tmp_path / "base")
    expected.pop("compile.log", None)

    for n, step in enumerate(steps):
        env = base_env(tmp_path / f"cache-{n}")
        killed = run(["compile", kir, "--target", target, "--json"],
                     dict(env, INTENT_CACHE_FAULT=step))
        assert killed.returncode == -signal.SIGKILL, (step, killed.returncode, killed.stderr)

        verify = run(["cache", "verify", "--json"], env)
        report = json.loads(verify.stdout)
        assert not [i for i in report["issues"] if i["on_complete_row"]], (step, report)
        assert verify.returncode == 0, (step, verify.stdout, verify.stderr)

        out = tmp_path / f"out-{n}"
        after = run(["compile", kir, "--target", target, "--json", "-o", out], env, check=0)
        status = json.loads(after.stdout)["kernels"][0]["cache"]
        # Only a committed row may be served; anything earlier must rebuild.
        assert status == ("hit" if step == "after-index" else "miss"), (step, status)
        got = read_dir(out)
        got.pop("compile.log", None)
        assert got == expected, step

        # And the entry is now complete and clean.
        again = compile_json(kir, env, target)
        assert again["kernels"][0]["cache"] == "hit", step
        report = cache_json(["verify"], env)
        assert not [i for i in report["issues"] if i["on_complete_row"]], (step, report)


def test_verify_repair_removes_leftovers_of_a_kill(tmp_path, target):
    kir = tmp_path / "crash.kir"
    kir.write_text(pointwise_kir(7, "crash"))
    env = base_env(tmp_path / "cache")
    killed = run(["compile", kir, "--target", target],
                 dict(env, INTENT_CACHE_FAULT="after-rename"))
    assert killed.returncode == -signal.SIGKILL
    report = cache_json(["verify"], env)
    assert any(i["kind"] == "orphan-dir" for i in report["issues"]), report
    repaired = cache_json(["verify", "--repair"], env)
    assert all(i["repaired"] for i in repaired["issues"]), repaired
    assert cache_json(["verify"], env)["clean"]
