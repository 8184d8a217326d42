#!/usr/bin/env bash
# Builds the two KIR fuzzers with clang (separate build dir) and runs each for
# ${FUZZ_SECONDS:-60} seconds: the parser fuzzer (parse + verify) on a corpus seeded
# from examples/ and tests/KIR, the compile fuzzer (shared passes, Triton and reference
# serializers) on one seeded from every valid kernel of the repository.
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
ninja -C "$BUILD" -j "${FUZZ_JOBS:-2}" kir-parser-fuzzer kir-compile-fuzzer

ARTIFACTS="$BUILD/fuzz/artifacts"
mkdir -p "$BUILD/fuzz/corpus" "$BUILD/fuzz/compile-corpus" "$ARTIFACTS"
cp "$ROOT"/examples/*.kir "$BUILD/fuzz/corpus"/ 2>/dev/null || true
# The invalid lit tests are good seeds too (they exercise every diagnostic path).
cp "$ROOT"/tests/KIR/*.kir "$ROOT"/tests/GPU/*.kir "$BUILD/fuzz/corpus"/ 2>/dev/null || true
# Stage IR with an igpu.program (intentc compile --stage shared): the program ops' verifiers,
# and the pipeline that erases and rebuilds the program.
cp "$ROOT"/tests/fuzz/seeds/*.kir "$BUILD/fuzz/corpus"/
# The compile fuzzer starts from kernels that verify, so mutations reach the passes.
cp "$ROOT"/examples/*.kir "$ROOT"/tests/python/providers/kir/*.kir "$ROOT"/tests/KIR/roundtrip-*.kir \
  "$ROOT"/tests/fuzz/seeds/*.kir \
  "$BUILD/fuzz/compile-corpus"/ 2>/dev/null || true
# ... and from random well-typed kernels (the generator of the differential test).
for seed in $(seq 0 63); do
  python3 "$ROOT/tests/python/providers/random_kernels.py" "$seed" > "$BUILD/fuzz/compile-corpus/random-$seed.kir"
done

# ASan: libMLIR/libLLVM are not instrumented; leak checking stays on. LLVM's inline
# BumpPtrAllocator poisons its slabs only in instrumented code, so a slab an
# instrumented TU opened and libMLIR then fills reads as use-after-poison:
# allow_user_poisoning=0 ignores those manual annotations (real heap errors stay).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allow_user_poisoning=0}"
for fuzzer in kir-parser-fuzzer:corpus kir-compile-fuzzer:compile-corpus; do
  echo "fuzz: ${fuzzer%%:*} for ${SECONDS_TO_RUN}s"
  "$BUILD/fuzz/${fuzzer%%:*}" "$BUILD/fuzz/${fuzzer#*:}" \
    -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
    -dict="$ROOT/tests/fuzz/kir.dict" -artifact_prefix="$ARTIFACTS/${fuzzer%%:*}-" -print_final_stats=1
done
echo "fuzz: no crash in ${SECONDS_TO_RUN}s per fuzzer (artifacts would be in $ARTIFACTS)"
