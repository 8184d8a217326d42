"""Float scalar parameters on the CPU interpreter against the reference provider: they
arrive as Python floats, so the kernel converts them with tl.cast (a tensor method like
.to() fails on a Python float); f16/bf16 values are rounded to their type by the launcher
(1.1 is not an f16 value: without the rounding 172 of 315 f16 results differed), and f64
parameters are annotated so that Triton passes them as f64 on the GPU."""
import inspect
import os

import pytest
import torch

from test_triton_examples import compare, interpreter_distinct

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "narrow_scalars.kir")


@pytest.mark.parametrize("value", [0.375, 1.1])
@pytest.mark.parametrize("name,dtype,exact", [("axpb_f16", torch.float16, True),
                                              # the interpreter truncates f32 -> bf16: compare within tolerance
                                              ("div_bf16", torch.bfloat16, False),
                                              ("cast_bf16_scalar", torch.float32, True),
                                              ("scale_f64", torch.float64, True)])
def test_float_scalar_parameter(compile_kir, name, dtype, exact, value):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    x = torch.randn(7, 45, generator=torch.Generator().manual_seed(2)).to(dtype)
    want = torch.full_like(x, float("nan"))
    rmod.launch(x, value, want)
    for cand in interpreter_distinct(tmod.CANDIDATES):
        got = torch.full_like(x, float("nan"))
        tmod._run_candidate(cand, (x, value, got))
        if exact:
            assert torch.equal(got, want), f"{name} {cand} {value}"
        else:
            compare(got, want, f"{name} {cand}", False)


def test_f64_scalars_are_annotated(compile_kir):
    src = inspect.getsource(compile_kir(KIR, target="triton")["scale_f64"])
    assert "s_: tl.float64," in src  # (the kernel calls the argument s_: s is its split index)
