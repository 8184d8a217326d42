"""CUDA checks (skipped on CPU-only machines)."""
import pytest
import torch

from intent_runtime import MemoryStore, TrialState, TunedKernel, device_key

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@cuda
def test_cuda_trial_state_and_event_timer(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.delenv("INTENT_TUNE_REPS", raising=False)
    assert "|sm_" in device_key(torch.device("cuda"))
    n = 1 << 20
    base = torch.arange(n, device="cuda", dtype=torch.float32)
    a, b = base[: n // 2], base[n // 4: n // 4 + n // 2]
    x0 = base.clone()
    bad = []

    def run(cfg, args):
        x, y = args
        if not torch.equal(x, x0[: n // 2]):
            bad.append(cfg)
        for _ in range(cfg["rep"]):
            x.copy_(x + y)

    k = TunedKernel("t", "art", [{"rep": 1}, {"rep": 4}, {"rep": 16}], run, ["inout", "in"],
                    store=MemoryStore())
    assert k.prepare(a, b) == {"rep": 1}
    torch.cuda.synchronize()
    assert not bad and torch.equal(base, x0)
    t = {c["config"]["rep"]: c["median_ms"] for c in k.last_timings}
    assert t[1] < t[16]
    k(a, b)
    ref = x0.clone()
    ref[: n // 2].copy_(ref[: n // 2] + ref[n // 4: n // 4 + n // 2])
    assert torch.equal(base, ref)


@cuda
def test_cuda_pure_out_restored_after_all_fail():
    out = torch.full((64,), 3.0, device="cuda")
    x = torch.ones(64, device="cuda")

    def run(cfg, args):
        args[1].fill_(cfg["id"])
        raise RuntimeError("nope")

    k = TunedKernel("f", "art", [{"id": 1}, {"id": 2}], run, ["in", "out"], store=MemoryStore())
    with pytest.raises(RuntimeError):
        k(x, out)
    assert torch.equal(out, torch.full((64,), 3.0, device="cuda"))
