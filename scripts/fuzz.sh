#!/usr/bin/env bash
# Runs the libFuzzer targets for SECONDS each (default 60) from the sanitized
# build of scripts/sanitized-build.sh (./build-san): the compiler
# (fuzz/mlir_fuzzer.cpp: .mlir text through parse, verify, the guard, the
# whole pipeline, the module writer and the loader), the module loader
# (runtime/fuzz/capmod_fuzzer.cpp) and the .npy reader
# (runtime/fuzz/npy_fuzzer.cpp). Any crash, sanitizer report, silent
# failure or broken round trip fails the run and leaves the input in
# build-san/crashes/.
#   usage: scripts/fuzz.sh [SECONDS]
# CAPTURE_FUZZ_SEED=N fixes libFuzzer's seed (CI uses 1; it does not make
# a run repeatable, since what libFuzzer keeps depends on coverage and
# timing, hence a finding's input and report in the log);
# CAPTURE_FUZZ_RUNS=N runs exactly N inputs per target instead of SECONDS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_SAN_BUILD_DIR:-$root/build-san}"
seconds="${1:-60}"
number() {
  case "$2" in
    ''|*[!0-9]*) echo "fuzz.sh: $1 must be a whole number, got '$2'" >&2; exit 2 ;;
  esac
}
number SECONDS "$seconds"
[ -z "${CAPTURE_FUZZ_RUNS:-}" ] || number CAPTURE_FUZZ_RUNS "$CAPTURE_FUZZ_RUNS"
[ -z "${CAPTURE_FUZZ_SEED:-}" ] || number CAPTURE_FUZZ_SEED "$CAPTURE_FUZZ_SEED"

"$root/scripts/sanitized-build.sh" capture-mlir-fuzzer capture-capmod-fuzzer \
  capture-npy-fuzzer capture-rt-make-testmod capture-rt-test-kernels \
  capture-aot
# shellcheck source=scripts/sanitizer-env.sh
source "$root/scripts/sanitizer-env.sh"

# Seeds. The compiler's are checked in (fuzz/corpus/mlir, from the lit
# tests by fuzz/make_corpus.py). The loader's are made here, because a
# module file carries its format version and checksum (checked-in ones
# would go stale with every format change): the runtime tests' modules and
# examples/*.mlir compiled by capture-aot (those within the 64 KiB input
# limit: the training steps' kernels make theirs larger), each FlatBuffers
# part behind an even mode byte (resealed by the fuzzer: a hostile file)
# and each whole file behind an odd one (a damaged file). The reader's are
# a few .npy files.
corpus="$build/corpus"
rm -rf "$build/seeds"
mkdir -p "$corpus/mlir" "$corpus/capmod" "$corpus/npy" "$build/crashes"
"$build/runtime/test/capture-rt-make-testmod" "$build/seeds" > /dev/null
for example in "$root"/examples/*.mlir; do
  "$build/bin/capture-aot" "$example" \
    -o "$build/seeds/example-$(basename "$example" .mlir).capmod"
done
# A module with host code (the cpu target), small enough for -max_len.
"$build/bin/capture-aot" "$root/examples/mlp_forward.mlir" --target=cpu \
  -o "$build/seeds/example-mlp_forward-cpu.capmod"
python3 - "$build/seeds" "$corpus" <<'PY'
import glob, os, sys
seeds, out = sys.argv[1], sys.argv[2]
for path in glob.glob(os.path.join(seeds, "*.capmod")):
    name = os.path.basename(path)
    data = open(path, "rb").read()
    if len(data) + 1 > 65536:  # the capmod target's -max_len
        continue
    open(os.path.join(out, "capmod", name + ".sealed"), "wb").write(b"\0" + data[:-12])
    open(os.path.join(out, "capmod", name + ".whole"), "wb").write(b"\1" + data)
for path in glob.glob(os.path.join(seeds, "*.npy")):
    open(os.path.join(out, "npy", os.path.basename(path)), "wb").write(open(path, "rb").read())
PY

# Each target: its binary, its checked-in input folders (seeds, then inputs
# that once failed: every run replays them first), the longest input and
# any other options.
target_setup() {
  case "$1" in
    mlir)
      binary="$build/fuzz/capture-mlir-fuzzer"
      dirs=("$root/fuzz/corpus/mlir" "$root/fuzz/regressions/mlir")
      options=(-max_len=8192 -dict="$root/fuzz/mlir.dict") ;;
    capmod)
      binary="$build/runtime/fuzz/capture-capmod-fuzzer"
      dirs=("$root/runtime/fuzz/regressions/capmod")
      options=(-max_len=65536) ;;
    npy)
      binary="$build/runtime/fuzz/capture-npy-fuzzer"
      dirs=("$root/runtime/fuzz/regressions/npy")
      options=(-max_len=4096) ;;
  esac
}

budget=(-max_total_time="$seconds")
what="for $seconds s"
if [ -n "${CAPTURE_FUZZ_RUNS:-}" ]; then
  budget=(-runs="$CAPTURE_FUZZ_RUNS")
  what="for $CAPTURE_FUZZ_RUNS inputs"
fi
if [ -n "${CAPTURE_FUZZ_SEED:-}" ]; then
  budget+=(-seed="$CAPTURE_FUZZ_SEED")
  what="$what from seed $CAPTURE_FUZZ_SEED"
fi
failed=0
for target in mlir capmod npy; do
  target_setup "$target"
  existing=()
  for d in "${dirs[@]}"; do
    [ -d "$d" ] && existing+=("$d")
  done
  echo "== fuzzing $target $what =="
  # A unit that takes 30 s (a compile that should take milliseconds) is a
  # finding too. The whole log is kept; a finding prints its report (the
  # sanitizer's stack, or what the target printed), which is all a CI log
  # has to go on when the machine that found it is gone.
  log="$build/fuzz-$target.log"
  if "$binary" "${budget[@]}" "${options[@]}" -timeout=30 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/crashes/$target-" \
    "$corpus/$target" "${existing[@]}" > "$log" 2>&1; then
    tail -n 6 "$log"
  else
    # The input first, when small enough to paste back (base64 -d), then
    # the report, so that a log cut to its tail still ends with the stack.
    unit="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    if [ -n "$unit" ] && [ -f "$unit" ] && [ "$(stat -c %s "$unit")" -le 8192 ]; then
      echo "fuzz: the $target input, base64:"
      base64 -w 0 "$unit"
      echo
    fi
    echo "fuzz: $target found a bug (input: ${unit:-none written}; whole log: $log):"
    report="$(grep -n -m1 -E '==[0-9]+==ERROR|runtime error:|deadly signal|Assertion|ALARM|out-of-memory' "$log" | cut -d: -f1)"
    sed -n "${report:-1},/^SUMMARY:/p" "$log" | head -n 80
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED; rerun a finding with its target's binary and the file above"
  exit 1
fi
echo "fuzz: no crash, sanitizer report, silent failure or broken round trip"
