#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test
# (lit and ctest; then the same suites built with ASan + UBSan + LSan,
# scripts/sanitize.sh; then each fuzz target of scripts/fuzz.sh for
# CAPTURE_FUZZ_SECONDS, default 60, from seed 1). Exits non-zero on any
# failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

# The tracer's compile cache (lib/Compiler/CompileCache) for the suites:
# inside the build, so that a fresh build starts with none and nothing is
# written under $HOME.
export CAPTURE_CACHE_DIR="${CAPTURE_CACHE_DIR:-$build/compile-cache}"

status=0
echo "== lit =="
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1
echo "== ctest =="
ctest --test-dir "$build" --output-on-failure -j2 || status=1
echo "== sanitizers (scripts/sanitize.sh) =="
"$root/scripts/sanitize.sh" || status=1
echo "== fuzzing (scripts/fuzz.sh) =="
CAPTURE_FUZZ_SEED="${CAPTURE_FUZZ_SEED:-1}" \
  "$root/scripts/fuzz.sh" "${CAPTURE_FUZZ_SECONDS:-60}" || status=1
exit $status
