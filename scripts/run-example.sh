#!/usr/bin/env bash
# README command 1: installs what is missing, builds, compiles the example
# model once and replays it on the Vulkan device (lavapipe when there is no
# GPU), printing its outputs and the time per replay.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_BUILD_DIR:-$root/build}"
model="$root/examples/mlp_forward.mlir"
work="$build/example"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

mkdir -p "$work"
echo "== compile: capture-aot $(basename "$model") =="
"$build/bin/capture-aot" "$model" -o "$work/mlp.capmod"
"$build/bin/capture-interp" "$model" --entry predict --make-inputs "$work/in" --seed 1
echo "== replay: capture-run (1000 replays) =="
"$build/tools/capture-run/capture-run" "$work/mlp.capmod" --entry predict \
  --input obs="$work/in/obs.npy" --probe hidden --output-dir "$work/out" \
  --repeat 1000
echo "== check against the reference interpreter =="
"$build/bin/capture-interp" "$model" --entry predict \
  --input obs="$work/in/obs.npy" --compare "$work/out"
