#!/usr/bin/python3
"""The PPO update as single-file agents write it (examples/python/
cartpole_ppo.py's Agent and ppo_loss: Categorical, Adam eps 1e-5,
advantage normalization, clipped value loss), imported with capture.fx and
stepped from Python, against the same update in PyTorch on one thread, in
one process. Rounds alternate (captured, PyTorch, captured, ...) so that
machine noise hits both alike; each round reports its per-step median, and
the figures are the medians over the rounds. The captured time is the whole
`step.step(minibatch)` call: the importer's input checks and the sync rule's
bookkeeping, the packed upload, the replay and the download.

With --aot, the same batches of the hand-written PPO workload (bench/run.py
ppoB: its step compiled by capture-aot and replayed by capture-run, against
bench/ppo_torch.py on one thread) run in the same invocation, so that the
two ratios to PyTorch are read side by side.

usage: PYTHONPATH=build/python bench/fx_rl.py [--batches 64,256]
           [--steps 200] [--rounds 5] [--aot] [--build DIR] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
import capture.fx  # noqa: E402
from cartpole_ppo import Agent, ppo_loss  # noqa: E402


def minibatch(n, seed):
    g = torch.Generator().manual_seed(seed)
    return {"obs": torch.randn(n, 4, generator=g),
            "actions": torch.randint(0, 2, (n,), generator=g).float(),
            "logprobs": -torch.rand(n, generator=g) - 0.5,
            "advantages": torch.randn(n, generator=g),
            "returns": torch.randn(n, generator=g),
            "values": torch.randn(n, generator=g)}


def timed(fn, steps):
    """The median of `steps` calls, in microseconds."""
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e6 * statistics.median(times)


def measure(batch, steps, rounds):
    torch.manual_seed(0)
    ours, theirs = Agent(), Agent()
    theirs.load_state_dict(ours.state_dict())
    opt = torch.optim.Adam(ours.parameters(), lr=2.5e-4, eps=1e-5)
    topt = torch.optim.Adam(theirs.parameters(), lr=2.5e-4, eps=1e-5)
    mb = minibatch(batch, batch)
    arrays = {k: v.numpy() for k, v in mb.items()}
    step = capture.fx.import_module(ours, ppo_loss, mb, optimizer=opt,
                                    max_grad_norm=0.5)

    def torch_update():
        loss = ppo_loss(theirs, **mb)["loss"]
        topt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5)
        topt.step()

    for _ in range(5):  # the recording and warm-up, on both sides
        step.step(arrays)
        torch_update()
    captured, peer = [], []
    for _ in range(rounds):
        captured.append(timed(lambda: step.step(arrays), steps))
        peer.append(timed(torch_update, steps))
    c, t = statistics.median(captured), statistics.median(peer)
    return {"batch": batch, "captured_us": c, "torch1_us": t,
            "ratio": t / c}


def aot_ratio(batches, steps, rounds, build):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        subprocess.run([sys.executable, os.path.join(root, "bench", "run.py"),
                        "--build", build, "--steps", str(steps), "--rounds",
                        str(rounds), "--no-floor", "--json", out,
                        "--workloads",
                        ",".join("ppo%d" % b for b in batches)],
                       check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            report = json.load(f)
    return {w["batch"]: w["ratios"]["torch1"] for w in report["workloads"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", default="64,256")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--aot", action="store_true")
    p.add_argument("--build", default=os.path.join(root, "build"))
    p.add_argument("--json")
    a = p.parse_args()
    try:
        batches = [int(b) for b in a.batches.split(",")]
    except ValueError:
        p.error("--batches takes numbers separated by commas, got %r"
                % a.batches)
    if a.steps < 1 or a.rounds < 1 or min(batches) < 2:
        p.error("--steps and --rounds must be >= 1, each batch >= 2")
    torch.set_num_threads(1)
    rows = [measure(b, a.steps, a.rounds) for b in batches]
    hand = aot_ratio(batches, a.steps, a.rounds, a.build) if a.aot else {}
    print("| batch | capture.fx step us | PyTorch 1 thread us | PyTorch / "
          "captured | hand-written PPO workload: PyTorch / replay |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        r["hand_written_ratio"] = hand.get(r["batch"])
        print("| %d | %.0f | %.0f | %.2f | %s |" % (
            r["batch"], r["captured_us"], r["torch1_us"], r["ratio"],
            "%.2f" % hand[r["batch"]] if r["batch"] in hand else "-"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
