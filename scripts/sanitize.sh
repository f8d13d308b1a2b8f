#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer, UndefinedBehaviorSanitizer
# and LeakSanitizer (scripts/sanitized-build.sh, into ./build-san) and runs
# its test suites under them: every ctest suite (the runtime, its loader and
# Vulkan paths on lavapipe, the C API, capture-run, the compiler's unit
# tests, the examples) and the lit tests (capture-opt, capture-aot,
# capture-interp, capture-run on every .mlir test). Any sanitizer report
# fails the test that made it.
#   usage: scripts/sanitize.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_SAN_BUILD_DIR:-$root/build-san}"

"$root/scripts/sanitized-build.sh"
# shellcheck source=scripts/sanitizer-env.sh
source "$root/scripts/sanitizer-env.sh"

status=0
echo "== ctest under ASan + UBSan + LSan =="
ctest --test-dir "$build" --output-on-failure -j2 || status=1
echo "== lit under ASan + UBSan + LSan =="
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=1
exit $status
