#!/usr/bin/env bash
# The main job on the bundled examples: set up, build, compile every example
# for Triton (and the PyTorch reference) into out/examples/, then run each
# generated Triton kernel on the CPU interpreter against the reference.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
INTENTC="$ROOT/build/bin/intentc"
OUT="${OUT_DIR:-$ROOT/out/examples}"
mkdir -p "$OUT"
printf '%-20s %-22s %s\n' kernel family candidates
for f in "$ROOT"/examples/*.kir; do
  name="$(basename "$f" .kir)"
  "$INTENTC" compile "$f" --target reference -o "$OUT/$name/reference" >/dev/null 2>&1
  if summary="$("$INTENTC" compile "$f" --target triton -o "$OUT/$name/triton" --json 2>"$OUT/$name.log")"; then
    python3 -c 'import json,sys; [print("%-20s %-22s %d" % (k["name"], k["family"], k["candidates"])) for k in json.load(sys.stdin)["kernels"]]' <<<"$summary"
  else
    printf '%-20s %s\n' "$name" "not realized for triton: $(head -1 "$OUT/$name.log")"
  fi
done
echo "artifacts: $OUT"
echo "checking the generated kernels on the CPU interpreter (TRITON_INTERPRET=1)..."
INTENTC="$INTENTC" python3 -m pytest -q "$ROOT/tests/python/providers/test_triton_examples.py" \
  -k "add or softmax or layernorm or row_sum or cumsum or col_sum or gemm_f16"
