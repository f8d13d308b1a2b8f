#!/usr/bin/env bash
# Builds the runtime's host code with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into ./build-fuzz (or $CAPTURE_FUZZ_BUILD_DIR),
# runs its device-free unit tests under them, then fuzzes the module loader
# and the .npy reader for SECONDS each (default 60) from a seed corpus of
# valid files. Any crash, sanitizer report or failed round trip fails the
# run and leaves the input in build-fuzz/crashes/.
#   usage: scripts/fuzz.sh [SECONDS]
# With CAPTURE_FUZZ_RUNS=N (what scripts/test.sh, so CI, uses) each target
# runs exactly N inputs from seed 1 instead: the same inputs on every
# machine, so a CI failure reproduces.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
case "$seconds" in
  ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac
if [ -n "${CAPTURE_FUZZ_RUNS:-}" ]; then
  case "$CAPTURE_FUZZ_RUNS" in
    ''|*[!0-9]*) echo "fuzz.sh: CAPTURE_FUZZ_RUNS must be a whole number, got '$CAPTURE_FUZZ_RUNS'" >&2; exit 2 ;;
  esac
fi

"$root/scripts/install-deps.sh"
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=all"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root/runtime" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCAPTURE_RT_FUZZERS=ON
fi
cmake --build "$build" --target capture-capmod-fuzzer capture-npy-fuzzer \
  capture-capmod-tests capture-npy-tests capture-rt-make-testmod \
  capture-rt-test-kernels

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "== device-free unit tests under ASan + UBSan =="
(cd "$build/test" && ./capture-capmod-tests --gtest_brief=1 && ./capture-npy-tests --gtest_brief=1)

# Seeds: the runtime tests' modules (each FlatBuffers part behind an even
# mode byte, each whole file behind an odd one) and a few .npy files.
corpus="$build/corpus"
mkdir -p "$corpus/capmod" "$corpus/npy" "$build/crashes"
"$build/test/capture-rt-make-testmod" "$build/seeds" > /dev/null
python3 - "$build/seeds" "$corpus" <<'PY'
import glob, os, struct, sys
seeds, out = sys.argv[1], sys.argv[2]
for path in glob.glob(os.path.join(seeds, "*.capmod")):
    name = os.path.basename(path)
    data = open(path, "rb").read()
    open(os.path.join(out, "capmod", name + ".sealed"), "wb").write(b"\0" + data[:-12])
    open(os.path.join(out, "capmod", name + ".whole"), "wb").write(b"\1" + data)
for path in glob.glob(os.path.join(seeds, "*.npy")):
    open(os.path.join(out, "npy", os.path.basename(path)), "wb").write(open(path, "rb").read())
PY
# Inputs that once failed (runtime/fuzz/regressions/<target>/): every run
# replays them first.
for target in capmod npy; do
  if [ -d "$root/runtime/fuzz/regressions/$target" ]; then
    cp "$root/runtime/fuzz/regressions/$target"/* "$corpus/$target/"
  fi
done

budget=(-max_total_time="$seconds")
what="for $seconds s"
if [ -n "${CAPTURE_FUZZ_RUNS:-}" ]; then
  budget=(-runs="$CAPTURE_FUZZ_RUNS" -seed=1)
  what="for $CAPTURE_FUZZ_RUNS inputs from seed 1"
fi
for target in capmod npy; do
  echo "== fuzzing the $target reader $what =="
  "$build/fuzz/capture-$target-fuzzer" "${budget[@]}" \
    -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/crashes/$target-" "$corpus/$target" 2>&1 | tail -n 12
done
echo "fuzz: no crash, sanitizer report or failed round trip"
