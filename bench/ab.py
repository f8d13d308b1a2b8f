#!/usr/bin/python3
"""A/B of two compilers on the benchmark's workloads: the same step compiled
by a baseline capture-aot and by this build's, replayed alternately (A, B,
A, B, ...) so that machine noise hits both alike. Prints, per workload, each
side's median over the pairs of its per-step median, the kernels' summed
device time per step (capture-run --profile) and the ratios A / B (above 1:
this build is faster).

Uses the models and data that bench/run.py left in BUILD/bench/<workload>
(run it once first, e.g. with --steps 2 --rounds 1 --no-floor).

usage: bench/ab.py --baseline-aot PATH [--build DIR] [--steps 100]
                   [--pairs 5] [--workloads ppo64,ppo256,ppo1024,mlp128]
                   [--aot-flag=--tile-shuffles=false ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "bench"))
from step_data import data_args  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--baseline-aot", required=True)
p.add_argument("--build", default=os.path.join(root, "build"))
p.add_argument("--steps", type=int, default=100)
p.add_argument("--pairs", type=int, default=5)
p.add_argument("--workloads", default="ppo64,ppo256,ppo1024,mlp128")
p.add_argument("--aot-flag", action="append", default=[],
               help="a flag for both compilers (repeatable)")
a = p.parse_args()
if a.steps < 2 or a.pairs < 1:
    p.error("--steps must be >= 2 and --pairs >= 1")

aot = os.path.join(a.build, "bin", "capture-aot")
run = os.path.join(a.build, "tools", "capture-run", "capture-run")
for tool in (a.baseline_aot, aot, run):
    if not os.path.exists(tool):
        sys.exit("bench/ab.py: %s is missing" % tool)


def checked(cmd):
    """The stdout of `cmd`; a failure stops with the command and its own
    error (a flag the baseline compiler does not know, a module it
    refuses) rather than a traceback."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench/ab.py: %s failed (exit %d):\n%s" % (
            " ".join(cmd), r.returncode, r.stderr.strip()))
    return r.stdout


def capture_run(module, data, *flags):
    return json.loads(checked(
        [run, module, "--entry", "train", "--steps", str(a.steps), "--json"]
        + list(flags) + data_args(data)))


def replay(module, data):
    """(median µs per step, the kernels' device µs per step) of one run
    without and one with --profile (whose timestamps would slow the
    first)."""
    timed = capture_run(module, data)["timing"]["median_us"]
    prof = capture_run(module, data, "--profile")["profile"]
    return timed, prof["kernel_device_us"] / max(prof["calls"], 1)


for name in a.workloads.split(","):
    work = os.path.join(a.build, "bench", name)
    model, data = os.path.join(work, "model.mlir"), os.path.join(work, "data")
    if not os.path.exists(model) or not os.path.isdir(data):
        sys.exit("bench/ab.py: no %s or %s: run bench/run.py --workloads %s "
                 "first" % (model, data, name))
    modules = {}
    for side, compiler in (("A", a.baseline_aot), ("B", aot)):
        modules[side] = os.path.join(work, "ab-%s.capmod" % side)
        checked([compiler, model, "-o", modules[side]] + a.aot_flag)
    same = open(modules["A"], "rb").read() == open(modules["B"], "rb").read()
    times = {"A": [], "B": []}
    for _ in range(a.pairs):
        for side in ("A", "B"):
            times[side].append(replay(modules[side], data))
    med = {s: statistics.median(t[0] for t in v) for s, v in times.items()}
    dev = {s: statistics.median(t[1] for t in v) for s, v in times.items()}
    print("%s: replay A %.0f µs, B %.0f µs, A/B %.3f; kernels A %.0f µs, "
          "B %.0f µs, A/B %.3f%s" % (
              name, med["A"], med["B"], med["A"] / med["B"], dev["A"],
              dev["B"], dev["A"] / dev["B"] if dev["B"] else float("nan"),
              " (identical modules)" if same else ""))
    print("  pairs (A/B replay): %s" % ", ".join(
        "%.0f/%.0f" % (x[0], y[0]) for x, y in zip(times["A"], times["B"])))
