"""Host-side cost of a generated module's launch checks, on the CPU (no kernel runs):
microseconds per call of _prepare (argument checks, extents, grid), of _validated on the
same arguments (the cached result), and of evaluating every candidate's grid (the eligibility
check of launch() without the runtime, done once per set of arguments).

  python3 scripts/bench/launch_checks.py [KIR] [N]   (default examples/gemm_f16.kir, 64x64x64 f16)
env: INTENTC (default <repo>/build/bin/intentc)
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TRITON_INTERPRET", "1")
import torch  # noqa: E402

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
kir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "examples", "gemm_f16.kir")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
out = tempfile.mkdtemp(prefix="launch-checks-")
subprocess.run([os.environ.get("INTENTC", os.path.join(REPO, "build", "bin", "intentc")), "compile", kir,
                "--target", "triton", "--no-cache", "-o", out], check=True, capture_output=True)
spec = importlib.util.spec_from_file_location("bench_module", os.path.join(out, "kernel.py"))
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
args = [torch.randn(64, 64).half(), torch.randn(64, 64).half(), torch.empty(64, 64).half()]


def us(fn):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


_, extra, grid, _, _, _ = m._prepare(*args)
print(f"candidates {len(m.CANDIDATES)}")
print(f"_prepare              {us(lambda: m._prepare(*args)):8.1f} us")
print(f"_validated (same args){us(lambda: m._validated(tuple(args))):8.1f} us")
print(f"every candidate's grid{us(lambda: [m._grid_failure(grid, c, extra) for c in m.CANDIDATES]):8.1f} us")
