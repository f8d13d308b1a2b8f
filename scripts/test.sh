#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test
# (lit, ctest, then the sanitized host tests and the fuzzers of
# scripts/fuzz.sh, CAPTURE_FUZZ_RUNS inputs each from a fixed seed, default
# 100000). Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_BUILD_DIR:-$root/build}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

status=0
echo "== lit =="
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1
echo "== ctest =="
ctest --test-dir "$build" --output-on-failure -j2 || status=1
echo "== sanitizers and fuzzing (scripts/fuzz.sh) =="
CAPTURE_FUZZ_RUNS="${CAPTURE_FUZZ_RUNS:-100000}" "$root/scripts/fuzz.sh" || status=1
exit $status
