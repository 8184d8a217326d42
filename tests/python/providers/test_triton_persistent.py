"""Persistent traversal (traversal_workers -> WORKERS) on the CPU interpreter: fewer
programs than output tiles, each striding over the tiles in grouped order, with the
fused epilogue, batches and split K. Pointer-form candidates (descriptors need a GPU)."""
import os

import pytest

from test_triton_examples import REPO
from test_triton_split_k import run_and_compare, split_candidate

CONTRACTIONS = ["gemm_f16", "gemm_bf16", "gemm_bt", "gemm_bias_relu", "batched_gemm"]


def test_workers_are_declared_from_the_target(compile_kir):
    tmod = compile_kir(os.path.join(REPO, "examples", "gemm_f16.kir"), target="triton")["gemm_f16"]
    assert all("WORKERS" in c for c in tmod.CANDIDATES)
    src = open(tmod.__file__).read()
    assert "for pid in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0)):" in src


@pytest.mark.parametrize("name", CONTRACTIONS)
@pytest.mark.parametrize("workers,split", [(2, 1), (3, 1), (5, 2)])
def test_persistent_matches_reference_ragged(name, workers, split, compile_kir):
    path = os.path.join(REPO, "examples", name + ".kir")
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    cand = split_candidate(tmod, split)
    cand["WORKERS"] = workers
    # 37x45 with 32x32 tiles and GROUP_M 8: 4 tiles, so 3 workers leave one with two
    # tiles and 5 workers leave one idle.
    run_and_compare(tmod, rmod, {"M": 37, "N": 45, "K": 200, "B": 2}, cand)
    run_and_compare(tmod, rmod, {"M": 100, "N": 70, "K": 40, "B": 1}, cand, seed=9)


def test_num_ctas_reaches_every_launch(compile_kir, tmp_path):
    """NUM_CTAS (Triton's num_ctas: CTAs per program) is a launch option, not a kernel
    constexpr: the autotune configs and the runtime/bind launches all pass it."""
    cfg = tmp_path / "ctas.json"
    cfg.write_text('{"triton": {"contraction_narrow": [[32, 32, 32, 1, 1, 1, 8, 4, 3, 2, 0], '
                   '[32, 32, 32, 1, 1, 1, 8, 4, 3, 1, 0]]}}')
    tmod = compile_kir(os.path.join(REPO, "examples", "gemm_f16.kir"), target="triton",
                       extra_args=("--tuning-config", str(cfg)))["gemm_f16"]
    assert [c["NUM_CTAS"] for c in tmod.CANDIDATES] == [2, 1]
    assert [c.num_ctas for c in tmod.KERNEL.configs] == [2, 1]
    assert all("NUM_CTAS" not in c.kwargs for c in tmod.KERNEL.configs)
    seen = []

    class Spy:
        def __getitem__(self, grid):
            return lambda *args, **kw: seen.append(kw["num_ctas"])

    import torch
    real = tmod.gemm_f16_kernel
    tmod.gemm_f16_kernel = Spy()
    try:
        a = torch.zeros(8, 8, dtype=torch.float16)
        b = torch.zeros(8, 8, dtype=torch.float16)
        c = torch.zeros(8, 8, dtype=torch.float16)
        for cand in tmod.CANDIDATES:
            tmod._run_candidate(cand, (a, b, c))
            tmod.bind(cand, a, b, c)()
    finally:
        tmod.gemm_f16_kernel = real
    assert seen == [2, 2, 1, 1]


def test_num_ctas_is_one_without_clusters(compile_kir, tmp_path):
    cfg = tmp_path / "ctas.json"
    cfg.write_text('{"triton": {"contraction_narrow": [[32, 32, 32, 1, 1, 1, 8, 4, 3, 2, 0]]}}')
    tmod = compile_kir(os.path.join(REPO, "examples", "gemm_f16.kir"), target="triton",
                       extra_args=("--tuning-config", str(cfg), "--arch", "sm_80"))["gemm_f16"]
    assert [c["NUM_CTAS"] for c in tmod.CANDIDATES] == [1]
