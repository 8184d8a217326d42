"""cmake/IntentKernels.cmake: examples/cmake builds through one spawned server;
the second build compiles nothing."""
import os
import shutil
import subprocess

import pytest

from server_helpers import INTENTC, REPO, TARGET, run


@pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake + ninja")
def test_example_project_builds_twice(tmp_path, env):
    b = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(REPO / "examples" / "cmake"), "-B", str(b), "-G", "Ninja",
                    f"-DINTENTC_EXECUTABLE={os.path.abspath(INTENTC)}",
                    f"-DINTENT_EXAMPLE_PROVIDER={TARGET}"], env=env, check=True, capture_output=True,
                   timeout=120)
    first = subprocess.run(["ninja", "-C", str(b), "-j", "8"], env=env, capture_output=True, text=True,
                           timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    for k in ("add", "softmax", "row_sum"):
        assert (b / "intent_kernels" / "example_kernels" / k / "kernel.py").exists()
    second = subprocess.run(["ninja", "-C", str(b), "-d", "explain"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert second.returncode == 0
    assert "no work to do" in second.stdout, second.stdout
    assert "intentc:" not in second.stdout
    log = open(env["INTENTC_SOCKET"] + ".log").read()
    assert log.count("listening on") == 1
    run(["server", "stop"], env, check=0)
