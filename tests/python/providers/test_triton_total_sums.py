"""Total sums of element types without an atomic merge (f16, f64, i64) on the CPU
interpreter against the reference provider: one program reduces everything and stores
the scalar through the rank-0 output view. The sum of a vector (a row reduction of one row)
stores its row block through the rank-0 view, on every candidate (whole row, chunked, split)."""
import os

import pytest
import torch

from test_triton_examples import clone_args, compare, interpreter_distinct, make_inputs

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "total_sums.kir")


@pytest.mark.parametrize("name", ["total_f16", "total_f64", "total_i64"])
@pytest.mark.parametrize("sizes", [{"M": 37, "N": 45}, {"M": 1, "N": 1}, {"M": 3, "N": 0}])
def test_total_sum_matches_reference(compile_kir, name, sizes):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    base = make_inputs(tmod.ARTIFACT["abi"], sizes, torch.Generator().manual_seed(5))
    want = clone_args(base)
    rmod.launch(*want)
    for cand in interpreter_distinct(tmod.CANDIDATES):
        got = clone_args(base)
        tmod._run_candidate(cand, tuple(got))
        compare(got[1], want[1], f"{name} {sizes} {cand}", False)


@pytest.mark.parametrize("n", [45, 1, 0, 9000])
def test_vector_total_every_candidate(compile_kir, n):
    tmod = compile_kir(KIR, target="triton")["vector_total"]
    rmod = compile_kir(KIR, target="reference")["vector_total"]
    assert tmod.ARTIFACT["structure"] == "row_reduction"
    base = make_inputs(tmod.ARTIFACT["abi"], {"N": n}, torch.Generator().manual_seed(6))
    want = clone_args(base)
    rmod.launch(*want)
    for cand in tmod.CANDIDATES:
        got = clone_args(base)
        tmod._run_candidate(cand, tuple(got))
        compare(got[1], want[1], f"vector_total {n} {cand}", False)


def test_vector_total_many_splits(compile_kir):
    """A long vector split across more programs than the merge reads at once (563 partials of
    16 elements, a split of up to 1024 as a profile row may now ask): the last program to arrive
    adds them in split order."""
    tmod = compile_kir(KIR, target="triton")["vector_total"]
    rmod = compile_kir(KIR, target="reference")["vector_total"]
    base = make_inputs(tmod.ARTIFACT["abi"], {"N": 9000}, torch.Generator().manual_seed(7))
    want = clone_args(base)
    rmod.launch(*want)
    cand = dict(next(c for c in tmod.CANDIDATES if c["SPLIT"] > 1), SPLIT=1024, RED_N=16)
    got = clone_args(base)
    tmod._run_candidate(cand, tuple(got))
    compare(got[1], want[1], f"vector_total 9000 {cand}", False)
