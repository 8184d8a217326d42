"""CUDA launches at most 65535 programs along grid dimensions 1 and 2 (2^31 - 1 along 0), so every
count that grows with the problem (column tiles, batches) is a factor of dimension 0. The grid of every
candidate at extents past that limit, computed by the launcher without launching (the interpreter does
not enforce the limit; scripts/gpu launches these shapes on the GPU)."""
import json
import os

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "..", "examples")
# One past the limit of grid dimensions 1 and 2.
OVER = 65536

GRID_KIR = os.path.join(HERE, "kir", "grid_limits.kir")


def assert_launchable(grid, label):
    g = tuple(grid) + (1,) * (3 - len(grid))
    assert len(g) == 3 and 1 <= g[0] < 2**31 and 1 <= g[1] <= 65535 and 1 <= g[2] <= 65535, (label, grid)


def assert_every_candidate_launchable(mod, args):
    _, extra, grid, _, empty, _ = mod._prepare(*args)
    assert not empty
    for cand in mod.CANDIDATES:
        assert_launchable(grid(dict(mod._meta(cand), **extra)), cand)
    return grid, extra


def test_long_vector(compile_kir):
    """A 1-D pointwise kernel over 2^26 elements: 2^18 column tiles of 256 (the 2-D grid of
    [row tiles, column tiles] put them on dimension 1)."""
    mod = compile_kir(GRID_KIR, target="triton")["add1d"]
    n = 2**26 + 3
    one = torch.ones(1, dtype=torch.int8).expand(n)
    grid, extra = assert_every_candidate_launchable(mod, (one, one, torch.empty(n, dtype=torch.int8)))
    assert grid(dict(extra, OWN_M=1, OWN_N=256)) == (-(-n // 256),)


def test_many_matrices(compile_kir):
    """A batched GEMM of 70000 small products: the batch times the tiles on dimension 0, every
    candidate (persistent ones stride over all (batch, tile) work items)."""
    mod = compile_kir(os.path.join(EXAMPLES, "batched_gemm.kir"), target="triton")["batched_gemm"]
    b = OVER + 4464
    a = torch.empty(b, 3, 5, dtype=torch.float16)
    grid, extra = assert_every_candidate_launchable(mod, (a, torch.empty(b, 5, 2, dtype=torch.float16),
                                                          torch.empty(b, 3, 2, dtype=torch.float16)))
    assert grid(dict(extra, BM=16, BN=16, WORKERS=1, SPLIT_K=2)) == (b, 1, 2)
    assert grid(dict(extra, BM=16, BN=16, WORKERS=132, SPLIT_K=1)) == (132, 1, 1)


def test_many_heads(compile_kir):
    """Attention over 700 x 100 heads: the heads times the (m, d) tiles on dimension 0."""
    mod = compile_kir(os.path.join(EXAMPLES, "attention.kir"), target="triton")["attention"]
    q = torch.empty(700, 100, 2, 8, dtype=torch.float16)
    grid, extra = assert_every_candidate_launchable(mod, (q, q.clone(), q.clone(), torch.empty_like(q), 0.5))
    assert grid(dict(extra, BM=16)) == (70000,)


class Recorder:
    """Stands in for a JIT function: records the grid of each launch and launches nothing."""

    def __init__(self):
        self.grids = []

    def __getitem__(self, grid):
        self.grids.append(grid)
        return lambda *a, **k: None


def test_many_prologues(compile_kir, monkeypatch):
    """A prologue run once per operand (PROLOGUE_ONCE) over 70000 batches: its own kernel's grid."""
    mod = compile_kir(os.path.join(HERE, "kir", "gemm_prologue.kir"), target="triton")["bmm_cast_b"]
    b = OVER + 1
    args = (torch.empty(b, 2, 3, dtype=torch.float16), torch.empty(b, 3, 2), torch.empty(b, 2, 2))
    spy = Recorder()
    monkeypatch.setattr(mod, "bmm_cast_b_prologue_b", spy)
    kernel_args = mod._prepare(*args)[0]
    mod._once_run(kernel_args, mod._once_alloc(*args))
    assert spy.grids == [(b,)]
    assert_launchable(spy.grids[0], "prologue")


@pytest.mark.parametrize("split", [1, 3])
def test_flattened_tiles_cover_every_element(compile_kir, split):
    """Under the interpreter: the flattened tile index reaches every (row tile, column tile),
    row tiles fastest, with ragged extents on both axes."""
    text = open(GRID_KIR).read().replace("[N]", "[M, N]").replace("i8", "f32")
    mod = compile_kir(text, target="triton")["add1d"]
    m, n = 5 * split, 37
    x, y = torch.randn(m, n), torch.randn(m, n)
    z = torch.full((m, n), float("nan"))
    args, extra, grid, _, _, _ = mod._prepare(x, y, z)
    meta = dict(extra, OWN_M=2, OWN_N=8)
    assert grid(meta) == (-(-m // 2) * -(-n // 8),)
    mod.add1d_kernel[grid(meta)](*args, **meta)
    torch.testing.assert_close(z, x + y, rtol=0, atol=0)


# Tiles of one element over 2^31 + 3 of them: more programs than dimension 0 launches.
PAST = 2**31 + 3
ONE_PER_PROGRAM = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]
WIDE = [1, 1024, 1, 1, 1, 1, 1, 4, 3, 1, 0]
TOO_MANY = ("the grid needs 2147483651 programs along dimension 0, more than CUDA launches (2147483647): "
            "the candidate's tiles are too small for these extents")


def add1d_with_rows(compile_kir, tmp_path, rows):
    cfg = tmp_path / "rows.json"
    cfg.write_text(json.dumps({"triton": {"pointwise_narrow": rows}}))
    return compile_kir(GRID_KIR, target="triton", extra_args=("--tuning-config", str(cfg)))["add1d"]


def past_dimension_0(n=PAST):
    """(x, y, z) of add1d with n elements: broadcast inputs and an output never touched (nothing is
    launched on them), so no memory is committed."""
    one = torch.ones(1, dtype=torch.int8).expand(n)
    return one, one, torch.empty(n, dtype=torch.int8)


def test_a_grid_past_dimension_0_is_named_before_any_launch(compile_kir, tmp_path, monkeypatch):
    mod = add1d_with_rows(compile_kir, tmp_path, [ONE_PER_PROGRAM, WIDE])
    tiny, wide = mod.CANDIDATES
    args = past_dimension_0()
    spy = Recorder()
    monkeypatch.setattr(mod, "add1d_kernel", spy)
    with pytest.raises(ValueError) as bound:
        mod.bind(tiny, *args)
    with pytest.raises(ValueError) as run:
        mod._run_candidate(tiny, args)
    assert str(bound.value) == str(run.value) == TOO_MANY
    mod.bind(wide, *args)()
    assert spy.grids == [(-(-PAST // 1024),)]


def test_the_autotuned_launch_keeps_the_candidates_whose_grid_fits(compile_kir, tmp_path, monkeypatch):
    monkeypatch.setenv("INTENT_RUNTIME", "0")
    mod = add1d_with_rows(compile_kir, tmp_path, [ONE_PER_PROGRAM, WIDE])
    spy = Recorder()
    monkeypatch.setattr(mod, "add1d_kernel", spy)
    mod.launch(*past_dimension_0())
    assert spy.grids == [(-(-PAST // 1024),)]
    (tmp_path / "tiny").mkdir()
    only_tiny = add1d_with_rows(compile_kir, tmp_path / "tiny", [ONE_PER_PROGRAM])
    with pytest.raises(ValueError) as e:
        only_tiny.launch(*past_dimension_0())
    assert str(e.value) == TOO_MANY


def test_the_autotuned_launch_finds_the_eligible_candidates_once_per_set_of_arguments(compile_kir, tmp_path,
                                                                                      monkeypatch):
    """Every candidate's grid is evaluated (about 100 us of Python) only when the arguments change."""
    monkeypatch.setenv("INTENT_RUNTIME", "0")
    mod = add1d_with_rows(compile_kir, tmp_path, [ONE_PER_PROGRAM, WIDE])
    spy = Recorder()
    monkeypatch.setattr(mod, "add1d_kernel", spy)
    checked = []
    real = mod._grid_failure
    monkeypatch.setattr(mod, "_grid_failure", lambda grid, cand, extra: checked.append(cand) or real(grid, cand, extra))
    args = past_dimension_0()
    mod.launch(*args)
    mod.launch(*args)
    assert len(checked) == 2
    mod.launch(*past_dimension_0(PAST + 1024))
    assert len(checked) == 4
    assert spy.grids == [(-(-PAST // 1024),)] * 2 + [(-(-(PAST + 1024) // 1024),)]


def test_the_runtime_tuner_names_the_grid_it_cannot_launch(compile_kir, tmp_path, monkeypatch):
    """The trial of the candidate whose grid does not fit fails with the reason (kept with the
    timings); the other one wins and is the only one launched."""
    monkeypatch.setenv("INTENT_WINNERS", "file")
    monkeypatch.setenv("INTENT_WINNERS_FILE", str(tmp_path / "winners.json"))
    monkeypatch.delenv("INTENT_RUNTIME", raising=False)
    mod = add1d_with_rows(compile_kir, tmp_path, [ONE_PER_PROGRAM, WIDE])
    spy = Recorder()
    monkeypatch.setattr(mod, "add1d_kernel", spy)
    mod.launch(*past_dimension_0())
    timings = mod._tuned().last_timings
    assert [(t["status"], t["message"]) for t in timings] == [("failed", "ValueError: " + TOO_MANY), ("ok", None)]
    assert set(spy.grids) == {(-(-PAST // 1024),)}


def test_narrowed_candidates_get_their_own_autotuner(compile_kir, tmp_path):
    """Triton's autotuner keeps a winner per key, and eligibility is not in the key: the launcher
    never narrows KERNEL's configs in place (a later launch could reuse a winner it cannot run)."""
    mod = add1d_with_rows(compile_kir, tmp_path, [ONE_PER_PROGRAM, WIDE, [1, 2048, 1, 1, 1, 1, 1, 4, 3, 1, 0]])
    assert mod._autotuned(list(mod.CANDIDATES)) is mod.KERNEL
    narrowed = mod._autotuned(mod.CANDIDATES[1:])
    assert narrowed is not mod.KERNEL and mod._autotuned(mod.CANDIDATES[1:]) is narrowed
    assert [c.kwargs["OWN_N"] for c in narrowed.configs] == [1024, 2048]
    assert len(mod.KERNEL.configs) == 3


def test_a_gemm_with_more_tiles_than_dimension_0_launches(compile_kir):
    """2^31 one-tile products: one program per tile cannot launch (its grid was once capped at 2^31 - 1,
    silently skipping the last tile); persistent programs stride over all of them."""
    mod = compile_kir(os.path.join(EXAMPLES, "batched_gemm.kir"), target="triton")["batched_gemm"]
    b = 2**31
    one = torch.empty(1, 1, 1, dtype=torch.float16).expand(b, 1, 1)
    _, extra, grid, _, _, _ = mod._prepare(one, one, torch.empty(b, 1, 1, dtype=torch.float16))
    with pytest.raises(ValueError) as e:
        grid(dict(extra, BM=16, BN=16, WORKERS=1, SPLIT_K=1))
    assert str(e.value).startswith("the grid needs 2147483648 programs along dimension 0,")
    assert grid(dict(extra, BM=16, BN=16, WORKERS=132, SPLIT_K=1)) == (132, 1, 1)
