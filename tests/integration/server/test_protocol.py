"""Methods, byte-identical results, winners protocol of intent_runtime.ServerStore."""
import filecmp
import json
import os
import sys

from server_helpers import ADD_KIR, INTENTC, REPO, TARGET, compile_params, rpc, run

sys.path.insert(0, str(REPO / "python"))


def test_initialize_status_stats(server, env):
    r = rpc(server.sock, "initialize")["result"]
    assert r["protocol_version"] == 1 and len(r["compiler_identity"]) == 64
    assert r["cache_root"] == env["INTENT_CACHE_DIR"]
    st = rpc(server.sock, "status")["result"]
    assert st["pid"] == server.proc.pid
    assert "hits" in rpc(server.sock, "stats")["result"]


def test_compile_hit_and_identical_bytes(server, env, tmp_path):
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    a = run(["compile", src, "--target", TARGET, "--server", "require", "-o", tmp_path / "a"], env, check=0)
    assert "miss" in a.stderr
    b = run(["compile", src, "--target", TARGET, "--server", "require", "-o", tmp_path / "b"], env, check=0)
    assert "hit" in b.stderr
    c = run(["compile", src, "--target", TARGET, "--server", "never", "-o", tmp_path / "c"], env, check=0)
    d = run(["compile", src, "--target", TARGET, "--no-cache", "-o", tmp_path / "d"], env, check=0)
    for other in ("b", "c"):
        cmp = filecmp.dircmp(tmp_path / "a", tmp_path / other)
        assert not cmp.diff_files and not cmp.left_only and not cmp.right_only
        for f in os.listdir(tmp_path / "a"):
            assert (tmp_path / "a" / f).read_bytes() == (tmp_path / other / f).read_bytes()
    # The generated source is the same without the cache too.
    assert (tmp_path / "a" / "kernel.py").read_bytes() == (tmp_path / "d" / "kernel.py").read_bytes()
    assert rpc(server.sock, "status")["result"]["compiles"] >= 2


def test_compile_failure_is_an_error_with_diagnostics(server, env, tmp_path):
    r = rpc(server.sock, "compile", dict(compile_params(), kernel="nope"))
    assert r["error"]["code"] == -32000
    assert "no kernel named 'nope'" in r["error"]["data"]["diagnostics"]
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    p = run(["compile", src, "--target", TARGET, "--kernel", "nope", "--server", "require"], env)
    assert p.returncode == 1 and "no kernel named 'nope'" in p.stderr


def test_print_ir_after_all_through_the_server(server, env, tmp_path):
    # The server runs the passes (never answers such a request from the cache) and returns
    # the dump as the result's log; the client prints it to stderr.
    params = dict(compile_params(target="triton"), print_ir_after_all=True)
    rpc(server.sock, "compile", compile_params(target="triton"))  # warm the cache
    r = rpc(server.sock, "compile", params)["result"]
    assert "IR Dump After SelectStructure (igpu-select-structure)" in r["log"]
    assert "IR Dump After FilterTritonCandidates (igpu-filter-triton-candidates)" in r["log"]
    assert r["kernels"][0]["cache"] == "off"
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    p = run(["compile", src, "--target", "triton", "--server", "require", "--mlir-print-ir-after-all"], env, check=0)
    assert "IR Dump After ProjectProfiles (igpu-project-profiles)" in p.stderr
    assert "add: cache: off" in p.stderr


def test_relative_path_refused(server):
    r = rpc(server.sock, "compile", {"path": "examples/add.kir", "target": TARGET})
    assert r["error"]["code"] == -32602
    r = rpc(server.sock, "compile", {"path": str(REPO / "examples" / "add.kir"), "target": TARGET})
    assert "result" in r, r


def test_require_without_server_fails_auto_falls_back(env, tmp_path):
    src = tmp_path / "add.kir"
    src.write_text(ADD_KIR)
    p = run(["compile", src, "--target", TARGET, "--server", "require"], env)
    assert p.returncode == 1 and "no compile server" in p.stderr
    run(["compile", src, "--target", TARGET], env, check=0)  # auto: in-process
    assert not os.path.exists(env["INTENTC_SOCKET"])          # and nothing was started


def test_server_store_roundtrip(server, env):
    from intent_runtime.keys import tuning_key
    from intent_runtime.store import ServerStore
    st = ServerStore(server.sock, timeout=10)
    tk = tuning_key("ab" * 32, '{"n":1}', "NVIDIA H200|sm_90")
    assert st.get(tk.digest) is None
    cands = [{"config": {"BLOCK": 64}, "median_ms": 1.0, "spread_ms": 0.1, "status": "ok", "message": None},
             {"config": {"BLOCK": 128}, "median_ms": None, "spread_ms": None, "status": "failed",
              "message": "boom"}]
    assert st.record(tk.digest, tk.artifact_key, tk.runtime_key, tk.device, cands, {"BLOCK": 64}) == {"BLOCK": 64}
    # First complete measurement wins...
    assert st.record(tk.digest, tk.artifact_key, tk.runtime_key, tk.device, cands[:1], {"BLOCK": 128}) == {"BLOCK": 64}
    # ...unless retune.
    again = [{"config": {"BLOCK": 64}, "median_ms": 9.0, "spread_ms": 0.1, "status": "ok", "message": None},
             {"config": {"BLOCK": 128}, "median_ms": 2.0, "spread_ms": 0.1, "status": "ok", "message": None}]
    assert st.record(tk.digest, tk.artifact_key, tk.runtime_key, tk.device, again, {"BLOCK": 128},
                     retune=True) == {"BLOCK": 128}
    got = st.get(tk.digest)
    assert got["found"] and got["winner"] == {"BLOCK": 128}
    assert sorted(c["median_ms"] for c in got["candidates"]) == [2.0, 9.0]
    # The server rejects a digest that does not match the readable parts.
    r = rpc(server.sock, "winners.record", {"tuning_key": "00" * 32, "artifact_key": "a", "runtime_key": "r",
                                            "device": "d|c", "candidates": [], "winner": None})
    assert r["error"]["code"] == -32602
    # `intentc winners` sees the record.
    lst = json.loads(run(["winners", "list", "--json"], env, check=0).stdout)
    assert [w["digest"] for w in lst] == [tk.digest]


def test_server_start_status_stop(env):
    run(["server", "start"], env, check=0)
    st = json.loads(run(["server", "status", "--json"], env, check=0).stdout)
    assert st["running"] and st["socket"] == env["INTENTC_SOCKET"]
    run(["server", "start"], env, check=0)  # idempotent: same server
    assert json.loads(run(["server", "status", "--json"], env, check=0).stdout)["pid"] == st["pid"]
    run(["server", "stop"], env, check=0)
    assert not os.path.exists(env["INTENTC_SOCKET"])
    assert not os.path.exists(env["INTENTC_SOCKET"] + ".lock")
    assert run(["server", "status"], env).returncode == 1


def test_single_instance(server, env):
    from server_helpers import INTENTC as B
    import subprocess
    p = subprocess.run([B, "serve", "--foreground", "--socket", server.sock], env=env,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 3 and "already running" in p.stderr
    assert rpc(server.sock, "status")["result"]["pid"] == server.proc.pid


def test_other_compiler_identity(tmp_path, env):
    """A server built from another binary: auto compiles in-process, spawn replaces it."""
    import shutil
    import subprocess
    from server_helpers import Server
    other = tmp_path / "intentc-other"
    shutil.copy(INTENTC, other)
    with open(other, "ab") as f:
        f.write(b"\0different build")
    os.chmod(other, 0o755)
    old = subprocess.Popen([str(other), "serve", "--foreground", "--socket", env["INTENTC_SOCKET"]],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert old.stdout.readline().strip() == "ready"
        src = tmp_path / "add.kir"
        src.write_text(ADD_KIR)
        p = run(["compile", src, "--target", TARGET, "--server", "require"], env)
        assert p.returncode == 1 and "another compiler" in p.stderr
        run(["compile", src, "--target", TARGET], env, check=0)  # auto: in-process
        assert old.poll() is None
        run(["compile", src, "--target", TARGET, "--server", "spawn"], env, check=0)
        assert old.wait(timeout=30) == 0  # asked to shut down
        st = rpc(env["INTENTC_SOCKET"], "initialize")["result"]
        assert st["pid"] != old.pid
        run(["server", "stop"], env, check=0)
    finally:
        if old.poll() is None:
            old.kill()
