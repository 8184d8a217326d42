"""Flat block indices split into the coordinates of several axes on the 32-bit path.

A reduction over several axes (a channel sum over batch, height and width) reads a flat
column index and splits it into one coordinate per axis. With a symbolic extent that is a
division per element per axis; the Triton provider divides through `_divmod`, a multiply-high
by the divisor the launcher computes (`_udiv_magic`), which must equal integer division for
every index below 2^31 and every extent the 32-bit path admits. Extents that are multiples of
16 still divide (Triton's contiguity analysis then vectorizes the loads; docs/gpu.md "Index
arithmetic")."""
import random

import pytest
import torch
import triton
import triton.language as tl

KIR = """
kir.kernel @chan(%x: !kir.view<f32, [B, C, H, W], in>, %y: !kir.view<f32, [C], out>) {
  %0 = kir.load %x : !kir.view<f32, [B, C, H, W], in>
  %1 = kir.reduce add %0 dims [0, 2, 3] : !kir.tensor<f32, [B, C, H, W]> to !kir.tensor<f32, [C]>
  kir.store %1, %y : !kir.view<f32, [C], out>
}
"""

# Set to the generated module's _divmod_mulhi (the 32-bit path of _divmod, which the interpreter
# does not take) or _divmod before the probe runs (a global of the jit function).
DIVMOD = None


@triton.jit
def _divmod_probe(q_ptr, d_ptr, dm_ptr, quot_ptr, rem_ptr, n, ALIGNED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + offs, mask=offs < n, other=0)
    d = tl.load(d_ptr + offs, mask=offs < n, other=1)
    dm = tl.load(dm_ptr + offs, mask=offs < n, other=1 << 32)
    if ALIGNED:
        quot, rem = DIVMOD(q, d, dm, False, True)
    else:
        quot, rem = DIVMOD(q, d, dm)
    tl.store(quot_ptr + offs, quot, mask=offs < n)
    tl.store(rem_ptr + offs, rem, mask=offs < n)


@pytest.fixture(scope="module")
def chan(compile_kir):
    return compile_kir(KIR, target="triton")["chan"], compile_kir(KIR, target="reference")["chan"]


def divisors():
    rng = random.Random(7)
    ds = list(range(1, 70)) + [3136, 56 * 56 * 64, 65535, 65536, 65537]
    ds += [2 ** k + e for k in range(7, 31) for e in (-1, 0, 1) if 2 ** k + e < 2 ** 31]
    return ds + [rng.randrange(1, 2 ** 31) for _ in range(40)]


def numerators(d, rng):
    qs = {0, 1, d - 1, d, d + 1, 2 ** 31 - 1, 2 ** 31 - 2, 2 ** 30}
    for k in (1, 2, 3, (2 ** 31 - 1) // d):
        qs.update(k * d + r for r in (-1, 0, 1))
    qs.update(rng.randrange(0, 2 ** 31) for _ in range(40))
    return sorted(q for q in qs if 0 <= q < 2 ** 31)


def test_launcher_divisor_packs_magic_and_shift(chan):
    tri, _ = chan
    for d in divisors():
        dm = tri._udiv_magic(d)
        m, shift = dm & 0xFFFFFFFF, (dm >> 32) - 1
        assert 2 ** 31 <= m < 2 ** 32 and 0 <= shift <= 31, d
        assert dm >= 2 ** 32  # a 64-bit kernel argument, never a specialized constant
        # The kernel's arithmetic, in Python integers: umulhi(2q, m) >> shift.
        rng = random.Random(d)
        for q in numerators(d, rng):
            assert ((2 * q * m) >> 32) >> shift == q // d, (q, d)


@pytest.mark.parametrize("aligned", [False, True])
def test_divmod_equals_integer_division_on_the_interpreter(chan, aligned):
    global DIVMOD
    tri, _ = chan
    DIVMOD = tri._divmod if aligned else tri._divmod_mulhi
    rng = random.Random(3)
    pairs = [(q, d) for d in divisors() if not (aligned and d % 16) for q in numerators(d, rng)]
    q = torch.tensor([p[0] for p in pairs], dtype=torch.int32)
    d = torch.tensor([p[1] for p in pairs], dtype=torch.int32)
    dm = torch.tensor([tri._udiv_magic(p[1]) for p in pairs], dtype=torch.int64)
    quot, rem = torch.full_like(q, -7), torch.full_like(q, -7)
    _divmod_probe[(1,)](q, d, dm, quot, rem, len(pairs), ALIGNED=aligned, BLOCK=triton.next_power_of_2(len(pairs)))
    bad = [(a, b) for (a, b), got in zip(pairs, quot.tolist()) if got != a // b]
    assert not bad, bad[:4]
    bad = [(a, b) for (a, b), got in zip(pairs, rem.tolist()) if got != a % b]
    assert not bad, bad[:4]


def test_symbolic_extents_divide_by_multiply_high(chan):
    import inspect
    tri, _ = chan
    src = inspect.getsource(tri)
    body = src.split("def chan_kernel(")[1].split("\ndef ")[0]
    assert "_divmod(" in body and " // W" not in body and " // H" not in body
    assert "_udiv_magic(_ext['W'])" in src and "_udiv_magic(_ext['H'])" in src
    assert "extra['_DVA0'] = _ext['W'] % 16 == 0" in src


@pytest.mark.parametrize("shape", [(3, 5, 7, 11), (2, 3, 1, 13), (1, 1, 1, 1), (4, 2, 9, 1), (2, 0, 3, 3),
                                   (2, 3, 16, 32), (3, 2, 5, 48)])
def test_channel_sum_matches_reference(chan, shape, poison, rel_err):
    tri, ref = chan
    torch.manual_seed(sum(shape))
    x = torch.randn(*shape)
    got, want = poison(torch.empty(shape[1])), torch.empty(shape[1])
    tri.launch(x, got)
    ref.launch(x, want)
    assert rel_err(got, want) <= 1e-6
