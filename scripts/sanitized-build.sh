#!/usr/bin/env bash
# Configures (once) and builds the whole project with clang 22,
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation into ./build-san (or $CAPTURE_SAN_BUILD_DIR), fuzz
# targets included. With arguments, builds only those targets.
#   usage: scripts/sanitized-build.sh [TARGET...]
# scripts/sanitize.sh runs the test suites from this build and
# scripts/fuzz.sh its fuzzers. Our code keeps its assertions here (no
# NDEBUG); LLVM, MLIR, Mesa and the Vulkan loader are Debian's, not
# instrumented.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_SAN_BUILD_DIR:-$root/build-san}"
llvm=/usr/lib/llvm-22

"$root/scripts/install-deps.sh"
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined"
flags="$flags -fsanitize=fuzzer-no-link -fno-sanitize-recover=all"
link="-fuse-ld=lld -fsanitize=address,undefined"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE= \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    -DCAPTURE_FUZZERS=ON \
    -DCAPTURE_INSTALL_TEST=OFF -DCAPTURE_PYTHON=OFF
fi
if [ $# -eq 0 ]; then
  cmake --build "$build"
else
  cmake --build "$build" --target "$@"
fi
