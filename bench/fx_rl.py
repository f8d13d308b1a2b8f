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

With --aot, the hand-written PPO workload at the same batches (bench/run.py
ppoB: examples/ppo_train.mlir rebatched by bench/ppo_model.py and compiled
by capture-aot) is replayed in the same process through capture.Module.run,
against its PyTorch peer (bench/ppo_torch.py's update: examples/python/
workloads.py's actor-critic under AdamW) on the same thread, in the same
alternating rounds: the two ratios to PyTorch come from one process and one
stretch of machine noise. (bench/run.py times the same module with
capture-run, with no Python in the loop, against a PyTorch peer in another
process.)

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
sys.path.insert(0, os.path.join(root, "bench"))
import capture  # noqa: E402
import capture.fx  # noqa: E402
import ppo_model  # noqa: E402
import torch_timing  # noqa: E402
import ppo_torch  # noqa: E402
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


def imported(batch):
    """The CartPole update imported with capture.fx, and PyTorch's."""
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

    return lambda: step.step(arrays), torch_update


def hand_written(batch, aot, device, tmp):
    """The hand-written PPO workload's step compiled by capture-aot and
    replayed through capture.Module.run, and bench/ppo_torch.py's update
    (the same weights)."""
    source = os.path.join(tmp, "ppo%d.mlir" % batch)
    compiled = os.path.join(tmp, "ppo%d.capmod" % batch)
    with open(source, "w") as f:
        f.write(ppo_model.model(batch))
    subprocess.run([aot, source, "-o", compiled], check=True)
    model, data, torch_update = ppo_torch.update(batch)
    module = capture.Module.load(device, compiled)
    module.set_params({n: p.detach().numpy()
                       for n, p in model.named_parameters()})
    arrays = {k: v.numpy() for k, v in data.items()}
    return lambda: module.run("train", arrays), torch_update


def measure(pairs, steps, rounds):
    """Rounds alternate over every (captured, PyTorch) pair; the medians
    of the rounds' medians, in the order of `pairs`."""
    for pair in pairs:
        for _ in range(5):  # the recording and warm-up, on both sides
            for fn in pair:
                fn()
    times = [([], []) for _ in pairs]
    for _ in range(rounds):
        for pair, (captured, peer) in zip(pairs, times):
            captured.append(timed(pair[0], steps))
            peer.append(timed(pair[1], steps))
    return [(statistics.median(c), statistics.median(t)) for c, t in times]


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
    aot = os.path.join(a.build, "bin", "capture-aot")
    if a.aot and not os.access(aot, os.X_OK):
        p.error("--aot needs capture-aot, not found at %s (build first, or "
                "give --build DIR)" % aot)
    torch_timing.set_threads(1)  # its BLAS too
    device = capture.Device("vulkan")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in batches:
            pairs = [imported(b)]
            if a.aot:
                pairs.append(hand_written(b, aot, device, tmp))
            got = measure(pairs, a.steps, a.rounds)
            row = {"batch": b, "captured_us": got[0][0],
                   "torch1_us": got[0][1], "ratio": got[0][1] / got[0][0]}
            if a.aot:
                row.update({"hand_written_us": got[1][0],
                            "hand_written_torch1_us": got[1][1],
                            "hand_written_ratio": got[1][1] / got[1][0]})
            rows.append(row)
    print("| batch | capture.fx step us | PyTorch 1 thread us | PyTorch / "
          "captured | hand-written PPO workload: replay us, PyTorch us, "
          "PyTorch / replay |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        hand = ("%.0f, %.0f, %.2f" % (r["hand_written_us"],
                                      r["hand_written_torch1_us"],
                                      r["hand_written_ratio"])
                if a.aot else "-")
        print("| %d | %.0f | %.0f | %.2f | %s |" % (
            r["batch"], r["captured_us"], r["torch1_us"], r["ratio"], hand))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
