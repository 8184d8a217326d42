#!/usr/bin/env bash
# Builds the KIR parser fuzzer with clang (separate build dir) and runs it for
# ${FUZZ_SECONDS:-60} seconds on a corpus seeded from examples/ and tests/KIR.
# Exits non-zero when the build fails or libFuzzer finds a crash/leak/timeout.
#   FUZZ_BUILD_DIR   build directory (default: <repo>/build-fuzz)
#   FUZZ_SECONDS     run time (default 60)
#   FUZZ_SANITIZERS  -fsanitize list (default fuzzer,address)
#   FUZZ_JOBS        ninja -j (default 2)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_TO_RUN="${FUZZ_SECONDS:-60}"
SANITIZERS="${FUZZ_SANITIZERS:-fuzzer,address}"

# The shared libMLIR/libLLVM: statically linked, their inline LLVM allocators
# would mix with ASan-instrumented copies (false use-after-poison reports).
CC=clang-19 CXX=clang++-19 cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DINTENT_ENABLE_FUZZ=ON -DINTENT_FUZZ_SANITIZERS="$SANITIZERS" -DINTENT_SHARED_LLVM=ON \
  -DINTENT_SKIP_LAYERS="Cache;Tuning;Server" >/dev/null
ninja -C "$BUILD" -j "${FUZZ_JOBS:-2}" kir-parser-fuzzer

CORPUS="$BUILD/fuzz/corpus"
ARTIFACTS="$BUILD/fuzz/artifacts"
mkdir -p "$CORPUS" "$ARTIFACTS"
cp "$ROOT"/examples/*.kir "$CORPUS"/ 2>/dev/null || true
# The invalid lit tests are good seeds too (they exercise every diagnostic path).
cp "$ROOT"/tests/KIR/*.kir "$CORPUS"/ 2>/dev/null || true

# ASan: libMLIR/libLLVM are not instrumented; leak checking stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
"$BUILD/fuzz/kir-parser-fuzzer" "$CORPUS" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
  -dict="$ROOT/tests/fuzz/kir.dict" -artifact_prefix="$ARTIFACTS/" -print_final_stats=1
echo "fuzz: no crash in ${SECONDS_TO_RUN}s (artifacts would be in $ARTIFACTS)"
