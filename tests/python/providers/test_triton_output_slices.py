"""Descriptor (TMA) stores of contraction outputs: a 32-bit output tile goes out as two
[BM, BN/2] column halves (igpu.store `slices 2`), so its shared-memory staging tile is no
larger than a 16-bit output's; 16-bit outputs keep one store. Descriptor candidates run under
the CPU interpreter on ragged M and N (TMA clips at the edges) against the reference provider
(through `bind`: the launcher itself offers descriptors only on a GPU).
A contraction's family follows its operands: f16 operands with an f32 output are narrow."""
import inspect
import os

import pytest

from test_triton_examples import clone_args, compare, reference_case

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CASES = [  # (file, kernel, family, sliced)
    (os.path.join(HERE, "kir", "gemm_prologue.kir"), "gemm_scaled_a", "contraction_narrow", True),
    (os.path.join(HERE, "kir", "gemm_f32.kir"), "gemm_f32", "contraction", True),
    (os.path.join(REPO, "examples", "gemm_f16.kir"), "gemm_f16", "contraction_narrow", False),
]
# Unit last strides and 16-byte aligned rows for f16 and f32 (TMA); M and N ragged for every tile.
SIZES = {"M": 37, "N": 136, "K": 72}


@pytest.mark.parametrize("path,name,family,sliced", CASES, ids=[c[1] for c in CASES])
def test_descriptor_store_slices(compile_kir, path, name, family, sliced):
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    assert tmod.FAMILY == family
    src = inspect.getsource(tmod)
    assert ("c_odesc.store([pid_m * BM, pid_n * BN + BN // 2], c_ohi)" in src) == sliced
    assert ("[c.stride(0), c.stride(1)], [BM, BN // 2])" in src) == sliced
    base, want = reference_case(tmod, rmod, SIZES, 11, 0.75)
    cands = [c for c in tmod.CANDIDATES if c.get("USE_TENSOR_DESCRIPTOR") and c.get("SPLIT_K", 1) == 1]
    assert cands
    # Two tile shapes, and a persistent candidate (the epilogue inside the tile loop).
    picked = cands[:2] + [dict(cands[0], WORKERS=3)]
    for cand in picked:
        got = clone_args(base)
        tmod.bind(cand, *got)()
        compare(got[2], want[2], f"{name} {cand}", True)
