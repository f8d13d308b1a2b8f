"""Runs the PPO step of examples/ppo_train.mlir in the reference interpreter
on PyTorch's initial weights and inputs and compares the loss and the
(pre-clip) gradient norm with PyTorch's first step.

usage: ppo_check.py CAPTURE_OPT CAPTURE_INTERP PPO_TORCH_PY MODEL WORKDIR
"""
import os
import re
import subprocess
import sys

import numpy as np

capture_opt, capture_interp, ppo_torch, model, work = sys.argv[1:6]
dump = os.path.join(work, "torch")
subprocess.run([sys.executable, ppo_torch, "--dump", dump, "--dump-steps", "1"],
               check=True, stdout=subprocess.DEVNULL)

lowered = os.path.join(work, "ppo.mlir")
subprocess.run([capture_opt, model, "-ag-autodiff", "-ag-insert-clip-scale",
                "-o", lowered], check=True)

max_norm = os.path.join(work, "max_grad_norm.npy")
np.save(max_norm, np.array(0.5, dtype=np.float32))
cmd = [capture_interp, lowered, "--entry", "train", "--precision", "f32",
       "--input", "max_grad_norm=" + max_norm]
for name in ["obs", "act", "adv", "ret", "old_logp"]:
    cmd += ["--input", "%s=%s" % (name, os.path.join(dump, "input.%s.npy" % name))]
for f in sorted(os.listdir(dump)):
    if f.startswith("init."):
        cmd += ["--param", "%s=%s" % (f[len("init."):-len(".npy")], os.path.join(dump, f))]
out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

failed = False
for name in ["loss", "grad_norm"]:
    m = re.search(r"^output %s \[\]: (\S+)$" % name, out, re.M)
    if not m:
        print("no output %s in:\n%s" % (name, out))
        sys.exit(1)
    got = float(m.group(1))
    want = float(np.load(os.path.join(dump, name + ".npy"))[0])
    rel = abs(got - want) / max(abs(want), 1e-5)
    ok = rel <= 1e-4
    failed |= not ok
    print("ppo step 1 %s: capture %.7g, torch %.7g, relative %.2e: %s"
          % (name, got, want, rel, "ok" if ok else "FAIL"))
sys.exit(1 if failed else 0)
