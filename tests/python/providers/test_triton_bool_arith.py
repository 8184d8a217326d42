"""i1 arithmetic on the CPU interpreter against the reference provider and against
parity computed here: add/sub are xor and mul is and (wrapping, as for every integer
type), so a sum of booleans is their parity, on every path. Reductions and scans
combined int1 with + (widened, and the cast back to int1 tests != 0), which gave "any"
instead of parity; the elementwise case was already right and is kept as coverage."""
import os

import pytest
import torch

from test_triton_examples import interpreter_distinct

KIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kir", "bool_arith.kir")


def bools(*shape, seed=0):
    return torch.randint(0, 2, shape, generator=torch.Generator().manual_seed(seed)).bool()


EXPECT = {
    "row_parity": lambda x: x.sum(1) % 2 == 1,
    "col_parity": lambda x: x.sum(0) % 2 == 1,
    "total_parity": lambda x: x.sum() % 2 == 1,
    "row_all": lambda x: x.all(1),
    # max/min order False < True; over an empty row their identities: False, True
    "row_any": lambda x: x.any(1),
    "row_every": lambda x: x.all(1),
    "prefix_parity": lambda x: x.long().cumsum(1) % 2 == 1,
}


@pytest.mark.parametrize("name", sorted(EXPECT))
@pytest.mark.parametrize("shape", [(7, 45), (1, 1), (300, 3), (4, 0)])
def test_bool_reductions_and_scans_wrap(compile_kir, name, shape):
    tmod = compile_kir(KIR, target="triton")[name]
    rmod = compile_kir(KIR, target="reference")[name]
    x = bools(*shape, seed=shape[0])
    want = EXPECT[name](x)
    ref = torch.zeros_like(want)
    rmod.launch(x, ref)
    assert torch.equal(ref, want)
    for cand in interpreter_distinct(tmod.CANDIDATES):
        got = torch.zeros_like(want)
        tmod._run_candidate(cand, (x, got))
        assert torch.equal(got, want), (name, cand)


def test_bool_elementwise_wraps(compile_kir):
    tmod = compile_kir(KIR, target="triton")["ew"]
    a, b = bools(5, 33, seed=1), bools(5, 33, seed=2)
    outs = [torch.zeros_like(a) for _ in range(3)]
    tmod._run_candidate(tmod.CANDIDATES[0], (a, b, *outs))
    assert torch.equal(outs[0], a ^ b) and torch.equal(outs[1], a ^ b) and torch.equal(outs[2], a & b)
