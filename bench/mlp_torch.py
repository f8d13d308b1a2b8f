#!/usr/bin/python3
"""The MLP classifier step of the benchmark workloads (784-256-256-10,
ReLU, cross-entropy, batch 128, AdamW lr 1e-3 after clip_grad_norm_(1.0))
in PyTorch on the CPU, timed like bench/ppo_torch.py: the peer for bench/run.py.

usage: /usr/bin/python3 mlp_torch.py [--steps 200] [--threads 1]
"""
import argparse

import torch

import torch_timing

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=200)
p.add_argument("--threads", type=int, default=1)
a = p.parse_args()
torch.manual_seed(0)
torch_timing.set_threads(a.threads)
net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                          torch.nn.Linear(256, 256), torch.nn.ReLU(),
                          torch.nn.Linear(256, 10))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
x = torch.randn(128, 784)
labels = torch.randint(0, 10, (128,))


def step():
    loss = torch.nn.functional.cross_entropy(net(x), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()


torch_timing.report(step, a.steps, 20, "mlp batch=128")
