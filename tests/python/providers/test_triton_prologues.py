"""Contractions whose operands pass through a pointwise prologue (kir/gemm_prologue.kir).
Fused candidates (PROLOGUE_ONCE 0) run the prologue on every K tile after the operand's load,
inside the one kernel; PROLOGUE_ONCE 1 candidates run it once over the view into a workspace the
contraction then reads. Pointer-form candidates (and split-K and persistent ones) of both forms
against the reference provider on ragged shapes under the CPU interpreter, descriptor ones through
`bind`; K not a multiple of any BK checks that a fused prologue which does not map 0 to 0
(`b + 1`) is zeroed again past K."""
import inspect
import os

import pytest

from test_triton_examples import clone_args, compare, reference_case, run_candidates

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "gemm_prologue.kir")
KERNELS = ["gemm_scaled_a", "gemm_cast_inputs", "gemm_row_scale_bt", "bmm_cast_b"]


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
    cands = [c for c in tmod.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR") and not c.get("PROLOGUE_ONCE")]
    assert cands
    run_candidates(tmod, cands[:3] + [dict(cands[0], SPLIT_K=2), dict(cands[0], WORKERS=3)], base, want,
                   f"{name} {sizes}", True)


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("sizes", [{"B": 2, "M": 37, "N": 45, "K": 70}, {"B": 1, "M": 1, "N": 130, "K": 33},
                                   {"B": 1, "M": 5, "N": 3, "K": 0}, {"B": 2, "M": 20, "N": 300, "K": 520}])
def test_prologue_once_matches_reference(mods, name, sizes):
    """PROLOGUE_ONCE candidates: each prologue runs once over its view into a workspace that the
    contraction then reads (pointer form, split K, persistent); K = 0 leaves nothing to run first;
    views wider than one prologue tile (256 columns) take several tiles per row."""
    tri, ref = mods
    tmod = tri[name]
    base, want = reference_case(tmod, ref[name], sizes, 7, 0.75)
    cands = [c for c in tmod.CANDIDATES if c.get("PROLOGUE_ONCE") and not c.get("USE_TENSOR_DESCRIPTOR")]
    assert cands and all(c.get("PROLOGUE_ONCE") in (0, 1) for c in tmod.CANDIDATES)
    run_candidates(tmod, cands[:2] + [dict(cands[0], SPLIT_K=2), dict(cands[0], WORKERS=3)], base, want,
                   f"{name} {sizes}", True)
    # The caller's inputs are read, never written: the workspaces are the launcher's own.
    fresh, _ = reference_case(tmod, ref[name], sizes, 7, 0.75)
    for got, orig in zip(base, fresh):
        if hasattr(got, "equal"):
            assert got.equal(orig) or got.isnan().all()


@pytest.mark.parametrize("name", ["gemm_scaled_a", "gemm_cast_inputs", "gemm_row_scale_bt"])
def test_prologue_once_through_descriptors(mods, name):
    """Descriptor candidates read the workspaces through tensor descriptors (run through `bind`:
    the launcher offers descriptors only on a GPU); ragged M and N, 16-byte aligned rows."""
    tri, ref = mods
    tmod = tri[name]
    sizes = {"B": 1, "M": 37, "N": 136, "K": 72}
    base, want = reference_case(tmod, ref[name], sizes, 9, 0.75)
    outs = [i for i, p in enumerate(tmod.ARTIFACT["abi"]["parameters"]) if p["kind"] == "view" and p["access"] == "out"]
    for once in (1, 0):
        cand = next(c for c in tmod.CANDIDATES if c.get("USE_TENSOR_DESCRIPTOR") and c.get("PROLOGUE_ONCE") == once
                    and c.get("SPLIT_K", 1) == 1 and c.get("WORKERS", 1) == 1)
        got = clone_args(base)
        tmod.bind(cand, *got)()
        for i in outs:
            compare(got[i], want[i], f"{name} {cand}", True)
