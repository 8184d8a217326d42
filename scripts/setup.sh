#!/usr/bin/env bash
# Installs what intentc needs on Debian 12, idempotently and quietly when
# everything is already present: the Debian build dependencies (apt) and the
# Python test packages (pip: pytest, numpy, torch, triton).
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build git
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools clang-19 libclang-rt-19-dev
  libzstd-dev zlib1g-dev libcli11-dev libspdlog-dev nlohmann-json3-dev libsqlite3-dev sqlite3 doctest-dev libasio-dev
  valgrind python3 python3-pip
)
# module:package (the import name is checked; a missing one is installed at the version the test
# suite last passed with, so a new PyPI release cannot change a fresh machine's CPU interpreter;
# packages already present are left as they are). torch 2.15 brings triton 3.9 (the lent H200 has
# torch 2.11 / triton 3.6: the GPU harness runs there with those).
PIP_PACKAGES=(pytest:pytest==9.2.0 xdist:pytest-xdist==3.8.0 numpy:numpy==2.4.6 torch:torch==2.15.0 triton:triton==3.9.0)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
pip_missing=()
for entry in "${PIP_PACKAGES[@]}"; do
  "$PY" -c "import ${entry%%:*}" 2>/dev/null || pip_missing+=("${entry#*:}")
done
if [ "${#pip_missing[@]}" -gt 0 ]; then
  echo "setup: pip installing ${pip_missing[*]}"
  "$PY" -m pip install -q "${pip_missing[@]}" 2>/dev/null ||
    "$PY" -m pip install -q --break-system-packages "${pip_missing[@]}"
fi
