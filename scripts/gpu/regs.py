"""Registers, spills and shared memory of a generated (or any) Triton kernel for sm_90,
compiled on the build machine with the local Triton (no GPU needed): ptxas resource
usage read from the cubin with the bundled cuobjdump. The device runs another Triton
version, so compare kernels with each other, not with device numbers.

  python3 scripts/gpu/regs.py KERNEL_PY JIT_NAME SPEC_JSON NUM_WARPS [PTX_OUT]

SPEC_JSON: constexpr values by argument name, plus "__sig__" (argument -> Triton type,
e.g. "*fp16", "fp32"; other arguments are i32) and "__div__" (arguments specialized as
divisible by 16, like pointers and strides at a real launch). Set an argument to 1
(e.g. the unit stride "x_s1") to specialize it the way Triton does at launch.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


def main():
    path, name, spec, warps = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    mod_spec = importlib.util.spec_from_file_location("kernel_under_test", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    fn = getattr(mod, name)
    types = spec.get("__sig__", {})
    consts = {k: v for k, v in spec.items() if not k.startswith("__")}
    sig = {a: ("constexpr" if a in consts else types.get(a, "i32")) for a in fn.arg_names}
    attrs = {(fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in spec.get("__div__", [])}
    src = ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    with tempfile.TemporaryDirectory() as d:
        cubin = os.path.join(d, "k.cubin")
        with open(cubin, "wb") as f:
            f.write(kernel.asm["cubin"])
        tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        out = subprocess.run([tool, "-res-usage", cubin], capture_output=True, text=True, check=True).stdout
    print(re.findall(r"REG:\d+.*", out)[0])
    if len(sys.argv) > 5:
        with open(sys.argv[5], "w") as f:
            f.write(kernel.asm["ptx"])


if __name__ == "__main__":
    main()
