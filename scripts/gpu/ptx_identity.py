#!/usr/bin/env python3
"""Checks that two generated contraction modules compile to the same PTX for sm_90.

  python3 scripts/gpu/ptx_identity.py OLD/kernel.py NEW/kernel.py <kernel>_kernel fp16|bf16

For a refactor of the contraction emitter whose source text changes but whose meaning must
not: compiles the first shipped candidate of NEW with Triton for sm_90 (no GPU needed; Triton
bundles ptxas) in four forms -- as is, persistent (WORKERS 132), split K (SPLIT_K 4) and pointer
access (USE_TENSOR_DESCRIPTOR 0) -- from both modules, and compares the PTX without comments,
debug locations and label names. Exits 1 on any difference or compile error. Operands named
a, b, c are views of the given dtype, bias and ws f32, sem i32; other arguments are i32.
"""
import importlib.util
import re
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ptx(mod, kernel, cand, dtype):
    fn = getattr(mod, kernel)
    names = fn.arg_names
    sig, const = {}, {}
    blocks = {"a_desc": [cand["BM"], cand["BK"]],
              "b_desc": [cand["BN"], cand["BK"]] if "_bt" in kernel else [cand["BK"], cand["BN"]],
              "c_odesc": [cand["BM"], cand["BN"]]}
    for p in names:
        if p in cand:
            const[p] = cand[p]
        elif p in ("a", "b", "c"):
            sig[p] = "*" + dtype
        elif p in ("bias", "ws"):
            sig[p] = "*fp32"
        elif p == "sem":
            sig[p] = "*i32"
        elif p in blocks:
            if cand["USE_TENSOR_DESCRIPTOR"]:
                sig[p] = "tensordesc<%s%s>" % (dtype, str(blocks[p]).replace(" ", ""))
            else:
                const[p] = None
        elif p == "FLAT":
            const[p] = 0
        else:
            sig[p] = "i32"
    for p in const:
        sig[p] = "constexpr"
    src = ASTSource(fn, sig, constexprs={(names.index(p),): v for p, v in const.items()})
    out = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                         options={"num_warps": cand["NUM_WARPS"], "num_stages": cand["NUM_STAGES"]}).asm["ptx"]
    out = re.sub(r"^\s*//.*$", "", out, flags=re.M)
    out = re.sub(r"\.(loc|file)\b.*", "", out)
    out = re.sub(r"^\s*\.section\s+\.debug.*", "", out, flags=re.M | re.S)
    return re.sub(r"\$L__\w+", "L", out)


def main():
    old_path, new_path, kernel, dtype = sys.argv[1:5]
    old, new = load(old_path, "old_module"), load(new_path, "new_module")
    bad = 0
    for form in ({}, {"WORKERS": 132}, {"SPLIT_K": 4}, {"USE_TENSOR_DESCRIPTOR": 0}):
        cand = dict(new.CANDIDATES[0], **form)
        try:
            same = ptx(old, kernel, cand, dtype) == ptx(new, kernel, cand, dtype)
        except Exception as e:  # noqa: BLE001 -- report and count
            print("error", form, repr(e)[:300])
            bad += 1
            continue
        print("same" if same else "DIFFERENT", form or "as shipped")
        bad += not same
    print(f"{kernel}: {'identical PTX' if not bad else f'{bad} form(s) differ or failed'} (Triton {triton.__version__})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
