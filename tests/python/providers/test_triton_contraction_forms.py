"""Contractions beyond [batch,] "mk,kn->mn" (kir/contraction_forms.kir): matrix-vector, vector-matrix,
row-wise and plain dot products, outer products and integer contractions run as products and sums
(igpu-decompose-contractions); transposed results run on tensor cores with their operands swapped;
several batch labels share the batch grid axis and an operand without a batch label is broadcast;
several contracted labels are one K of their product (pointer access only); results may order their
labels freely.
Candidates against the reference provider on ragged shapes, extents of 1 and empty axes, under the
CPU interpreter; outputs poisoned before every call."""
import os

import pytest
import torch

from test_triton_examples import SHAPES, clone_args, compare, make_inputs, run_on_shapes

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "contraction_forms.kir")
DECOMPOSED = {"matvec": "row_reduction", "vecmat": "split_reduction", "rowdot": "row_reduction",
              "dot": "row_reduction", "outer": "tiles", "batched_matvec": "row_reduction",
              "int_matvec": "row_reduction", "bool_matvec": "row_reduction"}
SWAPPED = ["gemm_result_t", "bmm_result_t"]
BATCHES = ["shared_b", "shared_a", "heads_scores", "heads_mixed"]
MULTI_K = ["two_k", "head_merge"]
ORDERS = ["batch_inside", "scrambled"]
# K up to 300: the decomposed sums run over several chunks of a row on the multi-pass candidates.
FORM_SHAPES = SHAPES + [{"M": 5, "N": 3, "K": 300, "B": 3, "H": 2}, {"M": 2, "N": 2, "K": 0, "B": 2, "H": 3}]


def test_structures(mods):
    tri, _ = mods
    for name, structure in DECOMPOSED.items():
        assert tri[name].ARTIFACT["structure"] == structure, name
        assert not tri[name].ARTIFACT["family"].startswith("contraction"), name
    for name in SWAPPED + BATCHES + MULTI_K + ORDERS:
        assert tri[name].ARTIFACT["family"].startswith("contraction"), name
    for name in MULTI_K:
        assert not any(c.get("USE_TENSOR_DESCRIPTOR") for c in tri[name].CANDIDATES), name


def _check(tmod, rmod, cands, label, contraction):
    run_on_shapes(tmod, rmod, cands, FORM_SHAPES, 77, label, contraction)


@pytest.mark.parametrize("name", sorted(DECOMPOSED))
def test_decomposed_every_candidate_matches_reference(mods, name):
    tri, ref = mods
    _check(tri[name], ref[name], tri[name].CANDIDATES, name, False)


@pytest.mark.parametrize("name", SWAPPED + BATCHES + MULTI_K + ORDERS)
def test_tensor_core_forms_match_reference(mods, name):
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


def _aligned_case(tmod, rmod, sizes, seed):
    base = make_inputs(tmod.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(seed))
    base = [0.5 if not isinstance(a, torch.Tensor) else a for a in base]
    want = clone_args(base)
    rmod.launch(*want)
    return base, want


def _descriptor_candidate(tmod):
    return next(c for c in tmod.CANDIDATES if c.get("USE_TENSOR_DESCRIPTOR") and c.get("SPLIT_K", 1) == 1
                and c.get("WORKERS", 1) == 1)


@pytest.mark.parametrize("name", BATCHES)
def test_batch_forms_through_device_descriptors(mods, name):
    """Descriptor candidates without the flat form build 2-D descriptors per batch in the kernel, at the
    batch coordinates' offsets (a missing batch label adds nothing); run through `bind`."""
    tri, ref = mods
    tmod = tri[name]
    sizes = {"B": 2, "H": 3, "M": 24, "N": 40, "K": 48}
    base, want = _aligned_case(tmod, ref[name], sizes, 21)
    got = clone_args(base)
    tmod.bind(_descriptor_candidate(tmod), *got)()
    for p, g, w in zip(tmod.ARTIFACT["abi"]["parameters"], got, want):
        if p["kind"] == "view" and p["access"] == "out":
            compare(g, w, name, True)


@pytest.mark.parametrize("name,flat", [("shared_b", True), ("shared_a", True), ("heads_scores", True),
                                       ("heads_mixed", False)])
def test_batch_forms_flat_descriptors(mods, name, flat, monkeypatch):
    """Where every tensor with batch dims is batch-contiguous (several batch dims chained) and no tile
    crosses a batch, one 2-D descriptor over [batch... * rows, cols] serves every batch; an operand
    without batch dims keeps its 2-D descriptor and reads the same rows for every batch. An operand
    without only some batch dims has no flat form. TMA eligibility is forced (CPU tensors have none)."""
    tri, ref = mods
    tmod = tri[name]
    monkeypatch.setattr(tmod, "_tma_ok", lambda *a: True)
    sizes = {"B": 2, "H": 2, "M": tmod._MAXB["BM"], "N": tmod._MAXB["BN"], "K": tmod._MAXB["BK"]}
    base, want = _aligned_case(tmod, ref[name], sizes, 22)
    assert bool(tmod._flat_ok(*base)) == flat
    assert tmod._prepare(*base)[1]["FLAT"] is flat  # the kernel takes the flat branch
    if name == "shared_b":
        descs = tmod._descs(_descriptor_candidate(tmod), *base)
        assert descs["a_desc"].shape == [2 * sizes["M"], sizes["K"]] and descs["b_desc"].shape == [sizes["K"], sizes["N"]]
        # A batch stride that does not step over whole matrices has no flat form.
        a = torch.zeros(2, sizes["M"] + 8, sizes["K"], dtype=torch.float16)[:, :sizes["M"]]
        assert not tmod._flat_ok(a, *base[1:])
    if name == "heads_scores":
        q = torch.zeros(3, 2, sizes["M"], sizes["K"], dtype=torch.float16).transpose(0, 1)  # heads outermost
        assert not tmod._flat_ok(q, *base[1:])
    got = clone_args(base)
    tmod.bind(_descriptor_candidate(tmod), *got)()
    for p, g, w in zip(tmod.ARTIFACT["abi"]["parameters"], got, want):
        if p["kind"] == "view" and p["access"] == "out":
            compare(g, w, name, True)


def test_bool_contraction_is_a_parity(mods):
    """An i1 contraction sums in i1: the parity of the products (the reference wrapped to "any" before)."""
    tri, ref = mods
    a = torch.ones(2, 3, dtype=torch.bool)
    x = torch.tensor([True, True, False])
    for mod in (tri["bool_matvec"], ref["bool_matvec"]):
        y = torch.ones(2, dtype=torch.bool)
        mod.launch(a, x, y)
        assert y.tolist() == [False, False], mod.__name__  # 1 + 1 wraps to 0
