#!/usr/bin/env bash
# Whole-process time of `intentc compile` for an already-cached kernel (a warm
# cache hit) versus the same compile with --no-cache. Prints the median of N
# runs of each and the ratio.
#
# usage: scripts/bench/cache_hit.sh [KIR] [N]
# env:   INTENTC (default <repo>/build/bin/intentc), TARGET (default triton,
#        falls back to reference when triton cannot compile), N (default 50)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
intentc=${INTENTC:-$repo/build/bin/intentc}
kir=${1:-$repo/examples/softmax.kir}
n=${2:-${N:-50}}
target=${TARGET:-triton}

[ -x "$intentc" ] || { echo "error: intentc not found at $intentc (set INTENTC)" >&2; exit 1; }
[ -r "$kir" ] || { echo "error: cannot read $kir" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export INTENT_CACHE_DIR=$work/cache
unset INTENT_CACHE_FAULT

if ! "$intentc" compile "$kir" --target "$target" --no-cache >/dev/null 2>"$work/probe.err"; then
  if [ -z "${TARGET:-}" ]; then
    echo "note: target triton failed ($(head -1 "$work/probe.err")); using reference" >&2
    target=reference
  else
    cat "$work/probe.err" >&2; exit 1
  fi
fi

# Warm the cache and check that the next compile is a hit.
"$intentc" compile "$kir" --target "$target" >/dev/null 2>&1
"$intentc" compile "$kir" --target "$target" 2>&1 >/dev/null | grep -q "cache: hit" ||
  { echo "error: the warm compile was not a cache hit" >&2; exit 1; }

# time_runs LABEL ARGS...: runs `intentc ARGS` N times, prints the median in ms.
time_runs() {
  local out=$work/$1.times; shift
  : >"$out"
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s%N)
    "$intentc" "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 )) >>"$out"
  done
  sort -n "$out" | awk '{a[NR]=$1} END {m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.2f\n", m/1000}'
}

hit=$(time_runs hit compile "$kir" --target "$target")
nocache=$(time_runs nocache compile "$kir" --target "$target" --no-cache)
ratio=$(awk -v a="$nocache" -v b="$hit" 'BEGIN {printf "%.2f", a/b}')

echo "intentc:   $intentc"
echo "kernel:    $kir (target $target), N=$n runs each, whole process"
echo "cache hit: median ${hit} ms"
echo "no-cache:  median ${nocache} ms"
echo "ratio:     ${ratio}x (no-cache / hit)"
