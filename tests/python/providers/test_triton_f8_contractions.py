"""fp8 (f8E4M3FN) contractions on the CPU interpreter: e4m3 operands, f32 accumulation,
an f16 result; every pointer-form candidate (and a split-K one) against the reference
provider on ragged shapes, with B as [K, N] and as [N, K] (K-major, the layout fp8
tensor cores read). The products of two e4m3 values and their sums over these K
are exact in f32, so the results must match exactly. The GPU harness (`harness.py ART f8`)
runs the same kernel on the H200 (descriptor rows included)."""
import os

import pytest
import torch

from conftest import compile_pair

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "gemm_f8.kir")


@pytest.fixture(scope="module")
def all_mods(compile_kir):
    return compile_pair(compile_kir, KIR)


@pytest.fixture(params=["gemm_f8", "gemm_f8_bt"])
def mods(all_mods, request):
    return all_mods[0][request.param], all_mods[1][request.param]


def test_fp8_operands_are_declared(mods):
    tri, _ = mods
    assert tri.FAMILY == "contraction_narrow"
    a = torch.zeros(4, 4, dtype=torch.float16)
    with pytest.raises(TypeError, match="float8_e4m3fn"):
        tri.launch(a, a, a)


@pytest.mark.parametrize("sizes", [(37, 45, 200), (1, 130, 33), (64, 64, 64)])
def test_fp8_contraction_matches_reference(mods, sizes):
    tri, ref = mods
    M, N, K = sizes
    g = torch.Generator().manual_seed(M + N + K)
    a = (torch.randn(M, K, generator=g) * 4).to(torch.float8_e4m3fn)
    bt = "mk,nk->mn" in open(tri.__file__.replace("kernel.py", "kernel.kir")).read()
    b = torch.randn(*((N, K) if bt else (K, N)), generator=g).to(torch.float8_e4m3fn)
    want = torch.full((M, N), float("nan"), dtype=torch.float16)
    ref.launch(a, b, want)
    assert torch.equal(want.float(), (a.float() @ (b.float().T if bt else b.float())).half().float())
    cands = [c for c in tri.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR")]
    assert cands
    for cand in cands + [dict(cands[0], SPLIT_K=2)]:
        got = torch.full((M, N), float("nan"), dtype=torch.float16)
        tri._run_candidate(cand, (a, b, got))
        assert torch.equal(got, want), (cand, (got.float() - want.float()).abs().max())
