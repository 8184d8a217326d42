"""Differential testing with random kernels (random_kernels.py) on the CPU interpreter.

Every random kernel either compiles for Triton or is refused with a located `unsupported:`
diagnostic (exit 1, never a crash); each one that compiles runs with several candidates on ragged
shapes (extents of 1 and an empty axis included), outputs poisoned, and must match the reference
provider. INTENT_RANDOM_KERNELS=N runs N seeds (default 48); INTENT_RANDOM_KERNELS_FROM shifts them.
"""
import os
import re

import pytest
import torch

from conftest import CompileError, compile_kir_files
from random_kernels import generate
from test_triton_examples import clone_args, make_inputs, run_candidates

FIRST = int(os.environ.get("INTENT_RANDOM_KERNELS_FROM", "0"))
SEEDS = range(FIRST, FIRST + int(os.environ.get("INTENT_RANDOM_KERNELS", "48")))
SHAPES = [{"M": 5, "N": 7}, {"M": 3, "N": 70}, {"M": 1, "N": 1}, {"M": 4, "N": 0}, {"M": 0, "N": 3}]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernel_matches_reference(seed, tmp_path):
    text = generate(seed)
    try:
        tri = compile_kir_files(text, "triton", workdir=str(tmp_path))["rk"]
    except CompileError as e:
        msg = str(e)
        assert "intentc failed (1)" in msg, msg
        assert re.search(r"input-\w+\.kir:\d+:\d+: error: unsupported: ", msg), msg
        pytest.skip("not realized by the Triton provider: " + msg.splitlines()[-2][:120])
    ref = compile_kir_files(text, "reference", workdir=str(tmp_path))["rk"]
    abi = tri.ARTIFACT["abi"]
    cands = tri.CANDIDATES
    picked = [cands[0], cands[len(cands) // 2], cands[-1]] if len(cands) > 2 else cands
    for i, sizes in enumerate(SHAPES):
        base = make_inputs(abi, sizes, torch.Generator().manual_seed(seed * 31 + i))
        want = clone_args(base)
        ref.launch(*want)
        exact = clone_args(base)
        ref.launch(*exact, compute_dtype=torch.float64)
        run_candidates(tri, picked, base, want, f"seed {seed} {sizes}\n{text}\n", False, exact)


@pytest.mark.parametrize("name", ["two_reductions", "reduction_and_pointwise"])
def test_unrelated_computations_match_reference(name, compile_kir):
    """Computations the dataflow does not connect (placed by their extents; tests/GPU/unrelated-values.kir)."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "GPU", "unrelated-values.kir")
    tri = compile_kir(path, target="triton")[name]
    ref = compile_kir(path, target="reference")[name]
    for i, sizes in enumerate(SHAPES):
        base = make_inputs(tri.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(i))
        want = clone_args(base)
        ref.launch(*want)
        run_candidates(tri, tri.CANDIDATES, base, want, f"{name} {sizes}", False)


@pytest.mark.parametrize("name", ["dead_values", "square_broadcast_stored", "atomic_sum_and_full_row",
                                  "vectors_beside_matrix"])
def test_structure_edges_match_reference(name, compile_kir):
    """tests/python/providers/kir/structure_edges.kir: every candidate on ragged and empty shapes."""
    path = os.path.join(os.path.dirname(__file__), "kir", "structure_edges.kir")
    tri = compile_kir(path, target="triton")[name]
    ref = compile_kir(path, target="reference")[name]
    for i, sizes in enumerate(SHAPES):
        sizes = {"M": sizes["M"], "N": sizes["N"] if name != "square_broadcast_stored" else sizes["M"]}
        base = make_inputs(tri.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(i))
        want = clone_args(base)
        ref.launch(*want)
        run_candidates(tri, tri.CANDIDATES, base, want, f"{name} {sizes}", False)


@pytest.mark.parametrize("name", ["max_sum_shift", "f16_min_and_copy", "argmax_and_neg", "cumsum_and_square",
                                  "exclusive_cumsum", "widened_max_sum", "int_to_float_max"])
def test_masked_lane_claims_match_reference(name, compile_kir):
    """tests/python/providers/kir/masked_lanes.kir: every candidate, ragged and empty shapes, with
    non-finite values in the data (a claimed lane must never leak into a result)."""
    path = os.path.join(os.path.dirname(__file__), "kir", "masked_lanes.kir")
    tri = compile_kir(path, target="triton")[name]
    ref = compile_kir(path, target="reference")[name]
    for i, sizes in enumerate(SHAPES + [{"M": 3, "N": 33}]):
        base = make_inputs(tri.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(i))
        if i == 1 and base[0].numel():
            base[0].view(-1)[:3] = torch.tensor([float("inf"), float("-inf"), float("nan")]).to(base[0].dtype)
        if i in (0, len(SHAPES)):  # rows entirely below / above zero: a lane padded with 0 shows
            base[0] += -100 if i == 0 else 100
        want = clone_args(base)
        ref.launch(*want)
        run_candidates(tri, tri.CANDIDATES, base, want, f"{name} {sizes}", False)
