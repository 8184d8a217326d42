"""The reference provider (PyTorch eager oracle): reduction semantics and launch ABI."""
import functools
import glob
import math
import os

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
KIR = os.path.join(HERE, "kir")


def kir(name):
    return os.path.join(KIR, name)


def bits(t):
    """Bitwise view so that -0.0 != +0.0 and NaN == NaN compare as expected."""
    return t.view(torch.int32) if t.dtype == torch.float32 else t.view(torch.int64)


@pytest.fixture(scope="module")
def red(compile_kir):
    return compile_kir(kir("reductions.kir"))


@pytest.fixture(scope="module")
def scans(compile_kir):
    return compile_kir(kir("scans.kir"))


@pytest.fixture(scope="module")
def elem(compile_kir):
    return compile_kir(kir("elementwise.kir"))


def outs(n, m, dtype=torch.float32, poison=None):
    ts = [torch.empty(m, dtype=dtype) for _ in range(n)]
    if poison:
        for t in ts:
            poison(t)
    return ts


# --- reduction-semantics test vectors ------------------------------------------------------

def test_fold_left_sum_is_exactly_sequential(red, poison):
    x = torch.tensor([[2.0 ** 24, 1.0, -(2.0 ** 24)]], dtype=torch.float32)
    u, o, l, r = outs(4, [1], poison=poison)
    red["sum_policies"].launch(x, u, o, l, r)
    # 2^24 + 1 rounds to 2^24 in f32; the strict fold then gives exactly 0.
    assert l.item() == 0.0
    assert o.item() == 0.0  # ordered_tree realized sequentially in order
    # fold_right: op(x0, op(x1, op(x2))) = 2^24 + (1 - 2^24) = 2^24 + -(2^24 - 1) = 1
    assert r.item() == 1.0
    assert not math.isnan(u.item())


def test_mixed_unordered_and_fold_left_in_one_kernel(compile_kir, poison):
    mod = compile_kir(os.path.join(REPO, "examples", "mixed_sums.kir"))["mixed_sums"]
    torch.manual_seed(0)
    x = torch.randn(4, 1000, dtype=torch.float32)
    x[0, :3] = torch.tensor([2.0 ** 24, 1.0, -(2.0 ** 24)])
    x[0, 3:] = 0.0
    fast, strict = outs(2, [4], poison=poison)
    mod.launch(x, fast, strict)
    seq = []
    for row in x:
        acc = row[0].clone()
        for v in row[1:]:
            acc = acc + v
        seq.append(acc)
    assert torch.equal(bits(strict), bits(torch.stack(seq)))
    assert strict[0].item() == 0.0
    # The unordered sum may reassociate: row 0 is 0 or 1 depending on the tree.
    assert fast[0].item() in (0.0, 1.0)
    torch.testing.assert_close(fast[1:], x[1:].double().sum(1).float(), rtol=1e-5, atol=1e-4)


def test_noncommutative_ordered_tree_matrix_product(compile_kir, poison):
    mod = compile_kir(os.path.join(REPO, "examples", "matmul2x2_reduce.kir"))["matmul2x2_reduce"]
    torch.manual_seed(1)
    m, n = 3, 9
    # Small integers keep every product exact, so any association order is exact.
    a, b, c, d = (torch.randint(-2, 3, (m, n)).float() for _ in range(4))
    ra, rb, rc, rd = outs(4, [m], poison=poison)
    mod.launch(a, b, c, d, ra, rb, rc, rd)
    for i in range(m):
        acc = torch.eye(2, dtype=torch.float64)
        for j in range(n):
            acc = acc @ torch.tensor([[a[i, j], b[i, j]], [c[i, j], d[i, j]]], dtype=torch.float64)
        got = torch.tensor([[ra[i], rb[i]], [rc[i], rd[i]]], dtype=torch.float64)
        assert torch.equal(got, acc), (i, got, acc)
    # Non-commutativity is visible: reversing the row changes the product.
    assert any(not torch.equal(torch.stack([ra, rb, rc, rd]), torch.stack([ra, rb, rc, rd]).flip(0)) for _ in [0])


@pytest.mark.parametrize("n", [1, 3, 7, 33])
def test_sub_fold_left_and_fold_right(red, poison, n):
    torch.manual_seed(n)
    x = torch.randn(4, n, dtype=torch.float64)
    z = 0.75
    l, r, l0, r0 = outs(4, [4], torch.float64, poison)
    red["sub_folds"].launch(x, z, l, r, l0, r0)
    for i in range(4):
        row = x[i].tolist()
        assert l[i].item() == functools.reduce(lambda acc, v: acc - v, row, z)
        acc = z
        for v in reversed(row):
            acc = v - acc
        assert r[i].item() == acc
        assert l0[i].item() == functools.reduce(lambda acc, v: acc - v, row)
        acc = row[-1]
        for v in reversed(row[:-1]):
            acc = v - acc
        assert r0[i].item() == acc


def test_sub_fold_spec_example(red, poison):
    x = torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64)
    l, r, l0, r0 = outs(4, [1], torch.float64, poison)
    red["sub_folds"].launch(x, 0.0, l, r, l0, r0)
    assert l.item() == -6.0 and r.item() == 2.0


def test_init_seed_enters_once(red, poison):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    xi = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    u, l, mx, g = outs(4, [3], poison=poison)
    si = poison(torch.empty(3, dtype=torch.int32))
    red["seeded"].launch(x, xi, u, l, mx, si, g)
    expect = x.sum(1) + 5
    assert torch.equal(u, expect) and torch.equal(l, expect) and torch.equal(g, expect)
    assert torch.equal(si, xi.sum(1).int() + 5)
    assert torch.equal(mx, torch.clamp(x.amax(1), min=5.0))


def test_empty_reduction_axes_give_identity_or_seed(red, poison):
    x = torch.empty(3, 0, dtype=torch.float32)
    xi = torch.empty(3, 0, dtype=torch.int32)
    u, l, mx, g = outs(4, [3], poison=poison)
    si = poison(torch.empty(3, dtype=torch.int32))
    red["seeded"].launch(x, xi, u, l, mx, si, g)
    for t in (u, l, mx, g):
        assert torch.equal(t, torch.full([3], 5.0))
    assert torch.equal(si, torch.full([3], 5, dtype=torch.int32))

    pu, po, pl, pr = outs(4, [3], poison=poison)
    red["sum_policies"].launch(x, pu, po, pl, pr)
    for t in (pu, po, pl, pr):
        assert torch.equal(t, torch.zeros(3))

    m = outs(8, [3], poison=poison)
    ai = poison(torch.empty(3, dtype=torch.int64))
    bi = poison(torch.empty(3, dtype=torch.int32))
    red["extrema"].launch(x, m[0], m[1], m[2], ai, m[3], bi, m[4])
    assert torch.equal(m[0], torch.full([3], -math.inf))
    assert torch.equal(m[1], torch.full([3], math.inf))
    assert torch.equal(ai, torch.full([3], -1, dtype=torch.int64))
    assert torch.equal(bi, torch.full([3], -1, dtype=torch.int32))


def run_extrema(red, x, poison):
    m = x.shape[0]
    mx, mn, av, bv, mxl = outs(5, [m], poison=poison)
    ai = poison(torch.empty(m, dtype=torch.int64))
    bi = poison(torch.empty(m, dtype=torch.int32))
    red["extrema"].launch(x, mx, mn, av, ai, bv, bi, mxl)
    return mx, mn, av, ai, bv, bi, mxl


def test_nan_propagates_through_max_min_and_argmax(red, poison):
    nan = math.nan
    x = torch.tensor([[1.0, nan, 3.0, nan], [5.0, 2.0, 7.0, 7.0], [-math.inf, -math.inf, nan, 0.0]])
    mx, mn, av, ai, bv, bi, mxl = run_extrema(red, x, poison)
    assert math.isnan(mx[0]) and math.isnan(mn[0]) and math.isnan(mxl[0])
    assert math.isnan(mx[2]) and math.isnan(mn[2])
    assert mx[1] == 7.0 and mn[1] == 2.0 and mxl[1] == 7.0
    # NaN wins (the first NaN); ties pick the lowest index.
    assert ai.tolist() == [1, 2, 2] and bi.tolist() == [1, 1, 2]
    assert math.isnan(av[0]) and av[1] == 7.0 and math.isnan(bv[2])


def test_argmax_ties_lowest_index(red, poison):
    x = torch.tensor([[3.0, 9.0, 9.0, 1.0, 9.0], [4.0, 4.0, 4.0, 4.0, 4.0], [0.0, -1.0, -1.0, 2.0, -1.0]])
    _, _, av, ai, bv, bi, _ = run_extrema(red, x, poison)
    assert ai.tolist() == [1, 0, 3]
    assert bi.tolist() == [3, 0, 1]
    assert av.tolist() == [9.0, 4.0, 2.0] and bv.tolist() == [1.0, 4.0, -1.0]


def test_signed_zeros(red, poison):
    x = torch.tensor([[-0.0, -0.0, -0.0], [-0.0, 0.0, -0.0], [0.0, -0.0, 0.0]])
    u, o, l, r = outs(4, [3], poison=poison)
    red["sum_policies"].launch(x, u, o, l, r)
    neg = torch.signbit
    for t in (u, o, l, r):
        assert neg(t).tolist() == [True, False, False], t
    mx, mn, av, ai, bv, bi, mxl = run_extrema(red, x, poison)
    assert neg(mx).tolist() == [True, False, False]  # IEEE maximum: -0 < +0
    assert neg(mxl).tolist() == [True, False, False]
    assert neg(mn).tolist() == [True, True, True]
    # -0 and +0 compare equal: ties, lowest index.
    assert ai.tolist() == [0, 0, 0] and bi.tolist() == [0, 0, 0]


def test_integer_reductions_wrap_and_bitwise(red, poison):
    torch.manual_seed(3)
    x = torch.randint(-(2 ** 31), 2 ** 31 - 1, (4, 37), dtype=torch.int32)
    x[3] = torch.randint(1, 4, (37,), dtype=torch.int32)
    s, a, o, x2, p = (poison(torch.empty(4, dtype=torch.int32)) for _ in range(5))
    red["int_reductions"].launch(x, s, a, o, x2, p)
    wrap = lambda v: ((v + 2 ** 31) % 2 ** 32) - 2 ** 31  # noqa: E731
    for i in range(4):
        row = [int(v) for v in x[i]]
        assert s[i].item() == wrap(sum(row))
        assert a[i].item() == functools.reduce(lambda u, v: u & v, row)
        assert o[i].item() == functools.reduce(lambda u, v: u | v, row)
        assert x2[i].item() == functools.reduce(lambda u, v: u ^ v, row)
        assert p[i].item() == wrap(functools.reduce(lambda u, v: wrap(u * v), row))


def test_column_and_total_sums(red, poison):
    torch.manual_seed(4)
    x = torch.randn(5, 17)
    c = poison(torch.empty(17))
    t, tl = poison(torch.empty([])), poison(torch.empty([]))
    red["col_total"].launch(x, c, t, tl)
    torch.testing.assert_close(c, x.sum(0))
    torch.testing.assert_close(t, x.sum(), rtol=1e-5, atol=1e-5)
    acc = x.reshape(-1)[0].clone()
    for v in x.reshape(-1)[1:]:  # row-major order over the reduced axes
        acc = acc + v
    assert torch.equal(tl, acc)


# --- scans -------------------------------------------------------------------------------------

def test_scans(scans, poison):
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 8.0, 0.25]])
    inc, exc, rev, seeded, rexc = outs(5, [2, 4], poison=poison)
    scans["scans"].launch(x, inc, exc, rev, seeded, rexc)
    assert torch.equal(inc, torch.cumsum(x, 1))
    assert torch.equal(exc, torch.cat([torch.zeros(2, 1), torch.cumsum(x, 1)[:, :-1]], 1))
    assert torch.equal(rev, torch.cumsum(x.flip(1), 1).flip(1))
    assert torch.equal(seeded, 2.0 + torch.cumsum(x, 1))
    r = torch.cumsum(x.flip(1), 1).flip(1)
    assert torch.equal(rexc, 2.0 + torch.cat([r[:, 1:], torch.zeros(2, 1)], 1))


def test_scan_empty_and_fold_left_sub(scans, poison):
    x = torch.empty(2, 0)
    o = outs(5, [2, 0])
    scans["scans"].launch(x, *o)
    x = torch.randn(3, 9, dtype=torch.float64)
    y = poison(torch.empty(3, 9, dtype=torch.float64))
    scans["sub_scan"].launch(x, y)
    for i in range(3):
        acc = x[i, 0].item()
        expect = [acc]
        for v in x[i, 1:].tolist():
            acc = acc - v
            expect.append(acc)
        assert y[i].tolist() == expect


# --- elementwise ---------------------------------------------------------------------------------

def test_integer_division_truncates_and_rem_is_c_fmod(elem, poison):
    a = torch.tensor([7, -7, 7, -7, -9], dtype=torch.int32)
    b = torch.tensor([2, 2, -2, -2, 4], dtype=torch.int32)
    q, r, sh = (poison(torch.empty(5, dtype=torch.int32)) for _ in range(3))
    elem["int_ops"].launch(a, b, q, r, sh)
    assert q.tolist() == [3, -3, -3, 3, -2]
    assert r.tolist() == [1, -1, 1, -1, -1]
    assert sh.tolist() == [3, -4, 3, -4, -5]  # arithmetic shift right


def test_float_elementwise(elem, poison):
    nan = math.nan
    a = torch.tensor([1.0, nan, -0.0, 5.5, -7.9, 3.0])
    b = torch.tensor([2.0, 1.0, 0.0, -2.0, 2.0, nan])
    mx, mn, rm, sel = outs(4, [6], poison=poison)
    ti = poison(torch.empty(6, dtype=torch.int32))
    a_safe = a.nan_to_num(0.0)
    elem["float_ops"].launch(a_safe, b.nan_to_num(4.0), mx, mn, rm, ti, sel)
    elem["float_ops"].launch(a, b, mx, mn, rm, ti, sel)
    assert math.isnan(mx[1]) and math.isnan(mn[1]) and math.isnan(mx[5]) and math.isnan(mn[5])
    assert mx[0] == 2.0 and mn[0] == 1.0
    assert not torch.signbit(mx[2]) and torch.signbit(mn[2])
    assert rm[3].item() == math.fmod(5.5, -2.0) and abs(rm[4].item() - math.fmod(-7.9, 2.0)) < 1e-6
    assert ti[4].item() == -7 and ti[3].item() == 5
    assert sel[0] == 1.0 and sel[3] == -2.0 and math.isnan(sel[5])


def test_inout_loads_observe_memory_before_stores(elem):
    a = torch.arange(4, dtype=torch.float32)
    b = torch.arange(4, dtype=torch.float32) + 10
    elem["swap"].launch(a, b)
    assert a.tolist() == [10.0, 11.0, 12.0, 13.0] and b.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_transpose_iota_extent(elem, poison):
    x = torch.randn(3, 5)
    t = poison(torch.empty(5, 3))
    i = poison(torch.empty(3, 5, dtype=torch.int32))
    e = poison(torch.empty(3, 5))
    elem["layout"].launch(x, t, i, e)
    assert torch.equal(t, x.t())
    assert torch.equal(i, torch.arange(5, dtype=torch.int32).expand(3, 5))
    assert torch.equal(e, torch.full((3, 5), 5.0))


def test_compute_dtype_float64(compile_kir, poison, rel_err):
    mod = compile_kir(os.path.join(REPO, "examples", "softmax.kir"))["softmax"]
    torch.manual_seed(5)
    x = torch.randn(4, 33)
    y = poison(torch.empty(4, 33))
    mod.launch(x, y, compute_dtype=torch.float64)
    assert rel_err(y, torch.softmax(x.double(), 1)) < 1e-7
    with pytest.raises(TypeError):
        mod.launch(x, y, compute_dtype=torch.int32)


def test_gemm_f16_accumulates_in_f32(compile_kir, poison, rel_err):
    mod = compile_kir(os.path.join(REPO, "examples", "gemm_f16.kir"))
    (mod,) = mod.values()
    params = mod.ARTIFACT["abi"]["parameters"]
    assert [p["dtype"] for p in params] == ["f16", "f16", "f16"]
    torch.manual_seed(6)
    a = torch.randn(8, 64).half()
    b = torch.randn(64, 16).half()
    c = poison(torch.empty(8, 16, dtype=torch.float16))
    mod.launch(a, b, c)
    assert rel_err(c, (a.float() @ b.float()).half()) == 0.0


# --- launch ABI ----------------------------------------------------------------------------------

def abi_args(m=3, n=5):
    return [torch.randn(m, n), torch.randn(n), torch.empty(m, n), torch.randn(m, 4), 2.0, 3, True]


def test_abi_accepts_valid_arguments(elem):
    args = abi_args()
    elem["abi"].launch(*args)
    torch.testing.assert_close(args[2], args[0] * args[1] * 2.0)
    assert elem["abi"]._check_args(*abi_args(4, 6)) == {"M": 4, "N": 6}


def test_abi_wrong_dtype(elem):
    args = abi_args()
    args[1] = args[1].double()
    with pytest.raises(TypeError, match=r"parameter 'w': expected dtype torch.float32, got torch.float64"):
        elem["abi"].launch(*args)
    args = abi_args()
    args[0] = args[0].tolist()
    with pytest.raises(TypeError, match=r"parameter 'x': expected a torch.Tensor"):
        elem["abi"].launch(*args)


def test_abi_wrong_rank(elem):
    args = abi_args()
    args[1] = torch.randn(1, 5)
    with pytest.raises(ValueError, match=r"parameter 'w': expected rank 1"):
        elem["abi"].launch(*args)


def test_abi_symbol_and_static_extents(elem):
    args = abi_args()
    args[1] = torch.randn(6)
    with pytest.raises(ValueError, match=r"symbol N: x.shape\[1\] = 5 but w.shape\[0\] = 6"):
        elem["abi"].launch(*args)
    args = abi_args()
    args[3] = torch.randn(3, 5)
    with pytest.raises(ValueError, match=r"parameter 'k': axis 1 has the static extent 4"):
        elem["abi"].launch(*args)


def test_abi_contiguous_and_scalars(elem):
    args = abi_args()
    args[0] = torch.randn(5, 3).t()
    with pytest.raises(ValueError, match=r"'x' is declared contiguous"):
        elem["abi"].launch(*args)
    for i, bad, exc in [(4, "2.0", TypeError), (5, 2.5, TypeError), (5, True, TypeError),
                        (6, 1, TypeError), (5, 2 ** 40, ValueError)]:
        args = abi_args()
        args[i] = bad
        with pytest.raises(exc):
            elem["abi"].launch(*args)


def test_abi_overlap(elem):
    base = torch.randn(3, 10)
    args = abi_args()
    args[0], args[2] = base[:, :5], base[:, 5:]  # interleaved rows: spans overlap
    with pytest.raises(ValueError, match=r"parameter 'y' is written but overlaps the memory of parameter 'x'"):
        elem["abi"].launch(*args)
    args = abi_args()
    args[2] = args[0]
    with pytest.raises(ValueError, match=r"overlaps"):
        elem["abi"].launch(*args)
    args = abi_args()
    args[2] = torch.empty(1, 5).expand(3, 5)
    with pytest.raises(ValueError, match=r"share memory"):
        elem["abi"].launch(*args)
    # Disjoint halves of one allocation are fine; empty tensors never overlap.
    flat = torch.zeros(30)
    args = abi_args()
    args[0], args[2] = flat[:15].view(3, 5), flat[15:].view(3, 5)
    elem["abi"].launch(*args)
    a = torch.empty(0)
    elem["swap"].launch(a, a)
    # ... whatever their strides: an empty [3, 0] output that repeats one address along its rows.
    args = abi_args(3, 0)
    args[2] = torch.empty(1, 0).expand(3, 0)
    assert args[2].stride()[0] == 0
    elem["abi"].launch(*args)


def test_abi_devices(elem):
    args = abi_args()
    args[1] = torch.empty(5, device="meta")
    with pytest.raises(ValueError, match=r"one device"):
        elem["abi"].launch(*args)


def test_abi_metadata(elem):
    abi = elem["abi"].ARTIFACT["abi"]
    names = [p["name"] for p in abi["parameters"]]
    assert names == ["x", "w", "y", "k", "alpha", "n", "flag"]
    assert abi["symbols"] == ["M", "N"]
    x = abi["parameters"][0]
    assert x["kind"] == "view" and x["shape"] == ["M", "N"] and x["contiguous"] is True
    assert x["access"] == "in" and x["torch_dtype"] == "torch.float32"
    assert abi["parameters"][3]["shape"] == ["M", 4]
    assert abi["parameters"][6] == {"name": "flag", "kir_name": "flag", "kind": "scalar",
                                    "dtype": "i1", "torch_dtype": "torch.bool"}


# --- every example compiles and runs --------------------------------------------------------------

EXAMPLES = sorted(glob.glob(os.path.join(REPO, "examples", "*.kir")))


def make_args(abi, extents, poison):
    gen = torch.Generator().manual_seed(7)
    values, written = [], []
    sym = {s: extents[i % len(extents)] for i, s in enumerate(abi["symbols"])}
    for p in abi["parameters"]:
        dt = eval(p["torch_dtype"], {"torch": torch})  # noqa: S307 - our own metadata
        if p["kind"] == "scalar":
            values.append(True if dt == torch.bool else (2 if not dt.is_floating_point else 0.5))
            continue
        shape = [sym[d] if isinstance(d, str) else d for d in p["shape"]]
        if dt.is_floating_point:
            t = torch.randn(shape, generator=gen).to(dt)
        elif dt == torch.bool:
            t = torch.randint(0, 2, shape, generator=gen).bool()
        else:
            t = torch.randint(-5, 6, shape, generator=gen).to(dt)
        if p["access"] == "out":
            poison(t)
        if p["access"] != "in":
            written.append((p["name"], t))
        values.append(t)
    return values, written


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_example_compiles_and_runs(compile_kir, poison, path):
    mods = compile_kir(path)
    assert mods
    for name, mod in mods.items():
        abi = mod.ARTIFACT["abi"]
        for extents in ([3, 5, 17], [1, 4, 2]):
            args, written = make_args(abi, extents, poison)
            mod.launch(*args)
            for pname, t in written:
                if t.dtype.is_floating_point:
                    assert not torch.isnan(t.float()).any(), (name, pname)
                elif t.dtype != torch.bool:
                    assert not (t == max(-0x5A5A5A5A, torch.iinfo(t.dtype).min)).any(), (name, pname)
