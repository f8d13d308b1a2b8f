#!/usr/bin/python3
"""Benchmarks a captured training step against the same kernels run eagerly
(one submission per kernel) and against PyTorch on the CPU, side by side in
one run, and prints ratios (above 1: the replay is faster). Runs alternate (replay, eager, torch, replay,
...) so that machine noise hits all three alike; each figure is the median
over the rounds of a run's mean time per step.

usage: bench/run.py [--build DIR] [--steps 100] [--rounds 3]
                    [--workloads ppo,mlp] [--device SEL] [--json FILE]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
p = argparse.ArgumentParser()
p.add_argument("--build", default=os.path.join(root, "build"))
p.add_argument("--steps", type=int, default=100)
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--workloads", default="ppo,mlp")
p.add_argument("--device")
p.add_argument("--json")
a = p.parse_args()

aot = os.path.join(a.build, "bin", "capture-aot")
run = os.path.join(a.build, "tools", "capture-run", "capture-run")
work = os.path.join(a.build, "bench")
python = "/usr/bin/python3"
shared = os.path.join(root, "..", "shared", "workloads")
WORKLOADS = {
    "ppo": ("examples/ppo_train.mlir", "examples/ppo_init.py",
            [os.path.join(shared, "ppo_torch.py")], "PPO actor-critic, batch 64"),
    "mlp": ("examples/mlp_train.mlir", "bench/mlp_init.py",
            [os.path.join(root, "bench", "mlp_torch.py")],
            "MLP 784-256-256-10, batch 128"),
}


def capture_us(module, data, eager):
    args = [run, module, "--entry", "train", "--steps", str(a.steps), "--json"]
    if eager:
        args.append("--eager")
    if a.device:
        args += ["--device", a.device]
    for f in sorted(os.listdir(data)):
        kind, name = f.split(".", 1)
        name = name[:-len(".npy")]
        args += ["--input" if kind == "input" else "--param",
                 "%s=%s" % (name, os.path.join(data, f))]
    out = subprocess.run(args, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    return result["timing"]["mean_us"], result["device"]["name"]


def torch_us(script):
    out = subprocess.run([python, script, "--steps", str(a.steps)], check=True,
                         capture_output=True, text=True).stdout
    return float(re.search(r"([0-9.]+) us/step", out).group(1)), out.strip()


report = []
for name in a.workloads.split(","):
    model, init, torch_script, title = WORKLOADS[name]
    os.makedirs(os.path.join(work, name), exist_ok=True)
    module = os.path.join(work, name, "model.capmod")
    data = os.path.join(work, name, "data")
    subprocess.run([aot, os.path.join(root, model), "-o", module], check=True)
    subprocess.run([python, os.path.join(root, init), data], check=True)
    times = {"replay": [], "eager": [], "torch": []}
    torch_line = ""
    for _ in range(a.rounds):
        us, device = capture_us(module, data, eager=False)
        times["replay"].append(us)
        times["eager"].append(capture_us(module, data, eager=True)[0])
        if os.path.exists(torch_script[0]):
            us, torch_line = torch_us(torch_script[0])
            times["torch"].append(us)
    med = {k: statistics.median(v) for k, v in times.items() if v}
    row = {"workload": name, "title": title, "device": device,
           "steps": a.steps, "rounds": a.rounds, "median_us_per_step": med,
           "torch": torch_line}
    report.append(row)
    print("%s (%s) on %s, %d steps x %d rounds:" % (name, title, device,
                                                   a.steps, a.rounds))
    for k in ("replay", "eager", "torch"):
        if k in med:
            ratio = ("" if k == "replay" else
                     "   %s / replay = %.2f" % (k, med[k] / med["replay"]))
            print("  %-7s %10.1f us/step%s" % (k, med[k], ratio))
    if torch_line:
        print("  (%s)" % torch_line)
if a.json:
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
