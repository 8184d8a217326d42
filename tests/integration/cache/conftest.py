"""Shared helpers for the cache integration tests (real intentc processes).

The binary is $INTENTC (default <repo>/build/bin/intentc). Every test gets its
own INTENT_CACHE_DIR under pytest's tmp_path. The provider used for the
tests is $INTENT_TEST_TARGET, else `triton` when it compiles, else
`reference` (the PyTorch oracle, cached the same way).
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
INTENTC = os.environ.get("INTENTC", str(REPO / "build" / "bin" / "intentc"))
CONFIGS = REPO / "configs"

POINTWISE_KIR = """// generated: y = x * {c} + {d}
module {{
  kir.kernel @{name}(%x: !kir.view<f32, [N], in>, %y: !kir.view<f32, [N], out>) {{
    %c = arith.constant {c} : f32
    %d = arith.constant {d} : f32
    %v = kir.load %x : !kir.view<f32, [N], in>
    %m = kir.mul %v, %c : !kir.tensor<f32, [N]>, f32
    %o = kir.add %m, %d : !kir.tensor<f32, [N]>, f32
    kir.store %o, %y : !kir.view<f32, [N], out>
  }}
}}
"""


def pointwise_kir(i, name=None):
    """A small, distinct pointwise kernel per i."""
    return POINTWISE_KIR.format(name=name or f"pw{i}", c=f"{i + 1}.5", d=f"{i}.25")


def write_kernels(directory, n, prefix="pw"):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        p = directory / f"{prefix}{i}.kir"
        p.write_text(pointwise_kir(i, f"{prefix}{i}"))
        paths.append(p)
    return paths


def base_env(cache_dir, **extra):
    env = dict(os.environ)
    env.pop("INTENT_CACHE_FAULT", None)
    env["INTENT_CACHE_DIR"] = str(cache_dir)
    env["INTENT_CONFIG_DIR"] = str(CONFIGS)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(args, env, cwd=None, binary=None, timeout=300, check=None):
    """Runs intentc; returns CompletedProcess (text). check=<rc> asserts it."""
    p = subprocess.run([binary or INTENTC] + [str(a) for a in args], env=env, cwd=cwd,
                       capture_output=True, text=True, timeout=timeout)
    if check is not None:
        assert p.returncode == check, (
            f"intentc {' '.join(map(str, args))}: rc={p.returncode}\n"
            f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def compile_json(kir, env, target, extra=(), cwd=None, binary=None, check=0):
    p = run(["compile", kir, "--target", target, "--json", *extra], env, cwd=cwd,
            binary=binary, check=check)
    return json.loads(p.stdout) if p.returncode == 0 else None


def cache_json(args, env, check=0):
    p = run(["cache", *args, "--json"], env, check=check)
    return json.loads(p.stdout)


def read_dir(d):
    d = Path(d)
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


_target = None


def detect_target(tmp_root):
    global _target
    if _target:
        return _target
    _target = os.environ.get("INTENT_TEST_TARGET")
    if not _target:
        kir = Path(tmp_root) / "probe.kir"
        kir.write_text(pointwise_kir(0))
        p = run(["compile", kir, "--target", "triton", "--no-cache"],
                base_env(Path(tmp_root) / "unused-cache"))
        _target = "triton" if p.returncode == 0 else "reference"
    return _target


@pytest.fixture(scope="session", autouse=True)
def _check_binary():
    if not os.access(INTENTC, os.X_OK):
        pytest.exit(f"intentc not found at {INTENTC} (set INTENTC)", returncode=2)


@pytest.fixture
def target(tmp_path_factory):
    return detect_target(tmp_path_factory.mktemp("probe"))


@pytest.fixture
def cache_dir(tmp_path):
    d = tmp_path / "cache"
    return d


@pytest.fixture
def env(cache_dir):
    return base_env(cache_dir)
