"""Innermost-axis rows shared by their stores (SPLIT > 1 on a softmax, family region_reduction): every
program of a row folds the whole row in the same chunked order, then stores its share of the columns.
Under the CPU interpreter, against the reference provider on ragged shapes (a row of 1000 over 16-column
chunks: 63 chunks split 2, 4 and 16 ways, the last share short; more programs than chunks; one column;
empty axes), outputs poisoned; and every split gives the same outputs bit for bit (SPLIT 1 keeps a row
this short resident, another order: it is checked against the reference only).
Layernorm and rmsnorm (family reduction, whose table's SPLIT rows are merge shapes) keep SPLIT 1."""
import os

import pytest
import torch

from test_triton_examples import REPO, clone_args, make_inputs, run_candidates

SHAPES = [{"M": 3, "N": 1000}, {"M": 1, "N": 40}, {"M": 5, "N": 1}, {"M": 0, "N": 7}, {"M": 2, "N": 0}]


def example(compile_kir, name, target):
    return compile_kir(os.path.join(REPO, "examples", name + ".kir"), target=target)[name]


@pytest.fixture(scope="module")
def softmax(compile_kir):
    """(Triton module, reference module) of examples/softmax.kir."""
    return example(compile_kir, "softmax", "triton"), example(compile_kir, "softmax", "reference")


def split_candidates(tmod):
    """The first candidate chunked by 16 columns, one and two rows per program, SPLIT 1, 2, 4 and 16."""
    base = dict(tmod.CANDIDATES[0], RED_N=16)
    return [dict(base, OWN_M=m, SPLIT=s) for m in (1, 2) for s in (1, 2, 4, 16)]


def test_default_rows_share_long_rows(softmax, compile_kir):
    assert {c["SPLIT"] for c in softmax[0].CANDIDATES} == {1, 4, 8, 16}
    for k in ("layernorm", "rmsnorm"):
        assert {c["SPLIT"] for c in example(compile_kir, k, "triton").CANDIDATES} == {1}, k


def test_store_split_matches_reference(softmax):
    tmod, rmod = softmax
    for i, sizes in enumerate(SHAPES):
        base = make_inputs(tmod.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(90 + i))
        want = clone_args(base)
        rmod.launch(*want)
        run_candidates(tmod, split_candidates(tmod), base, want, f"softmax {sizes}", False)


def test_store_split_programs_agree(softmax):
    tmod = softmax[0]
    abi = tmod.ARTIFACT["abi"]
    written = [i for i, p in enumerate(abi["parameters"]) if p["kind"] == "view" and p["access"] != "in"]
    base = make_inputs(abi, {"M": 3, "N": 1000}, torch.Generator().manual_seed(5))
    outs = {}
    for cand in split_candidates(tmod):
        if cand["SPLIT"] == 1:
            continue
        got = clone_args(base)
        tmod._run_candidate(cand, tuple(got))
        outs[(cand["OWN_M"], cand["SPLIT"])] = [got[i] for i in written]
    for (own_m, split), got in outs.items():
        for g, w in zip(got, outs[(own_m, 2)]):
            assert not torch.isnan(g).any(), (own_m, split)
            assert torch.equal(g, w), (own_m, split)
