#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and benchmarking Kiln needs.
# Idempotent: when everything is present it prints nothing and changes nothing.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config
  # compiler: Clang and LLVM 22 as shared libraries, libclc for the NVPTX builtins
  llvm-22-dev libclang-22-dev libclang-cpp22-dev clang-22 libclc-22
  # the sanitizers' runtimes for Clang, which compiles the test script's sanitizer builds
  libclang-rt-22-dev
  # OpenCL: Khronos headers, the ICD loader that applications and tests link against, clinfo
  opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 clinfo
  # SPIR-V input: SPIRV-Tools' validator (linked in) and the Khronos translator (run as a
  # separate process)
  spirv-tools llvm-spirv-15
  # vector math with known error bounds
  libsleef-dev
  # hashing for the on-disk program cache
  libxxhash-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the CPU peer used in side-by-side comparisons
  pocl-opencl-icd
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
