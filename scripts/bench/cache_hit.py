#!/usr/bin/env python3
"""Whole-process time of `intentc compile KIR -o DIR` for an already cached kernel (a warm hit)
against the same compile with --no-cache, optionally next to a baseline binary in the same run.

Runs are interleaved (every case once per round) so that the shared machine's drift falls on all
cases alike; prints the median and 10th percentile of each, and the no-cache / hit ratios.

  scripts/bench/cache_hit.py [--kir examples/softmax.kir] [--n 80] [--baseline OLD_INTENTC]

env: INTENTC (default <repo>/build/bin/intentc).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kir", default=str(REPO / "examples" / "softmax.kir"))
    ap.add_argument("--target", default="triton")
    ap.add_argument("--n", type=int, default=80)
    ap.add_argument("--baseline", help="another intentc binary, measured the same way")
    args = ap.parse_args()
    binaries = {"intentc": os.environ.get("INTENTC", str(REPO / "build" / "bin" / "intentc"))}
    if args.baseline:
        binaries["baseline"] = args.baseline
    work = Path(tempfile.mkdtemp(prefix="intentc-hit-"))
    env = dict(os.environ, INTENT_CONFIG_DIR=str(REPO / "configs"))
    env.pop("INTENT_CACHE_FAULT", None)
    cases = {"/bin/true": (["/bin/true"], env)}
    for name, exe in binaries.items():
        cenv = dict(env, INTENT_CACHE_DIR=str(work / f"cache-{name}"))
        compile_ = [exe, "compile", args.kir, "--target", args.target, "--server", "never"]
        warm = subprocess.run(compile_ + ["-o", str(work / f"warm-{name}")], env=cenv,
                              capture_output=True, text=True)
        if warm.returncode != 0:
            sys.exit(f"{exe}: {warm.stderr}")
        again = subprocess.run(compile_ + ["-o", str(work / f"hit-{name}")], env=cenv,
                               capture_output=True, text=True)
        if "cache: hit" not in again.stderr:
            sys.exit(f"{exe}: the warm compile was not a cache hit:\n{again.stderr}")
        cases[f"{name} --version"] = ([exe, "--version"], cenv)
        cases[f"{name} hit"] = (compile_ + ["-o", str(work / f"hit-{name}")], cenv)
        cases[f"{name} --no-cache"] = (compile_ + ["--no-cache", "-o", str(work / f"nc-{name}")],
                                       cenv)
    times = {k: [] for k in cases}
    for _ in range(args.n):
        for k, (cmd, cenv) in cases.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, env=cenv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[k].append((time.perf_counter() - t0) * 1e3)
    print(f"kernel {args.kir}, target {args.target}, {args.n} interleaved rounds, whole processes")
    med = {}
    for k, xs in times.items():
        xs.sort()
        med[k] = statistics.median(xs)
        print(f"  {k:24s} median {med[k]:6.2f} ms   p10 {xs[len(xs) // 10]:6.2f} ms")
    for name in binaries:
        print(f"  {name}: no-cache / hit = {med[name + ' --no-cache'] / med[name + ' hit']:.2f}x")


if __name__ == "__main__":
    main()
