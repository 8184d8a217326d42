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
