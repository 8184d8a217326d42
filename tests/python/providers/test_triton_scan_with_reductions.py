"""Row reductions next to scans (kir/scan_with_reductions.kir) on the CPU interpreter: the
reductions fold first over the whole row, then each segment is scanned by every scan in order,
reading the reductions' results and the earlier scans' segments. Every
distinct candidate (and a 16-column segment, so that the folds take several chunks and the scan
carries its prefix) against the reference on ragged, single-element and empty shapes."""
import os

import pytest

from test_triton_examples import REPO, SHAPES, run_on_shapes, with_small_chunk

KIR = os.path.join(REPO, "tests", "python", "providers", "kir", "scan_with_reductions.kir")
KERNELS = ["softmax_cdf", "running_share", "shifted_suffix", "strict_sum_and_cumsum", "sum_and_square_prefix",
           "prefix_of_prefix", "suffix_max_of_sums"]


@pytest.mark.parametrize("name", KERNELS)
def test_scan_with_reductions_matches_reference(name, compile_kir):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    assert tmod.ARTIFACT["family"] == "scan"
    # Long f16 scans: the reference rounds to f16 at every step (1.3e-2 from the f64 result at 2x1000
    # for suffix_max_of_sums, where ours is 4e-4), so outputs are also judged against the f64 result.
    run_on_shapes(tmod, rmod, with_small_chunk(tmod), SHAPES + [{"M": 2, "N": 1000}], 4300, name, False,
                  conditioned=True)
