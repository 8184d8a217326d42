import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PY = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "python"))
for p in (_PY, _HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    # Never touch the user's cache, socket or pending winners from tests.
    monkeypatch.setenv("INTENT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INTENTC_SOCKET", str(tmp_path / "no-server.sock"))
    monkeypatch.delenv("INTENT_WINNERS", raising=False)
    monkeypatch.delenv("INTENT_WINNERS_FILE", raising=False)
    monkeypatch.delenv("INTENT_RETUNE", raising=False)
    monkeypatch.setenv("INTENT_TUNE_REPS", "2")
    yield
