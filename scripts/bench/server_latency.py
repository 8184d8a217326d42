#!/usr/bin/env python3
"""Compile-server latency: warm hit through the server vs in-process compiles.

Usage: scripts/bench/server_latency.py [--intentc BIN] [--n 200] [--clients 16]

Prints p50/p99 (ms) of:
  rpc-hit        one `compile` JSON-RPC request answered from the cache (socket round trip)
  cli-hit        `intentc compile --server require` process, warm hit through the server
  never-hit      `intentc compile --server never` process, warm in-process cache hit
  never-cold     `intentc compile --server never` process, cold compile (new define each time)
  load-rpc-hit   rpc-hit with --clients concurrent clients (mix: 4 hits : 1 miss)
Everything runs in a temporary cache and socket; nothing global is touched.
"""
import argparse
import concurrent.futures as cf
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1e3


def rpc(path, method, params):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\n").encode())
        buf = b""
        while b"\n" not in buf:
            c = s.recv(1 << 16)
            if not c:
                break
            buf += c
    r = json.loads(buf)
    if "error" in r:
        raise RuntimeError(r["error"])
    return r["result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--intentc", default=os.environ.get("INTENTC", str(REPO / "build" / "bin" / "intentc")))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--target", default="reference")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="intentc-bench-"))
    os.chmod(tmp, 0o700)
    env = dict(os.environ, INTENT_CACHE_DIR=str(tmp / "cache"), INTENTC_SOCKET=str(tmp / "run" / "s.sock"),
               INTENT_CONFIG_DIR=str(REPO / "configs"))
    src = tmp / "add.kir"
    src.write_text((REPO / "examples" / "add.kir").read_text())
    kir = src.read_text()
    sock = env["INTENTC_SOCKET"]
    subprocess.run([a.intentc, "server", "start"], env=env, check=True, capture_output=True)
    try:
        params = {"source": kir, "source_name": "add.kir", "target": a.target}
        rpc(sock, "compile", params)
        res = {}
        t = []
        for _ in range(a.n):
            t0 = time.perf_counter()
            r = rpc(sock, "compile", params)
            t.append(time.perf_counter() - t0)
            assert r["kernels"][0]["cache"] == "hit"
        res["rpc-hit"] = t

        def proc(args, n):
            ts = []
            for i in range(n):
                argv = [a.intentc, "compile", str(src), "--target", a.target, "-o", str(tmp / "o")]
                argv += [x.replace("{i}", str(i)) for x in args]
                t0 = time.perf_counter()
                subprocess.run(argv, env=env, check=True, capture_output=True)
                ts.append(time.perf_counter() - t0)
            return ts

        m = max(10, a.n // 5)
        res["cli-hit"] = proc(["--server", "require"], m)
        res["never-hit"] = proc(["--server", "never"], m)
        res["never-cold"] = proc(["--server", "never", "-D", "M={i}0001"], m)

        lat = []

        def client(c):
            out = []
            for i in range(a.n // 4):
                p = dict(params, defines={"M": str(10 ** 6 + c * 10 ** 4 + i)}) if i % 5 == 0 else params
                t0 = time.perf_counter()
                rpc(sock, "compile", p)
                if i % 5:
                    out.append(time.perf_counter() - t0)
            return out

        with cf.ThreadPoolExecutor(a.clients) as ex:
            for xs in ex.map(client, range(a.clients)):
                lat += xs
        res[f"load-rpc-hit ({a.clients} clients)"] = lat
        print(f"{'case':32} {'n':>5} {'p50 ms':>9} {'p99 ms':>9}")
        for k, xs in res.items():
            print(f"{k:32} {len(xs):5d} {pct(xs, 0.5):9.2f} {pct(xs, 0.99):9.2f}")
    finally:
        subprocess.run([a.intentc, "server", "stop"], env=env, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
