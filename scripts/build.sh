#!/usr/bin/env bash
# Configures and builds intentc into build/ (Ninja, RelWithDebInfo).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${INTENT_BUILD_DIR:-$ROOT/build}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINTENT_SKIP_LAYERS= >/dev/null
ninja -C "$BUILD" -j "${INTENT_JOBS:-$(nproc)}"
