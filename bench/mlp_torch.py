#!/usr/bin/python3
"""The MLP classifier step of the benchmark workloads (784-256-256-10,
ReLU, cross-entropy, batch 128, AdamW lr 1e-3 after clip_grad_norm_(1.0))
in PyTorch on the CPU, timed like bench/ppo_torch.py: the peer for bench/run.py.

usage: /usr/bin/python3 mlp_torch.py [--steps 200] [--threads 1]
"""
import argparse
import statistics
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=200)
p.add_argument("--threads", type=int, default=1)
a = p.parse_args()
torch.manual_seed(0)
torch.set_num_threads(a.threads)
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


for _ in range(20):
    step()
times = []
for _ in range(a.steps):
    t0 = time.perf_counter()
    step()
    times.append((time.perf_counter() - t0) * 1e6)
q = statistics.quantiles(times, n=10) if len(times) > 1 else times * 9
print(f"torch {torch.__version__} threads={torch.get_num_threads()} mlp batch=128: "
      f"{statistics.mean(times):.1f} us/step (median {statistics.median(times):.1f}, "
      f"p10 {q[0]:.1f}, p90 {q[8]:.1f})")
