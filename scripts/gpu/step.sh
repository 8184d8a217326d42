# Sourced by the device-call scripts beside it (run from the repository root on the GPU machine).
# step NAME SECONDS COMMAND...: runs COMMAND under a time limit into $OUT/NAME.txt and prints its exit
# status and the call's elapsed seconds; probe.py's rows ($OUT/probe.json) are kept as $OUT/NAME.json,
# so that the next probe does not overwrite them. A limit below one second skips the step.
step() {
  local name=$1 limit=$2; shift 2
  if [ "$limit" -lt 1 ]; then echo "$name skipped: no time left (t=$SECONDS)" | tee "$OUT/$name.txt"; return 0; fi
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1; echo "$name rc=$? t=$SECONDS"
  if [ -f "$OUT/probe.json" ]; then mv "$OUT/probe.json" "$OUT/$name.json"; fi
}
