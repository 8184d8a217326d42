"""Contractions whose operands pass through a pointwise prologue (kir/gemm_prologue.kir):
the prologue runs on every K tile after the operand's load, inside the one kernel. Every
pointer-form candidate (and a split-K and a persistent one) against the reference provider
on ragged shapes under the CPU interpreter; K not a multiple of any BK checks that a prologue
which does not map 0 to 0 (`b + 1`) is zeroed again past K."""
import inspect
import os

import pytest

from test_triton_examples import reference_case, run_candidates

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "gemm_prologue.kir")
KERNELS = ["gemm_scaled_a", "gemm_cast_inputs", "gemm_row_scale_bt", "bmm_cast_b"]


@pytest.fixture(scope="module")
def mods(compile_kir):
    return compile_kir(KIR, target="triton"), compile_kir(KIR, target="reference")


def test_prologues_are_fused_into_the_k_loop(mods):
    tri, _ = mods
    for name in KERNELS:
        assert tri[name].FAMILY.startswith("contraction"), name
    src = inspect.getsource(tri["gemm_row_scale_bt"])
    # The per-row scale and the shift run on the loaded tiles; the shift is re-zeroed past K.
    assert "av = tl.where(rk[None, :] < K" in src and "bv = tl.where(rk[:, None] < K" in src
    # Casts keep zeros: no select.
    assert "tl.where(rk" not in inspect.getsource(tri["gemm_cast_inputs"])


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("sizes", [{"B": 2, "M": 37, "N": 45, "K": 70}, {"B": 1, "M": 1, "N": 130, "K": 33}])
def test_prologue_contraction_matches_reference(mods, name, sizes):
    tri, ref = mods
    tmod = tri[name]
    base, want = reference_case(tmod, ref[name], sizes, 5, 0.75)
    cands = [c for c in tmod.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR")]
    assert cands
    run_candidates(tmod, cands[:3] + [dict(cands[0], SPLIT_K=2), dict(cands[0], WORKERS=3)], base, want,
                   f"{name} {sizes}", True)
