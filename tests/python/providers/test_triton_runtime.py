"""Generated Triton kernels tuned through intent_runtime on the CPU interpreter:
tuning happens once per runtime shape, InOut state is exact, winners persist per
candidate so a new candidate row is the only one timed after a recompile."""
import json
import os
import sys

import pytest
import torch

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

ADD = os.path.join(REPO, "examples", "add.kir")
INPLACE = os.path.join(REPO, "examples", "inplace_add.kir")

# Pointwise rows (11 Triton columns): ownership_m, ownership_n, ..., NUM_WARPS, NUM_STAGES, NUM_CTAS, USE_TENSOR_DESCRIPTOR
ROW_A = [1, 16, 1, 1, 1, 1, 1, 1, 1, 1, 0]
ROW_B = [2, 32, 1, 1, 1, 1, 1, 2, 1, 1, 0]
ROW_C = [4, 16, 1, 1, 1, 1, 1, 1, 1, 1, 0]


@pytest.fixture()
def winners_file(tmp_path, monkeypatch):
    path = tmp_path / "winners.json"
    monkeypatch.setenv("INTENT_WINNERS", "file")
    monkeypatch.setenv("INTENT_WINNERS_FILE", str(path))
    monkeypatch.setenv("INTENT_TUNE_REPS", "1")
    monkeypatch.delenv("INTENT_RUNTIME", raising=False)
    return path


def override(tmp_path, name, rows):
    p = tmp_path / name
    p.write_text(json.dumps({"triton": {"pointwise": rows}}))
    return str(p)


def test_inout_kernel_is_exact_after_tuning_and_tunes_once_per_shape(compile_kir, tmp_path, winners_file):
    cfg = override(tmp_path, "three.json", [ROW_A, ROW_B, ROW_C])
    mod = compile_kir(INPLACE, target="triton", extra_args=("--tuning-config", cfg))["inplace_add"]
    assert len(mod.CANDIDATES) == 3
    x = torch.randn(5, 37)
    y = torch.randn(5, 37)
    want = x + y
    mod.launch(x, y)
    assert torch.equal(x, want), "InOut content must be restored before every trial; the winner runs once"
    stats = mod._tuned().stats
    assert stats["tunings"] == 1 and stats["timed"] == 3
    x2 = want.clone()
    mod.launch(x2, y)  # same shapes: no tuning
    assert torch.equal(x2, want + y)
    assert mod._tuned().stats["tunings"] == 1
    x3, y3 = torch.randn(9, 20), torch.randn(9, 20)
    want3 = x3 + y3
    mod.launch(x3, y3)  # another shape tunes again
    assert torch.equal(x3, want3)
    assert mod._tuned().stats["tunings"] == 2


def test_prepare_resolves_without_launching(compile_kir, tmp_path, winners_file):
    cfg = override(tmp_path, "two.json", [ROW_A, ROW_B])
    mod = compile_kir(INPLACE, target="triton", extra_args=("--tuning-config", cfg))["inplace_add"]
    x, y = torch.randn(3, 33), torch.randn(3, 33)
    before = x.clone()
    winner = mod.prepare(x, y)
    assert winner in mod.CANDIDATES
    assert torch.equal(x, before), "prepare() tunes but leaves the caller's tensors untouched"


def test_new_candidate_row_is_the_only_one_timed(compile_kir, tmp_path, winners_file):
    two = override(tmp_path, "two.json", [ROW_A, ROW_B])
    three = override(tmp_path, "three.json", [ROW_A, ROW_B, ROW_C])
    first = compile_kir(ADD, target="triton", extra_args=("--tuning-config", two))["add"]
    second = compile_kir(ADD, target="triton", extra_args=("--tuning-config", three))["add"]
    # The artifact key changes with the rows; the program key (tuning identity) does not.
    assert first.ARTIFACT["cache_key"] != second.ARTIFACT["cache_key"]
    assert first.PROGRAM_KEY == second.PROGRAM_KEY
    x, y = torch.randn(4, 50), torch.randn(4, 50)
    z = torch.full((4, 50), float("nan"))
    first.launch(x, y, z)
    assert first._tuned().stats["timed"] == 2
    z2 = torch.full((4, 50), float("nan"))
    second.launch(x, y, z2)
    assert second._tuned().stats["timed"] == 1, "only the added candidate is measured"
    assert torch.equal(z, x + y) and torch.equal(z2, x + y)


def test_argument_errors_are_raised_before_tuning(compile_kir, winners_file):
    """A wrong dtype or shape is the caller's error: launch/prepare raise it as such
    (TypeError/ValueError from the checks), not as "every tuning candidate failed"."""
    mod = compile_kir(ADD, target="triton")["add"]
    x = torch.zeros(8, dtype=torch.float64)
    y = torch.zeros(8)
    with pytest.raises(TypeError, match="expected dtype torch.float32, got torch.float64"):
        mod.launch(x, y, torch.zeros(8))
    with pytest.raises(TypeError, match="expected dtype torch.float32, got torch.float64"):
        mod.prepare(x, y, torch.zeros(8))
    assert not winners_file.exists()


def test_arguments_are_validated_once_per_set_of_arguments(compile_kir, winners_file):
    """The check before tuning is cached like the trials' own: repeated launches on the same
    tensors do not re-validate (it is host time on every launch), new tensors do."""
    mod = compile_kir(ADD, target="triton")["add"]
    calls = []
    real = mod._check_args
    mod._check_args = lambda *a: calls.append(1) or real(*a)
    try:
        x, y, out = torch.ones(4, 8), torch.ones(4, 8), torch.empty(4, 8)
        for _ in range(3):
            mod.launch(x, y, out)
        assert len(calls) == 1 and torch.equal(out, x + y)
        mod.launch(x, y, torch.empty(4, 8))
        assert len(calls) == 2
    finally:
        mod._check_args = real
