"""Bad input and security: each bad client gets an error (or is dropped) while a
concurrent healthy client keeps succeeding."""
import json
import os
import socket
import stat
import subprocess
import threading
import time

import pytest

from server_helpers import INTENTC, Server, compile_params, connect, make_env, read_line, rpc


class Healthy:
    """Issues compile hits in a loop until stopped; records failures."""

    def __init__(self, sock):
        self.sock, self.ok, self.fail = sock, 0, []
        self._stop = threading.Event()
        rpc(sock, "compile", compile_params())
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                r = rpc(self.sock, "compile", compile_params(), timeout=10)
                if "result" in r:
                    self.ok += 1
                else:
                    self.fail.append(r)
            except Exception as e:  # noqa: BLE001
                self.fail.append(repr(e))

    def finish(self):
        self._stop.set()
        self.t.join(timeout=30)
        assert not self.fail, self.fail[:3]
        assert self.ok > 0


@pytest.fixture
def healthy(server):
    h = Healthy(server.sock)
    yield h
    h.finish()


def send_raw(sock, data, timeout=10):
    with connect(sock, timeout) as s:
        s.sendall(data)
        return read_line(s)


def err_code(line):
    return json.loads(line)["error"]["code"]


def test_garbage_bytes(server, healthy):
    assert err_code(send_raw(server.sock, os.urandom(4096).replace(b"\n", b"x") + b"\n")) == -32700


def test_invalid_json(server, healthy):
    assert err_code(send_raw(server.sock, b'{"jsonrpc": "2.0", "id": 1, "method": \n')) == -32700


def test_invalid_requests(server, healthy):
    for bad in (b'[1,2]\n', b'{"id":1,"method":"status"}\n', b'{"jsonrpc":"2.0","id":1,"method":5}\n',
                b'{"jsonrpc":"2.0","id":{},"method":"status"}\n', b'"hello"\n'):
        assert err_code(send_raw(server.sock, bad)) == -32600, bad


def test_unknown_method(server, healthy):
    assert rpc(server.sock, "frobnicate")["error"]["code"] == -32601


def test_wrong_param_types(server, healthy):
    for params in ({"source": 5}, {"source": "x", "defines": [1]}, {"source": "x", "stage": 3},
                   {"source": "x", "defines": {"M": [1]}}, {"source": "x", "kernel": {}}):
        assert rpc(server.sock, "compile", params)["error"]["code"] == -32602, params
    assert rpc(server.sock, "winners.get", {"tuning_key": 5})["error"]["code"] == -32602
    assert rpc(server.sock, "winners.record", {"tuning_key": "x"})["error"]["code"] == -32602
    with connect(server.sock) as s:
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status","params":7}\n')
        assert err_code(read_line(s)) == -32600


def test_several_requests_on_one_connection(server, healthy):
    with connect(server.sock) as s:
        for i in range(3):
            s.sendall((json.dumps({"jsonrpc": "2.0", "id": i, "method": "status"}) + "\n").encode())
            assert json.loads(read_line(s))["id"] == i


def test_oversized_line(server, healthy):
    """A 100 MiB line: the server answers -32002 and closes (default limit 16 MiB)."""
    s = connect(server.sock, timeout=30)
    got = {}

    def reader():
        try:
            got["line"] = read_line(s)
        except OSError as e:
            got["err"] = e

    t = threading.Thread(target=reader)
    t.start()
    chunk = b"x" * (1 << 20)
    t0 = time.time()
    try:
        for _ in range(100):
            s.sendall(chunk)
    except OSError:
        pass  # the server closed the connection: expected
    t.join(timeout=30)
    s.close()
    assert time.time() - t0 < 30
    if got.get("line"):
        assert err_code(got["line"]) == -32002


def test_truncated_request_then_disconnect(server, healthy):
    for _ in range(5):
        with connect(server.sock) as s:
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"comp')
    assert "result" in rpc(server.sock, "status")


def test_idle_client_times_out(server, healthy):
    t0 = time.time()
    with connect(server.sock, timeout=20) as s:
        line = read_line(s)  # never sends; --read-timeout 2
    assert err_code(line) == -32004
    assert 1.5 < time.time() - t0 < 15


def test_idle_client_partial_line_times_out(server, healthy):
    with connect(server.sock, timeout=20) as s:
        s.sendall(b'{"jsonrpc":"2.0"')
        assert err_code(read_line(s)) == -32004


def test_socket_and_dir_modes(server):
    st = os.stat(server.sock)
    assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(server.sock)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(server.sock + ".lock").st_mode) == 0o600


def test_fake_peer_uid_refused(tmp_path):
    env = make_env(tmp_path, INTENTC_TEST_FAKE_PEER_UID=os.getuid() + 1)
    srv = Server(env)
    try:
        with connect(srv.sock) as s:
            line = read_line(s)  # refused at accept: error, then close
            assert err_code(line) == -32001
            assert s.recv(10) == b""  # closed
    finally:
        srv.stop()


@pytest.mark.parametrize("mode", [0o770, 0o755, 0o702])
def test_group_or_other_accessible_dir_refused(tmp_path, mode):
    env = make_env(tmp_path)
    os.chmod(os.path.dirname(env["INTENTC_SOCKET"]), mode)
    p = subprocess.run([INTENTC, "serve", "--foreground"], env=env, capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 1 and "refusing socket directory" in p.stderr
    assert not os.path.exists(env["INTENTC_SOCKET"])


def test_symlinked_dir_refused(tmp_path):
    env = make_env(tmp_path)
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    env["INTENTC_SOCKET"] = str(link / "intentc.sock")
    p = subprocess.run([INTENTC, "serve", "--foreground"], env=env, capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 1 and "symbolic link" in p.stderr


def test_stale_socket_replaced(tmp_path):
    env = make_env(tmp_path)
    s = socket.socket(socket.AF_UNIX)
    s.bind(env["INTENTC_SOCKET"])  # a socket file nobody listens on
    s.close()
    srv = Server(env)
    try:
        assert rpc(srv.sock, "status")["result"]["pid"] == srv.proc.pid
    finally:
        srv.stop()
