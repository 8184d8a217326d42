"""kir.tanh on the CPU interpreter: relative error per element against torch.tanh in f64,
over |x| from 1e-30 to 100 (both signs), signed zeros, infinities, NaN and both sides of the
series/exponential switch at |x| = 0.625. The former 2 * sigmoid(2x) - 1 had a relative
error of 1e-3 at |x| = 1e-5 (cancellation)."""
import os

import pytest
import torch

from test_triton_examples import interpreter_distinct

KIR = os.path.join(os.path.dirname(__file__), "kir", "tanh.kir")


@pytest.mark.parametrize("dt,name,tol", [(torch.float32, "tanh_f32", 4e-7), (torch.float64, "tanh_f64", 1e-15)])
def test_tanh_elementwise_relative_error(dt, name, tol, compile_kir):
    mod = compile_kir(KIR, target="triton")[name]
    mag = torch.logspace(-30, 2, 3000, dtype=torch.float64)
    special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 0.6249, 0.625, 0.6251, -0.625],
                           dtype=torch.float64)
    x = torch.cat([mag, -mag, special]).to(dt)
    y = torch.full_like(x, 7.0)
    for cand in interpreter_distinct(mod.CANDIDATES):
        mod._run_candidate(cand, (x, y))
        ref = torch.tanh(x.double())
        got = y.double()
        assert torch.equal(torch.isnan(got), torch.isnan(ref))
        same = (got == ref) | torch.isnan(ref)
        rel = torch.where(same, torch.zeros_like(got), (got - ref).abs() / ref.abs())
        assert rel.max().item() <= tol, (cand, x[rel.argmax()].item(), rel.max().item())
        zeros = x == 0
        assert torch.equal(torch.signbit(y[zeros]), torch.signbit(x[zeros])), "tanh(-0) is -0"
