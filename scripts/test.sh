#!/usr/bin/env bash
# The whole test suite: set up, build, then doctest units (ctest), lit
# (IR and CLI), pytest (generated kernels on the CPU interpreter, the Python
# runtime, cache and server integration with real processes) and the two KIR
# fuzzers (parser; whole compile) for 60 s each.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BUILD="$ROOT/build"
export INTENTC="$BUILD/bin/intentc"
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"

echo "== doctest units"
ctest --test-dir "$BUILD" --output-on-failure -j 2
echo "== lit"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -q "$BUILD/tests"
echo "== fuzz (KIR parser + verifier; KIR compile; ${FUZZ_SECONDS:-60} s each)"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}" "$ROOT/tests/fuzz/run.sh"
cd "$ROOT"
# One pytest session per suite: each suite has its own conftest helpers.
# The generated-kernel suite runs on the CPU interpreter: spread it over both cores.
for suite in tests/python/runtime "tests/python/providers -n 2" tests/integration/cache tests/integration/server; do
  echo "== pytest $suite"
  # shellcheck disable=SC2086
  python3 -m pytest -q -p no:cacheprovider $suite
done
