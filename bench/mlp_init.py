#!/usr/bin/python3
"""Writes initial weights (nn.Linear's uniform init) and one batch for
examples/mlp_train.mlir, with numpy only. usage: mlp_init.py DIR [--seed N]"""
import argparse
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = np.random.default_rng(a.seed)
os.makedirs(a.dir, exist_ok=True)
for name, (fan_out, fan_in) in [("fc1", (256, 784)), ("fc2", (256, 256)),
                                ("fc3", (10, 256))]:
    bound = 1.0 / np.sqrt(fan_in)
    for part, shape in [("weight", (fan_out, fan_in)), ("bias", (fan_out,))]:
        np.save(os.path.join(a.dir, "init.%s.%s.npy" % (name, part)),
                rng.uniform(-bound, bound, shape).astype(np.float32))
np.save(os.path.join(a.dir, "input.x.npy"),
        rng.standard_normal((128, 784)).astype(np.float32))
np.save(os.path.join(a.dir, "input.labels.npy"),
        rng.integers(0, 10, 128).astype(np.int32))
