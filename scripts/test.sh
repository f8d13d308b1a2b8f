#!/usr/bin/env bash
# README command 2: installs what is missing, builds, and runs every test
# (lit, then ctest). Exits non-zero on any failure.
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
exit $status
