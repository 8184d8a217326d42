"""Winner timings across machines (issue: winner timings), two phases on the GPU machine.

  phase tune:   INTENT_WINNERS=file INTENT_WINNERS_FILE=$OUT/winners-pending.json
                python3 scripts/gpu/winners_demo.py ART tune
                -> tunes a GEMM and a softmax from scratch, records time to first result
  (build machine) intentc winners import winners-pending.json into a fresh cache, export it
  phase reuse:  INTENT_CACHE_DIR=<carried cache with index.sqlite> INTENT_WINNERS=db
                python3 scripts/gpu/winners_demo.py ART reuse
                -> a new process launches the recorded winners without tuning
"""
import importlib.util
import json
import os
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
ART, PHASE = sys.argv[1], sys.argv[2]


def load(case):
    spec = importlib.util.spec_from_file_location(case, os.path.join(ART, case, "triton", "kernel.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def first_result(case, args):
    m = load(case)
    torch.cuda.synchronize()
    t0 = time.time()
    m.launch(*args)
    torch.cuda.synchronize()
    dt = time.time() - t0
    stats = dict(m._tuned().stats)
    return dt, stats


torch.manual_seed(0)
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
c = torch.empty(4096, 4096, device="cuda", dtype=torch.float16)
x = torch.randn(8192, 4096, device="cuda")
y = torch.empty_like(x)
rows = []
for case, args in [("gemm_f16", [a, b, c]), ("softmax", [x, y])]:
    dt, stats = first_result(case, args)
    rows.append({"phase": PHASE, "case": case, "time_to_first_result_s": dt, "stats": stats})
    print(json.dumps(rows[-1]), flush=True)
err = ((c.float() - a.float() @ b.float()).norm() / (a.float() @ b.float()).norm()).item()
print(json.dumps({"gemm_relerr": err, "softmax_relerr": ((y - torch.softmax(x, 1)).norm() / torch.softmax(x, 1).norm()).item()}))
with open(os.path.join(os.environ.get("OUT", "/tmp"), f"winners-{PHASE}.json"), "w") as f:
    json.dump(rows, f, indent=1)
