#!/usr/bin/python3
"""Capture's benchmark: a captured training step replayed as one submission
per step, the same kernels run eagerly (one submission per kernel), and the
PyTorch peer on the CPU with 1 and 2 threads, side by side in one run. Runs
alternate (replay, eager, torch 1, torch 2, replay, ...) so that machine
noise hits all alike. Each run reports its per-step median, p10 and p90;
the figures here are the medians of those over the rounds. Ratios above 1
mean the replay is faster.

Also measured, on the same device: the floor terms (an empty-ish replay:
submit + wait with one tiny dispatch; the gap each extra dispatch adds; a
1 MiB upload + download) and the host overhead per replay (pack + submit +
unpack, not the wait), from capture-run's profile. The floor runs without
llvmpipe's pool, and the 1 MiB term is the step's time above the tiny one
less the extra device time of its kernel (--profile). Where capture-run chose
a spinning wait (--wait auto), each round also replays with --wait block:
the "blocking wait / replay" ratio is what the spin gains. Where some of the
step's matmul kernels share loads through subgroup shuffles (lavapipe),
each round also replays the step compiled with --tile-shuffles=false:
"private tiles / replay" is what the sharing gains.

The cpu driver: each round also compiles the step for the cpu target and
runs it through capture-bench-drivers (bench/drivers.cpp), which times the
module's host code on the cpu driver and the same module's SPIR-V on the
Vulkan device side by side, the cpu driver on one thread (cpu1) and on one
per core (cpu); "torch 1 / cpu1" and "torch 2 / cpu" (PyTorch with as many
threads as the driver) are the ratios to read (above 1: the cpu driver is
faster).

usage: bench/run.py [--build DIR] [--steps 100] [--rounds 3]
                    [--workloads ppo64,ppo256,ppo1024,mlp128] [--device SEL]
                    [--json FILE (default build/bench/results.json)]
                    [--write-docs] [--no-floor]
--write-docs rewrites the measured section of docs/benchmarks.md and
docs/benchmarks.png (matplotlib). Needs nothing outside this checkout.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "bench"))
import ppo_model  # noqa: E402
from step_data import data_args  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--build", default=os.path.join(root, "build"))
p.add_argument("--steps", type=int, default=100)
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--workloads", default="ppo64,ppo256,ppo1024,mlp128")
p.add_argument("--device")
p.add_argument("--json")
p.add_argument("--write-docs", action="store_true")
p.add_argument("--no-floor", action="store_true")
a = p.parse_args()
if a.json is None:
    a.json = os.path.join(a.build, "bench", "results.json")
if a.steps < 2 or a.rounds < 1:
    p.error("--steps must be >= 2 and --rounds >= 1")

aot = os.path.join(a.build, "bin", "capture-aot")
interp = os.path.join(a.build, "bin", "capture-interp")
run = os.path.join(a.build, "tools", "capture-run", "capture-run")
drivers = os.path.join(a.build, "bench", "capture-bench-drivers")
work = os.path.join(a.build, "bench")
python = "/usr/bin/python3"
for tool in (aot, run, drivers):
    if not os.path.exists(tool):
        sys.exit("bench/run.py: %s is missing: build first "
                 "(./scripts/build.sh)" % tool)


def workload(name):
    """(model file, data dir, torch command, title, batch) of a name such as
    ppo256 or mlp128."""
    m = re.fullmatch(r"(ppo|mlp)(\d+)", name)
    if not m:
        sys.exit("bench/run.py: unknown workload '%s': expected ppoB (e.g. "
                 "ppo64, ppo1024) or mlp128" % name)
    kind, batch = m.group(1), int(m.group(2))
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    data = os.path.join(out, "data")
    model = os.path.join(out, "model.mlir")
    if kind == "ppo":
        with open(model, "w") as f:
            f.write(ppo_model.model(batch))
        subprocess.run([python, os.path.join(root, "examples", "ppo_init.py"),
                        data, "--batch", str(batch)], check=True)
        torch = [python, os.path.join(root, "bench", "ppo_torch.py"),
                 "--batch", str(batch)]
        title = "PPO actor-critic, batch %d" % batch
    else:
        if batch != 128:
            sys.exit("bench/run.py: the MLP workload is compiled at batch 128 "
                     "only (examples/mlp_train.mlir), got mlp%d" % batch)
        with open(os.path.join(root, "examples", "mlp_train.mlir")) as src:
            with open(model, "w") as f:
                f.write(src.read())
        subprocess.run([python, os.path.join(root, "bench", "mlp_init.py"),
                        data], check=True)
        torch = [python, os.path.join(root, "bench", "mlp_torch.py")]
        title = "MLP 784-256-256-10, batch 128"
    return model, data, torch, title, batch


def device_args():
    return ["--device", a.device] if a.device else []


def capture(module, data, eager=False, profile=False, wait=None):
    args = [run, module, "--entry", "train", "--steps", str(a.steps),
            "--json"] + device_args() + data_args(data)
    if wait:
        args += ["--wait", wait]
    if eager:
        args.append("--eager")
    if profile:
        args.append("--profile")
    out = json.loads(subprocess.run(args, check=True, capture_output=True,
                                    text=True).stdout)
    t = out["timing"]
    return {"median": t["median_us"], "p10": t["p10_us"], "p90": t["p90_us"],
            "device": out["device"]["name"], "threads": cpu_threads(out),
            "wait": out["device"]["wait"]["policy"], "json": out}


def cpu_driver(module, data):
    """The step compiled for the cpu target on the cpu driver (one thread,
    and one per core), and the same module's SPIR-V on the Vulkan device,
    side by side (bench/drivers.cpp)."""
    return json.loads(subprocess.run(
        [drivers, module, data, str(a.steps), "1", "--json"], check=True,
        capture_output=True, text=True).stdout)


def cpu_threads(out):
    """llvmpipe's thread setting of a capture-run --json result: "0",
    "pool" (the driver's default) or "" on another device."""
    t = out["device"].get("cpu_threads")
    if t is None:
        return ""
    return "pool" if t["threads"] is None else str(t["threads"])


def torch(cmd, threads):
    out = subprocess.run(cmd + ["--steps", str(a.steps), "--threads",
                                str(threads)], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"median ([0-9.]+), p10 ([0-9.]+), p90 ([0-9.]+)", out)
    if not m:
        sys.exit("bench/run.py: unexpected PyTorch output: " + out)
    return {"median": float(m.group(1)), "p10": float(m.group(2)),
            "p90": float(m.group(3)), "line": out.strip()}


def summarize(samples):
    return {k: statistics.median(s[k] for s in samples)
            for k in ("median", "p10", "p90")}


def floor_terms():
    """Device floor terms from three small forward modules."""
    out = os.path.join(work, "floor")
    os.makedirs(out, exist_ok=True)
    modules = {
        # One dispatch on 4 floats: submit + wait + the smallest copies.
        "one": (4, 1, False),
        # 65 dependent dispatches (unfused): the gap each one adds.
        "chain": (4, 65, False),
        # 1 MiB in and out around one streaming (vec4) dispatch.
        "mib": (262144, 1, True),
    }
    result = {}
    for name, (n, depth, fuse) in modules.items():
        text = ("ag.forward @f(%%v0: tensor<%dxf32> {ag.name = \"x\"}) -> "
                "(tensor<%dxf32> {ag.name = \"y\"}) {\n" % (n, n))
        text += "\n".join(
            "  %%v%d = ag.neg %%v%d : tensor<%dxf32>" % (i + 1, i, n)
            for i in range(depth))
        text += "\n  ag.return %%v%d : tensor<%dxf32>\n}\n" % (depth, n)
        src = os.path.join(out, name + ".mlir")
        with open(src, "w") as f:
            f.write(text)
        mod = os.path.join(out, name + ".capmod")
        # Without fusion the chain stays 65 dispatches.
        subprocess.run([aot, src, "-o", mod, "--fuse=%s" % str(fuse).lower()],
                       check=True)
        subprocess.run([interp, src, "--make-inputs", os.path.join(out, name)],
                       check=True, capture_output=True)
        # Without llvmpipe's pool, whose fork/join per dispatch would be
        # counted as the floor's (what auto picks for PPO at batch 64).
        args = [run, mod, "--input", "x=" + os.path.join(out, name, "x.npy"),
                "--repeat", str(max(a.steps, 200)), "--json",
                "--cpu-threads", "0"] + device_args()
        meds = []
        for _ in range(a.rounds):
            t = json.loads(subprocess.run(args, check=True, capture_output=True,
                                          text=True).stdout)["timing"]
            meds.append(t["median_us"])
        result[name] = statistics.median(meds)
        # The kernels' own device time, to take out of the transfers.
        prof = json.loads(subprocess.run(args + ["--profile"], check=True,
                                         capture_output=True,
                                         text=True).stdout)["profile"]
        result[name + "_kernels"] = sum(k["median_call_us"]
                                        for k in prof["kernels"])
    kernel_delta = result["mib_kernels"] - result["one_kernels"]
    return {"submit_wait_us": result["one"],
            "per_dispatch_us": (result["chain"] - result["one"]) / 64,
            "mib_round_trip_us": result["mib"] - result["one"] - kernel_delta,
            "mib_kernel_us": result["mib_kernels"]}


report = {"date": datetime.date.today().isoformat(), "steps": a.steps,
          "rounds": a.rounds, "workloads": []}
for name in a.workloads.split(","):
    model, data, torch_cmd, title, batch = workload(name)
    module = os.path.join(work, name, "model.capmod")
    subprocess.run([aot, model, "-o", module], check=True)
    census = json.loads(subprocess.run(
        [run, module, "--info", "--json"], check=True, capture_output=True,
        text=True).stdout)
    # The same step with every matmul lane loading its own operands, when
    # some kernel shares them (Kernel.subgroup_multiple).
    private = None
    if any(k.get("subgroup_multiple") for k in census["kernels"]):
        private = os.path.join(work, name, "private.capmod")
        subprocess.run([aot, model, "-o", private, "--tile-shuffles=false"],
                       check=True)
    # The same step with host code too, for the cpu driver.
    cpu_module = os.path.join(work, name, "cpu.capmod")
    subprocess.run([aot, model, "-o", cpu_module, "--target=cpu"], check=True)
    samples = {"replay": [], "eager": [], "torch1": [], "torch2": [],
               "cpu1": [], "cpu": [], "cpu_vulkan": []}
    device, torch_line, llvmpipe, wait = "", "", "", ""
    cpu_threads_used = 0
    for _ in range(a.rounds):
        r = capture(module, data)
        device, llvmpipe, wait = r["device"], r["threads"], r["wait"]
        samples["replay"].append(r)
        # What the spinning wait that capture-run chose gains: the same
        # replay with a blocking wait, in the same round.
        if wait == "spin":
            samples.setdefault("replay_block", []).append(
                capture(module, data, wait="block"))
        if private:
            samples.setdefault("private", []).append(capture(private, data))
        samples["eager"].append(capture(module, data, eager=True))
        d = cpu_driver(cpu_module, data)
        samples["cpu1"].append(d["cpu1_us"])
        samples["cpu"].append(d["cpu_us"])
        samples["cpu_vulkan"].append(d["vulkan_us"])
        cpu_threads_used = d["cpu_threads"]
        for threads in (1, 2):
            t = torch(torch_cmd, threads)
            torch_line = t["line"]
            samples["torch%d" % threads].append(t)
    figures = {k: summarize(v) for k, v in samples.items()}
    prof = capture(module, data, profile=True)["json"]
    # The median over the calls: the first call's one-off work (recording
    # the upload) would lift a mean.
    host_us = prof["profile"]["host_overhead_us"]["median"]
    entry = next(e for e in census["entries"] if e["name"] == "train")
    row = {"workload": name, "title": title, "batch": batch,
           "device": device, "figures": figures,
           "ratios": {k: figures[k]["median"] / figures["replay"]["median"]
                      for k in figures if k != "replay"},
           "host_overhead_us": host_us,
           "dispatches": entry["dispatches"], "barriers": entry["barriers"],
           "cpu_threads": llvmpipe, "wait": wait,
           "cpu_driver_threads": cpu_threads_used,
           "torch": torch_line}
    report["workloads"].append(row)
    print("%s (%s) on %s, %d steps x %d rounds, %d dispatches%s, wait %s:"
          % (name, title, device, a.steps, a.rounds, row["dispatches"],
             ", llvmpipe threads " + llvmpipe if llvmpipe else "", wait))
    for k in [k for k in ("replay", "replay_block", "private", "eager",
                          "cpu1", "cpu", "cpu_vulkan", "torch1", "torch2")
              if k in figures]:
        f = figures[k]
        ratio = "" if k == "replay" else "   %s / replay = %.2f" % (
            k, row["ratios"][k])
        print("  %-7s %10.1f us/step (p10 %.1f, p90 %.1f)%s"
              % (k, f["median"], f["p10"], f["p90"], ratio))
    print("  host overhead per replay (pack + submit + unpack), median: %.1f us"
          % host_us)
    print("  cpu driver (cpu1: 1 thread, cpu: %d threads): torch1 / cpu1 = "
          "%.2f, torch%d / cpu = %.2f, cpu-target SPIR-V on %s / cpu = %.2f"
          % (cpu_threads_used,
             figures["torch1"]["median"] / figures["cpu1"]["median"],
             cpu_threads_used,
             figures["torch%d" % min(cpu_threads_used, 2)]["median"]
             / figures["cpu"]["median"], device,
             figures["cpu_vulkan"]["median"] / figures["cpu"]["median"]))
if not a.no_floor:
    report["floor"] = floor_terms()
    fl = report["floor"]
    print("floor: submit + wait with one tiny dispatch %.1f us, per extra "
          "dispatch %.2f us, 1 MiB upload + download %.1f us"
          % (fl["submit_wait_us"], fl["per_dispatch_us"],
             fl["mib_round_trip_us"]))
if a.json:
    with open(a.json, "w") as f:
        json.dump(report, f, indent=1)
if a.write_docs:
    import bench_docs  # noqa: E402
    # The rerun command as written, without the run's own output paths
    # (--json FILE, --build DIR): they belong to one machine.
    shown, skip = [], False
    for arg in sys.argv[1:]:
        if skip:
            skip = False
            continue
        if arg in ("--json", "--build"):
            skip = True
            continue
        if arg.startswith(("--json=", "--build=")):
            continue
        shown.append(arg)
    bench_docs.write(report, shown, root)
