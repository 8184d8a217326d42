"""DIV_FORM: a block divided by a row-uniform value is exact in both forms (0: the f64 product per
element; 1: two f32 Markstein steps, the f64 product only for warps holding an element outside their
exact range, by a uniform branch in inline PTX). The interpreter runs form 0 for both (no PTX), so
here: both forms are candidates and match the reference, and form 1 assembles for sm_90 with the
branch and the warp vote while form 0 has neither. Bits on the GPU: scripts/gpu/harness.py."""
import os

import pytest
import torch

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


@pytest.fixture
def softmax(compile_kir):
    return compile_kir(os.path.join(ROOT, "examples", "softmax.kir"), target="triton")["softmax"]


def test_every_row_is_a_candidate_in_both_forms(softmax, compile_kir):
    forms = {}
    for c in softmax.CANDIDATES:
        rest = tuple(sorted((k, v) for k, v in c.items() if k != "DIV_FORM"))
        forms.setdefault(rest, set()).add(c["DIV_FORM"])
    assert forms and all(v == {0, 1} for v in forms.values())
    ref = compile_kir(os.path.join(ROOT, "examples", "softmax.kir"), target="reference")["softmax"]
    x = torch.randn(5, 300, generator=torch.Generator().manual_seed(4))
    x[1, 7] = -200.0  # exp underflows to 0 in that row: the f64 fallback's territory on the GPU
    want = torch.empty_like(x)
    ref.launch(x, want)
    for c in softmax.CANDIDATES[:4]:
        y = torch.full_like(x, float("nan"))
        softmax.bind(c, x, y)()
        assert torch.equal(y, want) or ((y - want).abs().max() < 1e-6), c


_COMPILE = r"""
import importlib.util, json, sys
import triton
from triton.backends.compiler import GPUTarget
spec = importlib.util.spec_from_file_location("k", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
jit = m.softmax_kernel
out = {}
for form in (0, 1):
    consts = {"OWN_M": 1, "RED_N": 8192, "SPLIT": 1, "DIV_FORM": form, "COVER": 32768, "IDX64": False}
    sig = {n: "constexpr" if n in consts else ("*fp32" if n in ("x", "y") else "i32") for n in jit.arg_names}
    src = triton.compiler.ASTSource(fn=jit, signature=sig, constexprs=consts)
    out[form] = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 16}).asm["ptx"]
print(json.dumps(out))
"""


def test_form_one_assembles_for_sm90_with_a_warp_uniform_branch(softmax):
    """Compiled (not interpreted) in a child process: PTX and ptxas of Triton's CUDA backend."""
    import json
    import subprocess
    import sys
    env = dict(os.environ, TRITON_INTERPRET="0")
    proc = subprocess.run([sys.executable, "-c", _COMPILE, softmax.__file__], capture_output=True, text=True,
                          env=env, timeout=600)
    if proc.returncode != 0 and ("GPUTarget" in proc.stderr or "backend" in proc.stderr.lower()):
        pytest.skip("this Triton cannot compile for sm_90 here: " + proc.stderr[-300:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    ptx = json.loads(proc.stdout.strip().splitlines()[-1])
    one, zero = ptx["1"], ptx["0"]
    assert "vote.sync.any.pred" in one and "bra DONE" in one and "fma.rn.f32" in one
    assert "vote.sync" not in zero and "cvt.f64.f32" in zero
