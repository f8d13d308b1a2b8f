#!/usr/bin/python3
"""Acting: what an RL loop calls every environment step, a forward of the
policy at batch 1 and 8 from Python. examples/python/cartpole_ppo.py's
actor (4 -> 64 -> 64 -> 2, tanh) imported with capture.fx.import_module and
called as `m.forward({"input": obs})`, on the default Vulkan device and on
the host device (the cpu target's host code, no Vulkan), against PyTorch's
`agent.actor(obs)` under no_grad on one thread (its BLAS pinned, as
bench/run.py does), in one process. Rounds alternate over every variant so
that machine noise hits all alike; each round reports its per-call median,
and the figures are the medians over the rounds. Ratios above 1 mean the
captured call is faster than PyTorch's.

usage: PYTHONPATH=build/python /usr/bin/python3 bench/acting.py
           [--calls 2000] [--rounds 5]
"""
import argparse
import os
import statistics
import sys

import numpy as np
import torch

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "examples", "python"))
sys.path.insert(0, os.path.join(root, "bench"))
import capture  # noqa: E402
import capture.fx  # noqa: E402
import torch_timing  # noqa: E402
from cartpole_ppo import Agent  # noqa: E402
from fx_rl import timed  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    if a.calls < 1 or a.rounds < 1:
        p.error("--calls and --rounds must be >= 1")
    torch_timing.set_threads(1)
    torch.manual_seed(0)
    agent = Agent()
    devices = {"vulkan": capture.Device("vulkan"),
               "host": capture.Device("host")}
    variants = {}
    for batch in (1, 8):
        obs = np.random.default_rng(batch).standard_normal(
            (batch, 4)).astype(np.float32)
        tobs = torch.from_numpy(obs)
        for name, device in devices.items():
            m = capture.fx.import_module(agent.actor, device=device)
            variants[(name, batch)] = (
                lambda m=m, obs=obs: m.forward({"input": obs}))
        variants[("torch", batch)] = (
            lambda tobs=tobs: agent.actor(tobs))
    times = {k: [] for k in variants}
    with torch.no_grad():
        for fn in variants.values():  # recordings and warm-up
            for _ in range(50):
                fn()
        for _ in range(a.rounds):
            for k, fn in variants.items():
                times[k].append(timed(fn, a.calls))
    med = {k: statistics.median(v) for k, v in times.items()}
    print("acting: cartpole actor forward from Python, %d calls x %d rounds, "
          "medians (us per call)" % (a.calls, a.rounds))
    print("| batch | Vulkan (%s) | host device | PyTorch 1 thr | torch / "
          "Vulkan | torch / host |" % devices["vulkan"].name)
    print("| --- | --- | --- | --- | --- | --- |")
    for batch in (1, 8):
        v, h, t = (med[("vulkan", batch)], med[("host", batch)],
                   med[("torch", batch)])
        print("| %d | %.1f | %.1f | %.1f | %.2f | %.2f |"
              % (batch, v, h, t, t / v, t / h))


if __name__ == "__main__":
    main()
