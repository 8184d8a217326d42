"""The whole-slice combine evaluation (tests/python/interpreter_combines.py) against the
interpreter's own per-element paths: the same results for associative combines that do not
commute, carry tuples or wrap, on every axis form (axis None, keep_dims, reverse scans)."""
import pytest
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter as interp

import interpreter_combines as ic


@triton.jit
def _affine(a0, b0, a1, b1):
    # x -> a * x + b composed left then right: associative, not commutative; integers wrap.
    return a0 * a1, b0 * a1 + b1


@triton.jit
def _argmax_first(v0, i0, v1, i1):
    take = (v1 > v0) | ((v1 == v0) & (i1 < i0))
    return tl.where(take, v1, v0), tl.where(take, i1, i0)


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _kernel(a, b, v, f, out_a, out_b, out_v, out_i, out_f, scan_a, scan_b, rscan_a, rscan_b, all_f,
            M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x, y = tl.load(a + offs), tl.load(b + offs)
    w, fv = tl.load(v + offs), tl.load(f + offs)
    idx = offs.to(tl.int32)
    ra, rb = tl.reduce((x, y), AXIS, _affine, keep_dims=True)
    rv, ri = tl.reduce((w, idx), AXIS, _argmax_first, keep_dims=True)
    rf = tl.reduce(fv, AXIS, _add, keep_dims=True)
    if AXIS == 1:
        o = tl.arange(0, M)[:, None]
    else:
        o = tl.arange(0, N)[None, :]
    tl.store(out_a + o, ra)
    tl.store(out_b + o, rb)
    tl.store(out_v + o, rv)
    tl.store(out_i + o, ri)
    tl.store(out_f + o, rf)
    sa, sb = tl.associative_scan((x, y), AXIS, _affine)
    tl.store(scan_a + offs, sa)
    tl.store(scan_b + offs, sb)
    qa, qb = tl.associative_scan((x, y), AXIS, _affine, reverse=True)
    tl.store(rscan_a + offs, qa)
    tl.store(rscan_b + offs, qb)
    tl.store(all_f, tl.reduce(fv, None, _add))
    tl.store(all_f + 1 + tl.arange(0, 1), tl.reduce(fv, None, _add, keep_dims=True).reshape([1]))


def _run(M, N, axis, seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randint(-9, 10, (M, N), generator=g, dtype=torch.int32)
    b = torch.randint(-2**30, 2**30, (M, N), generator=g, dtype=torch.int32)
    v = torch.randint(0, 4, (M, N), generator=g, dtype=torch.int32)  # ties everywhere
    f = torch.randn(M, N, generator=g)
    n_out = M if axis == 1 else N
    outs = [torch.empty(n_out, dtype=t) for t in (torch.int32, torch.int32, torch.int32, torch.int32, torch.float32)]
    scans = [torch.empty(M, N, dtype=torch.int32) for _ in range(4)]
    all_f = torch.empty(2)
    _kernel[(1,)](a, b, v, f, *outs, *scans, all_f, M=M, N=N, AXIS=axis)
    return outs + scans + [all_f]


@pytest.mark.parametrize("M,N,axis", [(4, 8, 1), (8, 4, 0), (1, 16, 1), (2, 1, 1), (16, 2, 0)])
def test_whole_slice_combines_match_the_interpreters_own(M, N, axis):
    assert ic.install()
    fast = _run(M, N, axis, 7)
    patched = (interp.ReduceOps.generic_reduce, interp.ScanOps.generic_scan)
    try:
        interp.ReduceOps.generic_reduce, interp.ScanOps.generic_scan = ic.ORIGINAL
        slow = _run(M, N, axis, 7)
    finally:
        interp.ReduceOps.generic_reduce, interp.ScanOps.generic_scan = patched
    for k, (x, y) in enumerate(zip(fast, slow)):
        if x.dtype.is_floating_point:  # the tree adds in another order than the left fold
            assert torch.allclose(x, y, rtol=1e-5, atol=1e-5), k
        else:
            assert torch.equal(x, y), k
