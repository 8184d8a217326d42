"""GPU harness: correctness against the reference provider and timing against the
baselines of ../shared/anchors (torch/cuBLAS and the hand-written Triton kernels in
handwritten.py), all in one process and one run.

  python3 scripts/gpu/harness.py ART mem|gemm|splitk|f32|f8|prologue|scalars|forms|axes|attn|grids|passes   (ART = .gpu-artifacts from prepare.sh)

Timing scope: median of triton.testing.do_bench (warmup 25 ms, rep 100 ms) of the
tuned winner launched through the module's bind() (argument checks done once,
outside the timed region), like the hand-written kernels, which are also launched
without checks. Where a kernel is compared with baselines (the memory-bound cases, the
fused and batched GEMMs), each is the median of three do_bench medians taken in
rotating order (bench_interleaved). In the memory-bound comparisons each baseline reads
its own copy of the inputs: an evict-last hint leaves a tensor's lines in L2 through
do_bench's flush, and a kernel timed next on the same tensor reads them from there
(stop 48, probe.py lnshare: 11-19% for the hand-written layernorm on an H100). Tuning
time is not kernel time. Results: $OUT/results-<which>.json.
"""
import importlib.util
import json
import os
import sys
import time

import torch
import triton
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import handwritten as hw  # noqa: E402
from compare import bits_differing  # noqa: E402

ART, WHICH = sys.argv[1], sys.argv[2]
OUT = os.environ.get("OUT", "/tmp")
RESULTS = []
_loaded = {}


def load(case, target):
    key = (case, target)
    if key not in _loaded:
        path = os.path.join(ART, case, target, "kernel.py")
        spec = importlib.util.spec_from_file_location(f"k_{case}_{target}", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        _loaded[key] = m
    return _loaded[key]


def bench(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def bench_interleaved(fns, rounds=3):
    """Median of `rounds` do_bench medians per function, the order rotating every round, so
    that clock and thermal drift during a run does not favour whichever is measured first."""
    times = [[] for _ in fns]
    for r in range(rounds):
        for i in [(r + j) % len(fns) for j in range(len(fns))]:
            times[i].append(bench(fns[i]))
    return [sorted(t)[len(t) // 2] for t in times]


def tbps(byt, **fns):
    """`<name>_TBps` of each function moving `byt` bytes, timed by bench_interleaved (the kernel and
    its baselines in the same rotating rounds)."""
    ms = bench_interleaved(list(fns.values()))
    return {f"{k}_TBps": byt / t / 1e9 for k, t in zip(fns, ms)}


def rel_err(out, ref):
    o, r = out.double(), ref.double()
    if torch.isnan(o).any() and not torch.isnan(r).any():
        return float("inf")
    d = r.norm().item()
    return (o - r).norm().item() / (d if d else 1.0)


def tuned(case, args):
    """Tunes (intent_runtime, exact trial state) and returns (bound launcher, winner, tune s)."""
    m = load(case, "triton")
    t0 = time.time()
    winner = m.prepare(*args)
    tune_s = time.time() - t0
    return m.bind(winner, *args), winner, tune_s


def record(**kw):
    RESULTS.append(kw)
    keys = [k for k in kw if k not in ("winner",)]
    print(" ".join(f"{k}={kw[k]:.3g}" if isinstance(kw[k], float) else f"{k}={kw[k]}" for k in keys), flush=True)


def copies(args, poison=()):
    """Copies of the tensor arguments; those at `poison` filled with NaN (integers: -7)."""
    out = [a.clone() if torch.is_tensor(a) else a for a in args]
    for i in poison:
        out[i].fill_(float("nan")) if out[i].dtype.is_floating_point else out[i].fill_(-7)
    return out


def check(case, args, outs, tol, name=None):
    """Runs winner and reference on copies; returns the worst relative error."""
    m = load(case, "triton")
    r = load(case, "reference")
    a1, a2 = copies(args, outs), copies(args)
    m.launch(*a1)
    r.launch(*a2)
    err = max(rel_err(a1[i], a2[i]) for i in outs)
    ok = err <= tol
    record(kind="check", case=name or case, err=err, tol=tol, ok=ok)
    return ok


def mem():
    dev = "cuda"
    # softmax f32
    for M, N in [(8192, 1024), (8192, 4096), (4096, 16384), (32768, 512), (1024, 32768)]:
        x = torch.randn(M, N, device=dev); y = torch.empty_like(x)
        check("softmax", [x, y], [1], 1e-5)
        run, win, ts = tuned("softmax", [x, y])
        byt = 2 * M * N * 4
        xh, xt = x.clone(), x.clone()  # each baseline's own input (module docstring)
        record(kind="bench", case="softmax", shape=f"{M}x{N}", **tbps(byt, ours=run, handwritten=lambda: hw.tri_softmax(xh),
                                                                      torch=lambda: torch.softmax(xt, 1)), tune_s=ts, winner=win)
    for M, N in [(64, 65536), (8, 131072)]:  # long rows: chunked structure
        x = torch.randn(M, N, device=dev); y = torch.empty_like(x)
        check("softmax", [x, y], [1], 1e-4, name=f"softmax_{M}x{N}")
    # layernorm
    for case, dt in [("layernorm", torch.float16), ("layernorm_f32", torch.float32)]:
        for M, N in [(8192, 1024), (8192, 4096), (4096, 8192)]:
            x = torch.randn(M, N, device=dev, dtype=dt); w = torch.randn(N, device=dev, dtype=dt)
            b = torch.randn(N, device=dev, dtype=dt); y = torch.empty_like(x)
            check(case, [x, w, b, y, 1e-5], [3], 2e-3 if dt == torch.float16 else 1e-5)
            run, win, ts = tuned(case, [x, w, b, y, 1e-5])
            byt = 2 * M * N * x.element_size()
            xh, xt = x.clone(), x.clone()
            record(kind="bench", case=case, shape=f"{M}x{N}",
                   **tbps(byt, ours=run, handwritten=lambda: hw.tri_ln(xh, w, b),
                          torch=lambda: torch.nn.functional.layer_norm(xt, (N,), w, b, 1e-5)), tune_s=ts, winner=win)
    # row sum
    for M, N in [(8192, 8192), (65536, 256), (256, 65536)]:
        x = torch.randn(M, N, device=dev); y = torch.empty(M, device=dev)
        check("row_sum", [x, y], [1], 1e-4)
        run, win, ts = tuned("row_sum", [x, y])
        byt = M * N * 4
        xt = x.clone()
        record(kind="bench", case="row_sum", shape=f"{M}x{N}", **tbps(byt, ours=run, torch=lambda: xt.sum(1)),
               tune_s=ts, winner=win)
    # column sum, total sum
    x = torch.randn(8192, 8192, device=dev)
    xt = x.clone()  # torch's own input for the three cases below
    y = torch.empty(8192, device=dev)
    check("col_sum", [x, y], [1], 1e-4)
    run, win, ts = tuned("col_sum", [x, y])
    record(kind="bench", case="col_sum", shape="8192x8192", **tbps(x.numel() * 4, ours=run, torch=lambda: xt.sum(0)),
           tune_s=ts, winner=win)
    y0 = torch.empty((), device=dev)
    check("total_sum", [x, y0], [1], 1e-4)
    run, win, ts = tuned("total_sum", [x, y0])
    record(kind="bench", case="total_sum", shape="8192x8192", **tbps(x.numel() * 4, ours=run, torch=lambda: xt.sum()),
           tune_s=ts, winner=win)
    # cumsum
    y = torch.empty_like(x)
    check("cumsum", [x, y], [1], 1e-4)
    run, win, ts = tuned("cumsum", [x, y])
    record(kind="bench", case="cumsum", shape="8192x8192",
           **tbps(2 * x.numel() * 4, ours=run, torch=lambda: torch.cumsum(xt, 1)), tune_s=ts, winner=win)
    # pointwise add 256M f32 (1-D view)
    a = torch.randn(256 * 1024 * 1024, device=dev); b = torch.randn_like(a); c = torch.empty_like(a)
    if os.path.exists(os.path.join(ART, "add", "triton", "kernel.py")):
        a2, b2, c2 = a.view(1, -1), b.view(1, -1), c.view(1, -1)
        check("add", [a2[:, :1 << 20], b2[:, :1 << 20], c2[:, :1 << 20].clone()], [2], 1e-6)
        run, win, ts = tuned("add", [a2, b2, c2])
        at, bt = a.clone(), b.clone()
        record(kind="bench", case="add", shape="256M", **tbps(3 * a.numel() * 4, ours=run, torch=lambda: at + bt),
               tune_s=ts, winner=win)
        del at, bt
    del a, b, c
    # semantics on the GPU (small shapes; strict folds bit-exact)
    t = torch.tensor([[2.0 ** 24, 1.0, -2.0 ** 24]], device=dev); o = torch.empty(1, device=dev)
    load("sum_fold_left", "triton").launch(t, o)
    record(kind="check", case="fold_left_2^24", err=float(abs(o.item())), tol=0.0, ok=o.item() == 0.0)
    for case, shape, outs in [("gelu", (300, 1000), [1]), ("rmsnorm", None, None), ("row_argmax", (129, 3000), [1, 2]),
                              ("mixed_sums", (77, 5000), None), ("cumsum_exclusive", (33, 3001), [1])]:
        m = load(case, "triton")
        params = m_params(case)
        sizes = {"M": 67, "N": 1531}
        if shape:
            sizes = {"M": shape[0], "N": shape[1]}
        args = make_args(params, sizes, dev)
        outs_i = [i for i, p in enumerate(params) if p["kind"] == "view" and p["access"] != "in"]
        check(case, args, outs_i, 1e-4)
    division_checks()


def division_checks():
    """tests/python/providers/kir/division.kir on the GPU: IEEE f32 division bit for bit
    (the row-uniform path's f64 reciprocal starts from the hardware's approximate
    division, which the CPU interpreter does not model) and rsqrt on subnormals."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "python", "providers"))
    from division_operands import normal_operands, operands  # noqa: E402
    mods = {k: load(os.path.join("division", "triton"), k) for k in
            ("div_by_row", "div_by_scalar", "div_elementwise", "rsqrt")}
    x, d = operands()
    checks = [("div_by_row", lambda y: mods["div_by_row"].launch(x.cuda(), d.cuda(), y), x / d[:, None])]
    for s in (3.0, 0.1, 1e-40, -0.0, float("inf"), 3.4e38):
        checks.append((f"div_by_scalar_{s}", lambda y, s=s: mods["div_by_scalar"].launch(x.cuda(), s, y),
                       x / torch.tensor(s)))
    for tiny_row in (None, 17):
        xn, dn = normal_operands(tiny_row=tiny_row)
        checks.append((f"div_by_row_fast_{tiny_row}", lambda y, xn=xn, dn=dn: mods["div_by_row"].launch(xn.cuda(), dn.cuda(), y),
                       xn / dn[:, None]))
    dd = d[:, None].expand_as(x).contiguous()
    checks.append(("div_elementwise", lambda y: mods["div_elementwise"].launch(x.cuda(), dd.cuda(), y), x / dd))
    # Many random rows: every divisor class against every dividend class.
    g = torch.Generator().manual_seed(3)
    xr = torch.randint(0, 2 ** 32, (4096, 1024), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
    dr = torch.randint(0, 2 ** 32, (4096,), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
    checks.append(("div_by_row_random", lambda y: mods["div_by_row"].launch(xr.cuda(), dr.cuda(), y), xr / dr[:, None]))
    for name, run, want in checks:
        y = torch.full(want.shape, 7.0, device="cuda")
        run(y)
        bad = bits_differing(y.cpu(), want)
        record(kind="check", case=name, err=float(bad), tol=0.0, ok=bad == 0)
    # Every candidate in each division form (DIV_FORM), whatever the tuner picks: bits differing, summed.
    for k, args, want in [("div_by_row", (x, d), x / d[:, None]), ("div_by_row", (xr, dr), xr / dr[:, None]),
                          ("div_by_scalar", (x, 1e-40), x / torch.tensor(1e-40)),
                          ("div_by_scalar", (x, 3.0), x / torch.tensor(3.0))]:
        dev_args = [a.cuda() if torch.is_tensor(a) else a for a in args]
        for form in (0, 1):
            bad = 0
            cands = [c for c in mods[k].CANDIDATES if c.get("DIV_FORM", 0) == form]
            for c in cands:
                y = torch.full(want.shape, 7.0, device="cuda")
                mods[k].bind(c, *dev_args, y)()
                bad += bits_differing(y.cpu(), want)
            record(kind="check", case=f"{k}_form{form}_all_{len(cands)}_candidates_{want.shape[0]}x{want.shape[1]}",
                   err=float(bad), tol=0.0, ok=bad == 0 and len(cands) > 0)
    # f64 division is IEEE f64 (plain `/`), row-uniform or not.
    x64 = torch.randn(512, 300, dtype=torch.float64) * torch.exp2(torch.randint(-300, 300, (512, 300)).double())
    d64 = torch.rand(512, dtype=torch.float64) * torch.exp2(torch.randint(-300, 300, (512,)).double())
    for k in ("div_by_row_f64", "div_elementwise_f64"):
        m = load(os.path.join("division", "triton"), k)
        dk = d64 if k == "div_by_row_f64" else d64[:, None].expand_as(x64).contiguous()
        y = torch.full(x64.shape, 7.0, device="cuda", dtype=torch.float64)
        m.launch(x64.cuda(), dk.cuda(), y)
        want = x64 / d64[:, None]
        bad = bits_differing(y.cpu(), want)
        record(kind="check", case=k, err=float(bad), tol=0.0, ok=bad == 0)
    xs = torch.tensor([[4.0, 1e-40, 1e-45, 1.17549435e-38, 2.0, 1e-30, 3e38, 0.5]])
    y = torch.empty_like(xs, device="cuda")
    mods["rsqrt"].launch(xs.cuda(), y)
    want = 1.0 / torch.sqrt(xs.double())
    rel = ((y.cpu().double() - want).abs() / want).max().item()
    record(kind="check", case="rsqrt_subnormal", err=rel, tol=2 ** -21, ok=rel < 2 ** -21)
    # tanh (tests/python/providers/kir/tanh.kir): per-element relative error over 1e-30..100, both
    # signs, signed zeros, infinities, NaN and the series/exponential switch at 0.625. The GPU's exp
    # and division are approximate (a few ulp); f64 is IEEE.
    mag = torch.logspace(-30, 2, 20000, dtype=torch.float64)
    special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 0.6249, 0.625, 0.6251, -0.625],
                           dtype=torch.float64)
    for k, dt, tol in (("tanh_f32", torch.float32, 2e-6), ("tanh_f64", torch.float64, 1e-14)):
        xt = torch.cat([mag, -mag, special]).to(dt)
        y = torch.full_like(xt, 7.0, device="cuda")
        load(os.path.join("tanh", "triton"), k).launch(xt.cuda(), y)
        got, ref = y.cpu().double(), torch.tanh(xt.double())
        same = (got == ref) | (torch.isnan(got) & torch.isnan(ref))
        rel = torch.where(same, torch.zeros_like(got), (got - ref).abs() / ref.abs()).max().item()
        zeros = xt == 0
        signs = bool(torch.equal(torch.signbit(y.cpu()[zeros]), torch.signbit(xt[zeros])))
        record(kind="check", case=k, err=rel, tol=tol, ok=rel <= tol and signs)


def f32():
    """tests/python/providers/kir/gemm_f32.kir on the GPU: f32 GEMMs are IEEE unless the op
    says `precision tf32`; the TF32 kernel must also show TF32's error (it really rounds)."""
    dev = "cuda"
    for name, bt in (("gemm_f32", False), ("gemm_tf32_bt", True)):
        tri = load(os.path.join("gemm_f32", "triton"), name)
        ref = load(os.path.join("gemm_f32", "reference"), name)
        for M, N, K in [(512, 384, 1000), (1000, 1000, 1000), (37, 45, 70)]:
            a = torch.randn(M, K, device=dev)
            b = torch.randn(N, K, device=dev) if bt else torch.randn(K, N, device=dev)
            c = torch.full((M, N), float("nan"), device=dev)
            want = torch.empty(M, N, device=dev)
            tri.launch(a, b, c)
            ref.launch(a, b, want)
            exact = (a.double() @ (b.double().T if bt else b.double())).float()
            err = rel_err(c, want)
            tol = 2e-3 if bt else 1e-5
            record(kind="check", case=f"{name}_{M}x{N}x{K}", err=err, tol=tol, ok=err <= tol)
            if bt and K >= 512:  # TF32 keeps 10 mantissa bits: its error must be visible
                e64 = rel_err(c, exact)
                record(kind="check", case=f"{name}_{M}x{N}x{K}_is_tf32", err=e64, tol=1e-5, ok=e64 > 1e-5)
    # Every f32 row (the `contraction` family) timed against cuBLAS in the same precision.
    M = N = K = 4096
    for name, bt in (("gemm_f32", False), ("gemm_tf32_bt", True)):
        tri = load(os.path.join("gemm_f32", "triton"), name)
        a = torch.randn(M, K, device=dev)
        b = torch.randn(N, K, device=dev) if bt else torch.randn(K, N, device=dev)
        c = torch.empty(M, N, device=dev)
        torch.backends.cuda.matmul.allow_tf32 = bt
        cub = bench(lambda: a @ b.T) if bt else bench(lambda: a @ b)
        torch.backends.cuda.matmul.allow_tf32 = False
        fl = 2 * M * N * K
        record(kind="f32bench", case=name, shape=f"{M}x{N}x{K}", variant="cublas", TFLOPs=fl / cub / 1e9)
        for cand in tri.CANDIDATES:
            try:
                ms = bench(tri.bind(cand, a, b, c))
                record(kind="f32bench", case=name, shape=f"{M}x{N}x{K}", variant=json.dumps(cand, sort_keys=True),
                       TFLOPs=fl / ms / 1e9, vs_cublas=cub / ms)
            except Exception as e:  # noqa: BLE001
                record(kind="f32bench", case=name, variant=json.dumps(cand, sort_keys=True), error=repr(e)[:200])


def f8():
    """tests/python/providers/kir/gemm_f8.kir on the GPU: e4m3 operands, f32 accumulation, f16
    result, B as [K, N] and as [N, K]. Correct against the reference provider; every row timed
    at 4096^3 against cuBLAS fp8 (torch._scaled_mm, unit scales) and cuBLAS f16 on the same values."""
    dev = "cuda"
    for name, bt in (("gemm_f8", False), ("gemm_f8_bt", True)):
        tri = load(os.path.join("gemm_f8", "triton"), name)
        ref = load(os.path.join("gemm_f8", "reference"), name)
        for M, N, K in [(512, 384, 1000), (37, 45, 70), (4096, 4096, 4096)]:
            a = (torch.randn(M, K, device=dev) * 4).to(torch.float8_e4m3fn)
            b = torch.randn(*((N, K) if bt else (K, N)), device=dev).to(torch.float8_e4m3fn)
            c = torch.full((M, N), float("nan"), device=dev, dtype=torch.float16)
            want = torch.empty(M, N, device=dev, dtype=torch.float16)
            tri.launch(a, b, c)
            ref.launch(a, b, want)
            err = rel_err(c, want)
            record(kind="check", case=f"{name}_{M}x{N}x{K}", err=err, tol=2e-3, ok=err <= 2e-3)
        fl = 2 * M * N * K
        bkn = b.t() if bt else b  # [K, N] view
        a16, b16 = a.half(), bkn.half()
        record(kind="f8bench", case=name, shape=f"{M}x{N}x{K}", variant="cublas_f16",
               TFLOPs=fl / bench(lambda: a16 @ b16) / 1e9)
        try:
            one = torch.ones((), device=dev)
            bcol = bkn.t().contiguous().t()  # cuBLAS fp8 wants B column-major
            record(kind="f8bench", case=name, shape=f"{M}x{N}x{K}", variant="cublas_fp8_scaled_mm",
                   TFLOPs=fl / bench(lambda: torch._scaled_mm(a, bcol, one, one, out_dtype=torch.float16)) / 1e9)
        except Exception as e:  # noqa: BLE001
            record(kind="f8bench", case=name, variant="cublas_fp8_scaled_mm", error=repr(e)[:200])
        for cand in tri.CANDIDATES:
            try:
                record(kind="f8bench", case=name, shape=f"{M}x{N}x{K}", variant=json.dumps(cand, sort_keys=True),
                       TFLOPs=fl / bench(tri.bind(cand, a, b, c)) / 1e9)
            except Exception as e:  # noqa: BLE001
                record(kind="f8bench", case=name, variant=json.dumps(cand, sort_keys=True), error=repr(e)[:200])


def m_params(case):
    with open(os.path.join(ART, case, "triton", "artifact.json")) as f:
        return json.load(f)["abi"]["parameters"]


def make_args(params, sizes, dev):
    args = []
    for p in params:
        if p["kind"] == "scalar":
            args.append(1e-5 if p["dtype"][0] in "fb" else 3)
            continue
        dt = eval(p["torch_dtype"])
        shape = [sizes[d] if isinstance(d, str) else d for d in p["shape"]]
        t = torch.randn(shape, device=dev).to(dt) if dt.is_floating_point else torch.randint(-9, 9, shape, device=dev).to(dt)
        args.append(t)
    return args


def gemm():
    dev = "cuda"
    for dt in [torch.float16, torch.bfloat16]:
        case = "gemm_f16" if dt == torch.float16 else "gemm_bf16"
        for M, N, K in [(4096, 4096, 4096), (8192, 8192, 8192), (4000, 4104, 4040), (8192, 1024, 8192), (16, 8192, 8192)]:
            a = torch.randn(M, K, device=dev, dtype=dt); b = torch.randn(K, N, device=dev, dtype=dt)
            c = torch.empty(M, N, device=dev, dtype=dt)
            check(case, [a, b, c], [2], 1e-2 if dt == torch.bfloat16 else 2e-3, name=f"{case}_{M}x{N}x{K}")
            run, win, ts = tuned(case, [a, b, c])
            fl = 2 * M * N * K
            fns = [run, lambda: a @ b, lambda: hw.tri_mm(a, b)]
            try:
                hw.run_tma(a, b)  # autotunes once, outside the timed rounds
                fns.append(lambda: hw.run_tma(a, b))
            except Exception:  # descriptor form needs aligned shapes
                pass
            ms = bench_interleaved(fns)
            ours, cub, hwp = (fl / t / 1e9 for t in ms[:3])
            hwt = fl / ms[3] / 1e9 if len(ms) > 3 else float("nan")
            record(kind="bench", case=case, shape=f"{M}x{N}x{K}", ours_TFLOPs=ours, cublas_TFLOPs=cub,
                   handwritten_ptr_TFLOPs=hwp, handwritten_tma_TFLOPs=hwt, vs_cublas=ours / cub,
                   vs_handwritten=ours / max(hwp, hwt if hwt == hwt else 0), tune_s=ts, winner=win)
    # every declared tensor-descriptor candidate once on an aligned and a ragged shape
    m = load("gemm_f16", "triton")
    for M, N, K in [(256, 256, 512), (200, 264, 328)]:
        a = torch.randn(M, K, device=dev, dtype=torch.float16); b = torch.randn(K, N, device=dev, dtype=torch.float16)
        ref = (a.float() @ b.float())
        worst = 0.0
        for cand in m.CANDIDATES:
            c = torch.full((M, N), float("nan"), device=dev, dtype=torch.float16)
            m.bind(cand, a, b, c)()
            worst = max(worst, rel_err(c, ref))
        record(kind="check", case=f"gemm_f16_all_candidates_{M}x{N}x{K}", err=worst, tol=2e-3, ok=worst <= 2e-3)
    # epilogue, batched, transposed B
    M = N = K = 4096
    a = torch.randn(M, K, device=dev, dtype=torch.float16); b = torch.randn(K, N, device=dev, dtype=torch.float16)
    bias = torch.randn(N, device=dev, dtype=torch.float16); c = torch.empty(M, N, device=dev, dtype=torch.float16)
    params = m_params("gemm_bias_relu")
    order = {"a": a, "b": b, "bias": bias, "c": c}
    args = [order.get(p["name"], c) for p in params]
    outs = [i for i, p in enumerate(params) if p["kind"] == "view" and p["access"] == "out"]
    check("gemm_bias_relu", args, outs, 2e-3)
    run, win, ts = tuned("gemm_bias_relu", args)
    fl = 2 * M * N * K
    ours, ref = bench_interleaved([run, lambda: torch.relu(a @ b + bias)])
    record(kind="bench", case="gemm_bias_relu", shape="4096^3", ours_TFLOPs=fl / ours / 1e9,
           torch_TFLOPs=fl / ref / 1e9, tune_s=ts, winner=win)
    B = 16; S = 2048
    a = torch.randn(B, S, S, device=dev, dtype=torch.float16); b = torch.randn(B, S, S, device=dev, dtype=torch.float16)
    c = torch.empty(B, S, S, device=dev, dtype=torch.float16)
    check("batched_gemm", [a, b, c], [2], 2e-3)
    run, win, ts = tuned("batched_gemm", [a, b, c])
    fl = 2 * B * S * S * S
    ours, ref = bench_interleaved([run, lambda: torch.bmm(a, b)])
    record(kind="bench", case="batched_gemm", shape="16x2048^3", ours_TFLOPs=fl / ours / 1e9,
           torch_TFLOPs=fl / ref / 1e9, tune_s=ts, winner=win)
    a = torch.randn(M, K, device=dev, dtype=torch.float16); bt = torch.randn(N, K, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    check("gemm_bt", [a, bt, c], [2], 2e-3)
    run, win, ts = tuned("gemm_bt", [a, bt, c])
    fl = 2 * M * N * K
    ours, ref = bench_interleaved([run, lambda: a @ bt.T])
    record(kind="bench", case="gemm_bt", shape="4096^3", ours_TFLOPs=fl / ours / 1e9,
           torch_TFLOPs=fl / ref / 1e9, tune_s=ts, winner=win)


def splitk():
    """Long K with few output tiles (split K) and the skinny shapes the split rows also serve."""
    dev = "cuda"
    for dt in [torch.float16, torch.bfloat16]:
        case = "gemm_f16" if dt == torch.float16 else "gemm_bf16"
        for M, N, K in [(128, 128, 65536), (16, 8192, 8192)]:
            a = torch.randn(M, K, device=dev, dtype=dt); b = torch.randn(K, N, device=dev, dtype=dt)
            c = torch.empty(M, N, device=dev, dtype=dt)
            check(case, [a, b, c], [2], 1e-2 if dt == torch.bfloat16 else 2e-3, name=f"{case}_{M}x{N}x{K}")
            m = load(case, "triton")
            split = [cd for cd in m.CANDIDATES if cd.get("SPLIT_K", 1) > 1]
            worst = 0.0
            want = a.float() @ b.float()
            fl = 2 * M * N * K
            for cd in split:  # every declared split row, not only the winner
                c2 = torch.empty_like(c)
                run = m.bind(cd, a, b, c2)
                for _ in range(3):  # a bound launcher reuses its arrival counters: each run must reset them
                    c2.fill_(float("nan"))
                    run()
                    worst = max(worst, rel_err(c2, want))
                record(kind="split_row", case=case, shape=f"{M}x{N}x{K}", row=cd, TFLOPs=fl / bench(run) / 1e9)
            tol = 1e-2 if dt == torch.bfloat16 else 2e-3
            record(kind="check", case=f"{case}_split_rows_{M}x{N}x{K}", err=worst, tol=tol, ok=worst <= tol)
            run, win, ts = tuned(case, [a, b, c])
            ours = fl / bench(run) / 1e9
            cub = fl / bench(lambda: a @ b) / 1e9
            record(kind="bench", case=case, shape=f"{M}x{N}x{K}", ours_TFLOPs=ours, cublas_TFLOPs=cub,
                   vs_cublas=ours / cub, tune_s=ts, winner=win)


def scalars():
    """tests/python/providers/kir/narrow_scalars.kir on the GPU with a scalar that no f16 or bf16
    holds (1.1) and one that f32 does not hold exactly: f16/bf16 scalars are rounded to their
    type by the launcher, and an f64 scalar reaches the kernel as f64 (Triton passes an
    unannotated Python float as f32). Bits against the reference provider."""
    dev = "cuda"
    for name, dt in (("axpb_f16", torch.float16), ("div_bf16", torch.bfloat16),
                     ("cast_bf16_scalar", torch.float32), ("scale_f64", torch.float64)):
        tri = load(os.path.join("narrow_scalars", "triton"), name)
        ref = load(os.path.join("narrow_scalars", "reference"), name)
        x = torch.randn(64, 1000, device=dev).to(dt)
        for value in (1.1, 0.1 + 2 ** -40):
            got, want = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
            tri.launch(x, value, got)
            ref.launch(x, value, want)
            differing = int((got != want).sum().item())
            record(kind="check", case=f"{name}_scalar_{value!r}", err=float(differing), tol=0.0, ok=differing == 0)


def prologue():
    """Contractions with operand prologues (tests/python/providers/kir/gemm_prologue.kir) and
    16-bit GEMMs with an f32 output (gemm_mixed_out.kir) at 4096^3: against the reference provider,
    and timed against what a torch user writes (the prologue as its own ops, then cuBLAS; cuBLAS
    with an f32 output), in the same rounds."""
    dev = "cuda"
    M = N = K = 4096
    fl = 2 * M * N * K
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float16: torch.randn(*shape, device=dev, generator=g).to(dt)
    a, b, bt = rnd(M, K), rnd(K, N), rnd(N, K)
    scale = (torch.rand(M, device=dev, generator=g) + 0.5).half()
    a32, b32 = rnd(M, K, dt=torch.float32), rnd(K, N, dt=torch.float32)
    abf, bbf = rnd(M, K, dt=torch.bfloat16), rnd(K, N, dt=torch.bfloat16)
    c32, c16 = torch.empty(M, N, device=dev), torch.empty(M, N, device=dev, dtype=torch.float16)
    B, S = 16, 2048
    ba, bb32, bc = rnd(B, S, S), rnd(B, S, S, dt=torch.float32), torch.empty(B, S, S, device=dev)
    cases = [
        ("gemm_scaled_a", [a, b, c32, 0.75], fl, lambda: torch.mm(a * 0.75, b).float()),
        ("gemm_cast_inputs", [a32, b32, c16], fl, lambda: a32.half() @ b32.half()),
        ("gemm_row_scale_bt", [a, scale, bt, c32], fl, lambda: ((a * scale[:, None] + 0.5) @ (bt + 1).T).float()),
        ("bmm_cast_b", [ba, bb32, bc], 2 * B * S * S * S, lambda: torch.bmm(ba, bb32.half()).float()),
        ("gemm_f16_f32out", [a, b, c32], fl, lambda: torch.mm(a, b, out_dtype=torch.float32)),
        ("gemm_bf16_f32out", [abf, bbf, c32], fl, lambda: torch.mm(abf, bbf, out_dtype=torch.float32)),
    ]
    for case, args, flops, torch_fn in cases:
        outs = [i for i, p in enumerate(m_params(case)) if p["kind"] == "view" and p["access"] == "out"]
        check(case, args, outs, 2e-3)
        run, win, ts = tuned(case, args)
        ours, ref = bench_interleaved([run, torch_fn])
        record(kind="bench", case=case, shape="16x2048^3" if case.startswith("bmm") else "4096^3",
               ours_TFLOPs=flops / ours / 1e9, torch_TFLOPs=flops / ref / 1e9, vs_torch=ref / ours, tune_s=ts,
               winner=win)
        # The winner's tile with the other prologue form (fused / run once), where that is a candidate.
        m = load(case, "triton")
        other = dict(win, PROLOGUE_ONCE=1 - win["PROLOGUE_ONCE"]) if "PROLOGUE_ONCE" in win else None
        if other in m.CANDIDATES:
            a_win, a_other = bench_interleaved([run, m.bind(other, *args)])
            record(kind="prologue_form", case=case, winner_once=win["PROLOGUE_ONCE"],
                   winner_TFLOPs=flops / a_win / 1e9, other_form_TFLOPs=flops / a_other / 1e9)


def forms():
    """Einsum forms beyond [batch,] "mk,kn->mn" (tests/python/providers/kir/contraction_forms.kir):
    products and sums (matrix-vector, vector-matrix, row-wise dot, dot, outer), a transposed result
    (operands swapped), batch labels in one operand only, two batch labels and two contracted labels
    (attention's output projection over unmerged heads). Each against the
    reference provider, then timed in the same rounds as the torch call a user writes."""
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float16: torch.randn(*shape, device=dev, generator=g).to(dt)  # noqa: E731
    out = lambda *shape, dt=torch.float32: torch.empty(shape, device=dev, dtype=dt)  # noqa: E731
    M = N = K = 8192
    A, x, bias = rnd(M, K), rnd(K), rnd(M, dt=torch.float32)
    xf, Bf = rnd(K, dt=torch.float32), rnd(K, N, dt=torch.float32)
    ra, rb = rnd(16384, 4096, dt=torch.bfloat16), rnd(16384, 4096, dt=torch.bfloat16)
    da, db = rnd(1 << 26, dt=torch.float32), rnd(1 << 26, dt=torch.float32)
    oa, ob = rnd(8192), rnd(8192)
    G = 4096
    ga, gb = rnd(G, G), rnd(G, G)
    SB, SM = 8, 2048
    sa, sw, sbias = rnd(SB, SM, G), rnd(G, G), rnd(G)
    xa, xb = rnd(G, G, dt=torch.bfloat16), rnd(4, G, G, dt=torch.bfloat16)
    HB, HH, HS, HD = 4, 16, 2048, 128
    q, k = rnd(HB, HH, HS, HD), rnd(HB, HH, HS, HD)
    ma, mb = rnd(HD, 2, 8, 1024), rnd(8, HD, 1024)
    hx, hw_ = rnd(HB, HH, HS, HD, dt=torch.bfloat16), rnd(HD, HH, 2048, dt=torch.bfloat16)
    cases = [  # case, args, outputs, tol, work, unit, torch
        ("matvec", [A, x, bias, out(M, dt=torch.float16)], [3], 2e-3, A.numel() * 2, "TBps",
         lambda: (torch.mv(A, x).float() + bias).half()),
        ("vecmat", [xf, Bf, out(N)], [2], 1e-4, Bf.numel() * 4, "TBps", lambda: xf @ Bf),
        ("rowdot", [ra, rb, out(16384)], [2], 1e-2, 2 * ra.numel() * 2, "TBps",
         lambda: torch.einsum("mk,mk->m", ra.float(), rb.float())),
        ("dot", [da, db, out()], [2], 1e-4, 2 * da.numel() * 4, "TBps", lambda: torch.dot(da, db)),
        ("outer", [oa, ob, out(8192, 8192)], [2], 1e-5, 8192 * 8192 * 4, "TBps", lambda: torch.outer(ob, oa).float()),
        ("gemm_result_t", [ga, gb, out(G, G)], [2], 2e-3, 2 * G ** 3, "TFLOPs", lambda: (ga @ gb).float().T),
        ("shared_b", [sa, sw, sbias, out(SB, SM, G, dt=torch.float16)], [3], 2e-3, 2 * SB * SM * G * G, "TFLOPs",
         lambda: sa @ sw + sbias),
        ("shared_a", [xa, xb, out(4, G, G)], [2], 1e-2, 2 * 4 * G ** 3, "TFLOPs", lambda: (xa @ xb).float()),
        ("heads_scores", [q, k, out(HB, HH, HS, HS), 0.125], [2], 2e-3, 2 * HB * HH * HS * HS * HD, "TFLOPs",
         lambda: (q @ k.transpose(-1, -2)).float() * 0.125),
        ("heads_mixed", [ma, mb, out(2, 8, 1024, 1024)], [2], 2e-3, 2 * 16 * 1024 * 1024 * HD, "TFLOPs",
         lambda: torch.einsum("kbhm,hkn->bhnm", ma.float(), mb.float())),
        ("head_merge", [hx, hw_, out(HB, HS, 2048, dt=torch.bfloat16)], [2], 1e-2, 2 * HB * HS * 2048 * HH * HD,
         "TFLOPs", lambda: torch.einsum("bhmk,khn->bmn", hx, hw_)),
    ]
    check_and_time(cases)


def check_and_time(cases):
    """Each (case, args, outputs, tol, work, unit, torch call): checked against the reference
    provider, then the tuned winner and the torch call timed in the same rotating rounds."""
    for case, args, outs, tol, work, unit, torch_fn in cases:
        check(case, args, outs, tol)
        run, win, ts = tuned(case, args)
        ours, ref = bench_interleaved([run, torch_fn])
        record(kind="bench", case=case, **{f"ours_{unit}": work / ours / 1e9, f"torch_{unit}": work / ref / 1e9},
               vs_torch=ref / ours, family=load(case, "triton").FAMILY, tune_s=ts, winner=win)


def axes():
    """Reductions over several axes of rank > 2 values (tests/python/providers/kir/several_axes.kir):
    the reduced or kept axes form the block's columns, their coordinates split from a flat index.
    Against the torch call a user writes; TB/s counts the input read once and the output written."""
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float32: torch.randn(*shape, device=dev, generator=g).to(dt)  # noqa: E731
    out = lambda *shape, dt=torch.float32: torch.empty(shape, device=dev, dtype=dt)  # noqa: E731
    x3 = rnd(32, 2048, 1024)
    w3 = rnd(16, 1024, 4096)
    x4 = rnd(64, 256, 56, 56)
    h3 = rnd(32, 2048, 1024, dt=torch.float16)
    xi, wi = rnd(32, 256, 56, 56, dt=torch.float16), rnd(256, dt=torch.float16)
    nb = lambda t: t.numel() * t.element_size()  # noqa: E731
    cases = [
        ("batch_sum", [x3, out(32)], [1], 1e-4, nb(x3), "TBps", lambda: x3.sum((1, 2))),
        ("middle_sum", [w3, out(1024)], [1], 1e-4, nb(w3), "TBps", lambda: w3.sum((0, 2))),
        ("leading_sum", [w3, out(4096)], [1], 1e-4, nb(w3), "TBps", lambda: w3.sum((0, 1))),
        ("total3", [x3, out()], [1], 1e-4, nb(x3), "TBps", lambda: x3.sum()),
        ("channel_sum", [x4, out(256)], [1], 1e-4, nb(x4), "TBps", lambda: x4.sum((0, 2, 3))),
        ("batch_max", [h3, out(32, dt=torch.float16)], [1], 2e-3, nb(h3), "TBps", lambda: h3.amax((1, 2))),
        ("instance_norm", [xi, wi, out(32, 256, 56, 56, dt=torch.float16), 1e-5], [2], 2e-3, 2 * nb(xi), "TBps",
         lambda: torch.nn.functional.instance_norm(xi, weight=wi, eps=1e-5)),
    ]
    check_and_time(cases)


def attn():
    """Two contractions with row-local ops between them (structure region_contraction): the attention
    example (f32 probabilities into an IEEE f32 second contraction, as written) and the forms of
    tests/python/providers/kir/region_contraction.kir. Each against the reference provider, then timed
    against the torch code a user writes for the same computation and, for the 16-bit ones, torch's
    fused scaled_dot_product_attention. TFLOP/s count the two contractions once (4 * B * M * N * D)."""
    dev = "cuda"
    F = torch.nn.functional
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float16: torch.randn(*shape, device=dev, generator=g).to(dt)  # noqa: E731
    out = lambda *shape, dt=torch.float16: torch.empty(shape, device=dev, dtype=dt)  # noqa: E731
    B, H, S, D = 4, 16, 2048, 128
    q, k, v = rnd(B, H, S, D), rnd(B, H, S, D), rnd(B, H, S, D)
    sc = D ** -0.5
    flops = 4 * B * H * S * S * D
    eB, eH, eS, eD = 2, 8, 1024, 64
    eq, ek, ev = rnd(eB, eH, eS, eD), rnd(eB, eH, eS, eD), rnd(eB, eH, eS, eD)
    lq, lkt, lv = (rnd(B * H, S, D, dt=torch.bfloat16), rnd(B * H, D, S, dt=torch.bfloat16),
                   rnd(B * H, S, D, dt=torch.bfloat16))
    fq, fk, fv, fb, fw = rnd(S, 64, dt=torch.float32), rnd(S, 64, dt=torch.float32), rnd(S, 64, dt=torch.float32), \
        rnd(S, S, dt=torch.float32), rnd(64, dt=torch.float32)

    def eager_lse():
        s = (lq @ lkt).float()
        m = s.amax(-1, keepdim=True)
        e = torch.exp(s - m)
        den = e.sum(-1, keepdim=True)
        return ((e.bfloat16() @ lv).float() / den).bfloat16(), (m + den.log()).squeeze(-1)

    cases = [  # case, args, outputs, tol, work, unit, torch
        ("attention", [eq, ek, ev, out(eB, eH, eS, eD), eD ** -0.5], [3], 2e-3, 4 * eB * eH * eS * eS * eD, "TFLOPs",
         lambda: (torch.softmax((eq @ ek.transpose(-1, -2)).float() * eD ** -0.5, -1) @ ev.float()).half()),
        ("attn_f16", [q, k, v, out(B, H, S, D), sc], [3], 2e-3, flops, "TFLOPs",
         lambda: torch.softmax((q @ k.transpose(-1, -2)).float() * sc, -1).half() @ v),
        ("attn_bf16_lse", [lq, lkt, lv, out(B * H, S, D, dt=torch.bfloat16), out(B * H, S, dt=torch.float32)], [3, 4],
         1e-2, flops, "TFLOPs", eager_lse),
        ("attn_f32_bias", [fq, fk, fb, fv, fw, out(S, 64, dt=torch.float32)], [5], 1e-4, 4 * S * S * 64, "TFLOPs",
         lambda: (torch.softmax(fq @ fk.T + fb, -1) @ (fv * 2)) * fw),
    ]
    check_and_time(cases)
    # torch's fused attention (flash / cuDNN / efficient backend, whichever it picks) on the f16 shape
    run, win, ts = tuned("attn_f16", cases[1][1])
    ours, sdpa = bench_interleaved([run, lambda: F.scaled_dot_product_attention(q, k, v, scale=sc)])
    record(kind="bench", case="attn_f16_vs_sdpa", ours_TFLOPs=flops / ours / 1e9, sdpa_TFLOPs=flops / sdpa / 1e9,
           vs_sdpa=sdpa / ours, winner=win)


def grids():
    """Launches past 65535 programs along what used to be grid dimension 1 (CUDA's limit there):
    a 1-D pointwise kernel over 2^27 elements, 70000 batched GEMMs, attention over 70000 heads, a
    batched operand prologue run once; every candidate, each against the reference provider."""
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float16: torch.randn(*shape, device=dev, generator=g).to(dt)  # noqa: E731
    n, b = 2**27 + 5, 70000
    small = torch.randint(-50, 50, (n,), device=dev, generator=g, dtype=torch.int32).to(torch.int8)
    cases = [
        ("add1d", [small, small.flip(0), torch.empty(n, device=dev, dtype=torch.int8)], [2], 0.0),
        ("batched_gemm", [rnd(b, 16, 24), rnd(b, 24, 16), torch.empty(b, 16, 16, device=dev, dtype=torch.float16)],
         [2], 2e-3),
        ("attention", [rnd(700, 100, 16, 16), rnd(700, 100, 24, 16), rnd(700, 100, 24, 16),
                       torch.empty(700, 100, 16, 16, device=dev, dtype=torch.float16), 0.25], [3], 2e-3),
        ("bmm_cast_b", [rnd(b, 16, 32), rnd(b, 32, 16, dt=torch.float32),
                        torch.empty(b, 16, 16, device=dev, dtype=torch.float32)], [2], 2e-3),
    ]
    for case, args, outs, tol in cases:
        check_every_candidate(case, f"{case} {list(args[outs[0]].shape)}", args, outs, tol)


def check_every_candidate(case, label, args, outs, tol):
    """Runs every candidate of `case` on fresh copies of `args` (outputs poisoned) against the
    reference provider; a candidate whose launch fails is reported, not fatal."""
    m, r = load(case, "triton"), load(case, "reference")
    want = copies(args)
    r.launch(*want)
    worst, failed = 0.0, []
    for cand in m.CANDIDATES:
        got = copies(args, outs)
        try:
            m._run_candidate(cand, got)
            torch.cuda.synchronize()
        except Exception as e:  # a launch the grid does not allow fails here
            failed.append(f"{cand}: {type(e).__name__}: {str(e)[:200]}")
            continue
        worst = max([worst] + [rel_err(got[i], want[i]) for i in outs])
    record(kind="check", case=label, err=worst, tol=tol, ok=worst <= tol and not failed,
           candidates=len(m.CANDIDATES), failed=failed)


def passes():
    """Row reductions grouped into the chunked row's passes (tests/python/providers/kir/row_passes.kir)
    and the split merges whose independent sums now share one pass (split_merge.kir): every candidate
    against the reference provider on ragged shapes, rows long enough to be chunked, one element and
    an empty row, the outputs poisoned before each launch."""
    dev = "cuda"
    torch.manual_seed(0)
    kernels = ["sum_and_squares", "centered", "late_max", "tree_and_fold",
               "row_sums_f32_i32", "row_max_min", "row_mean_norm", "col_mean_var"]
    shapes = [(67, 1531), (5, 70001), (3000, 257), (1, 1), (33, 0)]
    for case in kernels:
        params = m_params(case)
        outs = [i for i, p in enumerate(params) if p["kind"] == "view" and p["access"] != "in"]
        tol = 2e-3 if any(params[i]["dtype"] in ("f16", "bf16") for i in outs) else 1e-4
        for M, N in shapes:
            args = make_args(params, {"M": M, "N": N}, dev)
            check_every_candidate(case, f"{case} {M}x{N}", args, outs, tol)


if __name__ == "__main__":
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__}))
    try:
        {"mem": mem, "gemm": gemm, "splitk": splitk, "f32": f32, "f8": f8, "prologue": prologue,
         "scalars": scalars, "forms": forms, "axes": axes, "attn": attn, "grids": grids,
         "passes": passes}[WHICH]()
    finally:
        with open(os.path.join(OUT, f"results-{WHICH}.json"), "w") as f:
            json.dump(RESULTS, f, indent=1, default=str)
        bad = [r for r in RESULTS if r.get("kind") == "check" and not r.get("ok")]
        print(f"checks: {sum(1 for r in RESULTS if r.get('kind') == 'check')} run, {len(bad)} failed")
