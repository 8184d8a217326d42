#!/usr/bin/env bash
# Device calls of stop 48 (run from the repository root on the GPU machine; $BUDGET seconds, default
# 560): does the evict-last hint on a resident row's loads (read once) cost the small rows?
# PART=probe runs steps 1-2 and prints the decision; PART=harness USE=new|old runs step 3.
#   1. probe.py lnbisect on main's artifacts (.gpu-artifacts/<case>): 8192x1024 layernorm f32/f16 and
#      softmax, the hand-written kernel and the generated forms with and without the hint.
#   2. probe.py ab: .gpu-artifacts/<case>_new (branch resident-hint, 39e3932, not landed: no evict-last
#      hint at igpu.at read_once; built on the build machine with
#      `intentc compile .gpu-artifacts/kir/<case>.kir --target triton --no-cache -o .gpu-artifacts/<case>_new/triton`)
#      against main's, each tuned by itself, every layernorm and softmax shape.
#   3. harness.py mem, on the branch's modules (USE=new: step 2's new/old ratios had a geometric
#      mean of at least 1 and none below 0.97) or on main's (USE=old).
# Outputs: $OUT/<step>.txt and <step>.json (probe rows) or results-mem.json (harness).
export INTENT_CACHE_DIR=/tmp/icache
BUDGET=${BUDGET:-560}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
. "$(dirname "$0")/step.sh"
shown() {  # shown NAME SECONDS COMMAND...: step, then the timing rows of $OUT/NAME.txt
  local name=$1
  step "$@"
  grep -v "^$" "$OUT/$name.txt" | grep -v "_check\|_winner\|-winner" | sed 's/ shape=8192x1024//; s/kind=//' \
    | cut -c1-150 | tail -"${TAIL:-30}"
}
if [ "${PART:-probe}" = harness ]; then
  if [ "${USE:-old}" = new ]; then
    for c in layernorm layernorm_f32 softmax; do
      rm -rf ".gpu-artifacts/$c/triton" && cp -r ".gpu-artifacts/${c}_new/triton" ".gpu-artifacts/$c/triton"
    done
  fi
  TAIL=60 shown mem $((BUDGET - 10 - SECONDS)) python3 scripts/gpu/harness.py .gpu-artifacts mem
  exit 0
fi
LNB_FORMS=${LNB_FORMS:-4m1,4m2,8m4} ROUNDS=6 TAIL=40 shown lnbisect 200 python3 scripts/gpu/probe.py .gpu-artifacts lnbisect
AB_NEW=_new AB_OLD= ROUNDS=6 shown ab 200 python3 scripts/gpu/probe.py .gpu-artifacts ab
python3 - "$OUT/lnbisect.json" "$OUT/ab.json" > "$OUT/decision.txt" <<'PY'
import json, math, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["kind"] == "lnbisect_check"]
bad = [r for r in rows if not r["err"] <= (2e-3 if r["case"] == "layernorm" else 1e-5)]
print(f"lnbisect checks: {len(rows)}, over tolerance: {len(bad)}", *bad, sep="\n", file=sys.stderr)
ab = [r for r in json.load(open(sys.argv[2])) if r["kind"] == "ab"]
ratios = [r["ratio"] for r in ab]
gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else 0
print(f"ab: {len(ab)} shapes, geomean new/old {gm:.4f}, min {min(ratios, default=0):.4f}", file=sys.stderr)
print("new" if ratios and gm >= 1.0 and min(ratios) >= 0.97 else "old")
PY
echo "decision: $(cat "$OUT/decision.txt")"
