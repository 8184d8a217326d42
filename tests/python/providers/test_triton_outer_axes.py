"""Scans along an outer axis, reductions of rank > 2 values along one axis and several reductions along
an outer axis (a column softmax) (kir/outer_axes.kir): the structure puts that axis innermost and reads
it with its stride. Candidates against the reference provider under the CPU interpreter, on ragged
shapes, extents of 1 and empty axes, outputs poisoned."""
import os

import pytest

from test_triton_examples import run_on_shapes, sampled_candidates

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "outer_axes.kir")
STRUCTURES = {"col_cumsum": "row_scan", "mid_sum": "row_reduction", "batch_max": "row_reduction",
              "col_softmax": "row_reduction", "rev_excl_scan3": "row_scan"}
# Small: scans are slow on the interpreter. M = 70 runs several chunks on the multi-pass candidates.
AXES_SHAPES = [{"M": 3, "N": 17, "B": 2}, {"M": 1, "N": 1, "B": 1}, {"M": 0, "N": 5, "B": 1},
               {"M": 4, "N": 0, "B": 2}, {"M": 70, "N": 3, "B": 2}]


@pytest.fixture(scope="module")
def mods(compile_kir):
    return compile_kir(KIR, target="triton"), compile_kir(KIR, target="reference")


def test_outer_axis_structures(mods):
    tri, _ = mods
    for name, structure in STRUCTURES.items():
        assert tri[name].ARTIFACT["structure"] == structure, name


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_outer_axis_every_candidate_matches_reference(mods, name):
    tri, ref = mods
    run_on_shapes(tri[name], ref[name], sampled_candidates(tri[name]), AXES_SHAPES, 31, name, False)
