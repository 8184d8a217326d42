"""f32 contractions on the CPU interpreter: IEEE by default (input_precision "ieee"),
TF32 only under `precision tf32`; every pointer-form candidate against the reference
provider on ragged shapes. The GPU harness (`harness.py ART f32`) checks the same
kernels on the H200, where TF32 really rounds the operands."""
import inspect
import os

import pytest
import torch

from test_triton_examples import clone_args, compare, make_inputs

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "gemm_f32.kir")


def test_precision_follows_the_op(mods):
    tri, _ = mods
    assert tri["gemm_f32"].FAMILY == "contraction"
    ieee = inspect.getsource(tri["gemm_f32"])
    tf32 = inspect.getsource(tri["gemm_tf32_bt"])
    assert 'input_precision="ieee"' in ieee and '"tf32"' not in ieee.split("def gemm_f32_kernel")[1]
    assert 'input_precision="tf32"' in tf32


@pytest.mark.parametrize("name", ["gemm_f32", "gemm_tf32_bt"])
@pytest.mark.parametrize("sizes", [{"M": 37, "N": 45, "K": 70}, {"M": 1, "N": 130, "K": 33}])
def test_f32_contraction_matches_reference(mods, name, sizes):
    tri, ref = mods
    tmod, rmod = tri[name], ref[name]
    abi = tmod.ARTIFACT["abi"]
    base = make_inputs(abi, sizes, torch.Generator().manual_seed(3))
    want = clone_args(base)
    rmod.launch(*want)
    cands = [c for c in tmod.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR")]
    assert len(cands) >= 8
    for cand in cands[:4] + [dict(cands[0], SPLIT_K=2)]:
        got = clone_args(base)
        tmod._run_candidate(cand, tuple(got))
        compare(got[2], want[2], f"{name} {sizes} {cand}", True)
