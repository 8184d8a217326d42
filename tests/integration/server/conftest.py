import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from server_helpers import Server, make_env  # noqa: E402


@pytest.fixture
def env(tmp_path):
    return make_env(tmp_path)


@pytest.fixture
def server(env):
    srv = Server(env, "--read-timeout", "2", "--idle-timeout", "0")
    yield srv
    srv.stop()
