#!/usr/bin/env bash
# Installs the Debian packages Capture needs. Safe to re-run: does nothing when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build python3
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libvulkan-dev mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  spirv-tools libflatbuffers-dev flatbuffers-compiler
  # The module file's checksum (header-only use of xxhash.h).
  libxxhash-dev
  libgtest-dev libbenchmark-dev
  # scripts/sanitized-build.sh: the sanitizers and libFuzzer come with
  # clang 22 (the same LLVM as MLIR's headers), linked by lld.
  clang-22 libclang-rt-22-dev lld-22
  # The PyTorch peer of the training-step numerics tests (for /usr/bin/python3);
  # OpenBLAS so that it is not running on the reference BLAS.
  python3-torch python3-numpy libopenblas0-pthread
  # bench/run.py --write-docs plots docs/benchmarks.png.
  python3-matplotlib
  # The installed package's test links an outside program with pkg-config.
  pkg-config
  # The Python package (python/): pybind11 and the interpreter's headers.
  pybind11-dev python3-pybind11 python3-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
