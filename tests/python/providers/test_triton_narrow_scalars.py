"""f16/bf16 scalar parameters on the CPU interpreter against the reference provider:
they arrive as Python floats, so the kernel converts them with tl.cast (a tensor
method like .to() fails on a Python float)."""
import os

import pytest
import torch

from test_triton_examples import compare

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "narrow_scalars.kir")


@pytest.mark.parametrize("name,dtype", [("axpb_f16", torch.float16), ("div_bf16", torch.bfloat16)])
def test_narrow_scalar_parameter(compile_kir, name, dtype):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    x = torch.randn(7, 45, generator=torch.Generator().manual_seed(2)).to(dtype)
    want = torch.full_like(x, float("nan"))
    rmod.launch(x, 0.375, want)
    for cand in tmod.CANDIDATES[:2]:
        got = torch.full_like(x, float("nan"))
        tmod._run_candidate(cand, (x, 0.375, got))
        compare(got, want, f"{name} {cand}", False)
