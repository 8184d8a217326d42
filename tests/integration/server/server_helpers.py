"""Helpers for the compile-server integration tests (real processes, real sockets).

The binary is $INTENTC (default <repo>/build/bin/intentc). Every test gets its
own socket directory (0700) and INTENT_CACHE_DIR under pytest's tmp_path.
The provider is $INTENT_TEST_TARGET (default `reference`).
"""
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
INTENTC = os.environ.get("INTENTC", str(REPO / "build" / "bin" / "intentc"))
CONFIGS = REPO / "configs"
TARGET = os.environ.get("INTENT_TEST_TARGET", "reference")
ADD_KIR = (REPO / "examples" / "add.kir").read_text()


def make_env(tmp_path, **extra):
    run_dir = Path(tmp_path) / "run"
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(run_dir, 0o700)
    env = dict(os.environ)
    for k in ("INTENT_CACHE_FAULT", "INTENTC_TEST_FAKE_PEER_UID", "INTENTC_TEST_COMPILE_DELAY_MS",
              "LISTEN_PID", "LISTEN_FDS"):
        env.pop(k, None)
    env["INTENT_CACHE_DIR"] = str(Path(tmp_path) / "cache")
    env["INTENT_CONFIG_DIR"] = str(CONFIGS)
    env["INTENTC_SOCKET"] = str(run_dir / "intentc.sock")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def sock_path(env):
    return env["INTENTC_SOCKET"]


def run(args, env, timeout=120, check=None, **kw):
    p = subprocess.run([INTENTC] + [str(a) for a in args], env=env, capture_output=True,
                       text=True, timeout=timeout, **kw)
    if check is not None:
        assert p.returncode == check, f"rc={p.returncode}\nstdout:{p.stdout}\nstderr:{p.stderr}"
    return p


class Server:
    """`intentc serve --foreground` child; waits for "ready"."""

    def __init__(self, env, *args, timeout=20):
        self.env = env
        self.sock = sock_path(env)
        self.proc = subprocess.Popen(
            [INTENTC, "serve", "--foreground", "--socket", self.sock] + [str(a) for a in args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + timeout
        line = self.proc.stdout.readline()  # blocks until ready or exit
        if line.strip() != "ready":
            self.proc.kill()
            out, err = self.proc.communicate(timeout=10)
            raise AssertionError(f"server not ready: {line!r} {out} {err}")
        assert time.time() < deadline

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise
        return self.proc.returncode

    def stderr(self):
        return self.proc.stderr.read() if self.proc.stderr else ""


def connect(path, timeout=10.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def read_line(s, limit=64 << 20):
    buf = b""
    while b"\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        assert len(buf) < limit
    return buf.split(b"\n", 1)[0] if buf else b""


def rpc(path, method, params=None, rid=1, timeout=60.0):
    with connect(path, timeout) as s:
        s.sendall((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                               "params": params if params is not None else {}}) + "\n").encode())
        line = read_line(s)
    return json.loads(line)


def compile_params(m=None, source=ADD_KIR, target=TARGET):
    p = {"source": source, "source_name": "add.kir", "target": target}
    if m is not None:
        p["defines"] = {"M": str(m)}
    return p


def wait_gone(path, timeout=15.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not os.path.exists(path):
            return True
        time.sleep(0.02)
    return False
