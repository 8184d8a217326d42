"""GPU benchmark: a lone reduction along an outer axis next to a full-size store (bias gradient,
column centering), realized as a row reduction read through strides. Checks each against the
reference provider, then times the tuned kernel against the torch a user writes, in rotating rounds.

  intentc compile tests/python/providers/kir/outer_axes.kir --kernel bias_grad --target triton -o ART/bias_grad/triton
  (and --target reference, and the same for col_center), then on the GPU machine:
  python3 scripts/bench/outer_axis.py ART            # results in $OUT/outer-axis.json
"""
import importlib.util
import json
import os
import sys

import torch
from triton.testing import do_bench

ART = sys.argv[1]
OUT = os.environ.get("OUT", "/tmp")


def load(name, target):
    path = os.path.join(ART, name, target, "kernel.py")
    spec = importlib.util.spec_from_file_location(f"{name}_{target}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bias_grad_torch(g, x, dx, db):
    torch.where(x > 0, g, torch.zeros((), device=g.device, dtype=g.dtype), out=dx)
    torch.sum(dx, 0, out=db)


def col_center_torch(x, y):
    torch.sub(x, x.amax(0), out=y)


CASES = {
    "bias_grad": (bias_grad_torch, torch.float32,
                  lambda M, N, dt: [torch.randn(M, N, device="cuda", dtype=dt), torch.randn(M, N, device="cuda", dtype=dt),
                                    torch.empty(M, N, device="cuda", dtype=dt), torch.empty(N, device="cuda", dtype=dt)],
                  lambda M, N, es: 3 * M * N * es),
    "col_center": (col_center_torch, torch.float16,
                   lambda M, N, dt: [torch.randn(M, N, device="cuda", dtype=dt), torch.empty(M, N, device="cuda", dtype=dt)],
                   lambda M, N, es: 2 * M * N * es),
}
results = []
for name, (ref_torch, dt, make, nbytes) in CASES.items():
    tri, ref = load(name, "triton"), load(name, "reference")
    for M, N in [(8192, 8192), (16384, 1024), (1024, 16384)]:
        args = make(M, N, dt)
        want = [a.clone() for a in args]
        ref.launch(*want)
        got = [a.clone() for a in args]
        tri.launch(*got)
        outs = [(g.double() - w.double()).abs().max().item() for g, w in zip(got, want)]
        fns = {"ours": lambda: tri.launch(*args), "torch": lambda: ref_torch(*args)}
        times = {k: [] for k in fns}
        for r in range(5):
            for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                times[k].append(do_bench(fns[k]))
        med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
        row = {"case": name, "shape": f"{M}x{N}", "max_abs_err": max(outs),
               "ours_TBps": nbytes(M, N, args[0].element_size()) / med["ours"] / 1e9,
               "torch_TBps": nbytes(M, N, args[0].element_size()) / med["torch"] / 1e9}
        results.append(row)
        print(json.dumps(row), flush=True)
with open(os.path.join(OUT, "outer-axis.json"), "w") as f:
    json.dump(results, f, indent=1)
