#!/usr/bin/python3
"""The PPO actor-critic update (actor and critic MLPs 64-64-64-8/1 with
tanh, a Gaussian policy with a trainable log_std, clipped surrogate, value
loss and entropy bonus; AdamW(3e-4, (0.9, 0.999), 1e-8, 0.01) after
clip_grad_norm_(0.5)) in PyTorch on the CPU: Capture's peer for bench/run.py
and for the numerics tests, which compare against the files --dump writes.

usage: /usr/bin/python3 ppo_torch.py [--batch 64] [--steps 1000] [--threads 1]
                                     [--seed 0] [--dump DIR --dump-steps 20]
Timing prints `... : MEAN us/step (median M, p10 P, p90 Q)`.
"""
import argparse
import os
import sys

import numpy as np
import torch

import torch_timing

OBS, ACTIONS = 64, 8

# The model and its loss are examples/python/workloads.py's, the modules
# the Python importer's tests train.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples", "python"))
import workloads  # noqa: E402


def update(batch_size, seed=0):
    """The peer's model, its batch and one update of it (returning the loss
    and the gradient norm): what this script times, and bench/fx_rl.py
    in its own process."""
    torch.manual_seed(seed)
    model = workloads.ActorCritic()
    params = list(model.parameters())
    opt = torch.optim.AdamW(params, lr=3e-4, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=0.01)
    g = torch.Generator().manual_seed(seed + 1)
    batch = {
        "obs": torch.randn(batch_size, OBS, generator=g),
        "act": torch.randn(batch_size, ACTIONS, generator=g),
        "adv": torch.randn(batch_size, generator=g),
        "ret": torch.randn(batch_size, generator=g),
        "old_logp": torch.randn(batch_size, generator=g),
    }

    def step():
        loss = workloads.ppo_loss(model, **batch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, 0.5)
        opt.step()
        return float(loss), float(norm)

    return model, batch, step


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dump")
    p.add_argument("--dump-steps", type=int, default=20)
    a = p.parse_args()
    if a.batch < 1 or a.steps < 1 or a.threads < 1 or a.dump_steps < 1:
        p.error("--batch, --steps, --threads and --dump-steps must be >= 1")
    torch_timing.set_threads(a.threads)
    model, batch, step = update(a.batch, a.seed)

    if a.dump:
        os.makedirs(a.dump, exist_ok=True)

        def save(name, value):
            np.save(os.path.join(a.dump, name + ".npy"), value)

        for name, q in model.named_parameters():
            save("init." + name, q.detach().numpy().copy())
        for name, t in batch.items():
            save("input." + name, t.numpy())
        history = np.array([step() for _ in range(a.dump_steps)],
                           dtype=np.float64)
        save("loss", history[:, 0])
        save("grad_norm", history[:, 1])
        for name, q in model.named_parameters():
            save("final." + name, q.detach().numpy())
        print("wrote %s: %d steps, final loss %.6f"
              % (a.dump, a.dump_steps, history[-1, 0]))
        return

    torch_timing.report(step, a.steps, 50, "ppo batch=%d" % a.batch)


if __name__ == "__main__":
    main()
