"""Two contractions with row-local ops between them (attention: the region_contraction structure)
under the CPU interpreter against the reference provider, outputs poisoned: 16-bit and f32 operands,
keys stored transposed, a row statistic stored beside the output, a bias loaded inside the region, a
prologue on the values and an epilogue after the second contraction; ragged extents, extents of 1, no
keys, no rows, no output columns beside a stored row statistic; several K chunks of the scores (E > 128) and several column tiles (D > 256); a region
without reductions (elementwise ops only between the contractions)."""
import os

import pytest

from test_triton_examples import reference_case, run_candidates

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "region_contraction.kir")
# Small tiles cross many key chunks and row tiles; the first shipped row is what a GPU would run first.
SMALL = {"BM": 16, "BN": 16, "NUM_STAGES": 1, "NUM_WARPS": 4}
CASES = {
    "attn_f16": [{"B": 2, "H": 2, "M": 19, "N": 37, "E": 16, "D": 24}, {"B": 1, "H": 1, "M": 1, "N": 1, "E": 16, "D": 16},
                 {"B": 1, "H": 2, "M": 5, "N": 0, "E": 16, "D": 16}, {"B": 1, "H": 1, "M": 0, "N": 3, "E": 16, "D": 16},
                 {"B": 1, "H": 3, "M": 33, "N": 70, "E": 40, "D": 8}],
    "attn_bf16_lse": [{"B": 2, "M": 21, "N": 45, "E": 24, "D": 40}, {"B": 1, "M": 1, "N": 1, "E": 1, "D": 1},
                      {"B": 2, "M": 3, "N": 0, "E": 8, "D": 16},
                      # no output columns: every row tile still stores its log-sum-exp
                      {"B": 2, "M": 37, "N": 5, "E": 8, "D": 0}],
    "two_products": [{"M": 21, "N": 35, "E": 24, "D": 40}, {"M": 1, "N": 0, "E": 16, "D": 16}],
    "attn_f32_bias": [{"M": 9, "N": 21, "E": 150, "D": 20}, {"M": 4, "N": 3, "E": 8, "D": 300},
                      {"M": 1, "N": 1, "E": 1, "D": 1}, {"M": 3, "N": 0, "E": 5, "D": 7}],
}


def test_region_structure_and_candidates(mods):
    tri, _ = mods
    for name in CASES:
        m = tri[name]
        assert m.ARTIFACT["structure"] == "region_contraction", name
        assert m.FAMILY == "region_contraction"
        assert m.CANDIDATES and all({"BM", "BN", "NUM_STAGES", "NUM_WARPS"} <= set(c) for c in m.CANDIDATES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_region_candidates_match_reference(mods, name):
    tri, ref = mods
    for i, sizes in enumerate(CASES[name]):
        base, want = reference_case(tri[name], ref[name], sizes, 71 + i, 0.5)
        cands = [SMALL] if sizes.get("M", 1) <= 1 or i else [SMALL, tri[name].CANDIDATES[0]]
        run_candidates(tri[name], cands, base, want, f"{name} {sizes}", False)


def test_region_launch_bound_tiles(mods):
    """The output's columns (BD) and the scores' K step (KC) are bound at launch from the extents:
    powers of two within [16, 256] and [16, 128]; one K chunk (KONE) loads the rows' operand once."""
    import torch

    m = mods[0]["attn_f32_bias"]
    empty = lambda *shape: torch.empty(shape)  # noqa: E731
    for (E, D), (bd, kc, kone) in {(8, 300): (256, 16, True), (150, 20): (32, 128, False),
                                   (128, 64): (64, 128, True), (1, 0): (16, 16, True)}.items():
        args = (empty(4, E), empty(3, E), empty(4, 3), empty(3, D), empty(D), empty(4, D))
        _, extra, grid, _, _, _ = m._prepare(*args)
        assert (extra["BD"], extra["KC"], extra["KONE"]) == (bd, kc, kone), (E, D)
        assert grid(dict(extra, BM=16))[0] == max(1, -(-4 // 16) * -(-D // bd)), (E, D)
