"""IEEE division by a row-uniform divisor and rsqrt on the CPU interpreter.

The Triton provider divides by a divisor that is constant along a row (a
broadcast row value or a scalar) through one f64 reciprocal per row and an f64
product per element (no `div.rn` per element, docs/gpu.md "Numerics"). The
result must still be IEEE f32 division, bit for bit, for every operand class:
zeros of both signs, subnormals, huge values, infinities and NaN. The GPU
harness runs the same kernels on the H200 (scripts/gpu/harness.py)."""
import os

import numpy as np
import pytest
import torch

from division_operands import normal_operands, operands

HERE = os.path.dirname(os.path.abspath(__file__))
KIR = os.path.join(HERE, "kir", "division.kir")

def same_bits(got, want):
    g = got.numpy().view(np.uint32)
    w = want.numpy().view(np.uint32)
    nan = np.isnan(got.numpy()) & np.isnan(want.numpy())
    bad = (g != w) & ~nan
    assert not bad.any(), "first mismatches (got, want): %s" % list(
        zip(got.numpy()[bad][:5], want.numpy()[bad][:5]))


@pytest.fixture(scope="module")
def mods(compile_kir):
    return compile_kir(KIR, target="triton")


def test_row_uniform_divisions_use_the_reciprocal(mods):
    import inspect
    src = inspect.getsource(mods["div_by_row"])
    assert "_recip_f64(" in src and "div_rn" not in src.split("def div_by_row_kernel")[1]
    assert "_recip_f64(" in inspect.getsource(mods["div_by_scalar"])
    # A divisor that varies along the row keeps IEEE div_rn.
    assert "tl.div_rn(" in inspect.getsource(mods["div_elementwise"])


def test_divide_by_row_is_ieee_bit_exact(mods):
    x, d = operands()
    y = torch.full_like(x, 7.0)
    mods["div_by_row"].launch(x, d, y)
    same_bits(y, x / d[:, None])


@pytest.mark.parametrize("tiny_row", [None, 17])
def test_divide_by_row_in_the_fast_range_is_ieee_bit_exact(mods, tiny_row):
    x, d = normal_operands(tiny_row=tiny_row)
    y = torch.full_like(x, 7.0)
    mods["div_by_row"].launch(x, d, y)
    same_bits(y, x / d[:, None])


@pytest.mark.parametrize("s", [3.0, 0.1, -7.5, 1e-40, -0.0, float("inf"), float("nan"), 3.4e38, 2.0 ** -100])
def test_divide_by_scalar_is_ieee_bit_exact(mods, s):
    x, _ = operands(seed=9, rows=8)
    y = torch.full_like(x, 7.0)
    mods["div_by_scalar"].launch(x, s, y)
    same_bits(y, x / torch.tensor(s, dtype=torch.float32))


@pytest.mark.parametrize("n", [0, 1, 3, 7, 97])
def test_divide_by_an_extent_is_ieee_bit_exact(mods, n):
    # The launcher passes 1/f32(N) (_recip_host) as an f64 parameter: no program runs Newton steps.
    import inspect
    m = mods["div_by_extent"]
    kernel = inspect.getsource(m).split("def div_by_extent_kernel")[1].split("\nCANDIDATES")[0]
    assert "_rcp0: tl.float64" in kernel and "_recip_f64(" not in kernel
    bits = np.random.default_rng(n).integers(0, 2 ** 32, (6, n), dtype=np.uint64).astype(np.uint32)
    x = torch.from_numpy(bits.view(np.float32).copy())
    y = torch.full_like(x, 7.0)
    m.launch(x, y)
    same_bits(y, x / torch.tensor(float(n), dtype=torch.float32))


def test_the_launchers_reciprocal_of_an_extent_is_correctly_rounded(mods):
    r = mods["div_by_extent"]._recip_host
    assert r(3) == 1.0 / 3.0 and r(97) == 1.0 / 97.0
    assert r(2 ** 24 + 1) == 2.0 ** -24  # f32(2^24 + 1) = 2^24 first, as the kernel would cast it
    assert r(0) == float("inf")


def test_a_repeated_launch_takes_the_sign_of_a_zero_scalar(mods):
    # Repeated launches reuse the validated arguments while they stay the same; -0.0 == 0.0 in
    # Python, yet dividing by it flips the infinities.
    x = torch.tensor([[1.0, -2.0, 3.0]])
    y = torch.empty_like(x)
    for s in (0.0, -0.0, 0.0):
        mods["div_by_scalar"].launch(x, s, y)
        same_bits(y, x / torch.tensor(s))


def test_divide_elementwise_is_ieee_bit_exact(mods):
    x, d = operands(seed=11)
    dd = d[:, None].expand_as(x).contiguous()
    y = torch.full_like(x, 7.0)
    mods["div_elementwise"].launch(x, dd, y)
    same_bits(y, x / dd)


@pytest.mark.parametrize("kernel", ["div_by_row_f64", "div_elementwise_f64"])
def test_f64_division_is_ieee_f64(mods, kernel):
    # The row reciprocal is an f32 argument and tl.div_rn is f32-only: f64 divides with `/`.
    g = np.random.default_rng(3)
    x = torch.from_numpy(g.standard_normal((5, 77)) * np.exp2(g.integers(-300, 300, (5, 77))))
    d = torch.from_numpy(g.uniform(0.5, 2, 5) * np.exp2(g.integers(-300, 300, 5)))
    x[:, 0] = 0.0
    x[:, 1] = 1e-310
    dd = d if kernel == "div_by_row_f64" else d[:, None].expand_as(x).contiguous()
    y = torch.full_like(x, 7.0)
    mods[kernel].launch(x, dd, y)
    want = x / d[:, None]
    assert torch.equal(y.view(torch.int64), want.view(torch.int64)), (y - want).abs().max()


def test_rsqrt_keeps_subnormal_inputs(mods):
    import inspect
    # rsqrt.approx (through _rsqrt's subnormal scaling), not 1.0 / sqrt_rn: its
    # slow path cost registers (docs/gpu.md "Numerics"); the scaling matters on the GPU.
    assert "_rsqrt(" in inspect.getsource(mods["rsqrt"])
    x = torch.tensor([[4.0, 1e-40, 1e-45, 1.17549435e-38, 0.0, -0.0, -1.0, float("inf"), float("nan"), 3e38,
                       2.0, 1e-30]], dtype=torch.float32)
    y = torch.empty_like(x)
    mods["rsqrt"].launch(x, y)
    want = (1.0 / torch.sqrt(x.double())).float()
    finite = torch.isfinite(want) & (want != 0)
    rel = ((y.double() - want.double()).abs() / want.double().abs())[finite]
    assert rel.max().item() < 2 ** -21, (y, want)
    same_bits(y[~finite], want[~finite])
