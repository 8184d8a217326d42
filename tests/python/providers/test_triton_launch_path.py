"""The launcher's host path: after the first launch through Triton's JIT, launches that repeat on
the same arguments call the compiled kernel's own launcher (no argument binding, specialization
key or cache lookup). The JIT function is replaced by a recording fake, so the test sees which
path every launch took and with which arguments; the CPU interpreter itself returns no compiled
kernel and keeps the JIT path (every other test runs that way)."""
import os
import types

import pytest
import torch

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")


class FakeCompiled:
    def __init__(self, names, log):
        self.src = types.SimpleNamespace(signature=dict.fromkeys(names, "x"))
        self.log = log

    def run(self, *args):  # present on compiled kernels; reached through __getitem__ only
        raise AssertionError("launcher called without a grid")

    def __getitem__(self, grid):
        assert len(grid) == 3, grid  # Triton's runner reads grid[0], grid[1] and grid[2]
        return lambda *args: self.log.append(("fast", grid, args))


class FakeJit:
    """Records launches; returns a compiled kernel whose signature is `signature` (default: the
    JIT function's parameters, as Triton's are)."""

    def __init__(self, real, signature=None):
        self.arg_names = list(real.arg_names)
        self.log = []
        self.compiled = FakeCompiled(self.arg_names if signature is None else signature, self.log)

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.log.append(("jit", grid, args, kw))
            return self.compiled
        return launch

    def paths(self):
        return [entry[0] for entry in self.log]

    def check_fast_arguments(self):
        """Every direct launch repeats an earlier launch through the JIT: its arguments, keywords in
        parameter order, and its grid. (Not necessarily the latest one: a tuned launch runs the
        winner, which need not be the last candidate tried, through the launcher its trial compiled.)"""
        jits = []
        for e in self.log:
            if e[0] == "jit":
                _, grid, args, kw = e
                jits.append(((*grid, 1, 1)[:3], [*args, *(kw[n] for n in self.arg_names[len(args):])]))
                continue
            assert any(e[1] == grid and _same(list(e[2]), flat) for grid, flat in reversed(jits)), e[:2]


def _same(xs, ys):
    """Argument lists equal element by element (tensors by identity, the rest by value)."""
    return len(xs) == len(ys) and all(x is y or (not isinstance(x, torch.Tensor) and x == y) for x, y in zip(xs, ys))


def fake(monkeypatch, mod, name, signature=None):
    jit = FakeJit(getattr(mod, name + "_kernel"), signature)
    monkeypatch.setattr(mod, name + "_kernel", jit)
    monkeypatch.setattr(mod, "_LAST", [None, None, {}])
    return jit


@pytest.fixture
def gemm(compile_kir):
    return compile_kir(os.path.join(ROOT, "examples", "gemm_f16.kir"), target="triton")["gemm_f16"]


def gemm_args(m=40, n=24, k=32):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(m, k, generator=g).half(), torch.randn(k, n, generator=g).half(),
            torch.empty(m, n, dtype=torch.float16))


def pointer_candidate(mod, split_k=1):
    return next(c for c in mod.CANDIDATES if not c["USE_TENSOR_DESCRIPTOR"] and c["SPLIT_K"] == 1) \
        if split_k == 1 else dict(next(c for c in mod.CANDIDATES if c["SPLIT_K"] > 1), USE_TENSOR_DESCRIPTOR=0)


def test_bound_launcher_calls_the_compiled_kernel_after_the_first_run(gemm, monkeypatch):
    jit = fake(monkeypatch, gemm, "gemm_f16")
    run = gemm.bind(pointer_candidate(gemm), *gemm_args())
    run()
    run()
    run()
    assert jit.paths() == ["jit", "fast", "fast"]
    jit.check_fast_arguments()


def test_runtime_launches_reuse_the_compiled_kernel_while_the_arguments_stay(gemm, monkeypatch):
    jit = fake(monkeypatch, gemm, "gemm_f16")
    cand = pointer_candidate(gemm)
    args = gemm_args()
    gemm._run_candidate(cand, args)
    gemm._run_candidate(cand, args)
    assert jit.paths() == ["jit", "fast"]
    jit.check_fast_arguments()
    gemm._run_candidate(cand, gemm_args(m=48))  # other tensors: through the JIT again
    assert jit.paths() == ["jit", "fast", "jit"]
    other = next(c for c in gemm.CANDIDATES if not c["USE_TENSOR_DESCRIPTOR"] and c is not cand)
    gemm._run_candidate(other, gemm_args(m=48))  # another candidate: its own launcher
    assert jit.paths()[-1] == "jit"


def test_split_k_launches_allocate_their_workspace_every_time(gemm, monkeypatch):
    jit = fake(monkeypatch, gemm, "gemm_f16")
    cand = pointer_candidate(gemm, split_k=2)
    args = gemm_args(k=256)
    gemm._run_candidate(cand, args)
    gemm._run_candidate(cand, args)
    assert jit.paths() == ["jit", "jit"]
    assert jit.log[0][3]["ws"] is not jit.log[1][3]["ws"]


def test_a_compiled_kernel_with_another_signature_keeps_the_jit_path(gemm, monkeypatch):
    # e.g. a Triton whose launchers take no constexpr arguments: never guess their order
    real = gemm.gemm_f16_kernel
    jit = fake(monkeypatch, gemm, "gemm_f16", signature=[n for n in real.arg_names if n.upper() != n])
    run = gemm.bind(pointer_candidate(gemm), *gemm_args())
    run()
    run()
    gemm._run_candidate(pointer_candidate(gemm), gemm_args())
    gemm._run_candidate(pointer_candidate(gemm), gemm_args())
    assert jit.paths() == ["jit"] * 4


def test_split_merge_launcher_kept_per_arguments(compile_kir, monkeypatch):
    mod = compile_kir(os.path.join(ROOT, "examples", "row_sum.kir"), target="triton")["row_sum"]
    jit = fake(monkeypatch, mod, "row_sum")
    cand = next(c for c in mod.CANDIDATES if c["SPLIT"] > 1)
    x, y = torch.randn(8, 3000), torch.empty(8)
    mod._run_candidate(cand, (x, y))
    mod._run_candidate(cand, (x, y))
    run = mod.bind(cand, x, y)
    run()
    run()
    assert jit.paths() == ["jit", "fast", "jit", "fast"]
    jit.check_fast_arguments()


def test_one_dimensional_grids_reach_the_compiled_launcher_as_three(compile_kir, monkeypatch):
    mod = compile_kir(os.path.join(ROOT, "examples", "softmax.kir"), target="triton")["softmax"]
    jit = fake(monkeypatch, mod, "softmax")
    x, y = torch.randn(4, 100), torch.empty(4, 100)
    cand = mod.CANDIDATES[0]
    mod._run_candidate(cand, (x, y))
    mod._run_candidate(cand, (x, y))
    assert jit.paths() == ["jit", "fast"] and len(jit.log[0][1]) < 3
    jit.check_fast_arguments()


def test_launch_reaches_the_compiled_launcher_from_its_second_call(gemm, monkeypatch):
    """launch() through the runtime: tuning (the trials run on the caller's tensors here: an output
    only is written, nothing to restore) launches each candidate through the JIT first; every later
    launch on the same arguments reuses the previous launch's winner (no runtime resolution, one
    argument key per call) and goes straight to the compiled kernel's launcher."""
    monkeypatch.setenv("INTENT_WINNERS", "off")
    monkeypatch.setenv("INTENT_TUNE_REPS", "1")
    monkeypatch.setattr(gemm, "_TUNED", None)
    # (split K would allocate its workspace per launch, and descriptors need a GPU: not here)
    monkeypatch.setattr(gemm, "CANDIDATES", [c for c in gemm.CANDIDATES
                                             if c["SPLIT_K"] == 1 and not c["USE_TENSOR_DESCRIPTOR"]])
    jit = fake(monkeypatch, gemm, "gemm_f16")
    a, b, c = gemm_args()
    gemm.launch(a, b, c)
    assert "jit" in jit.paths() and gemm._TUNED.stats["tunings"] == 1
    n = len(jit.log)
    gemm.launch(a, b, c)
    gemm.launch(a, b, c)
    assert jit.paths()[n:] == ["fast", "fast"] and gemm._TUNED.stats["hits"] == 0
    jit.check_fast_arguments()
    # Other tensors of the same shapes: the runtime resolves them (a hit, no tuning); then the first again.
    a2, b2, c2 = gemm_args()
    gemm.launch(a2, b2, c2)
    gemm.launch(a, b, c)
    assert gemm._TUNED.stats["tunings"] == 1 and gemm._TUNED.stats["hits"] == 2
    # The reuse never skips the argument checks.
    with pytest.raises(ValueError, match="symbol"):
        gemm.launch(a, b, c[:, :-1])
    # Nor a new tuner: with other candidates, the same arguments are resolved again.
    tile = lambda c: (c["BM"], c["BN"], c["BK"])  # noqa: E731
    other = next(c for c in gemm.CANDIDATES if tile(c) != tile(gemm._WIN[2]))
    monkeypatch.setattr(gemm, "CANDIDATES", [other])
    monkeypatch.setattr(gemm, "_TUNED", None)
    gemm.launch(a, b, c)
    assert jit.log[-1][0] == "jit" and tile(jit.log[-1][3]) == tile(other)


def test_autotuner_path_sizes_the_split_workspace_once_per_arguments(compile_kir, monkeypatch):
    """Triton's autotuner path (INTENT_RUNTIME=0) of a split merge: the workspace must fit the widest
    split among the candidates, which takes every candidate's grid (~130 us of Python here, longer
    than a 70 us kernel: do_bench then timed the host). It is found on the first launch and kept while
    the arguments stay; new arguments find it again."""
    monkeypatch.setenv("INTENT_RUNTIME", "0")
    mod = compile_kir(os.path.join(ROOT, "examples", "row_sum.kir"), target="triton")["row_sum"]
    monkeypatch.setattr(mod, "_LAST", [None, None, {}])
    grids = []
    meta = mod._meta
    monkeypatch.setattr(mod, "_meta", lambda c: grids.append(c) or meta(c))
    launches = []

    class Tuner:
        def __getitem__(self, grid):
            return lambda *args, **kw: launches.append(kw)
    monkeypatch.setattr(mod, "_autotuned", lambda cands: Tuner())
    x, y = torch.randn(3, 5000), torch.empty(3)
    mod.launch(x, y)
    first = len(grids)
    assert first >= len(mod.CANDIDATES)
    mod.launch(x, y)
    mod.launch(x, y)
    assert len(grids) == first and len(launches) == 3
    assert all(kw["ws"] is launches[0]["ws"] and kw["sem"] is launches[0]["sem"] for kw in launches)
    _, extra, grid, *_ = mod._prepare(x, y)
    widest = max(grid(dict(meta(c), **extra))[1] for c in mod.CANDIDATES)
    assert widest > 1 and launches[0]["ws"].numel() >= widest * 3
    mod.launch(torch.randn(4, 5000), torch.empty(4))
    assert len(grids) > first
