"""GPU benchmark: fused kernels against the torch a user writes for them. Checks each kernel against
the reference provider, then times the tuned kernel and torch in rotating rounds (do_bench medians).

Groups:
  outer  reductions along an outer axis next to a full-size store (bias gradient, column centering, a
         batch normalization's forward pass, a column softmax) and a scan along one (column cumsum),
         realized as row structures whose rows are adjacent in memory
         (tests/python/providers/kir/outer_axes.kir; families outer_reduction, outer_scan)
  scan   row reductions next to a scan of the same row (a softmax's cumulative distribution, a running
         share of the row total: tests/python/providers/kir/scan_with_reductions.kir)

  scripts/gpu/prepare.sh compiles every kernel of the groups into .gpu-artifacts/fused/new (and
  .gpu-artifacts/fused/old with INTENTC_OLD=<an older intentc>), then on the GPU machine:
  python3 scripts/bench/fused.py .gpu-artifacts/fused/new [GROUP ...]    # results in $OUT/fused-<group>.json
"""
import importlib.util
import json
import os
import sys

import torch
from triton.testing import do_bench

# launch() as users get it: tuned by intent_runtime (INTENT_RUNTIME=0: by Triton's autotuner).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
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


def col_norm_torch(x, y, mean, rstd, eps):
    # A batch normalization's forward pass over the rows (channels are the columns), batch statistics;
    # its results are new tensors, as a user gets them (a copy into y would add a pass over the output).
    return torch.ops.aten.native_batch_norm(x, None, None, None, None, True, 0.0, eps)


def col_softmax_torch(x, y):
    return torch.softmax(x, 0)


def col_cumsum_torch(x, y):
    torch.cumsum(x, 0, out=y)


def softmax_cdf_torch(x, y):
    torch.cumsum(torch.softmax(x, 1), 1, out=y)


def running_share_torch(x, y, t):
    a = x.abs()
    torch.sum(a, 1, out=t)
    torch.div(a.cumsum(1), t[:, None], out=y)


def winners(mod):
    """The winner intent_runtime chose for the last launch, else the tuned configuration of the module's
    autotuner and of any narrowed one (a candidate subset)."""
    if mod._use_runtime() and mod._WIN[2] is not None:
        return "runtime: " + json.dumps(mod._WIN[2], sort_keys=True)
    tuners = [mod.KERNEL] + list(getattr(mod, "_NARROWED", {}).values())
    return "; ".join(str(t.best_config) for t in tuners if getattr(t, "best_config", None) is not None)


def clone(args):
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def tensors(*shapes, dt):
    """A random tensor for the first shape (the input), empty ones for the others (outputs)."""
    first, *rest = shapes
    return [torch.randn(*first, device="cuda", dtype=dt)] + [torch.empty(*s, device="cuda", dtype=dt) for s in rest]


# group -> kernel -> (torch version, dtype, arguments for (M, N), bytes moved for (M, N, element size))
GROUPS = {
    "outer": {
        "bias_grad": (bias_grad_torch, torch.float32,
                      lambda M, N, dt: tensors((M, N), dt=dt)[:1] + tensors((M, N), (M, N), (N,), dt=dt),
                      lambda M, N, es: 3 * M * N * es),
        "col_center": (col_center_torch, torch.float16, lambda M, N, dt: tensors((M, N), (M, N), dt=dt),
                       lambda M, N, es: 2 * M * N * es),
        "col_norm": (col_norm_torch, torch.float16,
                     lambda M, N, dt: tensors((M, N), (M, N), dt=dt) + tensors((N,), (N,), (N,), dt=torch.float32)[1:]
                     + [1e-5], lambda M, N, es: 2 * M * N * es),
        "col_softmax": (col_softmax_torch, torch.float32, lambda M, N, dt: tensors((M, N), (M, N), dt=dt),
                        lambda M, N, es: 2 * M * N * es),
        "col_cumsum": (col_cumsum_torch, torch.float32, lambda M, N, dt: tensors((M, N), (M, N), dt=dt),
                       lambda M, N, es: 2 * M * N * es),
    },
    "scan": {
        "softmax_cdf": (softmax_cdf_torch, torch.float32, lambda M, N, dt: tensors((M, N), (M, N), dt=dt),
                        lambda M, N, es: 2 * M * N * es),
        "running_share": (running_share_torch, torch.float32, lambda M, N, dt: tensors((M, N), (M, N), (M,), dt=dt),
                          lambda M, N, es: 2 * M * N * es),
    },
}
SHAPES = {"outer": [(8192, 8192), (16384, 1024), (1024, 16384), (65536, 256)],
          "scan": [(8192, 1024), (4096, 8192), (1024, 32768)]}


def main(groups):
    for group in groups:
        results = []
        for name, (ref_torch, dt, make, nbytes) in GROUPS[group].items():
            tri, ref = load(name, "triton"), load(name, "reference")
            for M, N in SHAPES[group]:
                args = make(M, N, dt)
                want = clone(args)
                ref.launch(*want)
                got = clone(args)
                tri.launch(*got)
                outs = [(g.double() - w.double()).abs().max().item() for g, w in zip(got, want)
                        if isinstance(g, torch.Tensor)]
                fns = {"ours": lambda: tri.launch(*args), "torch": lambda: ref_torch(*args)}
                times = {k: [] for k in fns}
                for r in range(5):
                    for k in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                        times[k].append(do_bench(fns[k]))
                med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
                row = {"case": name, "shape": f"{M}x{N}", "max_abs_err": max(outs),
                       "ours_TBps": nbytes(M, N, args[0].element_size()) / med["ours"] / 1e9,
                       "torch_TBps": nbytes(M, N, args[0].element_size()) / med["torch"] / 1e9,
                       "winner": winners(tri)}
                results.append(row)
                print(json.dumps(row), flush=True)
        with open(os.path.join(OUT, f"fused-{group}.json"), "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[2:] or list(GROUPS))
