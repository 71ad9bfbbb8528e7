#!/usr/bin/env bash
# On a fresh Debian 12 machine: installs what Kiln needs, builds it, and runs the demo (the
# OpenCL devices, then a tiled matrix multiplication on the default device, with timings).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
OCL_ICD_VENDORS="$PWD/build/icd" build/examples/kiln-demo "$@"
