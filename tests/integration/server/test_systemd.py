"""systemd socket activation: the listening socket arrives as fd 3 (LISTEN_FDS/LISTEN_PID)."""
import os
import socket
import subprocess

from server_helpers import INTENTC, rpc


def test_listen_fds(env):
    path = env["INTENTC_SOCKET"]
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(path)
    os.chmod(path, 0o600)
    lsock.listen(16)
    fd = lsock.fileno()

    e = dict(env, LISTEN_FDS="1")
    # The shell puts the inherited socket on fd 3 and sets LISTEN_PID to its own pid, which exec keeps.
    p = subprocess.Popen(["bash", "-c", f'export LISTEN_PID=$$; exec "$0" serve --foreground --socket "$1" 3<&{fd}',
                          INTENTC, path], env=e, pass_fds=(fd,),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline().strip()
        if line != "ready":
            p.kill()
            raise AssertionError(p.communicate(timeout=10))
        assert rpc(path, "status", timeout=10)["result"]["pid"] == p.pid
        rpc(path, "shutdown")
        assert p.wait(timeout=30) == 0
        assert os.path.exists(path)  # systemd's socket file is left alone
    finally:
        if p.poll() is None:
            p.kill()
        lsock.close()


def test_listen_fds_not_a_socket(env):
    e = dict(env, LISTEN_FDS="1")
    p = subprocess.run(["sh", "-c", 'export LISTEN_PID=$$; exec "$0" serve --foreground 3</dev/null', INTENTC],
                       env=e, capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "not a listening" in p.stderr
