#!/usr/bin/env bash
# Compiles examples/ppo_train.mlir, writes its weights and a batch, trains
# 40 steps with the C++ API example. usage: AOT EXAMPLE PYTHON EXAMPLES WORK
set -euo pipefail
aot="$1" example="$2" python="$3" examples="$4" work="$5"
rm -rf "$work" && mkdir -p "$work"
"$aot" "$examples/ppo_train.mlir" -o "$work/ppo.capmod"
"$python" "$examples/ppo_init.py" "$work/data"
"$example" "$work/ppo.capmod" "$work/data" 40
