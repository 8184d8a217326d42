"""Kernels whose canonical axes are not the anchor's own order, under the CPU interpreter against the
reference provider, on ragged shapes, extents of 1 and empty axes, outputs poisoned:

- kir/outer_axes.kir: scans along an outer axis, reductions of rank > 2 values along one axis and
  several reductions along an outer axis (a column softmax), and a lone reduction along an outer axis
  next to a store of a value as large as its input (a bias gradient; a column centering): the structure
  puts that axis innermost and reads it with its stride;
- kir/several_axes.kir: reductions over several axes of rank > 2 values (per-batch and per-channel sums
  and maxima, sums over the leading axes, over every axis, a per-batch normalization and an instance
  normalization with two reductions over the same two axes): the reduced or the kept axes form the
  block's columns, a flat column index split into their coordinates."""
import os

import pytest
import torch

from test_triton_examples import clone_args, make_inputs, run_on_shapes, with_small_chunk

KIR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir")
# file -> (kernel -> structure, shapes, seed)
SUITES = {
    "outer_axes": (
        {"col_cumsum": "row_scan", "mid_sum": "row_reduction", "batch_max": "row_reduction",
         "col_softmax": "row_reduction", "rev_excl_scan3": "row_scan", "bias_grad": "row_reduction",
         "col_center": "row_reduction", "col_norm": "row_reduction", "col_fold_relu": "row_reduction"},
        # Small: scans are slow on the interpreter. M = 70 runs several chunks on the multi-pass candidates.
        [{"M": 3, "N": 17, "B": 2}, {"M": 1, "N": 1, "B": 1}, {"M": 0, "N": 5, "B": 1},
         {"M": 4, "N": 0, "B": 2}, {"M": 70, "N": 3, "B": 2}],
        31),
    "several_axes": (
        {"batch_sum": "row_reduction", "middle_sum": "row_reduction", "leading_sum": "split_reduction",
         "batch_fold": "row_reduction", "batch_max": "row_reduction", "total3": "split_reduction",
         "channel_sum": "row_reduction", "batch_normalize": "row_reduction", "instance_norm": "row_reduction"},
        # N = 37 with a 16-element chunk puts a chunk across the boundary of two reduced rows.
        [{"B": 3, "M": 5, "N": 37, "C": 3, "H": 5, "W": 7}, {"B": 1, "M": 1, "N": 1, "C": 1, "H": 1, "W": 1},
         {"B": 2, "M": 0, "N": 4, "C": 2, "H": 0, "W": 3}, {"B": 0, "M": 3, "N": 2, "C": 0, "H": 2, "W": 2},
         {"B": 2, "M": 33, "N": 9, "C": 4, "H": 9, "W": 11}],
        41),
}
CASES = [(f, name) for f, (structures, _, _) in SUITES.items() for name in sorted(structures)]


@pytest.fixture(scope="module")
def mods(compile_kir):
    """file -> (Triton modules, reference modules)."""
    paths = {f: os.path.join(KIR_DIR, f + ".kir") for f in SUITES}
    return {f: (compile_kir(p, target="triton"), compile_kir(p, target="reference")) for f, p in paths.items()}


def test_axis_order_structures(mods):
    for f, (structures, _, _) in SUITES.items():
        for name, structure in structures.items():
            assert mods[f][0][name].ARTIFACT["structure"] == structure, name


@pytest.mark.parametrize("f,name", CASES, ids=[f"{f}-{n}" for f, n in CASES])
def test_axis_order_every_candidate_matches_reference(mods, f, name):
    tri, ref = mods[f]
    _, shapes, seed = SUITES[f]
    run_on_shapes(tri[name], ref[name], with_small_chunk(tri[name]), shapes, seed, name, False)


def test_store_split_programs_agree(mods):
    """Programs sharing a row's stores (SPLIT > 1: a normalization over the batch axis) each fold the
    whole row in the same chunked order, so every split gives the same outputs bit for bit (SPLIT 1
    keeps these rows resident: another order, checked against the reference with the suite); programs
    past the columns (16 splits of 9 chunks) store nothing."""
    m = mods["outer_axes"][0]["col_norm"]
    base = make_inputs(m.ARTIFACT["abi"], {"M": 70, "N": 5}, torch.Generator().manual_seed(7))
    outs = {}
    for split in (2, 4, 16):
        args = clone_args(base)
        m.bind(dict(m.CANDIDATES[0], OWN_M=4, RED_N=8, SPLIT=split, NUM_WARPS=1), *args)()
        outs[split] = args[1:4]
    for split, got in outs.items():
        for g, w in zip(got, outs[2]):
            assert torch.equal(g, w), split
    assert not any(torch.isnan(o).any() for o in outs[2])


def test_offsets_stay_32_bit_while_they_fit(mods):
    """32-bit index arithmetic while every element's offset and the flat indices fit (lanes past an
    extent are masked; their offsets may wrap): an NCHW batch of 64 x 256 x 56 x 56 (outer stride
    802816) stays 32-bit; a span or a flat extent within a tile of 2^31 needs 64 bits."""
    m = mods["several_axes"][0]["channel_sum"]
    meta = lambda shape, strides: torch.empty_strided(shape, strides, device="meta")  # noqa: E731
    x, y = meta((64, 256, 56, 56), (802816, 3136, 56, 1)), meta((256,), (1,))
    assert not m._needs_idx64(256, 64 * 56 * 56, x, y)
    assert m._needs_idx64(256, 64 * 56 * 56, meta((2, 256, 56, 56), (2**31 - 2**16, 3136, 56, 1)), y)
    assert m._needs_idx64(256, 2**31 - 1000, x, y)
    assert m._needs_idx64(2**31 - 1000, 1, x, y)


# Row structures whose columns are several axes, on the chunked path (OWN_M * COVER above 32768) with
# 16-element chunks that start at every offset of the axes (at least 600 columns in each kernel): the
# split candidates above cover one chunk from column 0 only, the resident path every other candidate.
SEVERAL_COLUMN_AXES = ["batch_sum", "middle_sum", "batch_max", "channel_sum", "batch_normalize", "instance_norm"]


@pytest.mark.parametrize("name", SEVERAL_COLUMN_AXES)
def test_several_column_axes_in_chunks(mods, name):
    tri, ref = mods["several_axes"]
    m = tri[name]
    assert m.ARTIFACT["structure"] == "row_reduction"
    cand = dict(m.CANDIDATES[0], OWN_M=64, RED_N=16, NUM_WARPS=4)
    sizes = {"B": 3, "M": 13, "N": 200, "C": 2, "H": 23, "W": 29}
    run_on_shapes(m, ref[name], [cand], [sizes], 53, name, False)
