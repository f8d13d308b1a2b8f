#!/usr/bin/env bash
# --inputs-dir: a new batch each step from DIR/step-K/<input>.npy gives
# the same steps as the same inputs given with --input-at; --print adds a
# scalar output to every step line. A missing step directory, or a file
# that names no input, is a usage error before the first step.
#   usage: CAPTURE_RUN OUT ARGS...   (run in the directory of the module)
set -euo pipefail
run="$1" out="$2"
shift 2
rm -rf "$out" && mkdir -p "$out/batches/step-1" "$out/batches/step-2" "$out/batches/step-3"
cp tx.npy "$out/batches/step-1/x.npy"
cp tx2.npy "$out/batches/step-2/x.npy"
cp tx.npy "$out/batches/step-3/x.npy"
"$run" "$@" --steps 3 --inputs-dir "$out/batches" --print loss > "$out/dir.txt"
"$run" "$@" --steps 3 --input-at 1:x=tx.npy --input-at 2:x=tx2.npy \
  --input-at 3:x=tx.npy > "$out/at.txt"
grep '^step' "$out/dir.txt" | sed 's/ loss=[^ ]*$//' > "$out/dir-steps.txt"
grep '^step' "$out/at.txt" > "$out/at-steps.txt"
if [ "$(wc -l < "$out/at-steps.txt")" -ne 3 ] || ! diff "$out/at-steps.txt" "$out/dir-steps.txt"; then
  echo "check_inputs_dir: --inputs-dir trains differently from --input-at" >&2
  exit 1
fi
# --print repeats output 0 (loss) at the end of each line.
grep -qE '^step 2: loss=([^ ]+) grad_norm=[^ ]+ loss=\1$' "$out/dir.txt"
rm -r "$out/batches/step-3"
if "$run" "$@" --steps 3 --inputs-dir "$out/batches" 2> "$out/missing.txt"; then
  echo "check_inputs_dir: a missing step directory was accepted" >&2; exit 1
fi
grep -q "no directory '.*step-3'; expected one per step, step-1 to step-3" "$out/missing.txt"
cp tx.npy "$out/batches/step-2/y.npy"
if "$run" "$@" --steps 2 --inputs-dir "$out/batches" 2> "$out/unknown.txt"; then
  echo "check_inputs_dir: a file naming no input was accepted" >&2; exit 1
fi
grep -q "step-2/y.npy' is not <input>.npy for an input of entry 'train'" "$out/unknown.txt"
echo "--inputs-dir and --print: same steps as --input-at, bad directories refused"
