"""Row reductions that share the chunked row's passes (kir/row_passes.kir) on the CPU
interpreter: independent reductions folded in one pass, one that reads another's result in a
later pass, a strict fold beside a tree, full-size outputs stored from the first pass's chunks
(stored_relu) or after the folds. Every distinct candidate against the reference on the
small shapes (their rows resident, or split and chunked), and on rows too long to keep resident,
where every candidate takes the chunked passes."""
import os

import pytest

from test_triton_examples import REPO, SHAPES, interpreter_distinct, run_on_shapes, with_small_chunk

KIR = os.path.join(REPO, "tests", "python", "providers", "kir", "row_passes.kir")
KERNELS = ["sum_and_squares", "centered", "late_max", "tree_and_fold", "stored_relu", "stored_centered",
           "fold_and_store"]
# 3 rows of 33000 columns: next_pow2 = 65536 > 32768 elements resident, so every candidate is chunked.
LONG = [{"M": 3, "N": 33000}]


@pytest.mark.parametrize("name", KERNELS)
def test_row_passes_match_reference(name, compile_kir):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    run_on_shapes(tmod, rmod, with_small_chunk(tmod), SHAPES, 4100, name, False)
    if "fold" not in name:  # a strict fold is always chunked, one column per step: the small shapes cover it
        long_rows = [c for c in interpreter_distinct(tmod.CANDIDATES) if c["RED_N"] >= 1024]
        assert long_rows, "no candidate with a long chunk"
        run_on_shapes(tmod, rmod, long_rows, LONG, 4200, name + " long", False)
