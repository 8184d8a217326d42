"""Name hygiene of the generated modules. A KIR argument or extent symbol may be named like
anything the generated Python uses itself (the K loop's `k`, the split merge's `s`, the kernel's
R and C, the modules `tl` and `torch`, launcher locals, another view's stride names) or may not
be a Python identifier at all; the module must still import and compute the same result.

1. kir/hostile_names.kir, every kernel, pointer candidates (and split K / persistent for the
   GEMM) against the reference provider under the interpreter (a GEMM with K named `k` used to
   compute with the loop counter as K: 29.7 absolute error).
2. Every generated module of the examples, the provider test kernels and hostile_names.kir, for
   both providers: no parameter of the Triton kernel or of a launcher function is rebound in
   its body, or is a module global or builtin the function reads.
"""
import ast
import builtins
import glob
import os

import pytest
import torch

from conftest import CompileError
from test_triton_examples import clone_args, compare, reference_case, run_candidates

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
HOSTILE = os.path.join(HERE, "kir", "hostile_names.kir")
SIZES = {"m": 37, "k": 70, "n": 45, "R": 5, "C": 33, "acc": 6, "v0": 130, "pid": 3, "COVER": 70}


@pytest.fixture(scope="module")
def hostile(compile_kir):
    return compile_kir(HOSTILE, target="triton"), compile_kir(HOSTILE, target="reference")


@pytest.mark.parametrize("name", ["gemm_lower", "modules", "strides", "symbols", "prologue_once", "digits",
                                  "region_vars"])
def test_hostile_names_compute_the_reference_result(hostile, name):
    tri, ref = hostile
    tmod = tri[name]
    base, want = reference_case(tmod, ref[name], SIZES, 11, 1.5)
    cands = [c for c in tmod.CANDIDATES if not c.get("USE_TENSOR_DESCRIPTOR")]
    gemm = name in ("gemm_lower", "prologue_once")
    if gemm:
        cands += [dict(cands[0], SPLIT_K=2), dict(cands[0], WORKERS=3)]
    if name == "prologue_once":
        cands += [dict(c, PROLOGUE_ONCE=1) for c in cands]
    run_candidates(tmod, cands, base, want, name, gemm)
    got = clone_args(base)
    tmod.launch(*got)  # the public entry point too
    for g, w in zip(got, want):
        if isinstance(g, torch.Tensor):
            compare(g, w, f"{name} launch", gemm)


def _bound(fn):
    """Names bound in the function's own scope (comprehensions and lambdas have their own)."""
    out, stack = set(), list(fn.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.Lambda, ast.FunctionDef)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        stack.extend(ast.iter_child_nodes(n))
    return out


def _globals(tree):
    """Names defined at module level, and the builtins the module reads anywhere."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        for t in getattr(node, "targets", []):
            names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        if isinstance(node, ast.Try):
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return names | (read & set(dir(builtins)))


# The functions whose parameters are the user-named arguments (besides the Triton kernel).
LAUNCHERS = {"launch", "prepare", "_prepare", "_check_args", "_descs", "_flat_ok"}


def check_hygiene(src, where):
    """The Triton kernel and every launcher function that takes the user-named arguments:
    parameters distinct, never rebound in the function's own scope, and never a module global
    or a builtin the module reads (which the parameter would hide)."""
    tree = ast.parse(src)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    hidden = _globals(tree)
    checked = 0
    for fn in funcs.values():
        params = [a.arg for a in fn.args.args]
        is_kernel = fn.name.endswith("_kernel") and any("jit" in ast.unparse(d) for d in fn.decorator_list)
        if not is_kernel and fn.name not in LAUNCHERS:
            continue  # helpers take no user-named parameters
        checked += 1
        assert len(params) == len(set(params)), f"{where}: {fn.name} repeats a parameter: {params}"
        for p in params:
            assert p not in _bound(fn), f"{where}: {fn.name} rebinds its parameter {p!r}"
            assert p not in hidden, f"{where}: {fn.name}'s parameter {p!r} hides the global {p!r}"
    assert checked, f"{where}: no launcher or kernel function found"


SOURCES = sorted(glob.glob(os.path.join(ROOT, "examples", "*.kir")) +
                 glob.glob(os.path.join(HERE, "kir", "*.kir")))


@pytest.mark.parametrize("target", ["triton", "reference"])
@pytest.mark.parametrize("path", SOURCES, ids=[os.path.basename(p) for p in SOURCES])
def test_generated_modules_keep_user_names_apart(compile_kir, path, target):
    try:
        mods = compile_kir(path, target=target)
    except CompileError as e:  # kernels the provider refuses are other tests' business
        pytest.skip(str(e).splitlines()[-1][:200])
    for name, mod in mods.items():
        with open(mod.__file__) as f:
            check_hygiene(f.read(), f"{os.path.basename(path)}:{name} ({target})")
