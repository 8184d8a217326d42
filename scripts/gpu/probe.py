"""Diagnostic probe (not the benchmark): where do generated kernels lose against the
hand-written ones? Times every candidate of a few memory-bound artifacts with and
without CUDA graphs (graphs remove the host launch cost from the measurement), and
GEMM access-form variants (device-side vs host-side tensor descriptors, pointer vs
descriptor store) at fixed configurations next to the hand-written TMA kernel.

  python3 scripts/gpu/probe.py ART [MODE ...]   (ART = .gpu-artifacts from prepare.sh)

Modes: mem and gemm (the default pair), sums (every row of the sum kernels compiled with
probe-sum-rows.json), persist (descriptor GEMM rows with 1, 132 and 264 workers), ctas
(descriptor GEMM rows with NUM_CTAS 1 and 2), skinny (the runtime tuner's own trial timings
at 16x8192x8192), softdiv (softmax division variants), ceiling (64 MiB row sums against a
pure streaming read, dirty and clean L2 flush), batched (batched GEMM: generated rows vs
flattened 2-D host descriptors), ws (large GEMMs: warp specialization, persistence,
flattening, split epilogue next to the generated and hand-written kernels), evict (evict_first
on streamed tile loads under do_bench's dirty flush), lnvar (layernorm f16 with
the select before the first sum and the per-thread reciprocal removed), recheck (the tightest
memory-bound bars, tuned winner against the hand-written kernel in 8 rotating rounds), stages
(memory-bound loops' winners with num_stages 1-4), prologue (where a fused operand prologue costs),
f32out (f16 operands with an f32 output: rows against cuBLAS), prolpersist (which fused-prologue rows
compute wrong tiles), skinnytile (16x8192x8192 tiles beyond the table), rowbalance (row sums
at 132-528 rows of 65536: programs per SM), launchcost (host microseconds per launch and CUDA-graph
timings of the skinny GEMM), votediv (exact row-uniform division: Markstein with a warp-uniform branch to the
f64 product), lnhoist (layernorm with the reciprocal of N and the weight loads moved
before the row's reductions), rowprefetch (row sums with an L2 bulk prefetch ahead), rowpersist (small rows in persistent programs
with pipelined loads), rowrotate (long-row sums with each program's chunk order rotated), vectors (a vector's total and
a dot product with many splits), vecmat (vector-matrix against the column sum), axesidx (reductions over several axes with
64- and 32-bit offsets), axesquot (the same reductions' candidates, flat indices split by multiply-high or by division:
OLD_ART names the second compiler's artifacts), rowstream (256x65536 row sums: stream-K programs over equal parts of the array and TMA rows),
rowmlp (long-row sums: the chunk loop without masks and loading several chunks before adding),
rowdbuf (long-row sums with a register double buffer: the next chunk loaded before the current one is added),
rowmerge (long-row sums split across programs: the merge's arrival ordered, relaxed or left out), rowsplitorder
(long-row sums split across programs, a row's splits launched consecutively), rowlayout (64 MiB row sums
of both shapes and of the long rows' memory read as short rows, in the same rounds), epilogue (reductions read
through an element-wise epilogue, split or not: ART/epilogue/{old,new} from two compilers), colstats
(column mean and variance: wider column ownership with splits), rowhandoff (256x65536 row sums by
balanced programs whose shared rows are joined by a fence-free hand-off), rowoccupancy (long-row sums
with 32 warps capped at 32 registers: two programs per SM), rowticket (256x65536 row sums split over
consecutive programs merged by the program that took its row's last ticket, the ticket taken before the loads),
rowcoarse (256x65536 row sums split into 2-8 coarse parts with the generated merge, and read by row_mean_norm),
rowfixed (256x65536 row sums split over programs merged with no atomic: the row's last-launched split adds the others' words),
fewrows (softmax over 1-128 long rows: tuned launch, torch, and innermost store splits),
rowceiling (the 64 MiB row sums against pure evict-first streaming reads of the same bytes in the same rounds),
rowl2hint (the 64 MiB reads and the long-row loop with 16-byte loads written as PTX, with and without the
L2 prefetch-size hints .L2::128B / .L2::256B, against the shipped row and Triton's evict-first reads),
rowcluster (row sums by programs of 2 or 4 CTAs per cluster: Triton splits the row's block over the cluster and
reduces it through distributed shared memory, a merge without global atomics),
storesplit (outer-axis kernels whose full-size outputs read a reduction: rows shared by 2-16 programs, each
folding the whole row and storing its share, against one program per row block and torch), launchpaths (the bias
gradient through intent_runtime and through Triton's autotuner, with torch), lnbisect (layernorm 8192x1024:
the hand-written kernel with and without the generated kernel's load hint and exact scalar steps, its output
allocated per call or not, against the generated kernel of the same form), rowstate (the 256x65536 row sum's
shipped row and tuned winner with torch: run before and after harness.py mem), lnshare (layernorm
8192x1024, the hand-written kernel beside the generated one with and without the resident row's evict-last
hint, on a shared input and on private copies, and each alone), rowpdl (the 256x65536 row sum as
pieces and a merge kernel, with and without programmatic dependent launch),
dump, maxnreg.
"""
import importlib.util
import json
import os
import re
import sys
import tempfile

import torch
import triton
import triton.language as tl
from triton.testing import do_bench, do_bench_cudagraph
from triton.tools.tensor_descriptor import TensorDescriptor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import handwritten as hw  # noqa: E402
from compare import bits_differing  # noqa: E402

ART = sys.argv[1]
OUT = os.environ.get("OUT", "/tmp")
ROWS = []
VARIANTS = tempfile.mkdtemp(prefix="probe-variants-")  # edited modules (not returned with $OUT)


def load(case):
    path = os.path.join(ART, case, "triton", "kernel.py")
    spec = importlib.util.spec_from_file_location(f"p_{case}", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def t(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def rotating_rounds(fns, names, work, rounds=6):
    """Times fns[name] for every name in `rounds` rounds, the order rotating and reversing each
    round (clock ramps and drift fall on every variant alike); returns name -> (median, min, max)
    of work / milliseconds."""
    scores = {k: [] for k in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in (order if r % 2 == 0 else order[::-1]):
            scores[k].append(work / t(fns[k]))
    out = {}
    for k, v in scores.items():
        v = sorted(v)
        out[k] = ((v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2, v[0], v[-1])
    return out


def tg(fn):
    return do_bench_cudagraph(fn, rep=100, return_mode="median")


def emit(**kw):
    ROWS.append(kw)
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kw.items()), flush=True)


def every_candidate(m, args, byt, ref, **tags):
    """Times every candidate of module m on args (the output last) and emits its TB/s (byt bytes)
    and its relative error against ref (an f64 tensor)."""
    for c in m.CANDIDATES:
        run = m.bind(c, *args)
        args[-1].fill_(float("nan"))
        run()
        err = ((args[-1].double() - ref).norm() / ref.norm()).item()
        emit(**tags, variant=json.dumps(c, sort_keys=True), TBps=byt / t(run) / 1e9, err=err)


def row_cases():
    """(case, shape, launch args, bytes moved, hand-written launcher) of the probed row kernels."""
    dev = "cuda"
    cases = []
    for M, N in [(4096, 8192), (8192, 1024)]:
        x = torch.randn(M, N, device=dev, dtype=torch.float16)
        w = torch.randn(N, device=dev, dtype=torch.float16)
        b = torch.randn(N, device=dev, dtype=torch.float16)
        cases.append(("layernorm", f"{M}x{N}", [x, w, b, torch.empty_like(x), 1e-5], 2 * M * N * 2,
                      lambda x=x, w=w, b=b: hw.tri_ln(x, w, b)))
    for M, N in [(1024, 32768), (8192, 1024)]:
        x = torch.randn(M, N, device=dev)
        cases.append(("softmax", f"{M}x{N}", [x, torch.empty_like(x)], 2 * M * N * 4, lambda x=x: hw.tri_softmax(x)))
    return cases


def sums_probe():
    """Every candidate of the sum kernels compiled with scripts/gpu/probe-sum-rows.json
    (prepare.sh: <case>_probe), against torch, to choose measured default rows."""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    cases = []
    x = torch.randn(8192, 8192, device=dev)
    cases.append(("total_sum", "8192x8192", [x, torch.empty((), device=dev)], x.numel() * 4, lambda x=x: x.sum()))
    cases.append(("col_sum", "8192x8192", [x, torch.empty(8192, device=dev)], x.numel() * 4, lambda x=x: x.sum(0)))
    for M, N in [(8192, 8192), (65536, 256), (256, 65536)]:
        xr = torch.randn(M, N, device=dev)
        cases.append(("row_sum", f"{M}x{N}", [xr, torch.empty(M, device=dev)], xr.numel() * 4, lambda xr=xr: xr.sum(1)))
    for case, shape, args, byt, torch_fn in cases:
        emit(kind="sums", case=case, shape=shape, variant="torch", TBps=byt / t(torch_fn) / 1e9)
        every_candidate(load(case + "_probe"), args, byt, torch_fn().double(), kind="sums", case=case, shape=shape)


def persist_probe(suffix="_persist", kind="persist"):
    """Every candidate of <case><suffix> next to cuBLAS: _persist (scripts/gpu/probe-persistent-rows.json:
    the descriptor rows with WORKERS 1, 132 and 264) or _ctas (probe-cluster-rows.json: NUM_CTAS 1 and 2)."""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    for case, dt, (M, N, K) in [("gemm_f16", torch.float16, (4096, 4096, 4096)), ("gemm_f16", torch.float16, (8192, 8192, 8192)),
                                ("gemm_f16", torch.float16, (4000, 4104, 4040)), ("gemm_bf16", torch.bfloat16, (8192, 8192, 8192)),
                                ("gemm_bt", torch.float16, (4096, 4096, 4096))]:
        m = load(case + suffix)
        a = torch.randn(M, K, device=dev, dtype=dt)
        b = torch.randn(N, K, device=dev, dtype=dt) if case == "gemm_bt" else torch.randn(K, N, device=dev, dtype=dt)
        c = torch.empty(M, N, device=dev, dtype=dt)
        ref = (a.float() @ (b.float().T if case == "gemm_bt" else b.float()))
        fl = 2 * M * N * K
        shape = f"{M}x{N}x{K}"
        cub = (lambda: a @ b.T) if case == "gemm_bt" else (lambda: a @ b)
        emit(kind=kind, case=case, shape=shape, variant="cublas", TFLOPs=fl / t(cub) / 1e9)
        for cand in m.CANDIDATES:
            try:
                run = m.bind(cand, a, b, c)
                c.fill_(float("nan"))
                run()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                emit(kind=kind, case=case, shape=shape, variant=json.dumps(cand, sort_keys=True),
                     TFLOPs=fl / t(run) / 1e9, err=err)
            except Exception as e:  # noqa: BLE001
                emit(kind=kind, case=case, shape=shape, variant=json.dumps(cand, sort_keys=True),
                     error=repr(e)[:300])


def skinny_probe():
    """The runtime tuner's own trial timings (and failures) for 16x8192x8192, next to
    do_bench of every candidate."""
    dev = "cuda"
    os.environ["INTENT_RETUNE"] = "1"
    for case, dt in [("gemm_f16", torch.float16), ("gemm_bf16", torch.bfloat16)]:
        m = load(case)
        a = torch.randn(16, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        c = torch.empty(16, 8192, device=dev, dtype=dt)
        tk = m._tuned()
        w = tk.prepare(a, b, c)
        for tm in tk.last_timings:
            emit(kind="skinny", case=case, cfg=json.dumps(tm["config"], sort_keys=True), tuner_ms=tm["median_ms"],
                 status=tm["status"], message=str(tm.get("message"))[:200])
        for cand in m.CANDIDATES:
            try:
                emit(kind="skinny", case=case, cfg=json.dumps(cand, sort_keys=True), bench_ms=t(m.bind(cand, a, b, c)))
            except Exception as e:  # noqa: BLE001
                emit(kind="skinny", case=case, cfg=json.dumps(cand, sort_keys=True), error=repr(e)[:200])
        emit(kind="skinny", case=case, winner=json.dumps(w, sort_keys=True), cublas_ms=t(lambda: a @ b))


_DIV_CALL = r"(?<!def )_div_by_recip\((\w+), (\w+)\)"


def recips(src):
    """Reciprocal variable -> its divisor, in a generated kernel's source."""
    return dict(re.findall(r"(\w+) = _recip_f64\((\w+)\)", src))


def softmax_shapes():
    """The long-row softmax shapes of the division probes: (M, N, input, two outputs, bytes moved,
    softmax in f64)."""
    for M, N in [(1024, 32768), (4096, 16384), (8192, 4096)]:
        x = torch.randn(M, N, device="cuda")
        yield M, N, x, torch.empty_like(x), torch.empty_like(x), 2 * M * N * 4, torch.softmax(x.double(), 1)


def bound_variants(mods, cand, x, y, z, ref):
    """Binds every softmax variant module to (x, y) with `cand` and runs it once: tag -> (launcher or
    None, fields to emit: the error against softmax in f64 and the bits differing from the generated
    kernel's output z, or the error message)."""
    out = {}
    mods["generated"].bind(cand, x, z)()
    for tag, m in mods.items():
        try:
            run = m.bind(cand, x, y)
            y.fill_(float("nan"))
            run()
            diff = int((z.view(torch.int32) != y.view(torch.int32)).sum().item())
            out[tag] = (run, {"err": ((y.double() - ref).norm() / ref.norm()).item(), "bits_differing": diff})
        except Exception as e:  # noqa: BLE001
            out[tag] = (None, {"error": repr(e)[:300]})
    return out


def time_variants(kind, mods, M, N, x, y, z, byt, ref, fns, names, rounds):
    """Adds every softmax variant module at 16 and 32 warps to `fns` (after its bit check), then
    times them all in rotating rounds ($ROUNDS overrides `rounds`)."""
    for w in (16, 32):
        cand = {"NUM_WARPS": w, "OWN_M": 1, "RED_N": 8192, "SPLIT": 1}
        for tag, (run, info) in bound_variants(mods, cand, x, y, z, ref).items():
            emit(kind=kind + "-check", shape=f"{M}x{N}", variant=tag, warps=w, **info)
            if run:
                fns[f"{tag}/w{w}"] = run
                names.append(f"{tag}/w{w}")
    rounds = int(os.environ.get("ROUNDS", rounds))
    for k, (med, lo, hi) in rotating_rounds(fns, names, byt / 1e9, rounds=rounds).items():
        emit(kind=kind, shape=f"{M}x{N}", variant=k, TBps=med, min=lo, max=hi)


def _import_source(name, src):
    """`src` written to the variants folder as <name>.py and imported as a new module."""
    path = os.path.join(VARIANTS, f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"v_{name}", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def variant_module(case, tag, edit):
    """The artifact's kernel.py with `edit(source)` applied, imported as a new module."""
    return _import_source(f"{case}_{tag}", edit(open(os.path.join(ART, case, "triton", "kernel.py")).read()))


_BRANCH_HELPERS = """
@triton.jit
def _all_fast(a, b):
    b = tl.cast(b, tl.float32)
    ab = tl.abs(a)
    bb = tl.abs(b)
    fast = (((ab >= 8.271806125530277e-25) | (a == 0)) & (ab < 2.4178516392292583e+24)
            & (bb >= 9.094947017729282e-13) & (bb < 2199023255552.0))
    return tl.min(fast.to(tl.int32)) == 1

@triton.jit
def _mk2(a, b, r):
    b = tl.cast(b, tl.float32)
    y = r.to(tl.float32)
    q = a * y
    q = tl.fma(tl.fma(-q, b, a), y, q)
    q = tl.fma(tl.fma(-q, b, a), y, q)
    return tl.where(a == 0, a * y, q)

@triton.jit
def _f64div(a, r):
    return (a.to(tl.float64) * r).to(tl.float32)

"""


_ASM_HELPERS = """
@triton.jit
def _mk_setup(b):
    # Per row: b as f32, y = RN(1/b), and the dividend bound above which Markstein is exact
    # (+inf when b itself is out of range, so that every element falls back).
    b = tl.cast(b, tl.float32)
    y = tl.div_rn(tl.full(b.shape, 1.0, tl.float32), b)
    bb = tl.abs(b)
    lo = tl.where((bb >= 2.350988701644575e-38) & (bb <= 4.253529586511731e+37),
                  7.888609052210118e-31, float('inf'))
    return b, y, lo

@triton.jit
def _div_asm(a, b, r):
    # Two Markstein steps in f32 with y = RN(1/b); elements outside the range where they are
    # exact (|a| <= 2^-100, a zero, |q| < 2^-124 or >= 2^126, b outside [2^-125, 2^125], NaN,
    # inf) take the f64 product under a per-thread predicate inside the asm.
    b, y, lo = _mk_setup(b)
    return tl.inline_asm_elementwise(
        \"\"\"{
        .reg .f32 q, rm, t;
        .reg .pred p;
        .reg .f64 ad, qd;
        mul.rn.f32 q, $1, $3;
        neg.f32 t, q;
        fma.rn.f32 rm, t, $2, $1;
        fma.rn.f32 q, rm, $3, q;
        neg.f32 t, q;
        fma.rn.f32 rm, t, $2, $1;
        fma.rn.f32 q, rm, $3, q;
        abs.f32 t, $1;
        setp.gt.f32 p, t, $4;
        abs.f32 t, q;
        setp.ge.and.f32 p, t, 0f01800000, p;
        setp.lt.and.f32 p, t, 0f7E800000, p;
        @!p cvt.f64.f32 ad, $1;
        @!p mul.rn.f64 qd, ad, $5;
        @!p cvt.rn.f32.f64 q, qd;
        mov.f32 $0, q;
        }\"\"\",
        "=f,f,f,f,f,d", [a, b, y, lo, r], dtype=tl.float32, is_pure=True, pack=1)

@triton.jit
def _div_where(a, b, r):
    b, y, lo = _mk_setup(b)
    q = a * y
    q = tl.fma(tl.fma(-q, b, a), y, q)
    q = tl.fma(tl.fma(-q, b, a), y, q)
    aq = tl.abs(q)
    fast = (tl.abs(a) > lo) & (aq >= 4.70197740328915e-38) & (aq < 8.507059173023462e+37)
    return tl.where(fast, q, (a.to(tl.float64) * r).to(tl.float32))

"""


def scaled(g, n, lo, hi):
    """f32 values m * 2^e, m uniform in [0.5, 1.5), e uniform in [lo, hi), rounded once from f64
    (so subnormals and underflow to zero come out as IEEE rounding gives them)."""
    m = torch.rand(n, device="cuda", generator=g, dtype=torch.float64) + 0.5
    e = torch.randint(lo, hi, (n,), device="cuda", generator=g).to(torch.float64)
    return (m * torch.exp2(e)).float()


_PROBE_RECIP = _PROBE_DASM = _PROBE_DWHERE = _PROBE_DIVR = None  # set by asmdiv_probe before the first launch


@triton.jit
def _asmdiv_exact_kernel(a_ptr, b_ptr, o_ptr, w_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1.0)
    b = tl.load(b_ptr + offs, mask=m, other=1.0)
    r = _PROBE_RECIP(b)
    tl.store(o_ptr + offs, _PROBE_DASM(a, b, r), mask=m)
    tl.store(w_ptr + offs, _PROBE_DWHERE(a, b, r), mask=m)


@triton.jit
def _nanmax(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _softmax_steps(x, y, M, N, sx, sy, BLOCK: tl.constexpr, NANMAX: tl.constexpr, WHERE: tl.constexpr,
                   TWO_D: tl.constexpr, DIV: tl.constexpr, ROWS: tl.constexpr):
    # The hand-written softmax (anchors.py) with the generated kernel's choices switched on one
    # at a time: NaN-propagating max, masks by select after a zero-filled load, a [1, BLOCK]
    # tile (ROWS: with a row coordinate tensor and its mask, as generated), and the division
    # (0 approximate `/`, 1 f64 product, 2 div_rn).
    row = tl.program_id(0)
    if TWO_D:
        cols = tl.arange(0, BLOCK)[None, :]
        ax: tl.constexpr = 1
    else:
        cols = tl.arange(0, BLOCK)
        ax: tl.constexpr = 0
    m = cols < N
    if ROWS:
        rows = (row + tl.arange(0, 1))[:, None]
        m = (rows < M) & m
        row = rows
    if WHERE:
        v0 = tl.load(x + row * sx + cols, mask=m, other=0.0)
        v = tl.where(m, v0, float("-inf"))
    else:
        v0 = tl.load(x + row * sx + cols, mask=m, other=-float("inf"))
        v = v0
    if NANMAX:
        mx = tl.reduce(v, ax, _nanmax, keep_dims=TWO_D)
    else:
        mx = tl.max(v, ax, keep_dims=TWO_D)
    e = tl.exp(v0 - mx)
    if WHERE:
        s = tl.sum(tl.where(m, e, 0.0), ax, keep_dims=TWO_D)
    else:
        s = tl.sum(e, ax, keep_dims=TWO_D)
    if DIV == 1:
        o = _PROBE_DIVR(e, _PROBE_RECIP(s))
    elif DIV == 2:
        o = tl.div_rn(e, s)
    else:
        o = e / s
    tl.store(y + row * sy + cols, o, mask=m)


def softsteps_probe():
    """Which of the generated softmax's choices cost at 16 warps? The hand-written kernel with
    them switched on one at a time (registers, spills, TB/s, rotating rounds), next to the
    generated kernel at 16 and 32 warps. SOFTSTEPS_ONLY=a,b limits the hand-written steps."""
    global _PROBE_RECIP, _PROBE_DIVR
    gen = load("softmax")
    _PROBE_RECIP, _PROBE_DIVR = gen._recip_f64, gen._div_by_recip

    pattern = r"(v0 = tl\.load\([^\n]*other=)0\)\n(\s+)v1 = tl\.where\(rmask & cmask, v0, float\('-inf'\)\)"

    def identity_load(src):
        # The resident path's max reduction reads the load itself: load its identity into the
        # masked lanes and drop the select (the sum keeps its select). Generated so since 7793055.
        return re.sub(pattern, r"\1float('-inf'))\n\2v1 = v0", src)
    variants = {"generated": gen}
    if re.search(pattern, open(os.path.join(ART, "softmax", "triton", "kernel.py")).read()):
        variants["identity_load"] = variant_module("softmax", "ident", identity_load)
    # (NANMAX, WHERE, TWO_D, DIV, ROWS)
    steps = {"hw": (0, 0, 0, 0, 0), "f64div": (0, 0, 0, 1, 0), "all_approx": (1, 1, 1, 0, 1),
             "all_f64div": (1, 1, 1, 1, 1), "nanmax_where": (1, 1, 0, 1, 0), "nanmax_2d": (1, 0, 1, 1, 0),
             "where_2d": (0, 1, 1, 1, 0), "2d_rows": (0, 0, 1, 1, 1), "where_2d_rows": (0, 1, 1, 1, 1),
             "nanmax_2d_rows": (1, 0, 1, 1, 1), "nanmax_where_2d": (1, 1, 1, 1, 0)}
    if os.environ.get("SOFTSTEPS_ONLY"):
        steps = {k: v for k, v in steps.items() if k in os.environ["SOFTSTEPS_ONLY"].split(",")}
    for M, N, x, y, z, byt, ref in softmax_shapes():
        BLOCK = triton.next_power_of_2(N)
        fns, names = {"handwritten": lambda x=x: hw.tri_softmax(x)}, ["handwritten"]
        for tag, (nm, wh, d2, dv, rw) in steps.items():
            for w in (16, 32):
                def run(nm=nm, wh=wh, d2=d2, dv=dv, rw=rw, w=w, x=x, y=y, M=M, N=N, BLOCK=BLOCK):
                    return _softmax_steps[(M,)](x, y, M, N, x.stride(0), y.stride(0), BLOCK=BLOCK, NANMAX=nm,
                                                WHERE=wh, TWO_D=d2, DIV=dv, ROWS=rw, num_warps=w)
                try:
                    k = run()
                    k._init_handles()
                    err = ((y.double() - ref).norm() / ref.norm()).item()
                    emit(kind="softsteps-regs", shape=f"{M}x{N}", variant=tag, warps=w, n_regs=k.n_regs,
                         n_spills=k.n_spills, err=err)
                    fns[f"{tag}/w{w}"] = run
                    names.append(f"{tag}/w{w}")
                except Exception as e:  # noqa: BLE001
                    emit(kind="softsteps-regs", shape=f"{M}x{N}", variant=tag, warps=w, error=repr(e)[:300])
        time_variants("softsteps", variants, M, N, x, y, z, byt, ref, fns, names, rounds=4)


def ab_probe():
    """A/B of two compilers' artifacts: ART/<case>$AB_NEW (default: ART/<case>, this tree) against
    ART/<case>$AB_OLD (default _old: compiled by another intentc into the same layout), each tuned by
    its own launcher and timed in rotating rounds; outputs compared bit for bit."""
    def lnargs(M, N, dt):
        x = torch.randn(M, N, device="cuda", dtype=dt)
        return [x, torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt),
                torch.empty_like(x), 1e-5], 2 * M * N * x.element_size(), 3
    def rowargs(M, N, out_rows):
        x = torch.randn(M, N, device="cuda")
        y = torch.empty(M, device="cuda") if out_rows else torch.empty_like(x)
        return [x, y], (M * N + (M if out_rows else M * N)) * 4, 1
    def sumargs(M, N, out_shape):
        x = torch.randn(M, N, device="cuda")
        return [x, torch.empty(out_shape, device="cuda")], M * N * 4, 1
    cases = [("layernorm_f32", "8192x1024", lambda: lnargs(8192, 1024, torch.float32)),
             ("layernorm_f32", "8192x4096", lambda: lnargs(8192, 4096, torch.float32)),
             ("layernorm_f32", "4096x8192", lambda: lnargs(4096, 8192, torch.float32)),
             ("layernorm", "8192x1024", lambda: lnargs(8192, 1024, torch.float16)),
             ("layernorm", "8192x4096", lambda: lnargs(8192, 4096, torch.float16)),
             ("layernorm", "4096x8192", lambda: lnargs(4096, 8192, torch.float16)),
             ("softmax", "8192x1024", lambda: rowargs(8192, 1024, False)),
             ("softmax", "32768x512", lambda: rowargs(32768, 512, False)),
             ("softmax", "1024x32768", lambda: rowargs(1024, 32768, False)),
             ("softmax", "8192x4096", lambda: rowargs(8192, 4096, False)),
             ("cumsum", "8192x8192", lambda: rowargs(8192, 8192, False)),
             ("row_sum", "65536x256", lambda: rowargs(65536, 256, True)),
             ("row_sum", "256x65536", lambda: rowargs(256, 65536, True)),
             ("row_sum", "8192x8192", lambda: rowargs(8192, 8192, True)),
             ("row_max", "65536x256", lambda: rowargs(65536, 256, True)),
             ("col_sum", "8192x8192", lambda: sumargs(8192, 8192, (8192,))),
             ("total_sum", "8192x8192", lambda: sumargs(8192, 8192, ()))]
    new_suffix, old_suffix = os.environ.get("AB_NEW", ""), os.environ.get("AB_OLD", "_old")
    for case, shape, make in cases:
        if not all(os.path.isdir(os.path.join(ART, case + sfx)) for sfx in (new_suffix, old_suffix)):
            continue
        args, byt, out = make()
        new, old = load(case + new_suffix), load(case + old_suffix)
        fns, outs = {}, {}
        for tag, m in (("new", new), ("old", old)):
            a = [t.clone() if isinstance(t, torch.Tensor) else t for t in args]
            win = m.prepare(*a)
            fns[tag] = m.bind(win, *a)
            fns[tag]()
            outs[tag] = a[out]
            emit(kind="ab-winner", case=case, shape=shape, variant=tag, winner=json.dumps(win, sort_keys=True))
        same = bool(torch.equal(outs["new"].reshape(-1).view(torch.uint8), outs["old"].reshape(-1).view(torch.uint8)))
        res = rotating_rounds(fns, ["new", "old"], byt / 1e9, rounds=int(os.environ.get("ROUNDS", "6")))
        emit(kind="ab", case=case, shape=shape, new=res["new"][0], old=res["old"][0],
             ratio=res["new"][0] / res["old"][0], new_min=res["new"][1], old_max=res["old"][2], bits_equal=same)


def _div_variant(helpers, fn):
    """An edit of a generated kernel: `helpers` added, and every row-uniform division calling `fn`."""
    def edit(src):
        rb = recips(src)
        src = src.replace("@triton.jit\ndef _recip_f64", helpers + "@triton.jit\ndef _recip_f64", 1)
        return re.sub(_DIV_CALL, lambda mt: f"{fn}({mt[1]}, {rb[mt[2]]}, {mt[2]})", src)
    return edit


def _division_operands(g, label, n):
    """n f32 (dividend, divisor) pairs of one adversarial class, on the GPU."""
    if label == "random bits":
        a, b = (torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", generator=g, dtype=torch.int64)
                .to(torch.int32).view(torch.float32) for _ in range(2))
    elif label == "softmax-like":
        a = torch.exp(-torch.rand(n, device="cuda", generator=g) * 110)
        b = 1 + torch.rand(n, device="cuda", generator=g) * 32767
    elif label == "tiny dividends":
        a, b = scaled(g, n, -160, -90), scaled(g, n, -30, 30)
    elif label == "subnormal quotients":
        a, b = scaled(g, n, -126, -60), scaled(g, n, 0, 80)
    else:  # "mixed warps": in range, with one tiny dividend in every 97
        a = torch.rand(n, device="cuda", generator=g) + 0.5
        a[::97] = scaled(g, a[::97].numel(), -160, -100)
        b = 1 + torch.rand(n, device="cuda", generator=g) * 100
    return a, b


def _exact_runs(seed, labels, reps, n=1 << 24):
    """_asmdiv_exact_kernel (the two forms bound to _PROBE_DASM and _PROBE_DWHERE) on `reps` draws of
    each operand class: yields (label, rep, a, b, first form's quotients, second's, torch's a / b)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    for label in labels:
        for rep in range(reps):
            a, b = _division_operands(g, label, n)
            o = torch.empty_like(a)
            w = torch.empty_like(a)
            _asmdiv_exact_kernel[(triton.cdiv(n, 1024),)](a, b, o, w, n, BLOCK=1024)
            yield label, rep, a, b, o, w, a / b


def _division_forms(helpers, first, second):
    """The generated softmax and two variants whose row-uniform divisions call the helper functions
    `first` and `second` (tag -> module), which also become the exactness kernel's two forms."""
    global _PROBE_RECIP, _PROBE_DASM, _PROBE_DWHERE
    os.environ["INTENT_RUNTIME"] = "0"
    mods = {"generated": load("softmax")}
    for fn in (first, second):
        mods[fn.lstrip("_")] = variant_module("softmax", fn.lstrip("_"), _div_variant(helpers, fn))
    a, b = mods[first.lstrip("_")], mods[second.lstrip("_")]
    _PROBE_RECIP, _PROBE_DASM, _PROBE_DWHERE = a._recip_f64, getattr(a, first), getattr(b, second)
    return mods


def asmdiv_probe():
    """Exact f32 division by a row-uniform divisor with the f64 fallback only where Markstein is
    not exact, chosen per thread inside inline PTX (predicated): bits against torch's IEEE
    division on adversarial operands, then softmax at the long-row shapes next to the generated
    (f64 product), the select form, approximate `/` and the hand-written kernel."""
    mods = _division_forms(_ASM_HELPERS, "_div_asm", "_div_where")
    for label, rep, a, b, o, w, ref in _exact_runs(7, ("random bits", "softmax-like", "tiny dividends",
                                                       "subnormal quotients"), 4):
        emit(kind="asmdiv-exact", inputs=label, rep=rep, n=a.numel(), asm_differing=bits_differing(o, ref),
             where_differing=bits_differing(w, ref),
             torch_gpu_vs_cpu_differing=bits_differing((a.cpu() / b.cpu()).cuda(), ref))

    for M, N, x, y, z, byt, ref in softmax_shapes():
        time_variants("asmdiv", mods, M, N, x, y, z, byt, ref,
                      {"handwritten": lambda x=x: hw.tri_softmax(x)}, ["handwritten"], rounds=6)


def softdiv_probe():
    """Softmax's row-uniform division, exact forms against Triton's approximate `/`, at 16 and
    32 warps: as generated (f64 product), Markstein only (no range fallback: not exact for
    tiny or huge dividends, probe only), a block range test choosing Markstein or the f64
    product with the store inside each branch (the exact Markstein form), and approximate
    division; then the chunked structure. Bits are compared with the generated form."""
    os.environ["INTENT_RUNTIME"] = "0"
    def helpers(src):
        return src.replace("@triton.jit\ndef _recip_f64", _BRANCH_HELPERS + "@triton.jit\ndef _recip_f64", 1)

    def markstein(src):
        rb = recips(src)
        return re.sub(_DIV_CALL, lambda mt: f"_mk2({mt[1]}, {rb[mt[2]]}, {mt[2]})", helpers(src))

    def store_in_branch(src):
        rb = recips(src)
        pat = re.compile(r"( +)(\w+) = _div_by_recip\((\w+), (\w+)\)\n +tl\.store\((.*), \2\.to\(tl\.float32\), mask=(.*)\)\n")

        def rep(mt):
            ind, _, a, r, ptr, mask = mt.groups()
            b = rb[r]
            return (f"{ind}if _all_fast({a}, {b}):\n{ind}    tl.store({ptr}, _mk2({a}, {b}, {r}), mask={mask})\n"
                    f"{ind}else:\n{ind}    tl.store({ptr}, _f64div({a}, {r}), mask={mask})\n")
        out, n = pat.subn(rep, helpers(src))
        assert n >= 1, "no division followed by its store"
        return out

    def approx(src):
        rb = recips(src)
        return re.sub(_DIV_CALL, lambda mt: f"({mt[1]} / {rb[mt[2]]})", src)

    mods = {"generated": load("softmax"), "markstein_only": variant_module("softmax", "mk", markstein),
            "store_in_branch": variant_module("softmax", "sib", store_in_branch),
            "approx": variant_module("softmax", "approx", approx)}
    for M, N, x, y, z, byt, ref in softmax_shapes():
        emit(kind="softdiv", shape=f"{M}x{N}", variant="handwritten", TBps=byt / t(lambda: hw.tri_softmax(x)) / 1e9)
        for w in (16, 32):
            cand = {"NUM_WARPS": w, "OWN_M": 1, "RED_N": 8192, "SPLIT": 1}
            for tag, (run, info) in bound_variants(mods, cand, x, y, z, ref).items():
                timing = {"TBps": byt / t(run) / 1e9} if run else {}
                emit(kind="softdiv", shape=f"{M}x{N}", variant=tag, warps=w, **timing, **info)
        if N < 16384:
            continue
        # The chunked structure (three passes, the later two from L2) at several programs per SM.
        for tag in ("generated", "markstein_only"):
            m = mods[tag]
            jit = m.softmax_kernel
            pargs, extra, grid, *_ = m._prepare(x, y)
            for w, red in [(4, 2048), (8, 2048), (8, 4096), (16, 4096), (16, 8192), (32, 8192)]:
                meta = m._meta({"OWN_M": 1, "RED_N": red, "SPLIT": 1})
                meta.update(extra)
                meta["COVER"] = 65536  # past the resident bound: chunked passes
                g = grid(meta)
                fn = lambda g=g, meta=meta, w=w: jit[g](*pargs, **meta, num_warps=w, num_stages=1)
                try:
                    y.fill_(float("nan"))
                    fn()
                    diff = int((z.view(torch.int32) != y.view(torch.int32)).sum().item())
                    emit(kind="softdiv", shape=f"{M}x{N}", variant=tag + "/chunked", warps=w, red=red,
                         TBps=byt / t(fn) / 1e9, bits_differing=diff)
                except Exception as e:  # noqa: BLE001
                    emit(kind="softdiv", shape=f"{M}x{N}", variant=tag + "/chunked", warps=w, red=red, error=repr(e)[:300])


@triton.jit
def _read_sink(x, out, n, BLOCK: tl.constexpr):
    # A pure streaming read: each program sums BLOCK contiguous f32 values.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.store(out + tl.program_id(0), tl.sum(v, 0))


def _bench_clean(fn, reps=200):
    """do_bench's protocol, except the L2 flush reads a 256 MiB buffer (clean lines) instead of
    writing it (dirty lines that the timed kernel must write back to DRAM)."""
    buf = torch.ones(64 * 1024 * 1024, device="cuda")
    fn()
    st = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    en = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        buf.sum()
        st[i].record()
        fn()
        en[i].record()
    torch.cuda.synchronize()
    ts = sorted(a.elapsed_time(b) for a, b in zip(st, en))
    return ts[len(ts) // 2]


def ceiling_probe():
    """Row sums of 64 MiB (65536x256, 256x65536) against the best any kernel can do under the
    benchmark's timing: a pure streaming read of the same bytes, with do_bench (whose L2 flush
    leaves 50 MiB of dirty lines) and with a clean flush."""
    os.environ["INTENT_RUNTIME"] = "0"
    m = load("row_sum")
    for M, N in [(65536, 256), (256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        out = torch.empty(M, device="cuda")
        byt = x.numel() * 4
        shape = f"{M}x{N}"
        fns = {"torch": lambda x=x: x.sum(1)}
        for blk, w in [(4096, 8), (8192, 16), (16384, 16)]:
            part = torch.empty(triton.cdiv(x.numel(), blk), device="cuda")
            fns[f"read_sink/{blk}/w{w}"] = (lambda x=x, part=part, blk=blk, w=w:
                                            _read_sink[(part.numel(),)](x, part, x.numel(), BLOCK=blk, num_warps=w))
        for c in m.CANDIDATES:
            fns["rowsum " + json.dumps(c, sort_keys=True)] = m.bind(c, x, out)
        for name, fn in fns.items():
            emit(kind="ceiling", shape=shape, variant=name, TBps=byt / t(fn) / 1e9, clean_TBps=byt / _bench_clean(fn) / 1e9)


@triton.jit
def _read_sink_ef(x, out, n, BLOCK: tl.constexpr):
    # _read_sink with evict_first loads: the streamed lines are the first to leave L2.
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0, eviction_policy="evict_first")
    tl.store(out + tl.program_id(0), tl.sum(v, 0))


def _hint_lines(src, loads=None, stores=None):
    """Appends `loads` to every load of a tile (an address over `rows`) and `stores` to every
    store, e.g. ', eviction_policy="evict_first"'; the hints the compiler wrote (first or last) are
    removed first."""
    src = re.sub(r', eviction_policy="evict_(first|last)"', "", src)
    out = []
    for line in src.split("\n"):
        add = loads if ("tl.load(" in line and "(rows)" in line) else stores if "tl.store(" in line else None
        if add:
            i = line.rindex(")")
            line = line[:i] + add + line[i:]
        out.append(line)
    return "\n".join(out)


_EF = ', eviction_policy="evict_first"'
# Cache-hint variants of a generated kernel (probe.py evict; EVICT_VARIANTS picks some).
HINT_VARIANTS = {
    "none": lambda s: _hint_lines(s),
    "ef": lambda s: _hint_lines(s, loads=_EF),
    "efst": lambda s: _hint_lines(s, loads=_EF, stores=_EF),
    "stcs": lambda s: _hint_lines(s, stores=', cache_modifier=".cs"'),
    "ldcg": lambda s: _hint_lines(s, loads=', cache_modifier=".cg"'),  # loads take .ca/.cg/.cv only
    "el": lambda s: _hint_lines(s, loads=', eviction_policy="evict_last"'),
    "wrnone": lambda s: _strip_whole_row_hints(s),
}


def _strip_whole_row_hints(src):
    """The generated kernel with the hints removed from its whole-row branch only (the chunked
    branch, which reads its rows more than once, keeps them)."""
    a, e = _whole_row_branch(src)
    return src[:a] + re.sub(r', eviction_policy="evict_(first|last)"', "", src[a:e]) + src[e:]


def evict_probe():
    """Do cache hints lift memory-bound kernels under do_bench's dirty L2 flush? Each case: the
    generated kernel and its HINT_VARIANTS named by $EVICT_VARIANTS (default ef,efst: evict_first
    tile loads, and stores too), each tuned by its own launcher, then timed in rotating rounds
    with torch and (unless EVICT_READ=0) a pure streaming read, plain and evict_first."""
    dev = "cuda"
    def lnargs(M, N, dt=torch.float16):
        x = torch.randn(M, N, device=dev, dtype=dt)
        w, b = torch.randn(N, device=dev, dtype=dt), torch.randn(N, device=dev, dtype=dt)
        return [x, w, b, torch.empty_like(x), 1e-5], 2 * M * N * x.element_size(), 3, lambda: torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5)
    def rows(M, N, kind):
        x = torch.randn(M, N, device=dev)
        if kind == "row":
            return [x, torch.empty(M, device=dev)], (M * N + M) * 4, 1, lambda: x.sum(1)
        if kind == "col":
            return [x, torch.empty(N, device=dev)], (M * N + N) * 4, 1, lambda: x.sum(0)
        if kind == "total":
            return [x, torch.empty((), device=dev)], M * N * 4, 1, lambda: x.sum()
        if kind == "cumsum":
            return [x, torch.empty_like(x)], 2 * M * N * 4, 1, lambda: x.cumsum(1)
        if kind == "add":
            y = torch.randn(M, N, device=dev)
            return [x, y, torch.empty_like(x)], 3 * M * N * 4, 2, lambda: x + y
        return [x, torch.empty_like(x)], 2 * M * N * 4, 1, lambda: torch.softmax(x, 1)
    cases = [("layernorm", "8192x4096", lambda: lnargs(8192, 4096)),
             ("layernorm_f32", "8192x4096", lambda: lnargs(8192, 4096, torch.float32)),
             ("softmax", "32768x512", lambda: rows(32768, 512, "softmax")),
             ("row_sum", "65536x256", lambda: rows(65536, 256, "row")),
             ("row_sum", "256x65536", lambda: rows(256, 65536, "row")),
             ("row_sum", "8192x8192", lambda: rows(8192, 8192, "row")),
             ("softmax", "1024x32768", lambda: rows(1024, 32768, "softmax")),
             ("softmax", "8192x4096", lambda: rows(8192, 4096, "softmax")),
             ("softmax", "8192x1024", lambda: rows(8192, 1024, "softmax")),
             ("layernorm", "8192x1024", lambda: lnargs(8192, 1024)),
             ("layernorm", "4096x8192", lambda: lnargs(4096, 8192)),
             ("layernorm_f32", "8192x1024", lambda: lnargs(8192, 1024, torch.float32)),
             ("col_sum", "8192x8192", lambda: rows(8192, 8192, "col")),
             ("total_sum", "8192x8192", lambda: rows(8192, 8192, "total")),
             ("cumsum", "8192x8192", lambda: rows(8192, 8192, "cumsum")),
             ("add", "16384x16384", lambda: rows(16384, 16384, "add"))]
    only = os.environ.get("EVICT_ONLY")
    for case, shape, make in cases:
        if only and case not in only.split(","):
            continue
        args, byt, out, torch_fn = make()
        mods = {"gen": load(case)}
        for tag in os.environ.get("EVICT_VARIANTS", "ef,efst").split(","):
            mods[tag] = variant_module(case, tag, HINT_VARIANTS[tag])
        fns, outs = {"torch": torch_fn}, {}
        for tag, m in mods.items():
            a = [v.clone() if isinstance(v, torch.Tensor) else v for v in args]
            try:
                win = m.prepare(*a)
                run = m.bind(win, *a)
                run()
            except Exception as e:  # noqa: BLE001
                emit(kind="evict", case=case, shape=shape, variant=tag, error=repr(e)[:300])
                continue
            fns[tag] = run
            outs[tag] = a[out]
            emit(kind="evict-winner", case=case, shape=shape, variant=tag, winner=json.dumps(win, sort_keys=True))
        if case.startswith("layernorm"):  # the hand-written kernel, as is and with evict-last loads
            fns["handwritten"] = lambda a=args: hw.tri_ln(a[0], a[1], a[2])
            fns["handwritten_el"] = lambda a=args: _hw_ln_el(a[0], a[1], a[2])
        elif case == "softmax":
            fns["handwritten"] = lambda a=args: hw.tri_softmax(a[0])
        n = args[0].numel()
        for blk, w in ([(8192, 16)] if os.environ.get("EVICT_READ", "1") == "1" else []):
            part = torch.empty(triton.cdiv(n, blk), device=dev)
            x0 = args[0]
            fns["read"] = lambda x0=x0, part=part, blk=blk, w=w: _read_sink[(part.numel(),)](x0, part, n, BLOCK=blk, num_warps=w)
            fns["read_ef"] = lambda x0=x0, part=part, blk=blk, w=w: _read_sink_ef[(part.numel(),)](x0, part, n, BLOCK=blk, num_warps=w)
        same = {tag: bool(torch.equal(outs[tag].reshape(-1).view(torch.uint8), outs["gen"].reshape(-1).view(torch.uint8)))
                for tag in outs}
        names = list(fns)
        res = rotating_rounds(fns, names, byt / 1e9, rounds=int(os.environ.get("ROUNDS", "6")))
        for k in names:
            emit(kind="evict", case=case, shape=shape, variant=k, TBps=res[k][0], TBps_min=res[k][1],
                 TBps_max=res[k][2], bits_equal_gen=same.get(k, ""))


@triton.jit
def _grouped_tile(pid, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    # Grouped tile order (GROUP_M row tiles share their B columns in L2), as the generated kernels use.
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    gsize = tl.minimum(num_pid_m - first_m, GROUP_M)
    return first_m + ((pid % group) % gsize), (pid % group) // gsize


@triton.jit
def _bmm_flat(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr):
    # Batched GEMM through 2-D host descriptors over the flattened batch ([B*M, K], [B*K, N],
    # [B*M, N]); valid when BM divides M and BK divides K (tiles never cross batches).
    pid = tl.program_id(0)
    pid_b = tl.program_id(1)
    pid_m, pid_n = _grouped_tile(pid, M, N, BM, BN, GROUP_M)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=NUM_STAGES):
        av = a_desc.load([pid_b * M + pid_m * BM, k * BK])
        bv = b_desc.load([pid_b * K + k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    c_desc.store([pid_b * M + pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


def batched_probe():
    """Batched GEMM 16x2048^3 f16: every generated candidate (flattened host descriptors when
    FLAT, else per-program device descriptors) against hand-written flattened-descriptor tiles
    and torch, each checked against torch.bmm; then every candidate on ragged batches (FLAT off)."""
    os.environ["INTENT_RUNTIME"] = "0"
    B, M, N, K = 16, 2048, 2048, 2048
    a = torch.randn(B, M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(B, K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(B, M, N, device="cuda", dtype=torch.float16)
    fl = 2 * B * M * N * K
    ref = torch.bmm(a, b)
    emit(kind="batched", variant="torch", TFLOPs=fl / t(lambda: torch.bmm(a, b)) / 1e9)
    m = load("batched_gemm")
    refn = ref.float().norm().item()
    for cand in m.CANDIDATES:
        try:
            run = m.bind(cand, a, b, c)
            c.fill_(float("nan"))
            run()
            err = ((c.float() - ref.float()).norm() / refn).item()
            emit(kind="batched", variant="generated " + json.dumps(cand, sort_keys=True), TFLOPs=fl / t(run) / 1e9,
                 err=err, flat=m._prepare(a, b, c)[1]["FLAT"])
        except Exception as e:  # noqa: BLE001
            emit(kind="batched", variant="generated " + json.dumps(cand, sort_keys=True), error=repr(e)[:200])
    # Ragged batches (M not a multiple of the largest BM): FLAT is off, per-program descriptors.
    ar = torch.randn(3, 1000, 1016, device="cuda", dtype=torch.float16)
    br = torch.randn(3, 1016, 776, device="cuda", dtype=torch.float16)
    cr = torch.empty(3, 1000, 776, device="cuda", dtype=torch.float16)
    rr = torch.bmm(ar, br).float()
    for cand in m.CANDIDATES:
        try:
            cr.fill_(float("nan"))
            m.bind(cand, ar, br, cr)()
            emit(kind="batched_ragged", variant=json.dumps(cand, sort_keys=True),
                 err=((cr.float() - rr).norm() / rr.norm()).item(), flat=m._prepare(ar, br, cr)[1]["FLAT"])
        except Exception as e:  # noqa: BLE001
            emit(kind="batched_ragged", variant=json.dumps(cand, sort_keys=True), error=repr(e)[:200])
    a2, b2, c2 = a.view(B * M, K), b.view(B * K, N), c.view(B * M, N)
    for bm, bn, bk, st, nw in [(128, 256, 64, 3, 8), (128, 128, 64, 4, 8), (256, 128, 64, 3, 8), (128, 256, 64, 4, 8),
                               (128, 128, 64, 3, 4)]:
        ad = TensorDescriptor.from_tensor(a2, [bm, bk])
        bd = TensorDescriptor.from_tensor(b2, [bk, bn])
        cd = TensorDescriptor.from_tensor(c2, [bm, bn])
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), B)
        fn = lambda: _bmm_flat[grid](ad, bd, cd, M, N, K, BM=bm, BN=bn, BK=bk, GROUP_M=8, NUM_STAGES=st,
                                     num_warps=nw, num_stages=st)
        c.zero_()
        fn()
        err = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
        emit(kind="batched", variant=f"flat host desc {bm}x{bn}x{bk} s{st} w{nw}", TFLOPs=fl / t(fn) / 1e9, err=err)


def mem_probe():
    os.environ["INTENT_RUNTIME"] = "0"
    cases = row_cases()
    for case, shape, args, byt, hand in cases:
        m = load(case)
        emit(kind="mem", case=case, shape=shape, variant="handwritten", TBps=byt / t(hand) / 1e9,
             graph_TBps=byt / tg(hand) / 1e9)
        for c in m.CANDIDATES:
            run = m.bind(c, *args)
            emit(kind="mem", case=case, shape=shape, variant=json.dumps(c, sort_keys=True),
                 TBps=byt / t(run) / 1e9, graph_TBps=byt / tg(run) / 1e9)


@triton.jit
def mm_host(a_desc, b_desc, c, c_s0, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
            GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr, C_DESC: tl.constexpr, c_desc):
    pid = tl.program_id(0)
    pid_m, pid_n = _grouped_tile(pid, M, N, BM, BN, GROUP_M)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=NUM_STAGES):
        av = a_desc.load([pid_m * BM, k * BK])
        bv = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(av, bv, acc)
    if C_DESC:
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))
    else:
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        tl.store(c + rm.to(tl.int64)[:, None] * c_s0 + rn.to(tl.int64)[None, :], acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def gemm_probe():
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    cfgs = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8), (128, 256, 64, 4, 8)]
    for dt, M, N, K in [(torch.float16, 4096, 4096, 4096), (torch.bfloat16, 4096, 4096, 4096),
                        (torch.float16, 4000, 4104, 4040), (torch.bfloat16, 8192, 8192, 8192)]:
        case = "gemm_f16" if dt == torch.float16 else "gemm_bf16"
        m = load(case)
        a = torch.randn(M, K, device=dev, dtype=dt)
        b = torch.randn(K, N, device=dev, dtype=dt)
        c = torch.empty(M, N, device=dev, dtype=dt)
        flop = 2 * M * N * K
        shape = f"{M}x{N}x{K}"
        emit(kind="gemm", case=case, shape=shape, variant="cublas", TFLOPs=flop / t(lambda: torch.matmul(a, b, out=c)) / 1e9)
        for bm, bn, bk, st, nw in cfgs:
            cfg = f"{bm}x{bn}x{bk}/s{st}/w{nw}"
            cand = {"BK": bk, "BM": bm, "BN": bn, "GROUP_M": 8, "NUM_STAGES": st, "NUM_WARPS": nw, "USE_TENSOR_DESCRIPTOR": 1}
            try:
                run = m.bind(cand, a, b, c)
                emit(kind="gemm", case=case, shape=shape, variant="generated(device desc)", cfg=cfg, TFLOPs=flop / t(run) / 1e9)
            except Exception as e:  # noqa: BLE001
                emit(kind="gemm", case=case, shape=shape, variant="generated(device desc)", cfg=cfg, error=str(e)[:200])
            ad = TensorDescriptor.from_tensor(a, [bm, bk])
            bd = TensorDescriptor.from_tensor(b, [bk, bn])
            cd = TensorDescriptor.from_tensor(c, [bm, bn])
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            for cdesc in (0, 1):
                fn = lambda: mm_host[grid](ad, bd, c, c.stride(0), M, N, K, BM=bm, BN=bn, BK=bk, GROUP_M=8,
                                           NUM_STAGES=st, C_DESC=cdesc, c_desc=cd, num_warps=nw, num_stages=st)
                emit(kind="gemm", case=case, shape=shape, variant=f"host desc, {'desc' if cdesc else 'pointer'} store",
                     cfg=cfg, TFLOPs=flop / t(fn) / 1e9)
            hwd = [TensorDescriptor.from_tensor(x, [16, 16]) for x in (a, b, c)]
            hwd[0].block_shape = [bm, bk]; hwd[1].block_shape = [bk, bn]; hwd[2].block_shape = [bm, bn]
            fn = lambda: hw.mm_tma.fn[grid](*hwd, M, N, K, BM=bm, BN=bn, BK=bk, GM=8, num_warps=nw, num_stages=st)
            emit(kind="gemm", case=case, shape=shape, variant="handwritten TMA", cfg=cfg, TFLOPs=flop / t(fn) / 1e9)


@triton.jit
def mm_ws(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
          GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr, WS: tl.constexpr):
    # One tile per program, host descriptors; WS: Triton's automatic warp specialization of the K loop.
    pid_m, pid_n = _grouped_tile(tl.program_id(0), M, N, BM, BN, GROUP_M)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=NUM_STAGES, warp_specialize=WS):
        acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def mm_persist_ws(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr, WORKERS: tl.constexpr, WS: tl.constexpr,
                  FLATTEN: tl.constexpr, EPI_SUB: tl.constexpr):
    # Persistent tiles (WORKERS programs), optional flattened tile/K loop, warp specialization and a
    # store split in two halves along N (EPI_SUB; c_desc block [BM, BN // 2]).
    n_tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), n_tiles, WORKERS, flatten=FLATTEN, warp_specialize=WS,
                         num_stages=NUM_STAGES):
        pid_m, pid_n = _grouped_tile(tile, M, N, BM, BN, GROUP_M)
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k in range(k_tiles):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
        if EPI_SUB:
            halves = tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1))
            lo, hi = tl.split(halves)
            c_desc.store([pid_m * BM, pid_n * BN], lo.to(c_desc.dtype))
            c_desc.store([pid_m * BM, pid_n * BN + BN // 2], hi.to(c_desc.dtype))
        else:
            c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


def ws_probe():
    """Large f16/bf16 GEMM: the generated descriptor candidates, the hand-written TMA kernel, and
    hand-written variants with warp specialization, persistence, flattening and a split epilogue;
    then the best of each kind re-timed in 6 rotating rounds."""
    os.environ["INTENT_RUNTIME"] = "0"
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for dt, M, N, K in [(torch.float16, 8192, 8192, 8192), (torch.bfloat16, 8192, 8192, 8192),
                        (torch.float16, 4096, 4096, 4096)]:
        case = "gemm_f16" if dt == torch.float16 else "gemm_bf16"
        m = load(case)
        a = torch.randn(M, K, device="cuda", dtype=dt)
        b = torch.randn(K, N, device="cuda", dtype=dt)
        c = torch.empty(M, N, device="cuda", dtype=dt)
        ref = a.float() @ b.float()
        refn = ref.norm().item()
        flop = 2 * M * N * K
        shape = f"{M}x{N}x{K}"
        fns = {"cublas": lambda: torch.matmul(a, b, out=c)}
        for cand in m.CANDIDATES:
            if cand.get("USE_TENSOR_DESCRIPTOR") and cand["BM"] >= 128 and cand["BN"] >= 128:
                fns["generated " + json.dumps(cand, sort_keys=True)] = m.bind(cand, a, b, c)
        for bm, bn, bk, st, nw in [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8)]:
            hwd = [TensorDescriptor.from_tensor(x, [16, 16]) for x in (a, b, c)]
            hwd[0].block_shape = [bm, bk]; hwd[1].block_shape = [bk, bn]; hwd[2].block_shape = [bm, bn]
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            fns[f"handwritten TMA {bm}x{bn}x{bk} s{st} w{nw}"] = (
                lambda hwd=hwd, grid=grid, bm=bm, bn=bn, bk=bk, st=st, nw=nw:
                hw.mm_tma.fn[grid](*hwd, M, N, K, BM=bm, BN=bn, BK=bk, GM=8, num_warps=nw, num_stages=st))
        for bm, bn, bk, st, nw in [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8), (128, 128, 64, 4, 8),
                                   (128, 128, 64, 4, 4), (256, 128, 64, 3, 8), (256, 256, 64, 3, 16),
                                   (256, 256, 64, 2, 16), (128, 256, 128, 2, 8)]:
            ad = TensorDescriptor.from_tensor(a, [bm, bk]); bd = TensorDescriptor.from_tensor(b, [bk, bn])
            cd = TensorDescriptor.from_tensor(c, [bm, bn]); cd2 = TensorDescriptor.from_tensor(c, [bm, bn // 2])
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            for ws in (0, 1):
                fns[f"tile ws={ws} {bm}x{bn}x{bk} s{st} w{nw}"] = (
                    lambda ad=ad, bd=bd, cd=cd, grid=grid, bm=bm, bn=bn, bk=bk, st=st, nw=nw, ws=ws:
                    mm_ws[grid](ad, bd, cd, M, N, K, BM=bm, BN=bn, BK=bk, GROUP_M=8, NUM_STAGES=st, WS=ws,
                                num_warps=nw, num_stages=st))
            if nw == 16:
                continue
            for ws, fl_, epi in [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0), (0, 1, 1), (1, 1, 1), (1, 0, 1)]:
                fns[f"persist ws={ws} flat={fl_} episub={epi} {bm}x{bn}x{bk} s{st} w{nw}"] = (
                    lambda ad=ad, bd=bd, cdx=(cd2 if epi else cd), bm=bm, bn=bn, bk=bk, st=st, nw=nw, ws=ws, fl_=fl_, epi=epi:
                    mm_persist_ws[(sms,)](ad, bd, cdx, M, N, K, BM=bm, BN=bn, BK=bk, GROUP_M=8, NUM_STAGES=st,
                                          WORKERS=sms, WS=ws, FLATTEN=fl_, EPI_SUB=epi, num_warps=nw, num_stages=st))
        timed = {}
        for name, fn in fns.items():
            try:
                c.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = ((c.float() - ref).norm() / refn).item()
                tf = flop / t(fn) / 1e9
                timed[name] = tf
                emit(kind="ws", case=case, shape=shape, variant=name, TFLOPs=tf, err=err)
            except Exception as e:  # noqa: BLE001
                emit(kind="ws", case=case, shape=shape, variant=name, error=repr(e)[:300])
        def best(prefix):
            ks = [k for k in timed if k.startswith(prefix)]
            return max(ks, key=timed.get) if ks else None
        finals = [k for k in {best("cublas"), best("generated"), best("handwritten"), best("tile ws=0"),
                              best("tile ws=1"), best("persist ws=0"), best("persist ws=1")} if k]
        for k, (med, lo, hi) in rotating_rounds(fns, finals, flop / 1e9).items():
            emit(kind="ws_final", case=case, shape=shape, variant=k, TFLOPs_median=med, TFLOPs_min=lo, TFLOPs_max=hi)


_APPROX_RECIP = """
@triton.jit
def _recip_approx(b):
    return (1.0 / tl.cast(b, tl.float32)).to(tl.float64)

"""


def lnvar_probe():
    """Layernorm f16: where does the per-thread instruction count go? The generated kernel against
    text variants: without the select before the first sum (the load already yields 0 in masked
    lanes), with the per-thread exact reciprocal of N replaced by an approximate one (a ceiling
    for moving it to the host), and both; best candidate of each, then 6 rotating rounds."""
    os.environ["INTENT_RUNTIME"] = "0"

    def nowhere(src):
        return re.sub(r"(v\d+) = tl\.where\(rmask & cmask, (v\d+), 0\.0\)\n(\s+)(red\d+) = tl\.reduce\(\1, 1, _combine_0",
                      r"\1 = \2\n\3\4 = tl.reduce(\1, 1, _combine_0", src, count=1)

    def recip(src):
        src = re.sub(r"(?<!def )_recip_f64\(", "_recip_approx(", src)
        return src.replace("@triton.jit\ndef _recip_f64", _APPROX_RECIP + "@triton.jit\ndef _recip_f64", 1)

    edits = {"generated": lambda s: s, "no_select": nowhere, "approx_recip": recip,
             "both": lambda s: recip(nowhere(s))}
    mods = {tag: variant_module("layernorm", tag, e) for tag, e in edits.items()}
    for tag, m in mods.items():
        src = open(os.path.join(OUT, f"layernorm_{tag}.py")).read()
        emit(kind="lnvar_src", variant=tag, selects=src.count("tl.where(rmask & cmask"), recips=src.count("_recip_approx(v"))
    for M, N in [(8192, 1024), (8192, 4096), (4096, 8192)]:
        x = torch.randn(M, N, device="cuda", dtype=torch.float16)
        w = torch.randn(N, device="cuda", dtype=torch.float16)
        b = torch.randn(N, device="cuda", dtype=torch.float16)
        ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
        byt = 2 * M * N * 2
        shape = f"{M}x{N}"
        fns = {"handwritten": lambda: hw.tri_ln(x, w, b)}
        best = {}
        for tag, m in mods.items():
            for cand in m.CANDIDATES:
                y = torch.full_like(x, float("nan"))
                run = m.bind(cand, x, w, b, y, 1e-5)
                run()
                err = ((y.float() - ref).norm() / ref.norm()).item()
                tb = byt / t(run) / 1e9
                emit(kind="lnvar", shape=shape, variant=tag, cand=json.dumps(cand, sort_keys=True), TBps=tb, err=err)
                if tb > best.get(tag, (0, None))[0]:
                    best[tag] = (tb, run)
        fns.update({tag: run for tag, (tb, run) in best.items()})
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9).items():
            emit(kind="lnvar_final", shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def dump_probe():
    """Writes TTGIR/PTX, registers and spills of generated and hand-written row kernels."""
    os.environ["INTENT_RUNTIME"] = "0"
    x = torch.randn(1024, 32768, device="cuda"); y = torch.empty_like(x)
    xh = torch.randn(4096, 8192, device="cuda", dtype=torch.float16); yh = torch.empty_like(xh)
    w = torch.randn(8192, device="cuda", dtype=torch.float16); b = torch.randn(8192, device="cuda", dtype=torch.float16)
    jobs = [("softmax", [x, y], {"NUM_WARPS": 16, "OWN_M": 1, "RED_N": 8192, "SPLIT": 1}, lambda: hw.tri_softmax(x), hw.softmax_kernel),
            ("layernorm", [xh, w, b, yh, 1e-5], {"NUM_WARPS": 16, "OWN_M": 1, "RED_N": 8192, "SPLIT": 1}, lambda: hw.tri_ln(xh, w, b), hw.ln_kernel)]
    for case, args, cand, hand, hand_jit in jobs:
        m = load(case)
        m.bind(cand, *args)()
        hand()
        torch.cuda.synchronize()
        for tag, jit in (("gen", getattr(m, case + "_kernel")), ("hand", hand_jit)):
            for dev_cache in jit.device_caches.values():
                for key, k in dev_cache[0].items():
                    for ext in ("ttgir", "ptx"):
                        with open(os.path.join(OUT, f"{case}-{tag}.{ext}"), "w") as f:
                            f.write(k.asm[ext])
                    emit(kind="dump", case=case, variant=tag, n_regs=k.n_regs, n_spills=k.n_spills)


def _capped_launch(m, jit, cand, pargs, extra, grid, cap, wshape=None):
    """A launcher of generated module m's JIT kernel for `cand` (one pipeline stage), registers capped
    at `cap` by ptxas (None: no cap), and the compiled kernel (n_regs, n_spills); wshape: the split
    workspace's shape from _prepare, for kernels that take one."""
    meta = m._meta(cand)
    meta.update(extra)
    g = grid(meta)
    if wshape is not None:
        meta.update(m._split_work(g, wshape))
    kw = dict(meta, num_warps=cand["NUM_WARPS"], num_stages=1)
    if cap:
        kw["maxnreg"] = cap
    k = jit.warmup(*pargs, grid=g, **kw)
    k._init_handles()
    return (lambda: jit[g](*pargs, **kw)), k


def maxnreg_probe():
    """Row kernels at their resident-row candidates with ptxas register caps."""
    os.environ["INTENT_RUNTIME"] = "0"
    cases = row_cases()
    for case, shape, args, byt, _ in cases:
        m = load(case)
        jit = getattr(m, case + "_kernel")
        pargs, extra, grid, *_ = m._prepare(*args)
        for c in m.CANDIDATES:
            if c.get("OWN_M") != 1:
                continue
            for cap in (None, 32, 40, 48, 64, 80):
                try:
                    fn, k = _capped_launch(m, jit, c, pargs, extra, grid, cap)
                    ms = t(fn)
                    emit(kind="maxnreg", case=case, shape=shape, cand=json.dumps(c, sort_keys=True), cap=str(cap),
                         TBps=byt / ms / 1e9, n_regs=k.n_regs, n_spills=k.n_spills)
                except Exception as e:  # noqa: BLE001
                    emit(kind="maxnreg", case=case, shape=shape, cand=json.dumps(c, sort_keys=True), cap=str(cap),
                         error=repr(e)[:300])


def rowsplit_probe():
    """Row sums of 64 MiB: the shipped winners against split and wider rows (any constexprs bind),
    in rotating rounds with torch; outputs checked against torch."""
    m = load("row_sum")
    rows = {"65536x256": [dict(NUM_WARPS=8, OWN_M=8, RED_N=512, SPLIT=1), dict(NUM_WARPS=4, OWN_M=8, RED_N=256, SPLIT=1),
                          dict(NUM_WARPS=8, OWN_M=16, RED_N=256, SPLIT=1), dict(NUM_WARPS=4, OWN_M=4, RED_N=256, SPLIT=1)],
            "256x65536": [dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=s) for s in (1, 2, 3, 4)] +
                         [dict(NUM_WARPS=16, OWN_M=1, RED_N=16384, SPLIT=s) for s in (1, 2)] +
                         [dict(NUM_WARPS=8, OWN_M=1, RED_N=4096, SPLIT=2)] +
                         ([dict(NUM_WARPS=w, OWN_M=1, RED_N=r, SPLIT=s) for s in (8, 16, 33) for (r, w) in
                           ((1024, 4), (2048, 4), (2048, 8), (4096, 8))] if os.environ.get("ROWSPLIT_WIDE") else [])}
    if os.environ.get("ROWSPLIT_WIDE"):
        del rows["65536x256"]
    for shape, cands in rows.items():
        M, N = map(int, shape.split("x"))
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        fns = {"torch": lambda x=x: x.sum(1)}
        for c in cands:
            y = torch.full((M,), float("nan"), device="cuda")
            run = m.bind(c, x, y)
            run()
            run()
            err = ((y.double() - ref).norm() / ref.norm()).item()
            name = json.dumps(c, sort_keys=True)
            emit(kind="rowsplit_check", shape=shape, variant=name, err=err)
            fns[name] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9).items():
            emit(kind="rowsplit", shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowshape_probe():
    """Small rows (layernorm f16 8192x1024, softmax 32768x512 / 8192x1024): warps and rows per program
    beyond the shipped table, against the hand-written kernel, in rotating rounds; outputs checked."""
    shapes = [("layernorm", 8192, 1024), ("layernorm_f32", 8192, 1024), ("softmax", 32768, 512), ("softmax", 8192, 1024)]
    only = os.environ.get("ROWSHAPE_ONLY")
    if only:
        shapes = [sh for sh in shapes if sh[0] in only.split(",")]
    forms = [(4, 1), (2, 1), (1, 1), (8, 1), (2, 2), (4, 2), (8, 2), (4, 4), (8, 4)]
    for case, M, N in shapes:
        m = load(case)
        if case.startswith("layernorm"):
            dt = torch.float32 if case.endswith("f32") else torch.float16
            x = torch.randn(M, N, device="cuda", dtype=dt)
            w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
            ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
            fns = {"handwritten": lambda: hw.tri_ln(x, w, b)}
            mk = lambda y: (x, w, b, y, 1e-5)
            y0 = lambda: torch.full_like(x, float("nan"))
        else:
            x = torch.randn(M, N, device="cuda")
            ref = torch.softmax(x.double(), 1)
            fns = {"handwritten": lambda: hw.tri_softmax(x)}
            mk = lambda y: (x, y)
            y0 = lambda: torch.full_like(x, float("nan"))
        byt = 2 * x.numel() * x.element_size()
        for nw, om in forms:
            c = dict(NUM_WARPS=nw, OWN_M=om, RED_N=N, SPLIT=1)
            y = y0()
            run = m.bind(c, *mk(y))
            run()
            err = ((y.double() - ref.double()).norm() / ref.double().norm()).item()
            emit(kind="rowshape_check", case=case, shape=f"{M}x{N}", variant=f"w{nw}_m{om}", err=err)
            fns[f"w{nw}_m{om}"] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9).items():
            emit(kind="rowshape", case=case, shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def stages_probe():
    """Software pipelining of the memory-bound loops: each case's tuned winner launched with
    num_stages 1 (what the modules pass today), 2, 3 and 4, in rotating rounds; outputs compared
    with the num_stages=1 output (same program, so bit-equal)."""
    def rows(M, N, out_rows):
        x = torch.randn(M, N, device="cuda")
        return [x, torch.empty(M, device="cuda") if out_rows else torch.empty_like(x)], \
            (M * N + (M if out_rows else M * N)) * 4, 1
    def sums(M, N, shape):
        x = torch.randn(M, N, device="cuda")
        return [x, torch.empty(shape, device="cuda")], M * N * 4, 1
    cases = [("row_sum", "256x65536", lambda: rows(256, 65536, True)),
             ("row_sum", "8192x8192", lambda: rows(8192, 8192, True)),
             ("row_sum", "65536x256", lambda: rows(65536, 256, True)),
             ("col_sum", "8192x8192", lambda: sums(8192, 8192, (8192,))),
             ("total_sum", "8192x8192", lambda: sums(8192, 8192, ())),
             ("cumsum", "8192x8192", lambda: rows(8192, 8192, False))]
    for case, shape, make in cases:
        args, byt, out = make()
        m = load(case)
        win = m.prepare(*args)
        fns, outs = {}, {}
        for st in (1, 2, 3, 4):
            a = [t.clone() if isinstance(t, torch.Tensor) else t for t in args]
            c = dict(win, NUM_STAGES=st)
            try:
                fns[st] = m.bind(c, *a)
                fns[st]()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - a stage count that does not compile is a result
                emit(kind="stages_error", case=case, shape=shape, stages=st, error=repr(e)[:160])
                fns.pop(st, None)
                continue
            outs[st] = a[out]
        emit(kind="stages_winner", case=case, shape=shape, winner=json.dumps(win, sort_keys=True),
             equal=all(torch.equal(outs[1], o) for o in outs.values()))
        names = list(fns)
        for k, (med, lo, hi) in rotating_rounds(fns, names, byt / 1e9, rounds=6).items():
            emit(kind="stages", case=case, shape=shape, stages=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def recheck_probe():
    """The tightest memory-bound bars again: each case tuned by its own module (as the harness
    does), then the winner against the hand-written kernel in rotating rounds; outputs checked."""
    cases = [("layernorm_f32", 8192, 1024, torch.float32), ("layernorm", 8192, 1024, torch.float16),
             ("softmax", 1024, 32768, torch.float32), ("softmax", 32768, 512, torch.float32),
             ("softmax", 8192, 1024, torch.float32)]
    for case, M, N, dt in cases:
        m = load(case)
        x = torch.randn(M, N, device="cuda", dtype=dt)
        y = torch.full_like(x, float("nan"))
        if case.startswith("layernorm"):
            w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
            args = (x, w, b, y, 1e-5)
            ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
            fns = {"handwritten": lambda x=x, w=w, b=b: hw.tri_ln(x, w, b)}
        else:
            args = (x, y)
            ref = torch.softmax(x.double(), 1)
            fns = {"handwritten": lambda x=x: hw.tri_softmax(x)}
        winner = m.prepare(*args)
        run = m.bind(winner, *args)
        run()
        err = ((y.double() - ref).norm() / ref.norm()).item()
        emit(kind="recheck_check", case=case, shape=f"{M}x{N}", winner=json.dumps(winner, sort_keys=True), err=err)
        fns["generated"] = run
        byt = 2 * x.numel() * x.element_size()
        res = rotating_rounds(fns, list(fns), byt / 1e9, rounds=8)
        for k, (med, lo, hi) in res.items():
            emit(kind="recheck", case=case, shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)
        emit(kind="recheck_ratio", case=case, shape=f"{M}x{N}", ratio=res["generated"][0] / res["handwritten"][0])


def _no_select(src):
    """gemm_scaled_a without the select that re-zeroes its prologue's lanes past K (wrong only for a
    non-finite alpha; probe only)."""
    return re.sub(r"av = tl\.where\(rk\[None, :\] < K, (v\d+), 0\.0\)", r"av = \1", src)


class _Plain:
    """gemm_f16_f32out bound with gemm_scaled_a's launch arguments (alpha ignored): the same GEMM
    without the prologue."""

    def __init__(self):
        self.m = load("gemm_f16_f32out")
        self.CANDIDATES = self.m.CANDIDATES

    def bind(self, cand, a, b, c, alpha=None):
        return self.m.bind({k: v for k, v in cand.items() if k != "PROLOGUE_ONCE"}, a, b, c)


def _f16_operands(M, N, K):
    """f16 A [M, K] and B [K, N] on the GPU and an f32 output [M, N]."""
    return (torch.randn(M, K, device="cuda", dtype=torch.float16), torch.randn(K, N, device="cuda", dtype=torch.float16),
            torch.empty(M, N, device="cuda"))


def prologue_probe():
    """Where a fused operand prologue costs (gemm_scaled_a, 4096^3 f16, `a * alpha`): every fused
    candidate of the module as generated, then the best one in rotating rounds as generated,
    without the select that re-zeroes the lanes past K, without the prologue (gemm_f16_f32out), against
    cuBLAS on the prescaled operand."""
    M = N = K = 4096
    fl = 2 * M * N * K
    a, b, c = _f16_operands(M, N, K)
    want = (a * 0.75).float() @ b.float()
    gen = load("gemm_scaled_a")
    mods = {"generated": gen, "no_select": variant_module("gemm_scaled_a", "nosel", _no_select), "no_prologue": _Plain()}
    best = {}
    for cand in gen.CANDIDATES:
        if cand.get("SPLIT_K", 1) > 1 or cand.get("WORKERS", 1) > 1 or cand.get("PROLOGUE_ONCE"):
            continue
        for tag, m in mods.items():
            try:
                c.fill_(float("nan"))
                run = m.bind(cand, a, b, c, 0.75)
                run()
                err = ((c - want).norm() / want.norm()).item() if tag != "no_prologue" else float("nan")
                tf = fl / t(run) / 1e9
            except Exception as e:  # noqa: BLE001
                emit(kind="prologue_row", variant=tag, cand=str(cand), error=repr(e)[:200])
                continue
            emit(kind="prologue_row", variant=tag, cand=str(cand), TFLOPs=tf, err=err)
            if tf > best.get(tag, (0, None))[0]:
                best[tag] = (tf, cand)
    fns = {tag: mods[tag].bind(best[tag][1], a, b, c, 0.75) for tag in best}
    fns["cublas_prescaled"] = lambda: torch.mm(a * 0.75, b)
    res = rotating_rounds(fns, list(fns), fl / 1e9, rounds=4)
    for tag, (med, lo, hi) in res.items():
        emit(kind="prologue_best", variant=tag, TFLOPs=med, min=lo, max=hi, cand=str(best.get(tag, (0, "-"))[1]))


F32OUT_ROWS = [  # (BM, BN, BK, stages, warps, descriptor)
    (128, 256, 64, 3, 8, 1), (128, 256, 64, 4, 8, 1), (128, 256, 64, 3, 8, 0), (128, 128, 64, 4, 8, 1),
    (128, 128, 64, 3, 4, 1), (128, 128, 64, 5, 8, 1), (256, 128, 64, 3, 8, 1), (128, 256, 32, 3, 8, 1),
    (128, 256, 32, 4, 8, 1), (128, 128, 32, 4, 4, 1), (64, 256, 64, 4, 4, 1), (128, 128, 128, 3, 8, 1)]


def f32out_probe():
    """f16 operands, f32 output at 4096^3: rows of both contraction families' shapes on the plain GEMM
    (gemm_f16_f32out) and on two fused prologue kernels, against cuBLAS with an f32 output. (Run 30 in
    docs/performance.md compared the one-store epilogue with two column halves by editing the modules
    of d94abb9; the emitter now stores 32-bit tiles in halves itself.)"""
    M = N = K = 4096
    fl = 2 * M * N * K
    a, b, c = _f16_operands(M, N, K)
    scale = torch.rand(M, device="cuda", dtype=torch.float16) + 0.5
    bt = b.t().contiguous()
    cases = {  # name -> (module, args, reference)
        "plain": (_Plain(), (a, b, c), lambda: a.float() @ b.float()),
        "scaled_a": (load("gemm_scaled_a"), (a, b, c, 0.75), lambda: (a * 0.75).float() @ b.float()),
        "row_scale_bt": (load("gemm_row_scale_bt"), (a, scale, bt, c),
                         lambda: (a * scale[:, None] + 0.5).float() @ (bt + 1).float().t()),
    }
    for name, (m, args, ref) in cases.items():
        want = ref()
        best = (0, None)
        for (bm, bn, bk, st, w, d) in F32OUT_ROWS:
            cand = {"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8, "NUM_CTAS": 1, "NUM_STAGES": st, "NUM_WARPS": w,
                    "SPLIT_K": 1, "USE_TENSOR_DESCRIPTOR": d, "WORKERS": 1, "PROLOGUE_ONCE": 0}
            try:
                c.fill_(float("nan"))
                run = m.bind(cand, *args)
                run()
                torch.cuda.synchronize()
                err = ((c - want).norm() / want.norm()).item()
                tf = fl / t(run) / 1e9
            except Exception as e:  # noqa: BLE001
                emit(kind="f32out_row", case=name, cand=str((bm, bn, bk, st, w, d)), error=repr(e)[:160])
                continue
            emit(kind="f32out_row", case=name, cand=str((bm, bn, bk, st, w, d)), TFLOPs=tf, err=err)
            if err < 1e-3 and tf > best[0]:
                best = (tf, cand)
        fns = {"generated": m.bind(best[1], *args), "cublas_f32out": lambda: torch.mm(a, b, out_dtype=torch.float32)}
        for tag, (med, lo, hi) in rotating_rounds(fns, list(fns), fl / 1e9, rounds=4).items():
            emit(kind="f32out_best", case=name, variant=tag, TFLOPs=med, min=lo, max=hi, cand=str(best[1]))


def prolpersist_probe():
    """Which combination of a fused operand prologue (gemm_scaled_a: `a * alpha`), persistent
    traversal (WORKERS), tensor descriptors and pipeline depth computes wrong results on the GPU:
    the relative error of each against an f32 product, at 4096^3 and 512x384x320 (run 31 found:
    prologue, WORKERS > 1 and NUM_STAGES > 1 together; such rows are now illegal)."""
    mods = (("gen", load("gemm_scaled_a")), ("nosel", variant_module("gemm_scaled_a", "nosel2", _no_select)),
            ("noprol", _Plain()))
    for M, N, K in [(4096, 4096, 4096), (512, 384, 320)]:
        a, b, c = _f16_operands(M, N, K)
        want = (a * 0.75).float() @ b.float()
        want_np = a.float() @ b.float()
        for tag, m in mods:
            for (bm, bn, bk, st, w) in ((128, 256, 64, 3, 8), (128, 128, 64, 4, 8), (64, 64, 32, 2, 4)):
                for d in (1, 0):
                    for workers in (132, 1):
                        for stages in sorted({st, 1}):
                            cand = {"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8, "NUM_CTAS": 1, "NUM_STAGES": stages,
                                    "NUM_WARPS": w, "SPLIT_K": 1, "USE_TENSOR_DESCRIPTOR": d, "WORKERS": workers,
                                    "PROLOGUE_ONCE": 0}
                            row = dict(kind="prolpersist", shape=f"{M}x{N}x{K}", variant=tag,
                                       cand=str((bm, bn, bk, stages, w, d, workers)))
                            try:
                                c.fill_(float("nan"))
                                m.bind(cand, a, b, c, 0.75)()
                                torch.cuda.synchronize()
                                ref = want_np if tag == "noprol" else want
                                emit(**row, err=((c - ref).norm() / ref.norm()).item())
                            except Exception as e:  # noqa: BLE001
                                emit(**row, error=repr(e)[:120])


def skinnytile_probe():
    """16x8192x8192: tiles beyond the shipped table (BM 16 with BN 32/64, deeper BK and stage counts,
    split K 2) so that every SM streams B, against the shipped winner, cuBLAS and the hand-written kernel
    in rotating rounds; every variant checked against an f32 product."""
    dev = "cuda"
    base = dict(BM=16, GROUP_M=8, NUM_CTAS=1, SPLIT_K=1, USE_TENSOR_DESCRIPTOR=1, WORKERS=1)
    cands = [dict(base, BN=128, BK=128, NUM_STAGES=4, NUM_WARPS=4)]  # the shipped winner first
    for bn in (32, 64, 128):
        for bk in (128, 256):
            for st in (3, 4, 6):
                for w in (2, 4):
                    c = dict(base, BN=bn, BK=bk, NUM_STAGES=st, NUM_WARPS=w)
                    if (bn * bk + 16 * bk) * 2 * st <= 200 * 1024 and c not in cands:
                        cands.append(c)
    cands += [dict(base, BN=128, BK=128, NUM_STAGES=4, NUM_WARPS=4, SPLIT_K=2),
              dict(base, BN=64, BK=128, NUM_STAGES=4, NUM_WARPS=4, SPLIT_K=2),
              dict(base, BN=64, BK=128, NUM_STAGES=4, NUM_WARPS=4, USE_TENSOR_DESCRIPTOR=0)]
    for case, dt in [("gemm_bf16", torch.bfloat16), ("gemm_f16", torch.float16)]:
        m = load(case)
        a = torch.randn(16, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        ref = a.float() @ b.float()
        fl = 2 * 16 * 8192 * 8192 / 1e9
        timed = []
        for cand in cands:
            name = json.dumps(cand, sort_keys=True)
            c = torch.full((16, 8192), float("nan"), device=dev, dtype=dt)
            try:
                run = m.bind(cand, a, b, c)
                run()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                ms = t(run)
            except Exception as e:  # noqa: BLE001
                emit(kind="skinnytile", case=case, variant=name, error=repr(e)[:200])
                continue
            emit(kind="skinnytile", case=case, variant=name, err=err, TFLOPs=fl / ms)
            if err <= 1e-2:
                timed.append((ms, name, run))
        timed.sort(key=lambda r: r[0])
        fns = {"cublas": lambda: a @ b, "handwritten": lambda: hw.tri_mm(a, b)}
        names = ["cublas", "handwritten"]
        shipped = json.dumps(cands[0], sort_keys=True)
        for ms, name, run in timed[:4] + [r for r in timed if r[1] == shipped][:1]:
            if name not in fns:
                fns[name] = run
                names.append(name)
        for k, (med, lo, hi) in rotating_rounds(fns, names, fl).items():
            emit(kind="skinnytile_rounds", case=case, variant=k, TFLOPs_median=med, TFLOPs_min=lo, TFLOPs_max=hi)


def rowbalance_probe():
    """Row sums with one program per row: is 256x65536 limited by 256 programs on 132 SMs? The shipped
    winner at 256, 264 (two per SM) and 132 rows of 65536, and 8192x8192, in rotating rounds with torch."""
    m = load("row_sum")
    cfg = dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1)
    for M, N in [(256, 65536), (264, 65536), (132, 65536), (528, 65536)]:
        x = torch.randn(M, N, device="cuda")
        y = torch.full((M,), float("nan"), device="cuda")
        run = m.bind(cfg, x, y)
        run()
        err = ((y.double() - x.double().sum(1)).norm() / x.double().sum(1).norm()).item()
        fns = {"torch": lambda x=x: x.sum(1), "shipped": run}
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9).items():
            emit(kind="rowbalance", shape=f"{M}x{N}", variant=k, err=err, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _whole_row_branch(src):
    """(start, end) character offsets of the first whole-row branch of a generated row kernel."""
    a = src.index("    if OWN_M * COVER <= 32768 and SPLIT == 1:\n")
    return a, src.index("\n    else:\n", a)


def _move_lines(src, pick, after):
    """Moves the whole-row branch's lines for which pick(line, picked names) holds to just after the
    first line of the branch matching the regex `after` (their order kept)."""
    a, e = _whole_row_branch(src)
    lines = src[a:e].split("\n")
    moved, names, kept = [], set(), []
    for ln in lines:
        m = re.match(r"\s+(v\d+) = (.*)$", ln)
        if m and pick(m.group(2), names):
            names.add(m.group(1))
            moved.append(ln)
        else:
            kept.append(ln)
    i = next(k for k, ln in enumerate(kept) if re.search(after, ln))
    return src[:a] + "\n".join(kept[:i + 1] + moved + kept[i + 1:]) + src[e:]


def _hoist_recip(src):
    def pick(rhs, names):
        return (rhs == "(tl.zeros([], tl.int64) + N)" or
                any(rhs in (f"{n}.to(tl.float32)", f"_recip_f64({n})") for n in names))
    return _move_lines(src, pick, r"cmask = cols < C$")


def _hoist_wb(src):
    def pick(rhs, names):
        return (rhs.startswith(("tl.load(w + ", "tl.load(b + ")) or
                any(rhs == f"{n}.to(tl.float32)" for n in names))
    return _move_lines(src, pick, r"= tl\.load\(x \+ ")


_HW_EL = []


def _hw_ln_el(x, w, b):
    """The hand-written layernorm (handwritten.py) with evict-last row loads, like the generated kernel's."""
    if not _HW_EL:
        src = open(os.path.join(HERE, "handwritten.py")).read()
        load = "v = tl.load(x + row * sx + cols, mask=m, other=0.0)"
        assert load in src
        _HW_EL.append(_import_source("handwritten_el", src.replace(load, load[:-1] + ', eviction_policy="evict_last")')))
    return _HW_EL[0].tri_ln(x, w, b)


def lnhoist_probe():
    """Layernorm: does the per-row critical path decide the short rows? The generated kernel against
    text variants with the reciprocal of N computed before the row's load (it depends on N only) and
    with the weight and bias loads issued beside the row's load, and the hand-written kernel with and
    without the evict-last hint; every variant at a few rows per program, outputs checked, then the
    best of each in rotating rounds ($ROUNDS, default 8)."""
    edits = {"generated": lambda s: s, "hoist_recip": _hoist_recip, "hoist_wb": _hoist_wb,
             "both": lambda s: _hoist_wb(_hoist_recip(s))}
    rounds = int(os.environ.get("ROUNDS", 8))
    for case, dt in [("layernorm_f32", torch.float32), ("layernorm", torch.float16)]:
        mods = {tag: variant_module(case, tag, e) for tag, e in edits.items()}
        for M, N, cands in [(8192, 1024, [(4, 1), (4, 2), (8, 2), (2, 1)]), (8192, 4096, [(4, 1), (16, 1)]),
                            (4096, 8192, [(8, 1), (16, 1)])]:
            x = torch.randn(M, N, device="cuda", dtype=dt)
            w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
            ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
            byt = 2 * M * N * x.element_size()
            shape = f"{M}x{N}"
            fns = {"handwritten": lambda: hw.tri_ln(x, w, b), "handwritten_el": lambda: _hw_ln_el(x, w, b)}
            best = {}
            for tag, m in mods.items():
                for nw, om in cands:
                    c = dict(NUM_WARPS=nw, OWN_M=om, RED_N=min(N, 8192), SPLIT=1)
                    y = torch.full_like(x, float("nan"))
                    run = m.bind(c, x, w, b, y, 1e-5)
                    run()
                    err = ((y.double() - ref).norm() / ref.norm()).item()
                    tb = byt / t(run) / 1e9
                    emit(kind="lnhoist_cand", case=case, shape=shape, variant=tag, cand=f"w{nw}_m{om}", TBps=tb, err=err)
                    if err < 1e-2 and tb > best.get(tag, (0, None, ""))[0]:
                        best[tag] = (tb, run, f"w{nw}_m{om}")
            for tag, (tb, run, cn) in best.items():
                fns[f"{tag}/{cn}"] = run
            for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9, rounds=rounds).items():
                emit(kind="lnhoist", case=case, shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


_BULK_PREFETCH = """
@triton.jit
def _bulk_prefetch(p):
    # One thread of the program asks L2 for the next chunk (cp.async.bulk.prefetch, sm_90).
    return tl.inline_asm_elementwise(
        "{ .reg .pred %pf; .reg .u32 %tx; mov.u32 %tx, %tid.x; setp.eq.u32 %pf, %tx, 0; "
        "@%pf cp.async.bulk.prefetch.L2.global [$1], 32768; mov.u32 $0, 0; }",
        "=r,l", [p], dtype=tl.int32, is_pure=False, pack=1)

"""


def _row_prefetch(dist):
    def edit(src):
        loop = "            cmask = (cols < C) & (cols >= 0)\n            v3 = tl.load(x + "
        assert loop in src
        pf = (f"            if c0 + {dist} * RED_N < c_hi:\n"
              f"                _bulk_prefetch(x + (pid * OWN_M).to(IDXT) * x_s0 + (c0 + {dist} * RED_N) * x_s1)\n")
        src = src.replace(loop, loop.split("\n")[0] + "\n" + pf + loop.split("\n", 1)[1], 1)
        return src.replace("\n@triton.jit\ndef _combine_0", _BULK_PREFETCH + "@triton.jit\ndef _combine_0", 1)
    return edit


def _long_row_variants(kind, edits):
    """The shipped long-row sum (one 16-warp program per row, RED_N 8192) and its text variants
    `edits` (tag -> edit) at 256x65536 and 8192x8192, in rotating rounds with torch ($ROUNDS, default 8);
    outputs checked against f64 sums."""
    rounds = int(os.environ.get("ROUNDS", 8))
    mods = {"generated": load("row_sum")}
    mods.update({tag: variant_module("row_sum", tag, e) for tag, e in edits.items()})
    cfg = dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1)
    for M, N in [(256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        fns = {"torch": lambda x=x: x.sum(1)}
        for tag, m in mods.items():
            y = torch.full((M,), float("nan"), device="cuda")
            run = m.bind(cfg, x, y)
            run()
            emit(kind=kind + "_check", shape=f"{M}x{N}", variant=tag,
                 err=((y.double() - ref).norm() / ref.norm()).item())
            fns[tag] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind=kind, shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowprefetch_probe():
    """Row sums of long rows: does an L2 bulk prefetch of the chunk 1 or 2 ahead (32 KiB, one thread)
    lift the 256x65536 row sum?"""
    _long_row_variants("rowprefetch", {f"pf{d}": _row_prefetch(d) for d in (1, 2)})


def _persistent_rows(kname):
    """Edit: appends `<kname>_persist`, the whole-row branch of the generated row kernel `kname` in a
    loop over row blocks (program p takes blocks p, p + G, ... for G programs), its loads pipelined
    across iterations by `tl.range(..., num_stages=NS)`."""
    def edit(src):
        d = src.index(f"def {kname}(")
        head = src[d:src.index("\n", d)]
        pre = src[src.index("\n", d) + 1:src.index("    pid = tl.program_id(0)\n", d)]
        rows = re.search(r"\n(    rows = .*\n    rmask = .*)\n", src[d:]).group(1)
        a, e = _whole_row_branch(src)
        body = src[src.index("\n", a) + 1:e]
        fn = ("\n\n@triton.jit\n" + head.replace(f"def {kname}(", f"def {kname}_persist(").replace("):", ", NS: tl.constexpr):")
              + "\n" + pre
              + "    for pid in tl.range(tl.program_id(0), tl.cdiv(R, OWN_M), tl.num_programs(0), num_stages=NS):\n"
              + "\n".join("    " + ln for ln in rows.split("\n")) + "\n" + body + "\n")
        return src + fn
    return edit


def rowpersist_probe():
    """Small rows (layernorm f16/f32 8192x1024, softmax 8192x1024 and 32768x512): the whole-row branch
    in persistent programs (4-16 per SM), loads pipelined over 1-3 stages, against the tuned winner
    and the hand-written kernel in rotating rounds ($ROUNDS, default 8); outputs checked."""
    rounds = int(os.environ.get("ROUNDS", 8))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for case, M, N, dt in [("layernorm_f32", 8192, 1024, torch.float32), ("layernorm", 8192, 1024, torch.float16),
                           ("softmax", 8192, 1024, torch.float32), ("softmax", 32768, 512, torch.float32)]:
        kname = case + "_kernel"
        m = variant_module(case, "rowpersist", _persistent_rows(kname))
        x = torch.randn(M, N, device="cuda", dtype=dt)
        if case.startswith("layernorm"):
            w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
            mk = lambda y: (x, w, b, y, 1e-5)
            ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
            fns = {"handwritten": lambda: hw.tri_ln(x, w, b)}
            extra_meta = {}
        else:
            mk = lambda y: (x, y)
            ref = torch.softmax(x.double(), 1)
            fns = {"handwritten": lambda: hw.tri_softmax(x)}
            extra_meta = {"DIV_FORM": 0}
        byt = 2 * x.numel() * x.element_size()
        shape = f"{M}x{N}"
        y = torch.full_like(x, float("nan"))
        win = m.prepare(*mk(y))
        fns["tuned " + json.dumps(win, sort_keys=True)] = m.bind(win, *mk(y))
        jit = getattr(m, kname + "_persist")
        screened = []
        for nw, om in [(4, 1), (4, 2), (2, 2)]:
            for per_sm in (4, 8, 16):
                for ns in (1, 2, 3):
                    yv = torch.full_like(x, float("nan"))
                    args, extra, _, _, _, _ = m._prepare(*mk(yv))
                    g = (min(sms * per_sm, triton.cdiv(M, om)),)
                    run = lambda args=args, extra=extra, g=g, nw=nw, om=om, ns=ns: jit[g](
                        *args, OWN_M=om, RED_N=N, SPLIT=1, NS=ns, num_warps=nw, **extra_meta, **extra)
                    try:
                        run()
                    except Exception as ex:  # noqa: BLE001
                        emit(kind="rowpersist_cand", case=case, shape=shape, variant=f"w{nw}_m{om}_g{per_sm}_s{ns}", error=repr(ex)[:200])
                        continue
                    err = ((yv.double() - ref).norm() / ref.norm()).item()
                    tb = byt / t(run) / 1e9
                    name = f"w{nw}_m{om}_g{per_sm}_s{ns}"
                    emit(kind="rowpersist_cand", case=case, shape=shape, variant=name, TBps=tb, err=err)
                    if err < 1e-2:
                        screened.append((tb, name, run))
        for tb, name, run in sorted(screened, key=lambda r: -r[0])[:4]:
            fns[name] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9, rounds=rounds).items():
            emit(kind="rowpersist", case=case, shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _rotated_chunks(stride):
    """Edit: program p starts its row at chunk (p * stride) mod the row's chunk count and wraps (the
    same chunks, summed in another order), so concurrent programs do not read the same offset of rows
    a power of two apart."""
    def edit(src):
        old = "        for c0 in range(c_lo, c_hi, RED_N):\n            cols = (c0 + tl.arange(0, RED_N))"
        assert old in src
        new = ("        nch = tl.cdiv(c_hi - c_lo, RED_N)\n"
               "        for i in range(0, nch):\n"
               f"            c0 = c_lo + ((i + pid * {stride}) % nch) * RED_N\n"
               "            cols = (c0 + tl.arange(0, RED_N))")
        return src.replace(old, new, 1)
    return edit


def rowrotate_probe():
    """Row sums of long rows: do 256 programs reading the same offset of rows 256 KiB apart contend
    for the same memory channels? Each program's chunk order rotated by its row (1 or 3 chunks per row)."""
    _long_row_variants("rowrotate", {f"rot{k}": _rotated_chunks(k) for k in (1, 3)})

@triton.jit
def _stream_row_sum(x, out, total, ROW: tl.constexpr, UNIT: tl.constexpr, BLOCK: tl.constexpr):
    # Stream-K over the flat array: program p of P sums units [p * U / P, (p + 1) * U / P), which
    # cover at most two rows (a program's range is shorter than a row), and adds each row's part
    # to the output (atomics: a timing probe, not a merge order a reduction policy allows).
    pid = tl.program_id(0).to(tl.int64)
    P = tl.num_programs(0)
    units = total // UNIT
    start = pid * units // P * UNIT
    end = (pid + 1) * units // P * UNIT
    row0 = start // ROW
    mid = tl.minimum((row0 + 1) * ROW, end)
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(start, mid, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < mid, other=0.0, eviction_policy="evict_first")
    tl.atomic_add(out + row0, tl.sum(acc, 0))
    if mid < end:
        acc = tl.zeros([BLOCK], tl.float32)
        for s in range(mid, end, BLOCK):
            offs = s + tl.arange(0, BLOCK)
            acc += tl.load(x + offs, mask=offs < end, other=0.0, eviction_policy="evict_first")
        tl.atomic_add(out + row0 + 1, tl.sum(acc, 0))


@triton.jit
def _tma_row_sum(desc, out, SUB: tl.constexpr, RB: tl.constexpr, STAGES: tl.constexpr):
    # One program per row, the row read as SUB rows of 256 of a [rows * SUB, 256] descriptor,
    # RB of them (RB * 256 elements) per pipelined TMA load.
    r = tl.program_id(0)
    acc = tl.zeros([RB, 256], tl.float32)
    for k in tl.range(0, SUB, RB, num_stages=STAGES):
        acc += desc.load([r * SUB + k, 0])
    tl.store(out + r, tl.sum(tl.sum(acc, 1), 0))


def rowstream_probe():
    """Row sums of 256x65536: is the last 2-3% the imbalance of 256 rows on 132 SMs (124 SMs read two
    rows, 8 read one)? Stream-K programs over equal parts of the flat array (2-4 per SM), and one
    program per row reading through pipelined TMA loads, against the shipped winner and torch in
    8 rotating rounds; each variant's error against an f64 sum first."""
    m = load("row_sum")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for M, N in [(256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        y = torch.empty(M, device="cuda")
        fns = {"torch": lambda x=x: x.sum(1),
               "shipped": m.bind(dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1), x, y)}
        for per_sm, warps, block in [(2, 16, 8192), (2, 8, 4096), (3, 8, 4096), (4, 8, 4096), (4, 4, 2048)]:
            P = per_sm * sms
            fns[f"stream P={P} w{warps} B{block}"] = (
                lambda x=x, y=y, P=P, w=warps, b=block:
                _stream_row_sum[(P,)](x, y, x.numel(), ROW=N, UNIT=256, BLOCK=b, num_warps=w))
        if N % 256 == 0:
            sub = N // 256
            for rb, warps, stages in [(16, 8, 3), (32, 16, 3), (16, 16, 4)]:
                if sub % rb:
                    continue
                desc = TensorDescriptor.from_tensor(x.view(M * sub, 256), [rb, 256])
                fns[f"tma RB={rb} w{warps} s{stages}"] = (
                    lambda desc=desc, y=y, rb=rb, w=warps, s=stages, sub=sub:
                    _tma_row_sum[(M,)](desc, y, SUB=sub, RB=rb, STAGES=s, num_warps=w))
        errs = {}
        for k, fn in fns.items():
            if k == "torch":
                continue
            y.zero_()
            fn()
            torch.cuda.synchronize()
            errs[k] = ((y.double() - ref).norm() / ref.norm()).item()
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=8).items():
            emit(kind="rowstream", shape=f"{M}x{N}", variant=k, err=errs.get(k, 0.0), TBps_median=med,
                 TBps_min=lo, TBps_max=hi)


# The chunk loop of the generated long-row branch, as the serializer wrote it before the register
# double buffer (probe.py rowmlp and rowdbuf edit it: ART/row_sum_old from such a compiler).
_ROW_LOOP = """        for c0 in range(c_lo, c_hi, RED_N):
            cols = (c0 + tl.arange(0, RED_N)).to(IDXT)[None, :]
            cmask = (cols < C) & (cols >= 0)
            v3 = tl.load(x + (rows) * x_s0 + (cols) * x_s1, mask=(rmask) & (cmask), other=0.0, eviction_policy="evict_first")
            acc0_0 = _combine_0(acc0_0, v3)
"""
_UNMASKED = ('            v3 = tl.load(x + (tl.minimum(rows, R - 1)) * x_s0 + (cols) * x_s1, '
             'eviction_policy="evict_first")\n')


def _checked_row_sums(mods, cfgs, x, ref, kind, wanted=lambda tag, w, rn: True):
    """Launchers of one-program-per-row sums (each module at each (warps, RED_N) of cfgs that
    `wanted` keeps), each run once and checked against the f64 sums `ref`: name -> launcher for
    those within 1e-5."""
    M, N = x.shape
    fns = {}
    for tag, m in mods.items():
        for w, rn in cfgs:
            if not wanted(tag, w, rn):
                continue
            y = torch.full((M,), float("nan"), device="cuda")
            run = m.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=1), x, y)
            run()
            err = ((y.double() - ref).norm() / ref.norm()).item()
            emit(kind=kind, shape=f"{M}x{N}", variant=f"{tag} w{w} R{rn}", err=err)
            if err < 1e-5:
                fns[f"{tag} w{w} R{rn}"] = run
    return fns


def _pre_dbuf(case):
    """The artifact whose chunk loop is _ROW_LOOP: ART/<case>_old where present."""
    return case + "_old" if os.path.isdir(os.path.join(ART, case + "_old")) else case


def _row_loop_variant(unmasked, unroll):
    """Edit of row_sum's chunk loop: `unmasked` runs the whole chunks without masks (rows clamped to
    the last row instead, their sums never stored) before a masked loop over the last partial chunk;
    `unroll` loads that many chunks per iteration before adding any of them."""
    def body(masked, k):
        cols = f"(c0 + {k} * RED_N + tl.arange(0, RED_N)).to(IDXT)[None, :]"
        if masked:
            return (f"            cols = {cols}\n"
                    f"            v3_{k} = tl.load(x + (rows) * x_s0 + (cols) * x_s1, mask=(rmask) & (cols < c_hi), "
                    f"other=0.0, eviction_policy=\"evict_first\")\n")
        return f"            cols = {cols}\n" + _UNMASKED.replace("v3 =", f"v3_{k} =")

    def loop(lo, hi, masked, k):
        adds = "".join(f"            acc0_0 = _combine_0(acc0_0, v3_{j})\n" for j in range(k))
        return (f"        for c0 in range({lo}, {hi}, {k} * RED_N):\n"
                + "".join(body(masked, j) for j in range(k)) + adds)

    def edit(src):
        assert src.count(_ROW_LOOP) == 1
        if unmasked:
            new = ("        c_full = c_lo + (c_hi - c_lo) // (%d * RED_N) * (%d * RED_N)\n" % (unroll, unroll)
                   + loop("c_lo", "c_full", False, unroll) + loop("c_full", "c_hi", True, 1))
        else:
            new = loop("c_lo", "c_hi", True, unroll)
        return src.replace(_ROW_LOOP, new)
    return edit


def _row_dbuf_variant(unmasked, depth):
    """Edit of row_sum's chunk loop into a register double buffer: chunk k + `depth` is loaded
    before chunk k is added, so loads stay in flight across every iteration (rowmlp's unrolled
    loops still drain at each iteration's end). `unmasked` runs the whole chunks' loop without
    masks (rows clamped, as rowmlp) and a masked loop over the last partial chunk."""
    def load(col0, masked, hi):
        cols = f"({col0} + tl.arange(0, RED_N)).to(IDXT)[None, :]"
        if masked:
            return (f"tl.load(x + (rows) * x_s0 + ({cols}) * x_s1, mask=(rmask) & ({cols} < {hi}), "
                    'other=0.0, eviction_policy="evict_first")')
        return (f"tl.load(x + (tl.minimum(rows, R - 1)) * x_s0 + ({cols}) * x_s1, "
                'eviction_policy="evict_first")')

    def edit(src):
        assert src.count(_ROW_LOOP) == 1
        end = "c_full" if unmasked else "c_hi"
        new = ""
        if unmasked:
            new += "        c_full = c_lo + (c_hi - c_lo) // RED_N * RED_N\n"
        new += "".join(f"        b{k} = {load(f'c_lo + {k} * RED_N', True, end)}\n" for k in range(depth))
        new += f"        for c0 in range(c_lo + {depth} * RED_N, {end}, RED_N):\n"
        new += "            cur = b0\n"
        new += "".join(f"            b{k} = b{k + 1}\n" for k in range(depth - 1))
        new += f"            b{depth - 1} = {load('c0', not unmasked, end)}\n"
        new += "            acc0_0 = _combine_0(acc0_0, cur)\n"
        new += "".join(f"        acc0_0 = _combine_0(acc0_0, b{k})\n" for k in range(depth))
        if unmasked:
            new += ("        for c0 in range(c_full, c_hi, RED_N):\n"
                    f"            acc0_0 = _combine_0(acc0_0, {load('c0', True, 'c_hi')})\n")
        return src.replace(_ROW_LOOP, new)
    return edit


def rowdbuf_probe():
    """Long-row sums with a register double buffer (chunk k + 1 or k + 2 loaded before chunk k is
    added): at 256x65536 the shipped row reads 0.94-0.97 of a pure streaming read of the same bytes
    (rowceiling); is the rest the loop's drain at each iteration? Variants at several warps / RED_N
    against the generated row, the best pure reads and torch, rotating rounds; every output checked
    against f64 (ragged 250x65000 and 3x20000 checked only); registers and loads in flight emitted."""
    rounds = int(os.environ.get("ROUNDS", 8))
    base = _pre_dbuf("row_sum")
    mods = {"generated": load("row_sum")}
    for tag, um, d in [("dbuf1", False, 1), ("dbuf2", False, 2), ("dbuf1_unmasked", True, 1),
                       ("dbuf2_unmasked", True, 2)]:
        mods[tag] = variant_module(base, tag, _row_dbuf_variant(um, d))
    mods["unmasked_unroll2"] = variant_module(base, "unmasked_unroll2", _row_loop_variant(True, 2))
    cfgs = [(16, 8192), (16, 4096), (8, 4096), (8, 8192), (32, 4096), (16, 2048)]
    for M, N in [(256, 65536), (250, 65000), (3, 20000), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        fns = {"torch": lambda x=x: x.sum(1)}
        fns.update(_checked_row_sums(mods, cfgs, x, ref, "rowdbuf_check",
                                     lambda tag, w, rn: tag not in ("generated", "unmasked_unroll2")
                                     or (w, rn) == (16, 8192)))
        if (M, N) == (256, 65536):
            fns["generated w32 R8192"] = mods["generated"].bind(
                dict(NUM_WARPS=32, OWN_M=1, RED_N=8192, SPLIT=1), x, torch.empty(M, device="cuda"))
            for tag, m in mods.items():
                for w, regs, (mean, most) in _sass_loops(m.row_sum_kernel):
                    emit(kind="rowdbuf_sass", variant=tag, warps=w, regs=regs, loads_in_flight=mean, most=most)
        if N % 8192:
            continue  # ragged: checked only
        for blk, w in [(4096, 8), (8192, 16)]:
            part = torch.empty(triton.cdiv(x.numel(), blk), device="cuda")
            fns[f"read_ef {blk} w{w}"] = (lambda x=x, part=part, blk=blk, w=w:
                                          _read_sink_ef[(part.numel(),)](x, part, x.numel(), BLOCK=blk, num_warps=w))
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowdbuf", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _loads_in_flight(sass):
    """Global loads outstanding when each load's result is first read, over `sass` in program order:
    (mean, max). A loop that adds a chunk's first load before issuing its others reads ~1."""
    pending, live, seen = {}, set(), []

    def consume(r):
        lid = pending[r]
        seen.append(len(live))
        live.discard(lid)
        for q in [q for q, v in pending.items() if v is lid]:
            del pending[q]

    for ln in sass.splitlines():
        if not re.search(r"/\*[0-9a-f]{4}\*/", ln):
            continue
        ins = re.sub(r"^@!?U?P\w+\s+", "", ln.split("*/", 1)[1].split(";")[0].strip())
        op, _, rest = ins.partition(" ")
        regs = [int(r) for r in re.findall(r"\bR(\d+)\b", rest)]
        reads_all = op.startswith(("ST", "BRA", "ISETP", "FSETP"))
        for r in (regs if reads_all else regs[1:]):
            if r in pending:
                consume(r)
        if op.startswith("LDG") and regs:
            lid = object()
            for k in range(4 if ".128" in op else 2 if ".64" in op else 1):
                pending[regs[0] + k] = lid
            live.add(lid)
        elif regs and not reads_all and regs[0] in pending:  # overwritten before any read
            consume(regs[0])
    return (sum(seen) / len(seen), max(seen)) if seen else (0.0, 0)


def _sass_loops(jit):
    """(warps, registers, loads in flight (mean, max)) of every compiled kernel of `jit`."""
    return [(ck.metadata.num_warps, ck.n_regs, _loads_in_flight(ck.asm["sass"]))
            for cache in jit.device_caches.values() for ck in cache[0].values()]


def rowmlp_probe():
    """Long-row sums: the generated chunk loop's SASS adds a chunk's first load before issuing its
    other loads (masked loads zero their registers first), so each iteration waits on memory twice.
    Variants of the loop (whole chunks without masks; 2 chunks loaded per iteration; both) at several
    warps / RED_N, against the generated kernel and torch, 8 rotating rounds; each output checked
    against an f64 sum, and each kernel's registers and loads in flight emitted."""
    rounds = int(os.environ.get("ROUNDS", 8))
    mods = {"generated": load("row_sum")}
    for tag, um, un in [("unmasked", True, 1), ("unroll2", False, 2), ("unmasked_unroll2", True, 2),
                        ("unmasked_unroll4", True, 4)]:
        mods[tag] = variant_module(_pre_dbuf("row_sum"), tag, _row_loop_variant(um, un))
    cfgs = [(16, 8192), (8, 4096), (32, 8192), (16, 4096)]
    for M, N in [(256, 65536), (8192, 8192), (250, 65000)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        fns = {"torch": lambda x=x: x.sum(1)}
        fns.update(_checked_row_sums(mods, cfgs, x, ref, "rowmlp_check"))
        if (M, N) == (256, 65536):
            for tag, m in mods.items():
                for w, regs, (mean, most) in _sass_loops(m.row_sum_kernel):
                    emit(kind="rowmlp_sass", variant=tag, warps=w, regs=regs, loads_in_flight=mean, most=most)
        if (M, N) == (250, 65000):
            continue  # ragged: checked only
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowmlp", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


_MERGE_ARRIVAL = ('            tl.debug_barrier()\n'
                  '            if tl.atomic_add(sem + pid, 1, sem="acq_rel", scope="gpu") == ns - 1:\n')


def _merge_variant(kind):
    """Edit of row_sum's split merge: `release` arrives with a release RMW and the last arriver
    acquires with a second RMW; `relaxed` orders nothing (a timing bound, not a correct merge);
    `none` stores the partials and merges nothing (the split structure's floor; output wrong)."""
    new = {"release": ('            tl.debug_barrier()\n'
                       '            if tl.atomic_add(sem + pid, 1, sem="release", scope="gpu") == ns - 1:\n'
                       '                tl.atomic_add(sem + pid, 0, sem="acquire", scope="gpu")\n'),
           "relaxed": _MERGE_ARRIVAL.replace('"acq_rel"', '"relaxed"'),
           "none": '            if ns == 0:\n'}[kind]

    def edit(src):
        assert src.count(_MERGE_ARRIVAL) == 1
        return src.replace(_MERGE_ARRIVAL, new)
    return edit


_FIXED_MERGE = """            tl.store(ws + (0 * ns + tl.program_id(1)).to(tl.int64) * R + rows, (v6.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF) | (1 << 32), mask=rmask)
            if tl.program_id(1) == ns - 1:
                tl.debug_barrier()
                js = tl.arange(0, 32)[None, :]
                merged7 = tl.zeros([OWN_M, 1], tl.float32)
                for j0 in range(0, ns, 32):
                    wp = ws + (0 * ns + j0 + js).to(tl.int64) * R + rows
                    wm = (j0 + js < ns) & (rmask)
                    w = tl.load(wp, mask=wm, other=1 << 32, volatile=True)
                    spins = 0
                    while (tl.min(tl.min((w >> 32).to(tl.int32), 1), 0) == 0) & (spins < 1 << 22):
                        w = tl.load(wp, mask=wm, other=1 << 32, volatile=True)
                        spins += 1
                    merged7 += tl.sum(tl.where(wm, (w & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True), 0.0), 1, keep_dims=True)
                    tl.debug_barrier()
                    tl.store(wp, 0, mask=wm)
                tl.store(y + (rows) * y_s0, merged7.to(tl.float32), mask=rmask)
"""


def _fixed_merge_variant(src):
    """Edit of row_sum's split merge: no atomic. Every split publishes its partial as one 64-bit word
    per row (1 << 32 | f32 bits) in a zeroed int64 workspace; the row group's last split in launch
    order (program_id(1) == ns - 1) waits for the words of the splits launched before it, adds them
    in split order in the generated merge's chunks of 32, stores, and clears the words."""
    k = src.index("def row_sum_kernel(")
    a = src.index("            tl.store(ws + (0 * ns + tl.program_id(1))", k)
    b = src.index("                tl.atomic_xchg(sem + pid, 0)  # ready for the next launch\n", a)
    b = src.index("\n", b) + 1
    src = src[:a] + _FIXED_MERGE + src[b:]
    old = "w = (torch.empty(max(nws, have[0]), device=dev, dtype=torch.float32),"
    assert src.count(old) == 1
    return src.replace(old, "w = (torch.zeros(max(nws, have[0]), device=dev, dtype=torch.int64),")


def rowmerge_probe():
    """Long-row sums split across programs: how much of a split's loss is the merge? The generated
    split merge, a release/acquire arrival, a relaxed one (unordered: a bound) and none at all
    (partials only), at SPLIT 8-32, against the unsplit generated kernel, its whole-chunk loop
    without masks loading two chunks per iteration (rowmlp), and torch; 8 rotating rounds.
    8192x8192: the unsplit kernel at 16 and 32 warps."""
    rounds = int(os.environ.get("ROUNDS", 8))
    gen = load("row_sum")
    mods = {"generated": gen, "unmasked_unroll2": variant_module("row_sum", "uu2", _row_loop_variant(True, 2))}
    mods.update({k: variant_module("row_sum", f"merge_{k}", _merge_variant(k)) for k in ("release", "relaxed", "none")})
    runs = {(256, 65536): [("generated", 16, 8192, 1), ("unmasked_unroll2", 16, 8192, 1), ("unmasked_unroll2", 16, 4096, 1)]
            + [(k, w, rn, s) for k in ("generated", "release", "relaxed", "none")
               for w, rn, s in [(8, 4096, 8), (8, 4096, 16), (4, 2048, 16), (4, 2048, 32)]],
            (8192, 8192): [("generated", 16, 8192, 1), ("generated", 32, 8192, 1), ("unmasked_unroll2", 32, 8192, 1)]}
    for (M, N), rows in runs.items():
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        fns = {"torch": lambda x=x: x.sum(1)}
        for tag, w, rn, s in rows:
            y = torch.full((M,), float("nan"), device="cuda")
            run = mods[tag].bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=s), x, y)
            run()
            name = f"{tag} w{w} R{rn} S{s}"
            err = ((y.double() - ref).norm() / ref.norm()).item()
            emit(kind="rowmerge_check", shape=f"{M}x{N}", variant=name, err=err)
            fns[name] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowmerge", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _split_fastest(src):
    """Edit of row_sum: the launch's linear program order walks a row's splits before the next row
    (consecutive programs read consecutive parts of one row, as 65536x256's programs read
    consecutive rows), instead of one split of every row before the next split."""
    d = src.index("def row_sum_kernel(")
    body = src[d:]
    assert body.count("    pid = tl.program_id(0)\n") == 1
    body = body.replace("    pid = tl.program_id(0)\n",
                        "    lin = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)\n"
                        "    pid = lin // tl.num_programs(1)\n"
                        "    sid = lin % tl.num_programs(1)\n", 1)
    head, rest = body.split("    sid = lin % tl.num_programs(1)\n", 1)
    e = rest.index("\nCANDIDATES")
    return src[:d] + head + "    sid = lin % tl.num_programs(1)\n" + rest[:e].replace("tl.program_id(1)", "sid") + rest[e:]


def rowsplitorder_probe():
    """Long-row sums split across programs, by launch order: does reading a compact moving window
    (a row's splits consecutive, as 65536x256's rows are) lift 256x65536? The generated split merge
    and no merge (partials only: the floor), each in the launch's order and split-fastest, against
    the unsplit generated kernel and torch; 8 rotating rounds."""
    rounds = int(os.environ.get("ROUNDS", 8))
    mods = {"generated": load("row_sum"), "none": variant_module("row_sum", "so_none", _merge_variant("none"))}
    mods.update({k + "_splitfirst": variant_module("row_sum", f"so_{k}", lambda s, k=k: _split_fastest(
        _merge_variant("none")(s) if k == "none" else s)) for k in ("generated", "none")})
    M, N = 256, 65536
    x = torch.randn(M, N, device="cuda")
    ref = x.double().sum(1)
    fns = {"torch": lambda x=x: x.sum(1)}
    rows = [("generated", 16, 8192, 1)] + [(k, w, rn, s) for k in mods
                                           for w, rn, s in [(4, 2048, 16), (4, 2048, 32), (8, 4096, 16)]]
    for tag, w, rn, s in rows:
        y = torch.full((M,), float("nan"), device="cuda")
        run = mods[tag].bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=s), x, y)
        run()
        name = f"{tag} w{w} R{rn} S{s}"
        emit(kind="rowsplitorder_check", variant=name, err=((y.double() - ref).norm() / ref.norm()).item())
        fns[name] = run
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
        emit(kind="rowsplitorder", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowlayout_probe():
    """64 MiB row sums by shape, in the same rotating rounds: 65536x256 has read 3.0-3.16 TB/s where
    256x65536 reads 2.83-2.97. The shipped long-row kernel; split programs reading 8 KiB each in
    65536x256's order with no merge (partials only); the 65536x256 kernel on its own tensor and on the
    256x65536 tensor's memory viewed as 65536x256 (sums of 256-element pieces: a timing only). Do the
    same bytes read in the same order read alike?"""
    rounds = int(os.environ.get("ROUNDS", 8))
    gen = load("row_sum")
    none_sf = variant_module("row_sum", "lay_none_sf", lambda s: _split_fastest(_merge_variant("none")(s)))
    long = torch.randn(256, 65536, device="cuda")
    short = torch.randn(65536, 256, device="cuda")
    y_long, y_short, y_view = (torch.empty(256, device="cuda"), torch.empty(65536, device="cuda"),
                               torch.empty(65536, device="cuda"))
    fns = {"torch 256x65536": lambda: long.sum(1), "torch 65536x256": lambda: short.sum(1),
           "long w16 R8192": gen.bind(dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1), long, y_long),
           "long split-first no merge w4 R2048 S32": none_sf.bind(dict(NUM_WARPS=4, OWN_M=1, RED_N=2048, SPLIT=32),
                                                                 long, y_long)}
    for own, w in [(8, 8), (8, 4)]:
        cfg = dict(NUM_WARPS=w, OWN_M=own, RED_N=256, SPLIT=1)
        fns[f"short M{own} w{w}"] = gen.bind(cfg, short, y_short)
        fns[f"long viewed as short M{own} w{w}"] = gen.bind(cfg, long.view(65536, 256), y_view)
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), 256 * 65536 * 4 / 1e9, rounds=rounds).items():
        emit(kind="rowlayout", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _epilogue_path(which, name):
    return os.path.join(ART, "epilogue", which, name, "triton", "kernel.py")


def _epilogue_module(which, name):
    return _import_source(f"epi_{which}_{name}", open(_epilogue_path(which, name)).read())


def epilogue_probe():
    """Reductions read through an element-wise epilogue (a mean, a norm, a variance from two sums, a
    bias after a matrix-vector product): before stop 27 they ran without a split (one program per
    row or column tile); now split programs merge the partial sums and the last evaluates the
    epilogue. ART/epilogue/{old,new}/<kernel>/triton: the same KIR compiled by both compilers.
    Each tuned (prepare), checked against f64, timed with torch in 6 rotating rounds; TB/s of input."""
    rounds = int(os.environ.get("ROUNDS", 6))
    g = torch.Generator(device="cuda").manual_seed(0)
    cases = []
    for M, N in [(262144, 256), (16384, 4096)]:
        x = torch.randn(M, N, device="cuda", generator=g)
        ref = (x.double().mean(0), x.double().var(0, unbiased=False))
        cases.append(("col_mean_var", f"{M}x{N}", [x, torch.empty(N, device="cuda"), torch.empty(N, device="cuda")],
                      [1, 2], ref, lambda x=x: torch.var_mean(x, 0, unbiased=False), M * N * 4))
    for M, N in [(64, 1048576), (1024, 65536)]:
        x = torch.randn(M, N, device="cuda", generator=g)
        b = torch.randn(M, device="cuda", generator=g)
        ref = (x.double().mean(1), x.double().norm(dim=1) + b.double())
        cases.append(("row_mean_norm", f"{M}x{N}", [x, b, torch.empty(M, device="cuda"), torch.empty(M, device="cuda")],
                      [2, 3], ref, lambda x=x, b=b: (x.mean(1), torch.linalg.vector_norm(x, dim=1) + b), M * N * 4))
    x = torch.randn(8192, 8192, device="cuda", generator=g)
    cases.append(("total_mean", "8192x8192", [x, torch.empty((), device="cuda")], [1], (x.double().mean(),),
                  lambda x=x: x.mean(), x.numel() * 4))
    for M, K in [(256, 65536), (1024, 16384)]:
        a = torch.randn(M, K, device="cuda", generator=g).half()
        v = torch.randn(K, device="cuda", generator=g).half()
        bias = torch.randn(M, device="cuda", generator=g)
        ref = ((a.double() @ v.double() + bias.double()),)
        cases.append(("matvec", f"{M}x{K}", [a, v, bias, torch.empty(M, device="cuda").half()], [3], ref,
                      lambda a=a, v=v, bias=bias: a @ v + bias, M * K * 2))
    only = os.environ.get("EPILOGUE_CASES", "").split(",")
    for name, shape, args, outs, ref, torch_fn, nbytes in cases:
        if only != [""] and name not in only:
            continue
        missing = [w for w in ("old", "new") if not os.path.exists(_epilogue_path(w, name))]
        if missing:  # matvec left split_merge.kir; a compiler may not know a kernel
            emit(kind="epilogue_skip", case=name, shape=shape, missing=",".join(missing))
            continue
        fns = {"torch": torch_fn}
        for which in ("old", "new"):
            m = _epilogue_module(which, name)
            win = m.prepare(*args)
            run = m.bind(win, *args)
            for i in outs:
                args[i].fill_(float("nan"))
            run()
            errs = [((args[i].double() - r).norm() / r.norm()).item() for i, r in zip(outs, ref)]
            emit(kind="epilogue_check", case=name, shape=shape, variant=which, err=max(errs),
                 winner=json.dumps(win, sort_keys=True))
            fns[which] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), nbytes / 1e9, rounds=rounds).items():
            emit(kind="epilogue", case=name, shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _env_ints(name, default):
    """The comma-separated integers of environment variable `name`, else `default`."""
    v = os.environ.get(name, "")
    return tuple(int(t) for t in v.split(",")) if v else default


def colstats_probe():
    """Column statistics (col_mean_var: two sums over the leading axis, then mean and variance) run
    as row reductions of the transposed iteration space: a program owns OWN_M adjacent columns and
    reads them RED_N rows at a time. The table's split rows own one column (strided reads); this
    sweeps wider ownership with splits, bound directly, outputs checked against f64, 4 rotating
    rounds of the best 6 per shape with torch.var_mean."""
    m = _epilogue_module("new", "col_mean_var")
    for M, N in [(262144, 256), (16384, 4096)]:
        x = torch.randn(M, N, device="cuda")
        ref = (x.double().mean(0), x.double().var(0, unbiased=False))
        mean, var = torch.empty(N, device="cuda"), torch.empty(N, device="cuda")
        fns, first = {"torch": lambda x=x: torch.var_mean(x, 0, unbiased=False)}, {}
        for own in _env_ints("COLSTATS_OWN", (32, 64)):
            for rn in _env_ints("COLSTATS_RED", (32, 128)):
                for split in _env_ints("COLSTATS_SPLIT", (8, 64)):
                    for w in _env_ints("COLSTATS_WARPS", (4, 8)):
                        cfg = dict(NUM_WARPS=w, OWN_M=own, RED_N=rn, SPLIT=split)
                        run = m.bind(cfg, x, mean, var)
                        mean.fill_(float("nan"))
                        run()
                        err = max(((o.double() - r).norm() / r.norm()).item() for o, r in zip((mean, var), ref))
                        name = json.dumps(cfg, sort_keys=True)
                        if err < 1e-5:
                            first[name] = (M * N * 4 / 1e9 / t(run), run)
                        else:
                            emit(kind="colstats_bad", shape=f"{M}x{N}", variant=name, err=err)
        best = sorted(first, key=lambda k: -first[k][0])[:6]
        for k in best:
            emit(kind="colstats_sweep", shape=f"{M}x{N}", variant=k, TBps=first[k][0])
            fns[k] = first[k][1]
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=4).items():
            emit(kind="colstats", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def _host_us(fn, n=200):
    """Host time per call while the device is held busy (the launch queue never blocks)."""
    import time
    torch.cuda.synchronize()
    torch.cuda._sleep(int(2e9))  # ~1 s of device work ahead of the launches
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    us = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    return us


def launchcost_probe():
    """16x8192x8192: is the harness timing of short Triton kernels host-bound? Host microseconds per
    launch, do_bench (L2 flush between calls) and do_bench_cudagraph (no host work in the timed region)
    for the tuned winner (bound, and through `launch`), the same tile through pointers, the compiled
    kernel's own launcher called by hand, the hand-written kernels and cuBLAS."""
    dev = "cuda"
    for case, dt in [("gemm_bf16", torch.bfloat16), ("gemm_f16", torch.float16)]:
        m = load(case)
        a = torch.randn(16, 8192, device=dev, dtype=dt)
        b = torch.randn(8192, 8192, device=dev, dtype=dt)
        c = torch.empty(16, 8192, device=dev, dtype=dt)
        win = m.prepare(a, b, c)
        fns = {"ours": m.bind(win, a, b, c), "ours_pointer": m.bind(dict(win, USE_TENSOR_DESCRIPTOR=0), a, b, c),
               "ours_launch": lambda: m.launch(a, b, c), "cublas": lambda: a @ b,
               "hw_ptr": lambda: hw.tri_mm(a, b), "hw_tma": lambda: hw.run_tma(a, b)}
        try:  # the compiled kernel's own launcher: no JIT dispatch (binding, specialization key, cache lookup)
            kern = getattr(m, case + "_kernel")
            args, extra, grid, _, _, wshape = m._prepare(a, b, c)
            meta = dict(m._meta(win), **extra, **m._descs(win, a, b, c), **m._workspace(win, wshape))
            g = grid(meta)
            ck = kern[g](*args, **meta, num_warps=win["NUM_WARPS"], num_stages=win["NUM_STAGES"], num_ctas=1)
            ordered = [args[i] if i < len(args) else meta[n] for i, n in enumerate(kern.arg_names)]
            raw = ck[g]
            fns["ours_raw"] = lambda: raw(*ordered)
            fns["ours_raw"]()
            opts = dict(num_warps=win["NUM_WARPS"], num_stages=win["NUM_STAGES"], num_ctas=1)
            emit(kind="launchcost_fast_path", case=case, engaged=m._jit_once(kern, g, args, meta, opts) is not None)
        except Exception as e:  # noqa: BLE001
            emit(kind="launchcost", case=case, variant="ours_raw", error=repr(e)[:300])
        for f in fns.values():
            f()
        fl = 2 * 16 * 8192 * 8192 / 1e9
        ref = a.float() @ b.float()
        for k in ("ours", "ours_raw"):
            if k in fns:
                c.fill_(float("nan"))
                fns[k]()
                emit(kind="launchcost_check", case=case, variant=k, err=((c.float() - ref).norm() / ref.norm()).item())
        for k, f in fns.items():
            emit(kind="launchcost", case=case, variant=k, host_us=_host_us(f), graph_TFLOPs=fl / tg(f),
                 winner=json.dumps(win, sort_keys=True) if k.startswith("ours") else "")
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), fl).items():
            emit(kind="launchcost_rounds", case=case, variant=k, TFLOPs_median=med, TFLOPs_min=lo, TFLOPs_max=hi)


def _vote_asm(pack):
    """PTX for `pack` elements: two Markstein steps each; when any lane of the warp holds an element
    outside the range where they are exact (|a| <= lo, a zero, |q| < 2^-124 or >= 2^126, NaN), the
    whole warp takes the f64 product for its elements (one uniform branch)."""
    A = lambda i: f"${pack + i}"
    B = lambda i: f"${2 * pack + i}"
    Y = lambda i: f"${3 * pack + i}"
    L = lambda i: f"${4 * pack + i}"
    R = lambda i: f"${5 * pack + i}"
    lines = ["{", ".reg .f32 " + ", ".join(f"q{i}" for i in range(pack)) + ", rm, t;", ".reg .pred bad, anybad;",
             ".reg .f64 ad, qd;"]
    for i in range(pack):
        lines += [f"mul.rn.f32 q{i}, {A(i)}, {Y(i)};",
                  f"neg.f32 t, q{i};", f"fma.rn.f32 rm, t, {B(i)}, {A(i)};", f"fma.rn.f32 q{i}, rm, {Y(i)}, q{i};",
                  f"neg.f32 t, q{i};", f"fma.rn.f32 rm, t, {B(i)}, {A(i)};", f"fma.rn.f32 q{i}, rm, {Y(i)}, q{i};",
                  f"abs.f32 t, {A(i)};",
                  f"setp.leu{'.or' if i else ''}.f32 bad, t, {L(i)}" + (", bad;" if i else ";"),
                  f"abs.f32 t, q{i};", "setp.ltu.or.f32 bad, t, 0f01800000, bad;", "setp.geu.or.f32 bad, t, 0f7E800000, bad;"]
    lines += ["vote.sync.any.pred anybad, bad, 0xffffffff;", "@!anybad bra DONE${:uid};"]
    for i in range(pack):
        lines += [f"cvt.f64.f32 ad, {A(i)};", f"mul.rn.f64 qd, ad, {R(i)};", f"cvt.rn.f32.f64 q{i}, qd;"]
    lines += ["DONE${:uid}:"] + [f"mov.f32 ${i}, q{i};" for i in range(pack)] + ["}"]
    return "\n        ".join(lines), ",".join(["=f"] * pack + ["f"] * (4 * pack) + ["d"] * pack)


def _vote_helpers():
    """_div_vote1 / _div_vote4: the warp-uniform branch form (one and four elements per asm block)."""
    out = ""
    for pack in (1, 4):
        body, cons = _vote_asm(pack)
        out += (f"@triton.jit\ndef _div_vote{pack}(a, b, r):\n    b, y, lo = _mk_setup(b)\n"
                f"    return tl.inline_asm_elementwise(\"\"\"{body}\"\"\",\n        \"{cons}\", [a, b, y, lo, r], "
                f"dtype=tl.float32, is_pure=True, pack={pack})\n\n")
    return out


def votediv_probe():
    """Exact f32 division by a row-uniform divisor: two Markstein steps, and the f64 product only when
    some lane of the warp holds an element outside their exact range, by a warp-uniform branch in
    inline PTX (the slow form is skipped, not predicated). Bits against torch's IEEE division on
    adversarial operands, then softmax at the long-row shapes with the generated (f64 product) kernel
    and the hand-written one."""
    mods = _division_forms(_ASM_HELPERS + _vote_helpers(), "_div_vote1", "_div_vote4")
    for label, rep, a, b, o, w, ref in _exact_runs(11, ("random bits", "softmax-like", "tiny dividends",
                                                        "subnormal quotients", "mixed warps"), 2):
        emit(kind="votediv-exact", inputs=label, rep=rep, n=a.numel(), vote1_differing=bits_differing(o, ref),
             vote4_differing=bits_differing(w, ref))
    for M, N, x, y, z, byt, ref in softmax_shapes():
        time_variants("votediv", mods, M, N, x, y, z, byt, ref,
                      {"handwritten": lambda x=x: hw.tri_softmax(x)}, ["handwritten"], rounds=6)


def vectors_probe():
    """Reductions of one long row (a vector's total, a dot product): every row of
    probe-vector-rows.json (many more splits than a row-per-program table needs) at 2^20-2^28
    elements against torch."""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    for n in [1 << 20, 1 << 24, 1 << 26, 1 << 28]:
        x, z = torch.randn(n, device=dev), torch.randn(n, device=dev)
        cases = [("vector_total", [x, torch.empty((), device=dev)], n * 4, lambda x=x: x.sum())]
        if n <= 1 << 26:
            cases.append(("dot", [x, z, torch.empty((), device=dev)], 2 * n * 4, lambda x=x, z=z: torch.dot(x, z)))
        for case, args, byt, torch_fn in cases:
            emit(kind="vectors", case=case, n=n, variant="torch", TBps=byt / t(torch_fn) / 1e9)
            every_candidate(load(case + "_vprobe"), args, byt, torch_fn().double(), kind="vectors", case=case, n=n)


def vecmat_probe():
    """Vector-matrix (a column reduction of a product) against the column sum at 8192x8192,
    every row of probe-vecmat-rows.json for both: does the product's broadcast operand cost?"""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    x, b = torch.randn(8192, device=dev), torch.randn(8192, 8192, device=dev)
    cases = [("vecmat", [x, b, torch.empty(8192, device=dev)], b.numel() * 4, lambda: x @ b),
             ("col_sum", [b, torch.empty(8192, device=dev)], b.numel() * 4, lambda: b.sum(0))]
    for case, args, byt, torch_fn in cases:
        emit(kind="vectors", case=case, n=b.numel(), variant="torch", TBps=byt / t(torch_fn) / 1e9)
        every_candidate(load(case + "_vprobe"), args, byt, torch_fn().double(), kind="vectors", case=case,
                        n=b.numel())


def axesidx_probe():
    """Reductions over several axes (harness.py axes): are the column coordinates' 64-bit
    divisions the cost? Candidates of channel_sum, batch_sum and leading_sum timed with the
    launcher's IDX64 (64-bit offsets: every span with a 16384-element overrun per axis over 2^31)
    and with 32-bit offsets forced (their real offsets stay below 2^31 at these shapes)."""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    x4, x3 = torch.randn(64, 256, 56, 56, device=dev), torch.randn(32, 2048, 1024, device=dev)
    w3 = torch.randn(16, 1024, 4096, device=dev)
    for case, x, out, ref in [("channel_sum", x4, torch.empty(256, device=dev), x4.sum((0, 2, 3))),
                              ("batch_sum", x3, torch.empty(32, device=dev), x3.sum((1, 2))),
                              ("leading_sum", w3, torch.empty(4096, device=dev), w3.sum((0, 1)))]:
        m = load(case)
        idx64 = m._needs_idx64
        for forced in (None, False):
            m._needs_idx64 = idx64 if forced is None else (lambda *a: False)
            every_candidate(m, [x, out], x.numel() * 4, ref.double(), kind="axesidx", case=case,
                            idx="launcher" if forced is None else "32-bit")
        m._needs_idx64 = idx64


def axesquot_probe():
    """Reductions over several axes (harness.py axes) from two compilers: every candidate of ART's
    artifacts (flat column indices split by _quot's multiply-high) and of $OLD_ART's (integer
    division per element), one after the other per candidate, the order alternating."""
    os.environ["INTENT_RUNTIME"] = "0"
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    x3, w3 = torch.randn(32, 2048, 1024, device=dev, generator=g), torch.randn(16, 1024, 4096, device=dev, generator=g)
    x4 = torch.randn(64, 256, 56, 56, device=dev, generator=g)
    h3 = torch.randn(32, 2048, 1024, device=dev, generator=g).half()
    cases = [("batch_sum", x3, torch.empty(32, device=dev), lambda: x3.sum((1, 2))),
             ("middle_sum", w3, torch.empty(1024, device=dev), lambda: w3.sum((0, 2))),
             ("leading_sum", w3, torch.empty(4096, device=dev), lambda: w3.sum((0, 1))),
             ("total3", x3, torch.empty((), device=dev), lambda: x3.sum()),
             ("channel_sum", x4, torch.empty(256, device=dev), lambda: x4.sum((0, 2, 3))),
             ("batch_max", h3, torch.empty(32, device=dev, dtype=torch.float16), lambda: h3.amax((1, 2)))]
    global ART
    new_art, old_art = ART, os.environ["OLD_ART"]
    for case, x, out, ref in cases:
        mods = {}
        for tag, art in (("quot", new_art), ("div", old_art)):
            ART = art
            mods[tag] = load(case)
        ART = new_art
        want = ref().double()
        for i, c in enumerate(mods["quot"].CANDIDATES):
            for tag in (("quot", "div") if i % 2 == 0 else ("div", "quot")):
                run = mods[tag].bind(c, x, out)
                out.fill_(float("nan"))
                run()
                err = ((out.double() - want).norm() / want.norm()).item()
                emit(kind="axesquot", case=case, form=tag, variant=json.dumps(c, sort_keys=True),
                     TBps=x.numel() * x.element_size() / t(run) / 1e9, err=err)


def attnrows_probe():
    """Region contractions (attention): a grid of (BM, BN, warps, stages) beyond the shipped
    region_contraction rows, each bound directly and timed by do_bench, its output compared with the
    reference provider's; TFLOP/s count the two contractions once (4 * batch * M * N * D)."""
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape, dt=torch.float16: torch.randn(*shape, device=dev, generator=g).to(dt)  # noqa: E731
    out = lambda *shape, dt=torch.float16: torch.empty(shape, device=dev, dtype=dt)  # noqa: E731
    B, H, S, D = 4, 16, 2048, 128
    wide = [(bm, bn, w, st) for bm in (64, 128) for bn in (32, 64, 128) for w in (4, 8) for st in (2, 3)]
    narrow = [(bm, bn, w, st) for bm in (16, 32, 64) for bn in (16, 32) for w in (1, 2, 4) for st in (1, 2)]
    cases = [
        ("attn_f16", [rnd(B, H, S, D), rnd(B, H, S, D), rnd(B, H, S, D), out(B, H, S, D), D ** -0.5], 3,
         4 * B * H * S * S * D, wide),
        ("attn_bf16_lse", [rnd(B * H, S, D, dt=torch.bfloat16), rnd(B * H, D, S, dt=torch.bfloat16),
                           rnd(B * H, S, D, dt=torch.bfloat16), out(B * H, S, D, dt=torch.bfloat16),
                           out(B * H, S, dt=torch.float32)], 3, 4 * B * H * S * S * D, wide),
        ("attention", [rnd(2, 8, 1024, 64), rnd(2, 8, 1024, 64), rnd(2, 8, 1024, 64), out(2, 8, 1024, 64), 0.125], 3,
         4 * 16 * 1024 * 1024 * 64, narrow + wide[:6]),
        ("attn_f32_bias", [rnd(S, 64, dt=torch.float32), rnd(S, 64, dt=torch.float32), rnd(S, S, dt=torch.float32),
                           rnd(S, 64, dt=torch.float32), rnd(64, dt=torch.float32), out(S, 64, dt=torch.float32)], 5,
         4 * S * S * 64, narrow),
    ]
    for case, args, o, work, grid in cases:
        m = load(case)
        spec = importlib.util.spec_from_file_location(f"r_{case}", os.path.join(ART, case, "reference", "kernel.py"))
        r = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(r)
        want = [a.clone() if torch.is_tensor(a) else a for a in args]
        r.launch(*want)
        for bm, bn, w, st in grid:
            c = {"BM": bm, "BN": bn, "NUM_STAGES": st, "NUM_WARPS": w}
            try:
                run = m.bind(c, *args)
                args[o].fill_(float("nan"))
                run()
                ref = want[o].double()
                err = ((args[o].double() - ref).norm() / ref.norm()).item()
                emit(case=case, variant=json.dumps(c, sort_keys=True), TFLOPs=work / t(run) / 1e9, err=err)
            except Exception as ex:  # a configuration Triton cannot compile (shared memory, registers)
                emit(case=case, variant=json.dumps(c, sort_keys=True), failed=type(ex).__name__ + ": " + str(ex)[:120])


@triton.jit
def _handoff_part(x, lo, hi, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for s in range(lo, hi, BLOCK):
        offs = s + tl.arange(0, BLOCK)
        acc += tl.load(x + offs, mask=offs < hi, other=0.0, eviction_policy="evict_first")
    return tl.sum(acc, 0)


@triton.jit
def _handoff_word(part):
    # A row part as the hand-off publishes it: flag 1 in the high half, the f32 bits in the low.
    return (part.to(tl.int32, bitcast=True).to(tl.int64) & 0xFFFFFFFF) | (1 << 32)


@triton.jit
def _balanced_atomic_row_sum(x, out, UNITS, UPR, U: tl.constexpr, BLOCK: tl.constexpr):
    # A bound, not a merge a policy allows: balanced programs add their row parts with
    # fire-and-forget atomics (red.relaxed, nothing waited for).
    p = tl.program_id(0)
    P = tl.num_programs(0)
    su = (p.to(tl.int64) * UNITS // P).to(tl.int32)
    eu = ((p + 1).to(tl.int64) * UNITS // P).to(tl.int32)
    for r in range(su // UPR, (eu - 1) // UPR + 1):
        lo = tl.maximum(su, r * UPR) * U
        hi = tl.minimum(eu, (r + 1) * UPR) * U
        tl.atomic_add(out + r, _handoff_part(x, lo, hi, BLOCK), sem="relaxed")


@triton.jit
def _balanced_handoff_row_sum(x, out, ws, UNITS, UPR, U: tl.constexpr, BLOCK: tl.constexpr):
    # Balanced programs, P <= rows: program p sums units [su, eu) of the flat array (U elements
    # each), so a row spans at most two programs. p sums its last row's part first and, when that
    # row goes on into p + 1, publishes it as one 64-bit word (1 << 32 | bits: no fence, nothing
    # waited for); then its whole rows; then its first row's part, to which it adds p - 1's
    # published part (read before, spun on only if not there yet) in row order, and clears it.
    p = tl.program_id(0)
    P = tl.num_programs(0)
    su = (p.to(tl.int64) * UNITS // P).to(tl.int32)
    eu = ((p + 1).to(tl.int64) * UNITS // P).to(tl.int32)
    r0 = su // UPR
    r1 = (eu - 1) // UPR
    if r1 > r0:
        part = _handoff_part(x, r1 * UPR * U, eu * U, BLOCK)
        if eu < (r1 + 1) * UPR:
            tl.store(ws + p, _handoff_word(part))
        else:
            tl.store(out + r1, part)
    for r in range(r0 + 1, r1):
        tl.store(out + r, _handoff_part(x, r * UPR * U, (r + 1) * UPR * U, BLOCK))
    hi0 = tl.minimum(eu, (r0 + 1) * UPR)
    if su > r0 * UPR:
        w = tl.load(ws + p - 1, volatile=True)  # in flight while the part below is read
        own = _handoff_part(x, su * U, hi0 * U, BLOCK)
        while (w >> 32) != 1:
            w = tl.load(ws + p - 1, volatile=True)
        prev = (w & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True)
        tl.store(out + r0, prev + own)
        tl.store(ws + p - 1, 0)
    else:
        own = _handoff_part(x, su * U, hi0 * U, BLOCK)
        if r0 == r1 and hi0 < (r0 + 1) * UPR:
            tl.store(ws + p, _handoff_word(own))
        else:
            tl.store(out + r0, own)


def rowhandoff_probe():
    """256x65536 row sums by balanced programs: P programs each sum an equal share of the flat
    array (in 256-element units), a row's two parts joined by a hand-off with no atomic and no fence
    (the earlier program publishes its part as one 64-bit word, the later one adds it in row
    order). Against the shipped rows, a bound with fire-and-forget atomics, the same memory read as
    short rows (65536x256, 8 rows per program: a timing only) and torch, in rotating rounds; every
    deterministic variant checked against f64 and for identical bits over repeated launches, on
    ragged shapes too. NCU_ONLY=1: each variant launched 3 times, no timing (for ncu)."""
    rounds = int(os.environ.get("ROUNDS", 8))
    ncu_only = os.environ.get("NCU_ONLY") == "1"
    gen = load("row_sum")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    U = 256

    def variants(x, y, ws):
        M, N = x.shape
        units, upr = M * N // U, N // U
        fns = {}
        for w in (16, 32):
            fns[f"shipped w{w} R8192"] = gen.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=8192, SPLIT=1), x, y)
        for P, w, b in [(sms, 32, 8192), (sms, 16, 8192), (2 * sms, 16, 8192), (2 * sms, 8, 4096)]:
            fns[f"atomic bound P{P} w{w} B{b}"] = (
                lambda P=P, w=w, b=b: _balanced_atomic_row_sum[(P,)](  # y accumulates: a timing only
                    x, y, units, upr, U=U, BLOCK=b, num_warps=w))
        for P, w, b, coop in [(sms, 32, 8192, False), (sms, 32, 4096, False), (sms, 16, 8192, False),
                              (sms, 32, 8192, True)]:
            if P > M:
                continue
            fns[f"handoff P{P} w{w} B{b}" + (" coop" if coop else "")] = (
                lambda P=P, w=w, b=b, coop=coop: _balanced_handoff_row_sum[(P,)](
                    x, y, ws, units, upr, U=U, BLOCK=b, num_warps=w, launch_cooperative_grid=coop))
        return fns

    # Correctness (and repeatability) of the hand-off first, ragged shapes included.
    for M, N in [] if ncu_only else [(256, 65536), (250, 65024), (133, 768), (1000, 256), (256, 8192 * 3 + 256)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        y = torch.empty(M, device="cuda")
        ws = torch.zeros(2 * sms + 1, dtype=torch.int64, device="cuda")
        for k, fn in variants(x, y, ws).items():
            if not k.startswith("handoff"):
                continue
            bits = None
            for _ in range(3):
                y.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                cur = y.clone()
                same = bits is None or torch.equal(cur.view(torch.int32), bits.view(torch.int32))
                bits = cur
            err = ((cur.double() - ref).norm() / ref.norm()).item()
            emit(kind="rowhandoff_check", shape=f"{M}x{N}", variant=k, err=err, repeat_identical=same,
                 ws_clear=int(ws.abs().sum().item()) == 0, ok=bool(err < 1e-6 and same))
    M, N = 256, 65536
    x = torch.randn(M, N, device="cuda")
    y = torch.empty(M, device="cuda")
    ws = torch.zeros(2 * sms + 1, dtype=torch.int64, device="cuda")
    fns = {"torch": lambda: x.sum(1)}
    fns.update(variants(x, y, ws))
    y_view = torch.empty(65536, device="cuda")
    fns["long viewed as short M8 w8 (pieces)"] = gen.bind(dict(NUM_WARPS=8, OWN_M=8, RED_N=256, SPLIT=1),
                                                          x.view(65536, 256), y_view)
    if ncu_only:
        for k, fn in fns.items():
            for _ in range(3):
                fn()
        torch.cuda.synchronize()
        return
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
        emit(kind="rowhandoff", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


@triton.jit
def _ticket_row_sum(x, out, ws, cnt, dbg, N, S: tl.constexpr, PART: tl.constexpr, BLOCK: tl.constexpr,
                    TICKET: tl.constexpr, EVICT: tl.constexpr, SPIN_LIMIT: tl.constexpr,
                    NW: tl.constexpr = 4):
    # A long row split over S consecutive programs (split-fastest order, PART elements each). Each
    # takes a ticket on its row's counter (TICKET "first": before its loads, so the atomic's round
    # trip overlaps them; "last": after) and publishes its part as one 64-bit word (1 << 32 | bits);
    # the program that took the last ticket started last, so every word it waits for is from a
    # resident program: it spins until they are there, adds the S parts in split order (the same
    # bits whoever merges), clears the words and the counter. TICKET "none": words only (the floor).
    lin = tl.program_id(0)
    row = lin // S
    s = lin % S
    base = x + row.to(tl.int64) * N + s * PART
    if TICKET == "first":
        t = tl.atomic_add(cnt + row, 1, sem="relaxed", scope="gpu")
    if TICKET == "asm":
        # Thread 0 alone takes the ticket and nothing waits for it until the part is summed: no
        # broadcast barrier between the atomic and the loads (tl.atomic_add's scalar result has one).
        t0 = tl.inline_asm_elementwise(
            "{ .reg .u32 tid; .reg .pred p0; mov.u32 $0, 0; mov.u32 tid, %tid.x; setp.eq.u32 p0, tid, 0;"
            " @p0 atom.relaxed.gpu.global.add.u32 $0, [$1], 1; }",
            "=r,l", [cnt + row], dtype=tl.int32, is_pure=False, pack=1)
    acc = tl.zeros([BLOCK], tl.float32)
    for k in tl.static_range(0, PART, BLOCK):
        acc += tl.load(base + k + tl.arange(0, BLOCK), eviction_policy=EVICT)
    if TICKET == "last":
        t = tl.atomic_add(cnt + row, 1, sem="relaxed", scope="gpu")
    part = tl.sum(acc, 0)
    if TICKET == "asm":
        lane = tl.arange(0, 32 * NW)
        t = tl.max(tl.where(lane == 0, t0, 0), 0)  # thread 0's ticket, to every thread
    if TICKET == "none":
        tl.store(ws + lin, _handoff_word(part))
    else:
        # TICKET "fixed": no atomic at all; the row's last split in launch order merges, waiting
        # only on programs launched before it (the forward-progress assumption of CUB's look-back).
        if TICKET == "fixed":
            merger = s == S - 1
        else:
            merger = t == S - 1
        if merger:
            offs = tl.arange(0, S)
            mine = offs == s
            w = tl.load(ws + row * S + offs, mask=~mine, other=1 << 32, volatile=True)
            spins = 0
            while (tl.min((w >> 32).to(tl.int32), 0) == 0) & (spins < SPIN_LIMIT):
                w = tl.load(ws + row * S + offs, mask=~mine, other=1 << 32, volatile=True)
                spins += 1
            tl.store(dbg + row, spins)  # a probe's watchdog: a word never seen ends the wait
            vals = tl.where(mine, part, (w & 0xFFFFFFFF).to(tl.int32).to(tl.float32, bitcast=True))
            tl.store(out + row, tl.sum(vals, 0))
            tl.debug_barrier()  # every warp waits on its own copy of the words: clear once all have them
            tl.store(ws + row * S + offs, 0, mask=~mine)
            tl.store(cnt + row, 0)
        else:
            tl.store(ws + lin, _handoff_word(part))


def _check_word_merge(kind, name, fn, y, ref, ws, cnt, dbg):
    """A merging word variant launched 3 times: within 1e-6 of the f64 sums `ref`, the same bits each
    time, its words and counters left clear."""
    bits = None
    for _ in range(3):
        y.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        same = bits is None or torch.equal(y.view(torch.int32), bits.view(torch.int32))
        bits = y.clone()
    err = ((bits.double() - ref).norm() / ref.norm()).item()
    clear = int(ws.abs().sum().item()) == 0 and int(cnt.abs().sum().item()) == 0
    emit(kind=kind, variant=name, err=err, repeat_identical=same, clear=clear,
         max_spins=int(dbg.max().item()), ok=bool(err < 1e-6 and same and clear))


def _word_merge_rounds(kind, variants, shipped_warps, short_warps, generated=()):
    """256x65536 row sums by _ticket_row_sum: `variants` (S, warps, BLOCK, TICKET) split over S
    consecutive programs, each merging variant checked (_check_word_merge), against the shipped rows
    (`shipped_warps`), the same memory read as 65536x256 short rows (8 rows per program at
    `short_warps`: sums of pieces, a timing only) and torch in rotating rounds ($ROUNDS, default 8).
    `generated`: (tag, module, warps, RED_N, SPLIT) split rows of generated modules, in the same
    rounds, each checked against f64 after two launches (the second reuses the workspace)."""
    rounds = int(os.environ.get("ROUNDS", 8))
    gen = load("row_sum")
    M, N = 256, 65536
    x = torch.randn(M, N, device="cuda")
    ref = x.double().sum(1)
    y = torch.empty(M, device="cuda")
    ws = torch.zeros(M * 64, dtype=torch.int64, device="cuda")
    cnt = torch.zeros(M, dtype=torch.int32, device="cuda")
    dbg = torch.zeros(M, dtype=torch.int32, device="cuda")
    fns = {"torch": lambda: x.sum(1)}
    for w in shipped_warps:
        fns[f"shipped w{w} R8192"] = gen.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=8192, SPLIT=1), x, y)
    y_view = torch.empty(65536, device="cuda")
    for w in short_warps:
        fns[f"short view M8 w{w} (pieces)"] = gen.bind(dict(NUM_WARPS=w, OWN_M=8, RED_N=256, SPLIT=1),
                                                      x.view(65536, 256), y_view)
    for tag, mod, w, rn, sp in generated:
        yg = torch.full((M,), float("nan"), device="cuda")
        run = mod.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=sp), x, yg)
        run()
        yg.fill_(float("nan"))
        run()
        name = f"{tag} w{w} R{rn} S{sp}"
        emit(kind=kind + "_check", variant=name, err=((yg.double() - ref).norm() / ref.norm()).item())
        fns[name] = run
    for S, w, b, tk in variants:
        name = f"split S{S} w{w} B{b} merge {tk}"
        fn = (lambda S=S, w=w, b=b, tk=tk: _ticket_row_sum[(M * S,)](
            x, y, ws, cnt, dbg, N, S=S, PART=N // S, BLOCK=b, TICKET=tk, EVICT="evict_first",
            SPIN_LIMIT=1 << 20, NW=w, num_warps=w))
        if tk != "none":
            _check_word_merge(kind + "_check", name, fn, y, ref, ws, cnt, dbg)
        fns[name] = fn
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
        emit(kind=kind, shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowticket_probe():
    """256x65536 row sums split over consecutive programs whose merge costs one ticket taken before
    the loads: the last program to start adds the published parts in split order (deterministic).
    Against no merge (the floor), the shipped rows, the short-row kernel on the same memory and
    torch in rotating rounds; each merging variant checked against f64 and for identical bits over
    repeated launches, the counters and words left clear."""
    _word_merge_rounds("rowticket", [(S, w, b, tk) for S, w, b in [(32, 8, 2048), (16, 8, 4096), (64, 4, 1024),
                                                                  (64, 8, 1024)]
                                     for tk in (("asm", "last", "none") if (S, w) == (32, 8) else ("asm", "none"))],
                       (16, 32), (8, 4))


def rowfixed_probe():
    """256x65536 row sums split over consecutive programs merged with no atomic: the row's last split
    in launch order adds the other splits' published 64-bit words (spinning only while one is
    missing) in split order. Against no merge (words only: the floor), the shipped rows, the same
    memory read as short rows, and torch in rotating rounds; each merging variant checked against
    f64, for identical bits over repeated launches, and for clear words. The generated split rows
    with their merge (an acq_rel arrival) and, as a compiler that emits the fixed merge built them
    (ART/row_sum_fixed), in the same rounds; without that build, the fixed merge edited into the
    generated module (_fixed_merge_variant) instead. Sized to finish in about two minutes."""
    fixed = (("compiled fixed", load("row_sum_fixed")) if os.path.isdir(os.path.join(ART, "row_sum_fixed"))
             else ("generated fixed", variant_module("row_sum", "fixed", _fixed_merge_variant)))
    _word_merge_rounds("rowfixed", [(S, w, b, tk) for S, w, b in [(32, 8, 2048), (16, 8, 4096), (64, 4, 1024)]
                                    for tk in ("fixed", "none")],
                       (16,), (8,),
                       [(tag, mod, w, rn, sp) for tag, mod in [("generated", load("row_sum")), fixed]
                        for w, rn, sp in [(4, 2048, 32), (8, 2048, 32), (8, 4096, 16), (4, 1024, 64), (16, 8192, 8)]])


def _screen_split_rows(kind, cands, trial, byt, fns, rounds, **tags):
    """Each candidate once: trial(c) runs it on poisoned outputs and returns (run, error fields, ok);
    run is timed once (do_bench, 40 ms) and emitted as `kind`_screen (a candidate that cannot run is
    emitted with its error). Then the best unsplit and the best two split candidates that are ok, with
    the baselines `fns`, in `rounds` rotating rounds; `byt` bytes per call."""
    screened = []
    for c in cands:
        variant = json.dumps(c, sort_keys=True)
        try:
            run, err, ok = trial(c)
        except Exception as e:  # noqa: BLE001
            emit(kind=kind + "_screen", **tags, variant=variant, error=repr(e)[:200])
            continue
        tb = byt / do_bench(run, warmup=5, rep=40, return_mode="median") / 1e9
        emit(kind=kind + "_screen", **tags, variant=variant, TBps=tb, **err)
        if ok:
            screened.append((tb, c, run))
    screened.sort(key=lambda t: -t[0])
    best = [t for t in screened if t[1]["SPLIT"] == 1][:1] + [t for t in screened if t[1]["SPLIT"] > 1][:2]
    for _, c, run in best:
        fns[json.dumps(c, sort_keys=True)] = run
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9, rounds=rounds).items():
        emit(kind=kind, **tags, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def fewrows_probe():
    """Softmax over few long rows (sampling over a vocabulary at small batch: one program per row
    leaves most SMs idle). The tuned launch and torch, and every row of probe-fewrows-rows.json
    compiled with store splits allowed on innermost rows (softmax_ssprobe: 2-16 programs share a row,
    each folding all of it and storing its share), each checked against torch in f64 and timed once;
    then the best unsplit and the best two split rows in rotating rounds ($ROUNDS, default 4). Bytes:
    the input read once and the output written once."""
    rounds = int(os.environ.get("ROUNDS", 4))
    m = load("softmax")
    ss = load("softmax_ssprobe")
    for M, N in [(1, 262144), (4, 131072), (8, 131072), (16, 65536), (32, 131072), (64, 32768), (128, 32768)]:
        shape = f"{M}x{N}"
        x = torch.randn(M, N, device="cuda")
        y = torch.full_like(x, float("nan"))
        want = torch.softmax(x.double(), 1)
        byt = 2 * x.numel() * 4
        m.launch(x, y)
        err = ((y.double() - want).norm() / want.norm()).item()
        emit(kind="fewrows_check", shape=shape, err=err, winner=json.dumps(m._WIN[2]) if m._use_runtime() else "")

        def trial(c, x=x, want=want):
            yc = torch.full_like(x, float("nan"))
            run = ss.bind(c, x, yc)
            run()
            torch.cuda.synchronize()
            e = ((yc.double() - want).norm() / want.norm()).item()
            return run, {"err": e}, e == e and e < 1e-5
        fns = {"torch": lambda x=x: torch.softmax(x, 1), "launch": lambda x=x, y=y: m.launch(x, y)}
        _screen_split_rows("fewrows", ss.CANDIDATES, trial, byt, fns, rounds, shape=shape)


def rowcoarse_probe():
    """256x65536 row sums split into a few coarse parts (64-128 KiB per program, 1-4 merges per row)
    with the generated merge: the epilogue probe's row_mean_norm read 64x1048576 at 3.3 TB/s through
    64 splits of 64 KiB each, where stop 27's 4-16 KiB splits lost 15-18% to the merge. Next to the
    shipped winner, the same memory read by the row_mean_norm kernel (two sums in one pass) and torch;
    every output checked against f64, rotating rounds."""
    rounds = int(os.environ.get("ROUNDS", 8))
    m = load("row_sum")
    norm = _epilogue_module("new", "row_mean_norm")
    M, N = 256, 65536
    x = torch.randn(M, N, device="cuda")
    b = torch.zeros(M, device="cuda")
    ref = x.double().sum(1)
    fns = {"torch": lambda: x.sum(1)}
    rows = [(16, 8192, 1), (4, 2048, 4), (4, 1024, 4), (8, 2048, 4), (8, 4096, 4), (4, 2048, 8), (4, 1024, 8),
            (8, 2048, 8), (4, 2048, 2), (8, 4096, 2), (16, 8192, 2), (8, 4096, 1)]
    for w, rn, s in rows:
        y = torch.full((M,), float("nan"), device="cuda")
        run = m.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=s), x, y)
        run()
        name = f"row_sum w{w} R{rn} S{s}"
        emit(kind="rowcoarse_check", variant=name, err=((y.double() - ref).norm() / ref.norm()).item())
        fns[name] = run
    for w, rn, s in [(4, 1024, 1), (4, 2048, 4), (8, 4096, 4), (16, 8192, 1)]:
        mean, nrm = torch.full((M,), float("nan"), device="cuda"), torch.full((M,), float("nan"), device="cuda")
        run = norm.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=s), x, b, mean, nrm)
        run()
        name = f"row_mean_norm w{w} R{rn} S{s}"
        emit(kind="rowcoarse_check", variant=name, err=((mean.double() * N - ref).norm() / ref.norm()).item())
        fns[name] = run
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
        emit(kind="rowcoarse", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowceiling_probe():
    """Is 3.0 TB/s within reach of any kernel at 256x65536 under do_bench? Stop 15 read a pure
    streaming read with evict-first loads (each program sums one block; no loop, no merge: the most
    loads in flight per byte) of these 64 MiB at 3.005 in one set of rounds. Here the shipped
    tuner winner (the harness's launch), every shipped candidate's best, and such reads of the same
    bytes, rotating rounds; each shape's reads sum to the row sums' total (checked against f64)."""
    rounds = int(os.environ.get("ROUNDS", 8))
    m = load("row_sum")
    for M, N in [(256, 65536), (65536, 256), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        y = torch.full((M,), float("nan"), device="cuda")
        m.launch(x, y)
        emit(kind="rowceiling_check", shape=f"{M}x{N}", variant="launch",
             err=((y.double() - ref).norm() / ref.norm()).item())
        fns = {"torch": lambda x=x: x.sum(1), "launch": lambda x=x, y=y: m.launch(x, y)}
        for w, rn in [(16, 8192), (32, 8192), (8, 4096)]:
            fns[f"row_sum w{w} R{rn}"] = m.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=1), x, y)
        for blk, w in [(2048, 4), (4096, 4), (4096, 8), (8192, 8), (8192, 16), (16384, 16)]:
            part = torch.empty(triton.cdiv(x.numel(), blk), device="cuda")
            fn = (lambda x=x, part=part, blk=blk, w=w:
                  _read_sink_ef[(part.numel(),)](x, part, x.numel(), BLOCK=blk, num_warps=w))
            fn()
            emit(kind="rowceiling_check", shape=f"{M}x{N}", variant=f"read_ef {blk} w{w}",
                 err=abs(part.double().sum().item() - ref.sum().item()) / ref.abs().sum().item())
            fns[f"read_ef {blk} w{w}"] = fn
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowceiling", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


# 16-byte loads written as PTX, by L2 prefetch size: the `LD` of the kernels below.
_LD_V4 = {hint: "ld.global.nc.L1::no_allocate" + suffix + ".v4.f32 {$0,$1,$2,$3}, [$4];"
          for hint, suffix in (("none", ""), ("128B", ".L2::128B"), ("256B", ".L2::256B"))}


@triton.jit
def _ld_v4(p, LD: tl.constexpr):
    # The sum of the four f32 at p (16-byte aligned) read by the instruction LD (a _LD_V4 entry), one
    # vector load per element of p whatever its layout.
    a, b, c, d = tl.inline_asm_elementwise(LD, "=f,=f,=f,=f,l", [p], dtype=(tl.float32,) * 4, is_pure=True, pack=1)
    return (a + b) + (c + d)


@triton.jit
def _read_sink_v4(x, out, BLOCK: tl.constexpr, LD: tl.constexpr):
    # _read_sink through _ld_v4 (no mask: the probe's sizes are multiples of BLOCK).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + 4 * tl.arange(0, BLOCK // 4)
    tl.store(out + tl.program_id(0), tl.sum(_ld_v4(x + offs, LD), 0))


@triton.jit
def _row_loop_v4(x, y, N, RED_N: tl.constexpr, LD: tl.constexpr):
    # One program per row, chunks of RED_N through _ld_v4 (N a multiple of RED_N).
    base = x + tl.program_id(0).to(tl.int64) * N + 4 * tl.arange(0, RED_N // 4)
    acc = tl.zeros([RED_N // 4], tl.float32)
    for c0 in range(0, N, RED_N):
        acc += _ld_v4(base + c0, LD)
    tl.store(y + tl.program_id(0), tl.sum(acc, 0))


def rowl2hint_probe():
    """Does the L2 prefetch-size hint (.L2::128B / .L2::256B on 16-byte loads) lift the 64 MiB reads?
    The pure read and the long-row loop with their loads written as PTX, each hint and none, against
    the shipped row (16 warps, RED_N 8192), Triton's evict-first pure reads and torch, rotating rounds
    ($ROUNDS, default 8); every variant checked against f64 sums."""
    rounds = int(os.environ.get("ROUNDS", 8))
    m = load("row_sum")
    for M, N in [(256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        shape = f"{M}x{N}"

        def check(tag, got, want):
            emit(kind="rowl2hint_check", shape=shape, variant=tag,
                 err=((got.double() - want).norm() / want.norm()).item())
        y = torch.full((M,), float("nan"), device="cuda")
        fns = {"torch": lambda x=x: x.sum(1),
               "shipped w16 R8192": m.bind(dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1), x, y)}
        fns["shipped w16 R8192"]()
        check("shipped w16 R8192", y, ref)
        for blk, w in [(4096, 8), (8192, 16)]:
            part = torch.empty(x.numel() // blk, device="cuda")
            fn = (lambda x=x, part=part, blk=blk, w=w:
                  _read_sink_ef[(part.numel(),)](x, part, x.numel(), BLOCK=blk, num_warps=w))
            fn()
            check(f"read_ef {blk} w{w}", part.view(M, -1).sum(1), ref)
            fns[f"read_ef {blk} w{w}"] = fn
            for hn, ld in _LD_V4.items():
                part = torch.full((x.numel() // blk,), float("nan"), device="cuda")
                fn = (lambda x=x, part=part, blk=blk, w=w, ld=ld:
                      _read_sink_v4[(part.numel(),)](x, part, BLOCK=blk, LD=ld, num_warps=w))
                fn()
                check(f"read_v4 {hn} {blk} w{w}", part.view(M, -1).sum(1), ref)
                fns[f"read_v4 {hn} {blk} w{w}"] = fn
        for w, rn in [(16, 8192), (8, 4096)]:
            for hn, ld in _LD_V4.items():
                yv = torch.full((M,), float("nan"), device="cuda")
                fn = (lambda x=x, yv=yv, w=w, rn=rn, ld=ld:
                      _row_loop_v4[(M,)](x, yv, N, RED_N=rn, LD=ld, num_warps=w))
                fn()
                check(f"row_v4 {hn} w{w} R{rn}", yv, ref)
                fns[f"row_v4 {hn} w{w} R{rn}"] = fn
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowl2hint", shape=shape, variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowcluster_probe():
    """A row split over the CTAs of one cluster (NUM_CTAS 2 or 4: Triton lays the [1, RED_N] block
    over the cluster and reduces it through distributed shared memory) is a split whose merge costs
    no global atomic: does it read 256x65536 faster than one program per row? Every configuration
    checked against f64, then rotating rounds with torch and the shipped rows."""
    rounds = int(os.environ.get("ROUNDS", 8))
    m = load("row_sum")
    for M, N in [(256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        y = torch.empty(M, device="cuda")
        fns = {"torch": lambda x=x: x.sum(1)}
        for w, rn, ctas in [(16, 8192, 1), (32, 8192, 1), (16, 8192, 2), (8, 8192, 2), (16, 16384, 2),
                            (8, 4096, 2), (32, 16384, 2), (8, 8192, 4), (16, 16384, 4), (4, 4096, 4)]:
            name = f"w{w} R{rn} ctas{ctas}"
            try:
                run = m.bind(dict(NUM_WARPS=w, OWN_M=1, RED_N=rn, SPLIT=1, NUM_CTAS=ctas), x, y)
                y.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001
                emit(kind="rowcluster", shape=f"{M}x{N}", variant=name, error=repr(e)[:300])
                continue
            err = ((y.double() - ref).norm() / ref.norm()).item()
            emit(kind="rowcluster_check", shape=f"{M}x{N}", variant=name, err=err)
            if err == err and err < 1e-4:
                fns[name] = run
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowcluster", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowoccupancy_probe():
    """Long-row sums by warps resident per SM: ncu reads the shipped 256x65536 winner (16 warps,
    55 registers: two programs, 32 warps per SM) and the same memory read as short rows (89% of
    the warps active) at the same in-kernel time, yet do_bench (its dirty L2 flush) reads the long
    rows ~3% slower. Do 32-warp programs capped at 32 registers (two per SM: 64 warps) read faster
    under that timing? Every configuration checked against f64; rotating rounds with torch."""
    rounds = int(os.environ.get("ROUNDS", 8))
    os.environ["INTENT_RUNTIME"] = "0"
    m = load("row_sum")
    jit = m.row_sum_kernel
    for M, N in [(256, 65536), (8192, 8192)]:
        x = torch.randn(M, N, device="cuda")
        ref = x.double().sum(1)
        y = torch.empty(M, device="cuda")
        pargs, extra, grid, _, _, wshape = m._prepare(x, y)
        fns = {"torch": lambda x=x: x.sum(1)}
        for w, r, cap in [(16, 8192, None), (32, 8192, None), (32, 8192, 32), (32, 4096, None), (32, 4096, 32),
                          (32, 2048, 32), (16, 4096, 32), (16, 8192, 40)]:
            c = dict(NUM_WARPS=w, OWN_M=1, RED_N=r, SPLIT=1)
            name = f"w{w} R{r}" + (f" cap{cap}" if cap else "")
            try:
                fn, k = _capped_launch(m, jit, c, pargs, extra, grid, cap, wshape)
                y.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = ((y.double() - ref).norm() / ref.norm()).item()
                emit(kind="rowoccupancy_check", shape=f"{M}x{N}", variant=name, n_regs=k.n_regs,
                     n_spills=k.n_spills, err=err)
                fns[name] = fn
            except Exception as e:  # noqa: BLE001
                emit(kind="rowoccupancy_check", shape=f"{M}x{N}", variant=name, error=repr(e)[:200])
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
            emit(kind="rowoccupancy", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def storesplit_probe():
    """Outer-axis kernels whose full-size outputs read a reduction (column centering, a batch
    normalization's forward pass, a column softmax): every row of probe-storesplit-rows.json (one
    program per row block, or 2-16 programs sharing each row's stores), each checked against the
    reference provider and timed once (do_bench, 40 ms), then the best unsplit and the best two split
    candidates in rotating rounds with torch ($ROUNDS, default 4). Bytes: the input read once and the
    output written once. Arguments and torch versions: scripts/bench/fused.py's."""
    rounds = int(os.environ.get("ROUNDS", 4))
    spec = importlib.util.spec_from_file_location("fused_cases", os.path.join(HERE, "..", "bench", "fused.py"))
    fused = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fused)
    for name in ("col_center", "col_norm", "col_softmax"):
        torch_fn, dt, make, nbytes = fused.GROUPS["outer"][name]
        path = os.path.join(ART, f"{name}_ssprobe", "triton", "kernel.py")
        spec = importlib.util.spec_from_file_location(f"ss_{name}", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        ref = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
            f"ssref_{name}", os.path.join(ART, "fused", "new", name, "reference", "kernel.py")))
        ref.__spec__.loader.exec_module(ref)
        for M, N in [(16384, 1024), (65536, 256), (8192, 8192)]:
            args = make(M, N, dt)
            want = fused.clone(args)
            ref.launch(*want)
            byt = nbytes(M, N, args[0].element_size())
            shape = f"{M}x{N}"

            def trial(c, m=m, args=args, want=want):
                run = m.bind(c, *args)
                for a in args[1:4]:
                    if isinstance(a, torch.Tensor):
                        a.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
                err = max((g.double() - w.double()).abs().max().item()
                          for g, w in zip(args[1:], want[1:]) if isinstance(g, torch.Tensor))
                return run, {"max_abs_err": err}, err == err and err < 1e-2
            _screen_split_rows("storesplit", m.CANDIDATES, trial, byt, {"torch": lambda args=args: torch_fn(*args)},
                               rounds, case=name, shape=shape)


def launchpaths_probe():
    """The bias gradient's 192 MiB shapes through both launch paths: intent_runtime's, and Triton's
    autotuner (INTENT_RUNTIME=0), whose split-merge launches once sized the workspace from every
    candidate's grid on every call (133 us of Python: do_bench then timed the host, stop 40). The
    module is loaded twice, one with the runtime forced off; 3 rotating do_bench rounds with torch."""
    p = os.path.join(ART, "fused", "new", "bias_grad", "triton", "kernel.py")
    rt, at = _import_source("bg_runtime", open(p).read()), _import_source("bg_autotuner", open(p).read())
    at._use_runtime = lambda: False
    for M, N in [(16384, 1024), (1024, 16384), (65536, 256)]:
        g, x = torch.randn(M, N, device="cuda"), torch.randn(M, N, device="cuda")
        dx, db = torch.empty_like(g), torch.empty(N, device="cuda")
        z = torch.zeros((), device="cuda")
        fns = {"runtime": lambda: rt.launch(g, x, dx, db), "autotuner": lambda: at.launch(g, x, dx, db),
               "torch": lambda: (torch.where(x > 0, g, z, out=dx), torch.sum(dx, 0, out=db))}
        for f in fns.values():
            f()
        emit(kind="launchpaths_winner", shape=f"{M}x{N}", runtime=json.dumps(rt._WIN[2], sort_keys=True),
             autotuner=str(at.KERNEL.best_config))
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), 3 * M * N * 4 / 1e9, rounds=3).items():
            emit(kind="launchpaths", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


@triton.jit
def _rsqrt_subnormal_safe(x):
    # The generated kernels' rsqrt (rsqrt.approx flushes subnormal inputs: scaled into range).
    tiny = tl.abs(x) < 1.1754943508222875e-38
    r = tl.math.rsqrt(tl.where(tiny, x * 16777216.0, x))
    return tl.where(tiny, r * 4096.0, r)


@triton.jit
def _ln_bisect(x, w, b, y, N, sx, sy, eps, rcp: tl.float64, BLOCK: tl.constexpr, EL: tl.constexpr,
               EXACT: tl.constexpr):
    # handwritten.ln_kernel with the generated kernel's differences behind switches: EL the
    # evict-last row load, EXACT the f64 reciprocal of N and the subnormal-safe rsqrt.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    if EL:
        v = tl.load(x + row * sx + cols, mask=m, other=0.0, eviction_policy="evict_last").to(tl.float32)
    else:
        v = tl.load(x + row * sx + cols, mask=m, other=0.0).to(tl.float32)
    if EXACT:
        mean = (tl.sum(v, 0).to(tl.float64) * rcp).to(tl.float32)
    else:
        mean = tl.sum(v, 0) / N
    d = tl.where(m, v - mean, 0.0)
    if EXACT:
        r = _rsqrt_subnormal_safe((tl.sum(d * d, 0).to(tl.float64) * rcp).to(tl.float32) + eps)
    else:
        r = 1.0 / tl.sqrt(tl.sum(d * d, 0) / N + eps)
    o = d * r * tl.load(w + cols, mask=m) + tl.load(b + cols, mask=m)
    tl.store(y + row * sy + cols, o.to(y.dtype.element_ty), mask=m)


def _unhinted_module(case):
    """The generated module with its resident row's hint stripped, under its own program key (tuned by
    itself, not served the generated kernel's stored winner). Apart from the key, line for line what
    branch resident-hint (igpu.at read_once, stop 48) compiles for layernorm and softmax."""
    return variant_module(case, "wrnone_key", lambda s: _strip_whole_row_hints(s).replace(
        'PROGRAM_KEY = "', 'PROGRAM_KEY = "nohint-', 1))


def lnbisect_probe():
    """Small rows (8192x1024: layernorm f32 and f16, softmax f32): where does the generated kernel lose
    against the hand-written one? In rotating rounds ($ROUNDS, default 10): the hand-written kernel as
    the harness times it (its output allocated on every call); for layernorm also on a preallocated
    output, with the generated kernel's evict-last row load, and with its exact scalar steps (f64
    reciprocal of N, subnormal-safe rsqrt); the generated kernel at five warp/row forms ($LNB_FORMS)
    with and without the whole-row branch's load hint, and its tuned winner. Every output checked
    against f64."""
    rounds = int(os.environ.get("ROUNDS", 10))
    forms = [tuple(int(v) for v in f.split("m")) for f in os.environ.get("LNB_FORMS", "4m1,4m2,8m2,8m4,2m1").split(",")]
    for case, dt in [("layernorm_f32", torch.float32), ("layernorm", torch.float16), ("softmax", torch.float32)]:
        M, N = 8192, 1024
        x = torch.randn(M, N, device="cuda", dtype=dt)
        fns, outs = {}, {}
        if case == "softmax":
            ref = torch.softmax(x.double(), 1)
            args = lambda y: (x, y)
            fns["handwritten"] = lambda: hw.tri_softmax(x)
        else:
            w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
            ref = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), 1e-5)
            args = lambda y: (x, w, b, y, 1e-5)
            fns["handwritten"] = lambda: hw.tri_ln(x, w, b)
            for tag, el, exact in [("hw_pre", 0, 0), ("hw_el", 1, 0), ("hw_exact", 0, 1)]:
                y = torch.full_like(x, float("nan"))
                fns[tag] = (lambda y=y, el=el, exact=exact: _ln_bisect[(M,)](
                    x, w, b, y, N, x.stride(0), y.stride(0), 1e-5, 1.0 / N, BLOCK=1024, EL=el, EXACT=exact,
                    num_warps=4))
                outs[tag] = y
        gen, bare = load(case), _unhinted_module(case)
        for tag, m, c in ([(f"gen_w{nw}m{om}{suffix}", mod, dict(NUM_WARPS=nw, OWN_M=om, RED_N=N, SPLIT=1))
                           for nw, om in forms for suffix, mod in [("", gen), ("_nohint", bare)]]
                          + [("gen_tuned", gen, None), ("gen_tuned_nohint", bare, None)]):
            if c is not None and "DIV_FORM" in m.CANDIDATES[0]:
                c["DIV_FORM"] = 0
            y = torch.full_like(x, float("nan"))
            if c is None:
                c = m.prepare(*args(y))
                emit(kind="lnbisect_winner", case=case, variant=tag, winner=json.dumps(c, sort_keys=True))
            fns[tag] = m.bind(c, *args(y))
            outs[tag] = y
        for tag, f in fns.items():
            got = f() if tag == "handwritten" else (f(), outs[tag])[1]
            emit(kind="lnbisect_check", case=case, variant=tag,
                 err=((got.double() - ref).norm() / ref.norm()).item())
        byt = 2 * M * N * x.element_size()
        for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9, rounds=rounds).items():
            emit(kind="lnbisect", case=case, shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def rowstate_probe():
    """256x65536 row sum: the shipped row (16 warps, one row per program, chunk 8192) through bind and
    the tuned launch's winner, with torch, in rotating rounds ($ROUNDS, default 6); run before and
    after harness.py mem in one call, it shows whether the harness's lower reading of the same
    kernel is the card's state after the harness's earlier cases."""
    M, N = 256, 65536
    m = load("row_sum")
    x = torch.randn(M, N, device="cuda")
    ref = x.double().sum(1)
    fns = {"torch": lambda: x.sum(1)}
    y0, y1 = torch.full((M,), float("nan"), device="cuda"), torch.full((M,), float("nan"), device="cuda")
    fns["shipped"] = m.bind(dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1), x, y0)
    win = m.prepare(x, y1)
    fns["tuned"] = m.bind(win, x, y1)
    for tag, y in [("shipped", y0), ("tuned", y1)]:
        fns[tag]()
        emit(kind="rowstate_check", variant=tag, winner=json.dumps(win, sort_keys=True),
             err=((y.double() - ref).norm() / ref.norm()).item())
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9,
                                            rounds=int(os.environ.get("ROUNDS", 6))).items():
        emit(kind="rowstate", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


@triton.jit
def _gdc(WAIT: tl.constexpr):
    # Programmatic dependent launch (sm_90): WAIT blocks until the grid this one depends on has
    # finished and its writes are visible; otherwise let the dependent grid launch now.
    if WAIT:
        tl.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
    else:
        tl.inline_asm_elementwise("griddepcontrol.launch_dependents; // $0", "=r", [], dtype=tl.int32,
                                  is_pure=False, pack=1)


@triton.jit
def _pdl_part(x, part, N, S: tl.constexpr, BLOCK: tl.constexpr, GDC: tl.constexpr):
    # Program p sums piece p % S (BLOCK elements, N == S * BLOCK) of row p // S into part[p].
    pid = tl.program_id(0)
    if GDC:
        _gdc(False)
    offs = (pid // S).to(tl.int64) * N + (pid % S) * BLOCK + tl.arange(0, BLOCK)
    tl.store(part + pid, tl.sum(tl.load(x + offs, eviction_policy="evict_first"), 0))


@triton.jit
def _pdl_merge(part, y, M, S: tl.constexpr, RB: tl.constexpr, GDC: tl.constexpr):
    # y[r] = a fixed tree over part[r, 0:S] for RB rows per program.
    if GDC:
        _gdc(True)
    rows = tl.program_id(0) * RB + tl.arange(0, RB)
    p = tl.load(part + rows[:, None] * S + tl.arange(0, S)[None, :], mask=rows[:, None] < M, other=0.0)
    tl.store(y + rows, tl.sum(p, 1), mask=rows < M)


def rowpdl_probe():
    """256x65536 row sum as two kernels: S programs per row store their pieces' sums, then a second
    kernel merges each row's S partials in a fixed tree (deterministic, no atomic, no fence). With
    programmatic dependent launch the merge grid is resident before the first grid ends and waits in
    griddepcontrol.wait, so only the wait's release and one read of the partials follow the last
    piece. Against the shipped row (bind), the partials alone (a ceiling, not a row sum) and torch,
    in rotating rounds ($ROUNDS, default 8); every row sum checked against f64 and for identical
    bits over repeated launches."""
    rounds = int(os.environ.get("ROUNDS", 8))
    M, N = 256, 65536
    m = load("row_sum")
    x = torch.randn(M, N, device="cuda")
    ref = x.double().sum(1)
    y0 = torch.full((M,), float("nan"), device="cuda")
    fns = {"torch": lambda: x.sum(1),
           "shipped": m.bind(dict(NUM_WARPS=16, OWN_M=1, RED_N=8192, SPLIT=1), x, y0)}
    checks = {"shipped": (fns["shipped"], y0)}
    for S, w, rb, mw in [(16, 8, 32, 4), (32, 8, 32, 4), (32, 4, 32, 4), (64, 4, 16, 4), (32, 8, 256, 8)]:
        blk = N // S
        part = torch.empty(M * S, device="cuda")
        tag = f"S{S} w{w} RB{rb}"
        fns[f"parts {tag}"] = (lambda part=part, S=S, blk=blk, w=w:
                               _pdl_part[(M * S,)](x, part, N, S=S, BLOCK=blk, GDC=False, num_warps=w))
        for pdl in (False, True):
            y = torch.full((M,), float("nan"), device="cuda")

            def two(part=part, y=y, S=S, blk=blk, w=w, rb=rb, mw=mw, pdl=pdl):
                _pdl_part[(M * S,)](x, part, N, S=S, BLOCK=blk, GDC=pdl, num_warps=w)
                kw = dict(launch_pdl=True) if pdl else {}
                _pdl_merge[(triton.cdiv(M, rb),)](part, y, M, S=S, RB=rb, GDC=pdl, num_warps=mw, **kw)
            name = f"{'pdl' if pdl else 'two'} {tag}"
            fns[name] = two
            checks[name] = (two, y)
    for name, (fn, y) in checks.items():
        try:
            fn()
            torch.cuda.synchronize()
        except Exception as e:  # e.g. a Triton without launch_pdl: the others still run
            emit(kind="rowpdl_check", variant=name, error=repr(e)[:300])
            del fns[name]
            continue
        bits = y.clone()
        for _ in range(20):
            fn()
        same = bool(torch.equal(y.view(torch.int32), bits.view(torch.int32)))
        emit(kind="rowpdl_check", variant=name, err=((y.double() - ref).norm() / ref.norm()).item(), repeat_same=same)
    for k, (med, lo, hi) in rotating_rounds(fns, list(fns), M * N * 4 / 1e9, rounds=rounds).items():
        emit(kind="rowpdl", shape=f"{M}x{N}", variant=k, TBps_median=med, TBps_min=lo, TBps_max=hi)


def lnshare_probe():
    """Layernorm 8192x1024 (f32, f16): does a kernel's evict-last hint reach the kernels timed beside it
    on the same input? The hand-written kernel with the generated kernel (hint on the resident row) or
    _unhinted_module's (none there; run 86 used branch resident-hint's build), each at its own tuned
    winner, in rotating rounds ($ROUNDS, default 6) of two: on one shared input, and on private
    copies; then each alone."""
    rounds = int(os.environ.get("ROUNDS", 6))
    for case, dt in [("layernorm_f32", torch.float32), ("layernorm", torch.float16)]:
        M, N = 8192, 1024
        x0 = torch.randn(M, N, device="cuda", dtype=dt)
        x1, x2 = x0.clone(), x0.clone()
        w, b = torch.randn(N, device="cuda", dtype=dt), torch.randn(N, device="cuda", dtype=dt)
        byt = 2 * M * N * x0.element_size()
        runs = {}
        for tag, m in [("hint", load(case)), ("nohint", _unhinted_module(case))]:
            for xt, xv in [("x0", x0), ("x2", x2)]:
                y = torch.empty_like(xv)
                runs[tag, xt] = m.bind(m.prepare(xv, w, b, y, 1e-5), xv, w, b, y, 1e-5)
        groups = {"shared": ("x0", x0), "private": ("x2", x1)}
        for tag in ("hint", "nohint"):
            for g, (xt, xh) in groups.items():
                fns = {"handwritten": lambda xh=xh: hw.tri_ln(xh, w, b), "generated": runs[tag, xt]}
                for k, (med, lo, hi) in rotating_rounds(fns, list(fns), byt / 1e9, rounds=rounds).items():
                    emit(kind="lnshare", case=case, variant=tag, inputs=g, fn=k, TBps_median=med, TBps_min=lo,
                         TBps_max=hi)
        for k, f in [("handwritten", lambda: hw.tri_ln(x1, w, b)), ("hint", runs["hint", "x2"]),
                     ("nohint", runs["nohint", "x2"])]:
            med, lo, hi = rotating_rounds({k: f}, [k], byt / 1e9, rounds=3)[k]
            emit(kind="lnshare", case=case, variant=k, inputs="alone", fn=k, TBps_median=med, TBps_min=lo, TBps_max=hi)

if __name__ == "__main__":
    if sys.argv[2:] == ["maxnreg"]:
        maxnreg_probe()
        sys.exit(0)
    if sys.argv[2:] == ["dump"]:
        dump_probe()
        sys.exit(0)
    which = sys.argv[2:] or ["mem", "gemm"]
    modes = {"sums": sums_probe, "persist": persist_probe, "ctas": lambda: persist_probe("_ctas", "ctas"),
             "batched": batched_probe, "softdiv": softdiv_probe, "ceiling": ceiling_probe,
             "skinny": skinny_probe, "mem": mem_probe, "gemm": gemm_probe, "ws": ws_probe, "lnvar": lnvar_probe, "asmdiv": asmdiv_probe, "softsteps": softsteps_probe, "ab": ab_probe,
             "evict": evict_probe, "rowsplit": rowsplit_probe,
             "rowshape": rowshape_probe, "recheck": recheck_probe, "stages": stages_probe,
             "prologue": prologue_probe, "f32out": f32out_probe, "prolpersist": prolpersist_probe,
             "skinnytile": skinnytile_probe, "rowbalance": rowbalance_probe,
             "launchcost": launchcost_probe, "votediv": votediv_probe,
             "lnhoist": lnhoist_probe, "rowprefetch": rowprefetch_probe,
             "rowpersist": rowpersist_probe, "rowrotate": rowrotate_probe,
             "vectors": vectors_probe, "vecmat": vecmat_probe, "axesidx": axesidx_probe, "axesquot": axesquot_probe,
             "attnrows": attnrows_probe, "rowstream": rowstream_probe,
             "rowmlp": rowmlp_probe, "rowdbuf": rowdbuf_probe, "rowmerge": rowmerge_probe,
             "rowsplitorder": rowsplitorder_probe, "rowlayout": rowlayout_probe,
             "epilogue": epilogue_probe, "colstats": colstats_probe,
             "rowhandoff": rowhandoff_probe, "rowoccupancy": rowoccupancy_probe,
             "rowticket": rowticket_probe, "rowcoarse": rowcoarse_probe, "rowfixed": rowfixed_probe, "fewrows": fewrows_probe,
             "rowceiling": rowceiling_probe, "rowl2hint": rowl2hint_probe,
             "rowcluster": rowcluster_probe, "storesplit": storesplit_probe,
             "launchpaths": launchpaths_probe, "lnbisect": lnbisect_probe,
             "rowstate": rowstate_probe, "lnshare": lnshare_probe, "rowpdl": rowpdl_probe}
    unknown = [w for w in which if w not in modes]
    if unknown:
        sys.exit("probe.py: unknown mode(s) %s; modes: %s, dump, maxnreg" % (", ".join(unknown), ", ".join(modes)))
    for name, run in modes.items():  # a fixed order, whatever the command line's
        if name in which:
            run()
    with open(os.path.join(OUT, "probe.json"), "w") as f:
        json.dump(ROWS, f, indent=1)
