"""Reductions over several axes of rank > 2 values (kir/several_axes.kir): per-batch and per-channel
sums and maxima, sums over the leading axes, over every axis, a per-batch normalization and an instance
normalization (two reductions over the same two axes). The
reduced or the kept axes form the block's columns, a flat column index split into their coordinates.
Candidates against the reference provider under the CPU interpreter, on ragged shapes, extents of 1
and empty axes, outputs poisoned."""
import os

import pytest

from test_triton_examples import run_on_shapes

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "several_axes.kir")
STRUCTURES = {"batch_sum": "row_reduction", "middle_sum": "row_reduction", "leading_sum": "split_reduction",
              "batch_fold": "row_reduction", "batch_max": "row_reduction", "total3": "split_reduction",
              "channel_sum": "row_reduction", "batch_normalize": "row_reduction",
              "instance_norm": "row_reduction"}
# N = 37 with a 16-element chunk puts a chunk across the boundary of two reduced rows.
SHAPES = [{"B": 3, "M": 5, "N": 37, "C": 3, "H": 5, "W": 7}, {"B": 1, "M": 1, "N": 1, "C": 1, "H": 1, "W": 1},
          {"B": 2, "M": 0, "N": 4, "C": 2, "H": 0, "W": 3}, {"B": 0, "M": 3, "N": 2, "C": 0, "H": 2, "W": 2},
          {"B": 2, "M": 33, "N": 9, "C": 4, "H": 9, "W": 11}]


@pytest.fixture(scope="module")
def mods(compile_kir):
    return compile_kir(KIR, target="triton"), compile_kir(KIR, target="reference")


def test_several_axes_structures(mods):
    tri, _ = mods
    for name, structure in STRUCTURES.items():
        assert tri[name].ARTIFACT["structure"] == structure, name


@pytest.mark.parametrize("name", sorted(STRUCTURES))
def test_several_axes_every_candidate_matches_reference(mods, name):
    tri, ref = mods
    tmod = tri[name]
    # The first candidates and the last (the tables end with the split rows), and a
    # 16-element chunk: chunks cross the boundaries between the column axes' rows.
    cands = tmod.CANDIDATES[:2] + tmod.CANDIDATES[-2:]
    chunk = "RED_N" if "RED_N" in cands[0] else "OWN_N"
    if cands[0].get("SPLIT", 1) == 1:
        cands.append(dict(cands[0], **{chunk: 16}))
    run_on_shapes(tmod, ref[name], cands, SHAPES, 41, name, False)
