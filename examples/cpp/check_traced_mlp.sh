#!/usr/bin/env bash
# The traced MLP example (mlp.cpp) against the hand-written module: from the
# same initializers and the same batch, its first 20 steps on the device
# print the same losses and gradient norms as capture-run replaying the
# capture-aot-compiled examples/mlp_train.mlir; its --mlir output compiles
# with capture-aot and its --plot output is a valid PNG.
#   usage: AOT RUN MLP PYTHON EXAMPLES WORK
set -euo pipefail
aot="$1" run="$2" mlp="$3" python="$4" examples="$5" work="$6"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work" && mkdir -p "$work/data"
"$python" - "$work/data" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
np.save(sys.argv[1] + "/input.x.npy", rng.random((128, 784), dtype=np.float32))
np.save(sys.argv[1] + "/input.labels.npy", (np.arange(128) % 10).astype(np.int32))
PY
"$aot" "$examples/mlp_train.mlir" -o "$work/hand.capmod"
"$run" "$work/hand.capmod" --entry train --steps 20 \
  --input "x=$work/data/input.x.npy" --input "labels=$work/data/input.labels.npy" \
  > "$work/hand.txt"
"$mlp" --data "$work/data" --steps 20 --mlir "$work/traced.mlir" \
  --plot "$work/loss.png" > "$work/traced.txt"
cat "$work/traced.txt"
grep -E '^step (1|10|20):' "$work/hand.txt" > "$work/hand-steps.txt"
grep -E '^step (1|10|20):' "$work/traced.txt" > "$work/traced-steps.txt"
if ! diff "$work/hand-steps.txt" "$work/traced-steps.txt"; then
  echo "check_traced_mlp: the traced step trains differently (above: hand-written < > traced)" >&2
  exit 1
fi
"$aot" "$work/traced.mlir" -o "$work/traced.capmod"
"$python" "$here/check_png.py" "$work/loss.png" 640 360
echo "traced MLP: same losses as the hand-written module; its .mlir compiles"
