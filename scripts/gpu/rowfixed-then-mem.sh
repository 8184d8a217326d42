#!/usr/bin/env bash
# One device call for issue #4 (about 9 minutes; run from the repository root on the GPU machine):
# probe.py rowfixed, then harness.py mem on .gpu-artifacts/fixed (a build of branch fixed-merge) when
# the compiled fixed merge beat the shipped rows by more than 1% and was correct, else on .gpu-artifacts,
# then probe.py fewrows with the time left. Outputs: $OUT/{rowfixed,mem,fewrows}.txt.
export INTENT_CACHE_DIR=/tmp/icache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv,noheader
timeout 240 python3 scripts/gpu/probe.py .gpu-artifacts rowfixed > "$OUT"/rowfixed.txt 2>&1; echo "rowfixed rc=$? t=$SECONDS"
grep -v "^$" "$OUT"/rowfixed.txt | grep "kind=rowfixed" | sed 's/kind=rowfixed shape=256x65536 //' | tail -45
ART=$(python3 - <<'PY'
import re
best = {}
bad = False
for line in open(__import__("os").environ["OUT"] + "/rowfixed.txt"):
    m = re.match(r"kind=rowfixed_check variant=(.*?) err=(\S+)", line)
    if m and m.group(1).startswith("compiled fixed") and not float(m.group(2)) < 1e-5:
        bad = True
    m = re.match(r"kind=rowfixed shape=\S+ variant=(.*?) TBps_median=(\S+)", line)
    if m:
        tag = "compiled" if m.group(1).startswith("compiled fixed") else "shipped" if m.group(1).startswith("shipped") else None
        if tag:
            best[tag] = max(best.get(tag, 0), float(m.group(2)))
ok = not bad and "compiled" in best and "shipped" in best and best["compiled"] > 1.01 * best["shipped"]
print(".gpu-artifacts/fixed" if ok else ".gpu-artifacts")
import sys; print(best, "bad" if bad else "", file=sys.stderr)
PY
)
echo "harness ART=$ART t=$SECONDS"
timeout $((545 - SECONDS)) python3 scripts/gpu/harness.py "$ART" mem > "$OUT"/mem.txt 2>&1; echo "mem rc=$? t=$SECONDS"
grep -v "^$" "$OUT"/mem.txt | cut -c1-260 | tail -70
left=$((580 - SECONDS))
if [ $left -gt 60 ]; then
  timeout "$left" python3 scripts/gpu/probe.py .gpu-artifacts fewrows > "$OUT"/fewrows.txt 2>&1; echo "fewrows rc=$? t=$SECONDS"
  grep -v "_screen" "$OUT"/fewrows.txt | tail -30
fi
