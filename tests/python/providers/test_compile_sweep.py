"""No crash on any input, beyond the parser fuzzer: every example and provider test
kernel with each floating element type replaced by every KIR element type, and each
symbolic extent replaced by 0, 1 and 7, compiled for Triton and for the reference
provider. Each compile either succeeds or fails with a `file:line:col: error:`
diagnostic and exit status 1: never a signal, a timeout or an unlocated message.
(The same sweep, with the kernels run on the CPU interpreter, found the bugs fixed in
the total-sum store, i1 sums, f64 division and contraction element types.)"""
import glob
import os
import re
import subprocess

import pytest

from conftest import intentc_env, intentc_path

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index", "f8E4M3FN", "f8E5M2"]
DIAG = re.compile(r"^\S+\.kir:\d+:\d+: error: ")


def variants():
    for path in sorted(glob.glob(os.path.join(REPO, "examples", "*.kir")) +
                       glob.glob(os.path.join(HERE, "kir", "*.kir"))):
        src = open(path).read()
        base = os.path.basename(path)[:-4]
        for t0 in ("f16", "bf16", "f32"):
            if re.search(r"\b%s\b" % t0, src):
                for t1 in TYPES:
                    if t1 != t0:
                        yield f"{base}-{t0}-{t1}", re.sub(r"\b%s\b" % t0, t1, src)
        for sym in ("M", "N", "K", "B"):
            if re.search(r"(?<=[\[, ])%s(?=[\],])" % sym, src):
                for val in ("0", "1", "7"):
                    yield f"{base}-{sym}{val}", re.sub(r"(?<=[\[, ])%s(?=[\],])" % sym, val, src)


def test_every_variant_compiles_or_is_diagnosed(tmp_path):
    exe = intentc_path()
    if not os.path.exists(exe):
        pytest.skip("intentc not found")
    env = intentc_env(str(tmp_path))
    bad, n = [], 0
    for name, text in variants():
        f = tmp_path / (name + ".kir")
        f.write_text(text)
        for target in ("triton", "reference"):
            n += 1
            try:
                r = subprocess.run([exe, "compile", str(f), "--target", target, "-o", str(tmp_path / "out"),
                                    "--no-cache"], env=env, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                bad.append((name, target, "timeout"))
                continue
            if r.returncode == 0:
                continue
            first = r.stderr.splitlines()[0] if r.stderr else ""
            if r.returncode != 1 or not DIAG.match(first):
                bad.append((name, target, r.returncode, first[:200]))
    assert n > 1000
    assert not bad, bad[:10]
