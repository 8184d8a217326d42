#!/usr/bin/env bash
# One device call for issue #4 (run from the repository root on the GPU machine; $BUDGET seconds, default
# 580): probe.py rowstate, harness.py mem, probe.py rowstate again. The two rowstate readings of the
# 256x65536 row sum bracket the harness's: if the harness reads it lower than both, the harness's earlier
# cases, not the card, cost it. PRE="mode ..." runs those probe.py modes first, on any card (into
# $OUT/pre.txt and pre.json); the rest exits 3 unless the card is an H200 (set ANY_GPU=1 to run it
# anyway), since the acceptance bars are the H200's.
# Outputs: $OUT/{rowstate0,mem,rowstate1}.txt, rowstate0.json, rowstate1.json, results-mem.json.
export INTENT_CACHE_DIR=/tmp/icache
BUDGET=${BUDGET:-580}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
. "$(dirname "$0")/step.sh"
if [ -n "$PRE" ]; then
  step pre 150 python3 scripts/gpu/probe.py .gpu-artifacts $PRE
  grep -v "^$" "$OUT/pre.txt" | cut -c1-200 | tail -40
fi
if [ -z "$ANY_GPU" ] && ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  echo "not an H200: nothing more run"; exit 3
fi
rowstate() {  # rowstate NAME
  ROUNDS=6 step "$1" 90 python3 scripts/gpu/probe.py .gpu-artifacts rowstate
  grep "kind=rowstate" "$OUT/$1.txt" | cut -c1-200
}
rowstate rowstate0
step mem $((BUDGET - 100 - SECONDS)) python3 scripts/gpu/harness.py .gpu-artifacts mem
grep -v "^$" "$OUT/mem.txt" | cut -c1-220 | tail -60
rowstate rowstate1
