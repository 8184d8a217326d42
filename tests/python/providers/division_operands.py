"""Operands of the division tests (shared by the pytest suite and the GPU harness)."""
import numpy as np
import torch

SPECIAL = [0.0, -0.0, 1.0, -1.0, 3.0, 0.1, 7.0, 1e-45, -1e-40, 1.17549435e-38, 1e-30, 7.9e-31,
           1.2676506e30, 3.4028235e38, -3.4028235e38, 6.0e37, float("inf"), float("-inf"), float("nan"),
           2.0 ** -100, 2.0 ** 100, 16777215.0, 0.3333333, 1e-20, 1e20]


def operands(seed=5, rows=None):
    """x: [R, 64] of specials and random f32 over the whole exponent range; d: one divisor per row."""
    g = np.random.default_rng(seed)
    d = np.array(SPECIAL + list(g.uniform(0.5, 2, 6)) + [float(v) for v in
                 (g.integers(0, 2 ** 32, 24, dtype=np.uint64).astype(np.uint32).view(np.float32))],
                 dtype=np.float32)
    if rows:
        d = d[:rows]
    x = g.integers(0, 2 ** 32, (d.size, 64), dtype=np.uint64).astype(np.uint32).view(np.float32)
    x[:, :len(SPECIAL)] = np.array(SPECIAL, dtype=np.float32)
    return torch.from_numpy(x.copy()), torch.from_numpy(d.copy())


def normal_operands(seed=6, rows=300, cols=700, tiny_row=None):
    """Random normal operands (|x| in about [2^-80, 2^80], d in [2^-30, 2^30]), signed zeros in
    two columns, and with `tiny_row` one subnormal dividend: the quotients real kernels see."""
    g = np.random.default_rng(seed)
    x = (g.standard_normal((rows, cols)) * np.exp2(g.integers(-60, 60, (rows, cols)))).astype(np.float32)
    d = (g.uniform(1, 2, rows) * np.exp2(g.integers(-30, 30, rows))).astype(np.float32)
    x[:, 0] = 0.0
    x[:, 1] = -0.0
    if tiny_row is not None:
        x[tiny_row, 5] = 1e-42
    return torch.from_numpy(x), torch.from_numpy(d)
