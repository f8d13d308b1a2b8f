#!/usr/bin/env bash
# README command 1: installs what is missing, builds, compiles the PPO
# training step (examples/ppo_train.mlir: forward, backward, clip_grad_norm_,
# AdamW) once and trains it on the Vulkan device (lavapipe when there is no
# GPU), one queue submission per step, printing the loss, the gradient norm
# and the time per step; then checks the device against the reference
# interpreter, and compares the time per step with the PyTorch peer
# (bench/ppo_torch.py, one CPU thread) in the same run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_BUILD_DIR:-$root/build}"
model="$root/examples/ppo_train.mlir"
work="$build/example"
steps="${CAPTURE_EXAMPLE_STEPS:-200}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

rm -rf "$work" && mkdir -p "$work"
echo "== compile once: capture-aot $(basename "$model") =="
"$build/bin/capture-aot" "$model" -o "$work/ppo.capmod"
/usr/bin/python3 "$root/examples/ppo_init.py" "$work/data"
args=()
for name in obs act adv ret old_logp; do
  args+=(--input "$name=$work/data/input.$name.npy")
done
for file in "$work"/data/init.*.npy; do
  name="$(basename "$file" .npy)"
  args+=(--param "${name#init.}=$file")
done

echo "== train $steps steps on the device: capture-run (every 20th step) =="
"$build/tools/capture-run/capture-run" "$work/ppo.capmod" --entry train \
  --steps "$steps" "${args[@]}" --save-params "$work/device" \
  | awk '/^step / { n = $2 + 0; if (n == 1 || n % 20 == 0) print; next }
         /^(device|llvmpipe|command|train)/ { print }' | tee "$work/train.txt"

echo "== the same step in PyTorch on the CPU (bench/ppo_torch.py, 1 thread) =="
/usr/bin/python3 "$root/bench/ppo_torch.py" --steps "$steps" | tee "$work/torch.txt"
/usr/bin/python3 - "$work/train.txt" "$work/torch.txt" <<'PY'
import re, sys
capture = float(re.search(r"median ([0-9.]+) us", open(sys.argv[1]).read()).group(1))
torch = float(re.search(r"median ([0-9.]+),", open(sys.argv[2]).read()).group(1))
print("median us/step: captured replay %.1f, PyTorch %.1f: PyTorch / replay = %.2f "
      "(above 1: the replay is faster; see docs/benchmarks.md)" % (capture, torch, torch / capture))
PY

echo "== the same 20 steps: device vs the reference interpreter =="
"$build/tools/capture-run/capture-run" "$work/ppo.capmod" --entry train \
  --steps 20 "${args[@]}" | grep '^step' > "$work/device20.txt"
"$build/bin/capture-interp" "$model" --entry train --steps 20 "${args[@]}" \
  | grep '^step' > "$work/interp20.txt"
/usr/bin/python3 - "$work/device20.txt" "$work/interp20.txt" <<'PY'
import re, sys
def losses(path):
    return [float(m.group(1)) for m in
            re.finditer(r"loss=(\S+)", open(path).read())]
dev, ref = losses(sys.argv[1]), losses(sys.argv[2])
worst = max(abs(d - r) / max(abs(r), 1e-5) for d, r in zip(dev, ref))
print("loss over 20 steps: device vs interpreter, max relative difference "
      "%.2e (%s)" % (worst, "ok" if worst <= 1e-4 and len(dev) == 20 else "MISMATCH"))
sys.exit(0 if worst <= 1e-4 and len(dev) == 20 else 1)
PY
