"""Split reductions (SPLIT > 1 programs per row, per column tile or per total) on the CPU
interpreter: each program writes its partial sums to the workspace and counts itself in on
its group's arrival counter; the last to arrive adds the partials in split order and stores.
One kernel launch per call and no zeroing of the output first: a poisoned output must come
back exact, and the counters must be back at zero after every run (else the next run's
last arriver never sees SPLIT - 1 and leaves the output unwritten)."""
import math
import os

import pytest
import torch

from test_triton_examples import REPO, clone_args, compare, make_inputs

KIR = os.path.join(REPO, "tests", "python", "providers", "kir", "split_merge.kir")
EXAMPLES = [(os.path.join(REPO, "examples", n + ".kir"), n) for n in ("row_sum", "col_sum", "total_sum")]
CASES = EXAMPLES + [(KIR, n) for n in ("row_sums_f32_i32", "sum_and_row_copy", "col_sum_i32", "total_sum_seeded",
                                        "row_max_min", "col_min_bf16", "row_mean_norm", "col_mean_var",
                                        "col_max_and_scaled", "total_mean")]

# Ragged extents: with 150 columns and RED_N 16, SPLIT 5 gives shares of 32 whose last
# starts past the end (it adds only identities).
SIZES = [{"M": 19, "N": 150}, {"M": 150, "N": 9}]


def split_candidates(tmod):
    """Splits of the smallest declared tiles (the interpreter runs large tiles slowly)."""
    assert any(c.get("SPLIT", 1) > 1 for c in tmod.CANDIDATES), "no split candidate declared"
    small = dict(min(tmod.CANDIDATES, key=lambda c: (c.get("RED_N", 0), c.get("RED_M", 0), c.get("OWN_M", 0))))
    small.update(NUM_WARPS=1)
    return [dict(small, SPLIT=2), dict(small, SPLIT=5)]


@pytest.mark.parametrize("path,name", CASES, ids=[n for _, n in CASES])
def test_split_merge_one_launch_no_zeroing(path, name, compile_kir, monkeypatch):
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    abi = tmod.ARTIFACT["abi"]
    outs = [i for i, p in enumerate(abi["parameters"]) if p["kind"] == "view" and p["access"] != "in"]
    launches = []
    jit = tmod.KERNEL.fn
    real = type(jit).__getitem__
    monkeypatch.setattr(type(jit), "__getitem__", lambda self, grid: launches.append(grid) or real(self, grid))
    for sizes in SIZES:
        base = make_inputs(abi, sizes, torch.Generator().manual_seed(11))
        want = clone_args(base)
        rmod.launch(*want)
        for cand in split_candidates(tmod):
            got = clone_args(base)
            run = tmod.bind(cand, *got)
            for attempt in range(2):
                for i in outs:
                    got[i].fill_(float("nan") if got[i].dtype.is_floating_point else -12345)
                launches.clear()
                run()
                assert len(launches) == 1, f"{name} {sizes} {cand}: {len(launches)} launches"
                for i in outs:
                    compare(got[i], want[i], f"{name} {sizes} {cand} run {attempt}", False)
            assert all(int(w[1].count_nonzero()) == 0 for w in tmod._WORK.values()), "counters left non-zero"


def test_split_merge_adds_the_workspace_partials(compile_kir):
    """Each split program's partial sums land in the workspace (one row of R lanes per split);
    the last arriver's result is their sum, and repeated runs are bit-identical."""
    name = "row_sum"
    tmod = compile_kir(os.path.join(REPO, "examples", name + ".kir"), target="triton")[name]
    cand = dict(min(tmod.CANDIDATES, key=lambda c: (c["RED_N"], c["OWN_M"])), SPLIT=4, NUM_WARPS=1)
    x = torch.randn(5, 640, generator=torch.Generator().manual_seed(2)) * 1e3
    y = torch.full((5,), float("nan"))
    tmod._run_candidate(cand, (x, y))
    share = math.ceil(math.ceil(640 / 4) / cand["RED_N"]) * cand["RED_N"]  # the kernel's cols_per
    ws = next(iter(tmod._WORK.values()))[0]
    partials = [ws[s * 5:(s + 1) * 5].clone() for s in range(4)]
    for s, p in enumerate(partials):
        assert torch.allclose(p, x[:, s * share:(s + 1) * share].double().sum(1).float(), rtol=1e-5, atol=1e-2)
    assert torch.allclose(y, torch.stack(partials).double().sum(0).float(), rtol=1e-6, atol=0)
    again = torch.full((5,), float("nan"))
    tmod._run_candidate(cand, (x, again))
    assert torch.equal(y, again)


def test_split_merge_through_tritons_autotuner(compile_kir, monkeypatch):
    """Triton's own autotuner (INTENT_RUNTIME=0) gets a workspace sized for the widest split of its
    candidates; one split candidate, so it launches without benchmarking (none on the CPU)."""
    monkeypatch.setenv("INTENT_RUNTIME", "0")
    name = "row_sum"
    path = os.path.join(REPO, "examples", name + ".kir")
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    cand = dict(min(tmod.CANDIDATES, key=lambda c: (c["RED_N"], c["OWN_M"])), SPLIT=3, NUM_WARPS=1)
    monkeypatch.setattr(tmod, "CANDIDATES", [cand])
    monkeypatch.setattr(tmod.KERNEL, "configs", [tmod._config(cand)])
    base = make_inputs(tmod.ARTIFACT["abi"], {"M": 9, "N": 200}, torch.Generator().manual_seed(4))
    want = clone_args(base)
    rmod.launch(*want)
    for attempt in range(2):
        got = clone_args(base)
        tmod.launch(*got)
        compare(got[1], want[1], f"autotuned split row sum, run {attempt}", False)


def test_split_max_merge_keeps_nan_and_extremes(compile_kir):
    """A maximum split across programs: a NaN in any split wins the row (the merge uses the reduction's
    NaN-propagating combiner, not a plain max), an extreme in the last split is found, and splits past
    the end of a short row add only the identity."""
    name = "row_max_min"
    path = os.path.join(REPO, "tests", "python", "providers", "kir", "split_merge.kir")
    tmod = compile_kir(path, target="triton")[name]
    cand = dict(min(tmod.CANDIDATES, key=lambda c: (c["RED_N"], c["OWN_M"])), SPLIT=5, NUM_WARPS=1)
    x = torch.randn(4, 300, generator=torch.Generator().manual_seed(3)).half()
    xi = torch.randint(-1000, 1000, (4, 300), generator=torch.Generator().manual_seed(4), dtype=torch.int32)
    x[0, 290] = float("nan")  # the last split's share
    x[1, 299] = 60000.0
    xi[2, 299] = -2**31
    x[3, 100:] = float("-inf")
    mx, mn = torch.full((4,), 7.0).half(), torch.full((4,), 5, dtype=torch.int32)
    tmod._run_candidate(cand, (x, xi, mx, mn))
    assert torch.isnan(mx[0]) and mx[1] == 60000.0 and mn[2] == -2**31
    assert torch.equal(mx[1:], x[1:].float().amax(1).half()[0:3]) and torch.equal(mn, xi.amin(1))
