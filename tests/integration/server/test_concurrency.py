"""64 clients against no server; load; SIGTERM with in-flight compiles."""
import concurrent.futures as cf
import json
import os
import signal
import statistics
import subprocess
import threading
import time

from server_helpers import (ADD_KIR, INTENTC, TARGET, Server, compile_params, make_env, rpc, run,
                            wait_gone)


def test_64_clients_spawn_exactly_one_server(tmp_path, env):
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    procs = [subprocess.Popen([INTENTC, "compile", str(src), "--target", TARGET, "--server", "spawn",
                               "-D", f"M={i % 8 + 1}", "-o", str(tmp_path / f"o{i}")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(64)]
    try:
        results = [(p.wait(timeout=180), p.stderr.read()) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    bad = [(rc, err) for rc, err in results if rc != 0]
    assert not bad, bad[:3]
    for i in range(64):
        assert (tmp_path / f"o{i}" / "kernel.py").exists()
    log = open(env["INTENTC_SOCKET"] + ".log").read()
    assert log.count("listening on") == 1, log
    st = rpc(env["INTENTC_SOCKET"], "status")["result"]
    assert st["compiles"] + st["shared_compiles"] == 64
    run(["server", "stop"], env, check=0)


def test_load_16_clients(server, env):
    n = int(os.environ.get("INTENT_SERVER_LOAD_N", "25"))
    rpc(server.sock, "compile", compile_params())  # warm the hit path
    errors, hit_lat = [], []
    lock = threading.Lock()

    def client(c):
        for i in range(n):
            miss = i % 5 == 0
            params = compile_params(m=1000 + c * n + i) if miss else compile_params()
            t0 = time.perf_counter()
            r = rpc(server.sock, "compile", params, rid=i)
            dt = time.perf_counter() - t0
            with lock:
                if "result" not in r:
                    errors.append(r)
                elif not miss:
                    hit_lat.append(dt)
                    assert r["result"]["kernels"][0]["cache"] == "hit"

    with cf.ThreadPoolExecutor(16) as ex:
        list(ex.map(client, range(16)))
    assert not errors, errors[:3]
    hit_lat.sort()
    p50 = statistics.median(hit_lat)
    p99 = hit_lat[int(len(hit_lat) * 0.99) - 1]
    print(f"\nload: {16 * n} requests, warm hit p50 {p50 * 1e3:.1f} ms p99 {p99 * 1e3:.1f} ms")


def test_identical_concurrent_requests_share_one_compile(tmp_path):
    env = make_env(tmp_path, INTENTC_TEST_COMPILE_DELAY_MS=500)
    srv = Server(env, "--jobs", "4")
    try:
        with cf.ThreadPoolExecutor(8) as ex:
            rs = list(ex.map(lambda _: rpc(srv.sock, "compile", compile_params(m=7)), range(8)))
        assert all("result" in r for r in rs)
        st = rpc(srv.sock, "status")["result"]
        assert st["compiles"] == 1 and st["shared_compiles"] == 7, st
    finally:
        srv.stop()


def test_sigterm_finishes_in_flight_compiles(tmp_path):
    env = make_env(tmp_path, INTENTC_TEST_COMPILE_DELAY_MS=1500)
    srv = Server(env, "--jobs", "8")
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    procs = [subprocess.Popen([INTENTC, "compile", str(src), "--target", TARGET, "--server", "require",
                               "-D", f"M={i + 1}", "-o", str(tmp_path / f"o{i}")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(8)]
    deadline = time.time() + 30
    while time.time() < deadline:
        st = rpc(srv.sock, "status")["result"]
        if st["active_jobs"] >= 8:
            break
        time.sleep(0.02)
    assert st["active_jobs"] >= 8, st
    assert srv.stop(signal.SIGTERM) == 0
    for i, p in enumerate(procs):
        assert p.wait(timeout=60) == 0, p.stderr.read()
        assert (tmp_path / f"o{i}" / "kernel.py").exists()
    assert not os.path.exists(env["INTENTC_SOCKET"])
    assert not os.path.exists(env["INTENTC_SOCKET"] + ".lock")
    v = run(["cache", "verify"], dict(env, INTENTC_TEST_COMPILE_DELAY_MS="0"))
    assert v.returncode == 0, v.stdout + v.stderr
    stats = json.loads(run(["cache", "stats", "--json"], env, check=0).stdout)
    assert stats.get("complete_entries", stats.get("entries")) == 8, stats


def test_idle_timeout(tmp_path):
    env = make_env(tmp_path)
    srv = Server(env, "--idle-timeout", "1")
    assert srv.proc.wait(timeout=15) == 0
    assert wait_gone(env["INTENTC_SOCKET"])
