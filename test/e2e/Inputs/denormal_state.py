"""Denormal AdamW moments, for test/e2e/denormal-moments-train.mlir and
bench/denormal_state.py.

usage: denormal_state.py make STATE_DIR OUT_DIR
         copies a state written by capture-run --dump-state (one step-K
         directory) with every moment denormal: m = +-1e-39 alternating,
         v = 1e-40
       denormal_state.py check DUMP_DIR
         the moments of the last step under DUMP_DIR hold no denormal, and
         both zeros (flushed) and normal values; prints the counts
"""
import glob
import os
import shutil
import sys

import numpy as np

TINY = np.finfo(np.float32).tiny


def make(src, out):
    shutil.copytree(src, out)
    for name, values in (("adam.m.npy", (1e-39, -1e-39)),
                         ("adam.v.npy", (1e-40, 1e-40))):
        path = os.path.join(out, name)
        m = np.load(path)
        pattern = np.resize(np.array(values, dtype=np.float32), m.size)
        np.save(path, pattern.reshape(m.shape).astype(np.float32))
        assert (np.abs(np.load(path)) < TINY).all()


def check(dump):
    steps = sorted(glob.glob(os.path.join(dump, "step-*")),
                   key=lambda d: int(d.rsplit("-", 1)[1]))
    if not steps:
        sys.exit("denormal_state.py: no step-K directory under %s" % dump)
    ok = True
    for name in ("adam.m.npy", "adam.v.npy"):
        x = np.abs(np.load(os.path.join(steps[-1], name)))
        denormal = int(((x > 0) & (x < TINY)).sum())
        zero = int((x == 0).sum())
        normal = int((x >= TINY).sum())
        print("%s: %d denormal, %d zero, %d normal" %
              (name, denormal, zero, normal))
        ok &= denormal == 0 and zero > 0 and normal > 0
    if not ok:
        sys.exit("denormal_state.py: expected no denormal moment, and both "
                 "flushed zeros and normal moments")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
