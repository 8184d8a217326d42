"""Shape of a generated kernel.py using intent_runtime (run with TRITON_INTERPRET=1)."""
import torch
import triton
import triton.language as tl

from intent_runtime import MemoryStore, TunedKernel


@triton.jit
def _axpy_inplace(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(x_ptr + offs, x + alpha * y, mask=m)


_CANDIDATES = [{"BLOCK": 16, "num_warps": 1}, {"BLOCK": 32, "num_warps": 1}, {"BLOCK": 64, "num_warps": 2}]


def _launch(cfg, args):
    x, y, n, alpha = args
    grid = (triton.cdiv(n, cfg["BLOCK"]),)
    _axpy_inplace[grid](x, y, n, alpha, BLOCK=cfg["BLOCK"], num_warps=cfg["num_warps"])


_tuned = TunedKernel("axpy_inplace", "artifact-axpy", _CANDIDATES, _launch,
                     access=["inout", "in", "scalar", "scalar"], store=MemoryStore())


def axpy_inplace(x, y, alpha):
    _tuned(x, y, x.numel(), alpha)


if __name__ == "__main__":
    x0 = torch.randn(100)
    x, y = x0.clone(), torch.randn(100)
    axpy_inplace(x, y, 2.0)
    torch.testing.assert_close(x, x0 + 2.0 * y)
    axpy_inplace(x, y, 2.0)
    torch.testing.assert_close(x, x0 + 4.0 * y)
    assert _tuned.stats["tunings"] == 1 and _tuned.stats["hits"] == 1, _tuned.stats
    print("OK", _tuned.stats)
