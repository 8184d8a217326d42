"""Split K (reduction_outer -> SPLIT_K) on the CPU interpreter: f32 partials per K
share; the last program of a tile to arrive (per-tile counter) sums them in split order
and runs the fused epilogue, in one launch.
Pointer-form candidates (tensor descriptors need a GPU); the GPU harness runs the
declared descriptor rows."""
import os

import pytest
import torch

from test_triton_examples import REPO, clone_args, compare, make_inputs

# gemm_bf16 runs its dot in f32 under the interpreter (whose bf16 dot reads raw bits).
CONTRACTIONS = ["gemm_f16", "gemm_bf16", "gemm_bt", "gemm_bias_relu", "batched_gemm"]


def split_candidate(tmod, split):
    base = dict(tmod.CANDIDATES[-1])
    base.update({"BM": 32, "BN": 32, "BK": 32, "NUM_WARPS": 2, "NUM_STAGES": 2, "SPLIT_K": split,
                 "USE_TENSOR_DESCRIPTOR": 0})
    return base


def run_and_compare(tmod, rmod, sizes, cand, seed=7):
    abi = tmod.ARTIFACT["abi"]
    base = make_inputs(abi, sizes, torch.Generator().manual_seed(seed))
    want = clone_args(base)
    rmod.launch(*want)
    got = clone_args(base)
    tmod._run_candidate(cand, tuple(got))
    for p, g, w in zip(abi["parameters"], got, want):
        if p["kind"] == "view" and p["access"] != "in":
            compare(g, w, f"{sizes} {cand} {p['name']}", True)


@pytest.mark.parametrize("name", CONTRACTIONS)
@pytest.mark.parametrize("split", [2, 8])
def test_split_k_matches_reference_ragged(name, split, compile_kir):
    path = os.path.join(REPO, "examples", name + ".kir")
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    assert "SPLIT_K" in tmod.CANDIDATES[0]
    # K = 200: 7 K tiles of 32, so SPLIT_K = 8 leaves one share empty (it must add zeros).
    run_and_compare(tmod, rmod, {"M": 37, "N": 45, "K": 200, "B": 2}, split_candidate(tmod, split))


def test_split_k_long_k_128x128x65536(compile_kir):
    """The issue's case: M = N = 128, K = 65536 (f16 in, f32 accumulation)."""
    path = os.path.join(REPO, "examples", "gemm_f16.kir")
    tmod = compile_kir(path, target="triton")["gemm_f16"]
    rmod = compile_kir(path, target="reference")["gemm_f16"]
    cand = split_candidate(tmod, 32)
    cand.update({"BM": 64, "BN": 64, "BK": 64})
    run_and_compare(tmod, rmod, {"M": 128, "N": 128, "K": 65536}, cand)


def test_split_k_declared_rows_and_autotune_path(compile_kir, monkeypatch):
    """The shipped narrow table declares split rows; Triton's autotuner (INTENT_RUNTIME=0)
    never gets them (they need a workspace per configuration). When only split candidates are
    eligible, launch() runs the first one through the runtime's launcher."""
    path = os.path.join(REPO, "examples", "gemm_f16.kir")
    tmod = compile_kir(path, target="triton")["gemm_f16"]
    rmod = compile_kir(path, target="reference")["gemm_f16"]
    assert any(c["SPLIT_K"] > 1 for c in tmod.CANDIDATES)
    assert all(cfg.kwargs["SPLIT_K"] == 1 for cfg in tmod.KERNEL.configs)
    monkeypatch.setenv("INTENT_RUNTIME", "0")
    monkeypatch.setattr(tmod, "CANDIDATES", [split_candidate(tmod, 4)])
    abi = tmod.ARTIFACT["abi"]
    base = make_inputs(abi, {"M": 19, "N": 21, "K": 300}, torch.Generator().manual_seed(3))
    want = clone_args(base)
    rmod.launch(*want)
    got = clone_args(base)
    tmod.launch(*got)
    compare(got[2], want[2], "launch, split candidates only", True)


def test_split_k_is_one_launch_and_leaves_the_counters_at_zero(compile_kir, monkeypatch):
    """One kernel launch per call; a bound launcher reuses its workspace, so the arrival
    counters must be back at zero after every run (else the second run's last arriver never
    sees SPLIT_K - 1 and the output is not written)."""
    path = os.path.join(REPO, "examples", "gemm_bias_relu.kir")
    name = "gemm_bias_relu"
    tmod = compile_kir(path, target="triton")[name]
    rmod = compile_kir(path, target="reference")[name]
    cand = split_candidate(tmod, 3)
    abi = tmod.ARTIFACT["abi"]
    base = make_inputs(abi, {"M": 70, "N": 40, "K": 96}, torch.Generator().manual_seed(5))
    want = clone_args(base)
    rmod.launch(*want)
    launches = []
    jit = tmod.KERNEL.fn
    real = type(jit).__getitem__
    monkeypatch.setattr(type(jit), "__getitem__", lambda self, grid: launches.append(grid) or real(self, grid))
    got = clone_args(base)
    run = tmod.bind(cand, *got)
    out = [i for i, p in enumerate(abi["parameters"]) if p["kind"] == "view" and p["access"] == "out"][0]
    for attempt in range(2):
        got[out].fill_(float("nan"))
        run()
        compare(got[out], want[out], f"bound split-K run {attempt}", True)
    assert len(launches) == 2 and all(g[2] == 3 for g in launches)
