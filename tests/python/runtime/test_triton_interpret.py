import os
import subprocess
import sys

import pytest

pytest.importorskip("triton")

HERE = os.path.dirname(os.path.abspath(__file__))


def test_generated_style_kernel_under_interpreter():
    env = dict(os.environ, TRITON_INTERPRET="1", INTENT_TUNE_REPS="1",
               PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "..", "..", "python"),
                                           os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, os.path.join(HERE, "_triton_kernel.py")], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout
