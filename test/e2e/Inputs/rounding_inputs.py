"""Writes the inputs of ops-rounding.mlir to DIR: r.npy, values floor and
ceil must get exactly right, and s.npy, a dense sweep for erf.

  usage: rounding_inputs.py DIR
"""
import os
import sys

import numpy as np

out = sys.argv[1]
f32 = np.float32
rng = np.random.default_rng(7)
# [5, 13, 3] = 195: integers and halves (on both sides of zero), the floats
# next to integers, signed zeros and tiny values, values beyond 2^23 (all
# integers already) and beyond 2^24, the infinities and NaN, and random
# values of several magnitudes.
special = [0.0, -0.0, 1e-30, -1e-30, 0.5, -0.5, 2.5, -2.5, 1.0, -1.0, 7.0,
           -7.0, 8388607.5, -8388607.5, 8388608.0, 16777217.0, -3e38, 3e38,
           np.inf, -np.inf, np.nan]
near = [np.nextafter(f32(v), f32(t)) for v in (-3, -1, 0, 1, 2, 100)
        for t in (-np.inf, np.inf)]
halves = np.arange(-20, 21, dtype=f32) / f32(2)
count = 195 - len(special) - len(near) - len(halves)
noise = rng.uniform(-1, 1, count) * 10.0 ** rng.integers(-3, 8, count)
r = np.concatenate([np.array(special, f32), np.array(near, f32), halves,
                    noise.astype(f32)])
rng.shuffle(r)
np.save(os.path.join(out, "r.npy"), r.reshape(5, 13, 3))
# [-6, 6] in steps of 1e-3 (12001 values), then the values around the
# point where f32 erf reaches 1, the infinities, NaN, signed zeros and tiny
# values: 12011.
sweep = np.arange(-6000, 6001, dtype=np.float64) / 1000
tail = [3.9, -3.92, np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, -1e-8,
        1e-5]
s = np.concatenate([sweep, tail]).astype(f32)
np.save(os.path.join(out, "s.npy"), s)
