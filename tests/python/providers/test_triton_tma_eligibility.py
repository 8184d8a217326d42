"""The launcher's tensor-descriptor eligibility (`_tma_eligible`), which decides on
the actual tensors whether descriptor candidates may run: unit last stride,
16-byte aligned base and strides, and no broadcast (zero-stride) dimension."""
import os

import torch

from test_triton_examples import REPO


def test_tma_eligibility_rules(compile_kir):
    tmod = compile_kir(os.path.join(REPO, "examples", "gemm_bt.kir"), target="triton")["gemm_bt"]
    ok = tmod._tma_eligible
    a = torch.zeros(64, 64, dtype=torch.float16)
    assert ok(a, a.clone())
    assert not ok(a, a.t())                                    # last stride is not 1
    assert not ok(torch.zeros(64, 12, dtype=torch.float16)[:, :4])  # row stride 24 B
    assert not ok(torch.zeros(65, dtype=torch.float16)[1:].view(8, 8))  # base off by 2 B
    row = torch.zeros(1, 64, dtype=torch.float16)
    assert not ok(row.expand(64, 64))                          # broadcast rows: stride 0
    assert ok(row.as_strided((1, 64), (0, 1)))                 # stride 0 on an extent-1 dim is harmless


def test_batched_flat_descriptors_only_where_no_tile_crosses_a_batch(compile_kir):
    """Batched GEMMs use 2-D descriptors over [batch * rows, cols] (FLAT) only when every
    tensor is batch-contiguous and its rows are a multiple of the largest candidate block
    along them; otherwise descriptor candidates build per-batch descriptors in the kernel."""
    tmod = compile_kir(os.path.join(REPO, "examples", "batched_gemm.kir"), target="triton")["batched_gemm"]
    src = open(tmod.__file__).read()
    assert "if FLAT:" in src and "tl.make_tensor_descriptor(" in src
    bm, bk = tmod._MAXB["BM"], tmod._MAXB["BK"]
    t = lambda *s: torch.zeros(*s, dtype=torch.float16)
    B, M, K, N = 3, 2 * bm, 2 * bk, 64
    a, b, c = t(B, M, K), t(B, K, N), t(B, M, N)
    assert tmod._flat_ok(a, b, c)
    desc = tmod._descs(tmod.CANDIDATES[0], a, b, c)
    assert desc["a_desc"].shape == [B * M, K] and desc["c_odesc"].shape == [B * M, N]
    assert not tmod._flat_ok(t(B, M + 16, K), b, t(B, M + 16, N))      # an M tile would cross batches
    assert not tmod._flat_ok(a, t(B, K + 16, N), c)                    # a K tile would cross batches
    assert not tmod._flat_ok(t(B, M + bm, K)[:, :M], b, c)             # A not batch-contiguous
    assert tmod._flat_ok(t(1, M + bm, K)[:, :M], t(1, K, N), t(1, M, N))  # one batch: any batch stride
    assert tmod._descs(tmod.CANDIDATES[0], t(B, M + 16, K), b, t(B, M + 16, N))["a_desc"] is None
    pointer = next(c for c in tmod.CANDIDATES if not c["USE_TENSOR_DESCRIPTOR"])
    assert tmod._descs(pointer, a, b, c)["a_desc"] is None
    args, extra, *_ = tmod._prepare(a, b, c)
    assert extra["FLAT"] is False                                      # CPU tensors: no TMA at all
