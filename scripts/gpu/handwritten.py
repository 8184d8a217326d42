"""Hand-written Triton baselines, copied verbatim from ../shared/anchors (anchors.py: the
tutorial-style grouped matmul, softmax and layernorm; tma_probe.py: the tensor-descriptor matmul).
Imported by harness.py so every comparison runs in the same process and the same run."""
import torch, triton, triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

def mm_configs():
    cs = []
    for bm, bn, bk, st, w in [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                              (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
                              (128, 256, 64, 4, 8), (256, 128, 64, 3, 8), (256, 64, 64, 4, 4), (64, 256, 64, 4, 4),
                              (128, 128, 64, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]:
        cs.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GM": 8}, num_stages=st, num_warps=w))
    return cs

@triton.autotune(configs=mm_configs(), key=["M", "N", "K"])
@triton.jit
def mm_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM); npn = tl.cdiv(N, BN)
    nig = GM * npn
    gid = pid // nig
    fm = gid * GM
    gsm = min(npm - fm, GM)
    pm = fm + ((pid % nig) % gsm)
    pn = (pid % nig) // gsm
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    ap = a + rm[:, None] * sam + rk[None, :] * sak
    bp = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        av = tl.load(ap, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        bv = tl.load(bp, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(av, bv, acc)
        ap += BK * sak; bp += BK * sbk
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))

def tri_mm(a, b):
    M, K = a.shape; _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)
    mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c


@triton.jit
def softmax_kernel(x, y, N, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x + row * sx + cols, mask=cols < N, other=-float("inf"))
    v = v - tl.max(v, 0)
    e = tl.exp(v)
    tl.store(y + row * sy + cols, e / tl.sum(e, 0), mask=cols < N)

def tri_softmax(x):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(N)
    nw = 4 if BLOCK <= 2048 else (8 if BLOCK <= 8192 else 16)
    softmax_kernel[(M,)](x, y, N, x.stride(0), y.stride(0), BLOCK=BLOCK, num_warps=nw)
    return y

# ---- layernorm forward (hand-written Triton, full row)
@triton.jit
def ln_kernel(x, w, b, y, N, sx, sy, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK); m = cols < N
    v = tl.load(x + row * sx + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(v, 0) / N
    d = tl.where(m, v - mean, 0.0)
    var = tl.sum(d * d, 0) / N
    r = 1.0 / tl.sqrt(var + eps)
    o = d * r * tl.load(w + cols, mask=m) + tl.load(b + cols, mask=m)
    tl.store(y + row * sy + cols, o.to(y.dtype.element_ty), mask=m)

def tri_ln(x, w, b):
    M, N = x.shape; y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(N)
    ln_kernel[(M,)](x, w, b, y, N, x.stride(0), y.stride(0), 1e-5, BLOCK=BLOCK, num_warps=min(max(BLOCK // 256, 1), 16))
    return y

def cfgs():
    out = []
    for bm, bn, bk, st, w in [(128, 256, 64, 3, 8), (128, 128, 64, 4, 8), (128, 128, 64, 3, 4), (256, 128, 64, 3, 8),
                              (128, 256, 64, 4, 8), (64, 256, 64, 4, 4), (128, 128, 128, 3, 8), (128, 64, 64, 4, 4)]:
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GM": 8}, num_stages=st, num_warps=w,
                                 pre_hook=None))
    return out

def set_blocks(nargs):
    bm, bn, bk = nargs["BM"], nargs["BN"], nargs["BK"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn]

configs = []
for c in cfgs():
    c.pre_hook = set_blocks
    configs.append(c)

@triton.autotune(configs=configs, key=["M", "N", "K"])
@triton.jit
def mm_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM); npn = tl.cdiv(N, BN)
    nig = GM * npn
    gid = pid // nig
    fm = gid * GM
    gsm = min(npm - fm, GM)
    pm = fm + ((pid % nig) % gsm)
    pn = (pid % nig) // gsm
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pm * BM, k * BK])
        b = b_desc.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))

def run_tma(a, b):
    M, K = a.shape; _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    dummy = [16, 16]
    ad = TensorDescriptor.from_tensor(a, dummy); bd = TensorDescriptor.from_tensor(b, dummy); cd = TensorDescriptor.from_tensor(c, dummy)
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)
    mm_tma[grid](ad, bd, cd, M, N, K)
    return c
