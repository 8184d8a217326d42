"""Shared pytest helpers for generated kernels (reference and Triton providers).

Fixtures:
  compile_kir(path_or_text, target="reference", defines=None, extra_args=())
      -> {kernel_name: module}; each module also has ARTIFACT (parsed artifact.json).
  poison(t) -> t filled with NaN (floating) or a sentinel (integers; True for bool).
  rel_err(out, ref) -> ||out - ref|| / ||ref|| in float64; inf when NaN/inf disagree.

The intentc binary is $INTENTC, else <repo>/build/bin/intentc, else the newest
<repo>/build-*/bin/intentc. TRITON_INTERPRET=1 is set before anything imports
triton so Triton kernels run on the CPU interpreter (its per-element evaluation of
combine functions replaced by a whole-slice one: interpreter_combines.py); INTENT_TUNE_REPS
defaults to 1.
"""
import glob
import hashlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_INTERPRET", "1")
# On the interpreter the tuner's timings choose nothing worth keeping; one timed rep per
# candidate after its warm-up still restores the trial state before every launch.
os.environ.setdefault("INTENT_TUNE_REPS", "1")

import pytest  # noqa: E402

if os.environ["TRITON_INTERPRET"] == "1":
    import interpreter_combines  # noqa: E402

    interpreter_combines.install()

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INT_SENTINEL = -0x5A5A5A5A
_MODULE_COUNTER = [0]


def intentc_path():
    env = os.environ.get("INTENTC")
    if env:
        return env
    default = os.path.join(REPO, "build", "bin", "intentc")
    if os.path.exists(default):
        return default
    found = sorted(glob.glob(os.path.join(REPO, "build-*", "bin", "intentc")), key=os.path.getmtime)
    return found[-1] if found else default


def intentc_env(workdir):
    """The environment of a test's intentc process: a cache root and a server socket under
    `workdir` unless the caller's environment names them. The root exists, so every process
    reuses the build id memoized there (a --no-cache compile writes no result)."""
    env = dict(os.environ)
    if "INTENT_CACHE_DIR" not in env:
        env["INTENT_CACHE_DIR"] = os.path.join(workdir, "cache")
        os.makedirs(env["INTENT_CACHE_DIR"], exist_ok=True)
    env.setdefault("INTENTC_SOCKET", os.path.join(workdir, "no-server.sock"))
    return env


def _load_module(path, kernel_name):
    _MODULE_COUNTER[0] += 1
    mod_name = "intent_generated_%s_%d" % (kernel_name, _MODULE_COUNTER[0])
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module


_FLAGS = {}


def _supports_no_cache(exe):
    if exe not in _FLAGS:
        try:
            h = subprocess.run([exe, "compile", "--help"], capture_output=True, text=True, timeout=60)
            _FLAGS[exe] = "--no-cache" in (h.stdout + h.stderr)
        except (OSError, subprocess.SubprocessError):
            _FLAGS[exe] = False
    return _FLAGS[exe]


class CompileError(RuntimeError):
    pass


def compile_kir_files(path_or_text, target="reference", defines=None, extra_args=(), workdir=None):
    """Compiles a .kir path (or KIR text) with intentc; returns {kernel: module}."""
    exe = intentc_path()
    if not os.path.exists(exe):
        pytest.skip("intentc not found at %s (set INTENTC)" % exe)
    workdir = workdir or tempfile.mkdtemp(prefix="intentc-test-")
    if "kir.kernel" in path_or_text or "\n" in path_or_text:
        digest = hashlib.sha256(path_or_text.encode()).hexdigest()[:12]
        src = os.path.join(workdir, "input-%s.kir" % digest)
        with open(src, "w") as f:
            f.write(path_or_text)
    else:
        src = path_or_text
    out = tempfile.mkdtemp(prefix="out-", dir=workdir)
    cmd = [exe, "compile", src, "--target", target, "-o", out, "--json"]
    if _supports_no_cache(exe):
        cmd.append("--no-cache")
    for k, v in (defines or {}).items():
        cmd += ["--define", "%s=%s" % (k, v)]
    cmd += list(extra_args)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=intentc_env(workdir))
    if proc.returncode != 0:
        raise CompileError("intentc failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), proc.stderr))
    summary = json.loads(proc.stdout)
    modules = {}
    for k in summary["kernels"]:
        files = k["files"]
        py = files.get("kernel.py")
        if not py:
            continue
        module = _load_module(py, k["name"])
        art = files.get("artifact.json")
        module.ARTIFACT = None
        if art and os.path.exists(art):
            with open(art) as f:
                module.ARTIFACT = json.load(f)
        modules[k["name"]] = module
    return modules


def compile_pair(compile_kir, path):
    """`path` compiled for Triton and for the reference provider: two {kernel: module} maps."""
    return compile_kir(path, target="triton"), compile_kir(path, target="reference")


@pytest.fixture(scope="module")
def mods(request, compile_kir):
    """The test module's KIR file (its global `KIR`) for both providers; a module may define its own."""
    return compile_pair(compile_kir, request.module.KIR)


@pytest.fixture(scope="session")
def compile_kir(tmp_path_factory):
    cache = {}
    root = str(tmp_path_factory.mktemp("kir"))

    def _compile(path_or_text, target="reference", defines=None, extra_args=()):
        key = (path_or_text, target, tuple(sorted((defines or {}).items())), tuple(extra_args))
        if key not in cache:
            cache[key] = compile_kir_files(path_or_text, target, defines, extra_args, workdir=root)
        return cache[key]

    return _compile


def poison(t):
    import torch

    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    elif t.dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(max(INT_SENTINEL, torch.iinfo(t.dtype).min))
    return t


def rel_err(out, ref):
    import torch

    o = out.detach().to(torch.float64).cpu()
    r = ref.detach().to(torch.float64).cpu()
    if o.shape != r.shape:
        raise AssertionError("shape %s != %s" % (tuple(o.shape), tuple(r.shape)))
    if torch.isnan(o).any() or torch.isnan(r).any():
        return math.inf
    if not torch.equal(torch.isinf(r), torch.isinf(o)) or not torch.equal(o[torch.isinf(o)], r[torch.isinf(r)]):
        return math.inf
    finite = ~torch.isinf(r)
    o, r = o[finite], r[finite]
    num = torch.linalg.vector_norm(o - r).item()
    den = torch.linalg.vector_norm(r).item()
    if den == 0:
        return 0.0 if num == 0 else math.inf
    return num / den


@pytest.fixture(name="poison")
def _poison_fixture():
    return poison


@pytest.fixture(name="rel_err")
def _rel_err_fixture():
    return rel_err
