#!/usr/bin/env bash
# The traced PPO example (ppo.cpp) against the hand-written module: on the
# same weights and batch (examples/ppo_init.py), its first 20 steps on the
# device print the same losses and gradient norms as train_ppo running the
# capture-aot-compiled examples/ppo_train.mlir, and so does train_ppo (which
# links only the runtime) running the module ppo writes with --mlir,
# compiled by capture-aot (the AOT path).
#   usage: AOT TRAIN_PPO PPO PYTHON EXAMPLES WORK
set -euo pipefail
aot="$1" train_ppo="$2" ppo="$3" python="$4" examples="$5" work="$6"
rm -rf "$work" && mkdir -p "$work"
"$python" "$examples/ppo_init.py" "$work/data"
"$aot" "$examples/ppo_train.mlir" -o "$work/hand.capmod"
"$train_ppo" "$work/hand.capmod" "$work/data" 40 > "$work/hand.txt"
"$ppo" --data "$work/data" --steps 20 --mlir "$work/traced.mlir" > "$work/traced.txt"
cat "$work/traced.txt"
grep -E '^step (1|10|20):' "$work/hand.txt" > "$work/hand-steps.txt"
grep -E '^step (1|10|20):' "$work/traced.txt" > "$work/traced-steps.txt"
if ! diff "$work/hand-steps.txt" "$work/traced-steps.txt"; then
  echo "check_traced_ppo: the traced step trains differently (above: hand-written < > traced)" >&2
  exit 1
fi
# The AOT path: the traced .mlir through capture-aot, replayed by an
# application that links only the runtime (train_ppo), trains alike too.
"$aot" "$work/traced.mlir" -o "$work/traced.capmod"
"$train_ppo" "$work/traced.capmod" "$work/data" 40 > "$work/aot.txt"
grep -E '^step (1|10|20):' "$work/aot.txt" > "$work/aot-steps.txt"
if ! diff "$work/hand-steps.txt" "$work/aot-steps.txt"; then
  echo "check_traced_ppo: the traced module compiled ahead of time trains differently (above: hand-written < > AOT)" >&2
  exit 1
fi
echo "traced PPO: same losses as the hand-written module, in-process and through capture-aot"
