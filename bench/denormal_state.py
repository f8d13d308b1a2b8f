#!/usr/bin/python3
"""A training step whose optimizer state is denormal, next to the same step
with that state zeroed, side by side in one run (alternating rounds).

The MLP workload (examples/mlp_train.mlir, batch 128) on a batch whose
first half of the input features is zero, as MNIST's borders are: the
first layer's weights of those features get no gradient, so their AdamW
moments only decay, and a state that holds denormal moments (m = +-1e-39,
v = 1e-40, the rest of the state from one step of training) keeps them
there for thousands of steps unless they are flushed. The "zeroed" run
starts from the same state with zero moments. Ratios near 1 mean the
denormal state costs nothing.

  usage: bench/denormal_state.py [--build DIR] [--steps 100] [--rounds 3]
                                 [--baseline MODULE.capmod]...
--baseline adds a module compiled elsewhere (an older capture-aot, say) to
every round, timed on the same states.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "test", "e2e", "Inputs"))
import denormal_state  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--build", default=os.path.join(root, "build"))
p.add_argument("--steps", type=int, default=100)
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--baseline", action="append", default=[])
a = p.parse_args()
if a.steps < 2 or a.rounds < 1:
    p.error("--steps must be >= 2 and --rounds >= 1")
aot = os.path.join(a.build, "bin", "capture-aot")
run = os.path.join(a.build, "tools", "capture-run", "capture-run")
for tool in [aot, run] + a.baseline:
    if not os.path.exists(tool):
        sys.exit("bench/denormal_state.py: %s is missing" % tool)

work = os.path.join(a.build, "bench", "denormal")
shutil.rmtree(work, ignore_errors=True)
data = os.path.join(work, "data")
subprocess.run(["/usr/bin/python3", os.path.join(root, "bench", "mlp_init.py"),
                data], check=True)
x = np.load(os.path.join(data, "input.x.npy"))
x[:, : x.shape[1] // 2] = 0
np.save(os.path.join(data, "input.x.npy"), x)
inputs = ["--input", "x=" + os.path.join(data, "input.x.npy"),
          "--input", "labels=" + os.path.join(data, "input.labels.npy")]
params = []
for f in sorted(os.listdir(data)):
    if f.startswith("init."):
        params += ["--param", "%s=%s" % (f[len("init."):-len(".npy")],
                                         os.path.join(data, f))]

module = os.path.join(work, "mlp.capmod")
subprocess.run([aot, os.path.join(root, "examples", "mlp_train.mlir"), "-o",
                module], check=True)
first = os.path.join(work, "first")
subprocess.run([run, module, "--entry", "train", "--steps", "1",
                "--dump-state", first] + inputs + params, check=True,
               capture_output=True)
states = {"denormal": os.path.join(work, "denormal"),
          "zeroed": os.path.join(work, "zeroed")}
denormal_state.make(os.path.join(first, "step-1"), states["denormal"])
shutil.copytree(os.path.join(first, "step-1"), states["zeroed"])
for name in ("adam.m.npy", "adam.v.npy"):
    path = os.path.join(states["zeroed"], name)
    np.save(path, np.zeros_like(np.load(path)))


def timed(mod, state):
    """Median us per step of `a.steps` steps of `mod` from `state`."""
    out = subprocess.run([run, mod, "--entry", "train", "--steps",
                          str(a.steps), "--load-state", state, "--json"] +
                         inputs, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)["timing"]["median_us"]


modules = [("this build", module)] + [(b, b) for b in a.baseline]
results = {(m, s): [] for m, _ in modules for s in states}
for r in range(a.rounds):
    for label, mod in modules:
        for s, state in states.items():
            results[(label, s)].append(timed(mod, state))
print("MLP 784-256-256-10, batch 128, half the input features zero; "
      "%d steps x %d rounds, medians:" % (a.steps, a.rounds))
for label, _ in modules:
    d = statistics.median(results[(label, "denormal")])
    z = statistics.median(results[(label, "zeroed")])
    print("  %-40s denormal state %7.1f us/step, zeroed %7.1f us/step, "
          "denormal / zeroed = %.2f" % (label, d, z, d / z))
