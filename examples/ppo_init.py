#!/usr/bin/python3
"""Writes initial weights and one batch for examples/ppo_train.mlir: the
weights as PyTorch's nn.Linear initializes them (uniform in
+-1/sqrt(fan_in)), log_std zeros, inputs standard normal; deterministic.
Needs only numpy. PyTorch's own initial weights come from
`bench/ppo_torch.py --dump DIR`, whose files load the same way.

usage: ppo_init.py DIR [--seed N] [--batch B]
"""
import argparse
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--batch", type=int, default=64,
               help="rows of the batch (bench/ppo_model.py writes the step "
                    "at other batch sizes)")
a = p.parse_args()
if a.batch < 1:
    p.error("--batch must be >= 1, got %d" % a.batch)
rng = np.random.default_rng(a.seed)
os.makedirs(a.dir, exist_ok=True)
B, OBS, H, A = a.batch, 64, 64, 8


def save(name, value):
    np.save(os.path.join(a.dir, name + ".npy"), value.astype(np.float32))


for net, out in [("actor", A), ("critic", 1)]:
    for i, (fan_in, fan_out) in enumerate([(OBS, H), (H, H), (H, out)]):
        bound = 1.0 / np.sqrt(fan_in)
        save("init.%s.%d.weight" % (net, 2 * i),
             rng.uniform(-bound, bound, (fan_out, fan_in)))
        save("init.%s.%d.bias" % (net, 2 * i), rng.uniform(-bound, bound, fan_out))
save("init.log_std", np.zeros(A))
for name, shape in [("obs", (B, OBS)), ("act", (B, A)), ("adv", (B,)),
                    ("ret", (B,)), ("old_logp", (B,))]:
    save("input." + name, rng.standard_normal(shape))
