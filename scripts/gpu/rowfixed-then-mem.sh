#!/usr/bin/env bash
# One device call for issue #4 (about 9 minutes; run from the repository root on the GPU machine):
# probe.py rowfixed, then harness.py mem on .gpu-artifacts/fixed (a build of branch fixed-merge) when
# the compiled fixed merge beat the shipped rows by more than 1% and was correct, else on .gpu-artifacts,
# then probe.py fewrows with the time left ($BUDGET seconds in all, default 580). Outputs: $OUT/{rowfixed,mem,fewrows}.txt, rowfixed.json and probe.json (fewrows).
export INTENT_CACHE_DIR=/tmp/icache
BUDGET=${BUDGET:-580}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv,noheader
timeout 240 python3 scripts/gpu/probe.py .gpu-artifacts rowfixed > "$OUT"/rowfixed.txt 2>&1; echo "rowfixed rc=$? t=$SECONDS"
grep -v "^$" "$OUT"/rowfixed.txt | grep "kind=rowfixed" | sed 's/kind=rowfixed shape=256x65536 //' | tail -45
mv "$OUT"/probe.json "$OUT"/rowfixed.json  # probe.py's rows; the fewrows run below writes its own
ART=$(python3 - "$OUT"/rowfixed.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
compiled = [r for r in rows if r.get("variant", "").startswith("compiled fixed")]
correct = all(r["err"] < 1e-5 for r in compiled if r["kind"] == "rowfixed_check")
best = {tag: max((r["TBps_median"] for r in rows if r["kind"] == "rowfixed" and r.get("variant", "").startswith(tag)), default=0)
        for tag in ("compiled fixed", "shipped")}
print(best, "correct" if correct else "NOT correct", file=sys.stderr)
print(".gpu-artifacts/fixed" if compiled and correct and best["compiled fixed"] > 1.01 * best["shipped"] else ".gpu-artifacts")
PY
)
ART=${ART:-.gpu-artifacts}  # rowfixed failed: main's artifacts
echo "harness ART=$ART t=$SECONDS"
timeout $((BUDGET - 35 - SECONDS)) python3 scripts/gpu/harness.py "$ART" mem > "$OUT"/mem.txt 2>&1; echo "mem rc=$? t=$SECONDS"
grep -v "^$" "$OUT"/mem.txt | cut -c1-260 | tail -70
left=$((BUDGET - SECONDS))
if [ $left -gt 60 ]; then
  timeout "$left" python3 scripts/gpu/probe.py .gpu-artifacts fewrows > "$OUT"/fewrows.txt 2>&1; echo "fewrows rc=$? t=$SECONDS"
  grep -v "_screen" "$OUT"/fewrows.txt | tail -30
fi
