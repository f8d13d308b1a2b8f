#!/usr/bin/env bash
# README command 1: installs what is missing, builds, then runs the PPO
# actor-critic written as C++ tensor code (examples/cpp/ppo.cpp): its
# training step (forward, backward, clip_grad_norm_, AdamW) is traced once,
# compiled in-process and trained on the Vulkan device (lavapipe when there
# is no GPU), one queue submission per step, printing the loss curve, the
# time per step and a prediction over the trained weights, and writing the
# curve as a PNG. Then it compares the time per step with the PyTorch peer
# (bench/ppo_torch.py, one CPU thread) in the same run, and takes the traced
# module through the AOT path (capture-aot, capture-run) against the
# reference interpreter.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CAPTURE_BUILD_DIR:-$root/build}"
work="$build/example"
steps="${CAPTURE_EXAMPLE_STEPS:-200}"

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"

rm -rf "$work" && mkdir -p "$work"
/usr/bin/python3 "$root/examples/ppo_init.py" "$work/data"
echo "== the PPO step as C++ tensor code: traced once, trained $steps steps (examples/cpp/ppo.cpp) =="
"$build/examples/cpp/capture-example-ppo" --data "$work/data" --steps "$steps" \
  --mlir "$work/ppo.mlir" --plot "$work/ppo-loss.png" | tee "$work/train.txt"

echo "== the same step in PyTorch on the CPU (bench/ppo_torch.py, 1 thread) =="
/usr/bin/python3 "$root/bench/ppo_torch.py" --steps "$steps" | tee "$work/torch.txt"
/usr/bin/python3 - "$work/train.txt" "$work/torch.txt" <<'PY'
import re, sys
capture = float(re.search(r"median ([0-9.]+) us/step", open(sys.argv[1]).read()).group(1))
torch = float(re.search(r"median ([0-9.]+),", open(sys.argv[2]).read()).group(1))
print("median us/step: captured step %.1f, PyTorch %.1f: PyTorch / captured = %.2f "
      "(above 1: Capture is faster; see docs/benchmarks.md)" % (capture, torch, torch / capture))
PY

model="$work/ppo.mlir"
echo "== the AOT path: capture-aot on the traced module (host code and SPIR-V); 20 steps on the device vs the reference interpreter =="
"$build/bin/capture-aot" "$model" --target=cpu -o "$work/ppo.capmod"
args=()
for name in obs act adv ret old_logp; do
  args+=(--input "$name=$work/data/input.$name.npy")
done
for file in "$work"/data/init.*.npy; do
  name="$(basename "$file" .npy)"
  args+=(--param "${name#init.}=$file")
done
"$build/tools/capture-run/capture-run" "$work/ppo.capmod" --entry train \
  --steps 20 "${args[@]}" | tee "$work/run20.txt" | grep '^step' > "$work/device20.txt"
grep '^device: ' "$work/run20.txt"
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
