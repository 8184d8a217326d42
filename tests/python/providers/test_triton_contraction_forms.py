"""Contractions beyond [batch,] "mk,kn->mn" (kir/contraction_forms.kir): matrix-vector, vector-matrix,
row-wise and plain dot products, outer products and integer contractions run as products and sums
(igpu-decompose-contractions); transposed results run on tensor cores with their operands swapped.
Every candidate against the reference provider on ragged shapes, extents of 1 and empty axes, under
the CPU interpreter; outputs poisoned before every call."""
import os

import pytest
import torch

from test_triton_examples import SHAPES, make_inputs, clone_args, run_candidates

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "contraction_forms.kir")
DECOMPOSED = {"matvec": "row_reduction", "vecmat": "split_reduction", "rowdot": "row_reduction",
              "dot": "row_reduction", "outer": "tiles", "batched_matvec": "row_reduction",
              "int_matvec": "row_reduction"}
SWAPPED = ["gemm_result_t", "bmm_result_t"]
# K up to 300: the decomposed sums run over several chunks of a row on the multi-pass candidates.
FORM_SHAPES = SHAPES + [{"M": 5, "N": 3, "K": 300, "B": 3}, {"M": 2, "N": 2, "K": 0, "B": 2}]


@pytest.fixture(scope="module")
def mods(compile_kir):
    return compile_kir(KIR, target="triton"), compile_kir(KIR, target="reference")


def test_structures(mods):
    tri, _ = mods
    for name, structure in DECOMPOSED.items():
        assert tri[name].ARTIFACT["structure"] == structure, name
        assert not tri[name].ARTIFACT["family"].startswith("contraction"), name
    for name in SWAPPED:
        assert tri[name].ARTIFACT["family"].startswith("contraction"), name


def _check(tmod, rmod, cands, label, contraction):
    for i, sizes in enumerate(FORM_SHAPES):
        base = make_inputs(tmod.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(77 + i))
        want = clone_args(base)
        rmod.launch(*want)
        run_candidates(tmod, cands, base, want, f"{label} {sizes}", contraction)


@pytest.mark.parametrize("name", sorted(DECOMPOSED))
def test_decomposed_every_candidate_matches_reference(mods, name):
    tri, ref = mods
    _check(tri[name], ref[name], tri[name].CANDIDATES, name, False)


@pytest.mark.parametrize("name", SWAPPED)
def test_swapped_operands_match_reference(mods, name):
    tri, ref = mods
    tmod = tri[name]
    cands = [c for c in tmod.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR")]
    _check(tmod, ref[name], cands[:2] + [dict(cands[0], SPLIT_K=2)], name, True)


def test_launch_autotunes_a_decomposed_form(mods):
    """Through launch(): the tuner's trials leave the caller's output as the winner wrote it."""
    tri, ref = mods
    base = make_inputs(tri["matvec"].ARTIFACT["abi"], {"M": 33, "K": 70}, torch.Generator().manual_seed(5))
    want = clone_args(base)
    ref["matvec"].launch(*want)
    got = clone_args(base)
    tri["matvec"].launch(*got)
    assert (got[3].double() - want[3].double()).abs().max().item() <= 2e-3 * want[3].double().abs().max().item()
