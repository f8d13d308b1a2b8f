"""What the training checks against PyTorch share: running a training step
for N steps in the reference interpreter or on the device, reading the
per-step lines, and the 1e-4 relative (1e-5 absolute floor) comparisons."""
import os
import re
import subprocess

import numpy as np


def close(got, want):
    """Within 1e-4 relative of `want`, with a 1e-5 absolute floor."""
    return abs(got - want) <= max(1e-4 * abs(want), 1e-5)


def run_steps(mode, capture_aot, runner, model, work, steps, inputs, params,
              extra=(), aot_flags=()):
    """Trains entry `train` of `model` for `steps` steps with capture-interp
    (mode "interp", f32) or capture-aot + capture-run (mode "device").
    `inputs` / `params` map names to .npy paths; `aot_flags` go to
    capture-aot. The weights after the last step go to WORK/<mode>-params.
    Returns the finished process."""
    if mode == "device":
        module = os.path.join(work, "model.capmod")
        subprocess.run([capture_aot, model, "-o", module] + list(aot_flags),
                       check=True)
        cmd = [runner, module, "--entry", "train"]
    else:
        cmd = [runner, model, "--entry", "train", "--precision", "f32"]
    cmd += ["--steps", str(steps), "--save-params",
            os.path.join(work, mode + "-params")]
    for name, path in sorted(inputs.items()):
        cmd += ["--input", "%s=%s" % (name, path)]
    for name, path in sorted(params.items()):
        cmd += ["--param", "%s=%s" % (name, path)]
    return subprocess.run(cmd + list(extra), capture_output=True, text=True)


def step_line(stdout, k):
    """(loss, grad_norm) printed for step k, or None."""
    m = re.search(r"^step %d: loss=(\S+) grad_norm=(\S+)$" % k, stdout, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def compare_history(mode, stdout, history, skip=()):
    """Checks every step's loss and grad_norm (steps in `skip` excepted)
    against `history` [(loss, grad_norm)]; prints the last step's and every
    mismatch. Returns whether all matched."""
    ok_all = True
    for k, (want_loss, want_norm) in enumerate(history, 1):
        if k in skip:
            continue
        got = step_line(stdout, k)
        if got is None:
            print("%s: no line for step %d in:\n%s" % (mode, k, stdout))
            return False
        for what, g, w in [("loss", got[0], want_loss),
                           ("grad_norm", got[1], want_norm)]:
            ok = close(g, w)
            ok_all &= ok
            if not ok or k == len(history):
                print("%s step %d %s: capture %.7g, torch %.7g: %s"
                      % (mode, k, what, g, w, "ok" if ok else "FAIL"))
    return ok_all


def compare_weights(mode, work, steps, want, floor=1e-5):
    """Checks the saved weights against `want` {name: array} elementwise
    (1e-4 relative, `floor` absolute); prints one summary line. Returns
    whether all matched."""
    ok_all, worst = True, 0.0
    for name, value in want.items():
        got = np.load(os.path.join(work, mode + "-params", name + ".npy"))
        diff = np.abs(got - value)
        worst = max(worst, float(diff.max()))
        if np.any(diff > np.maximum(1e-4 * np.abs(value), floor)):
            ok_all = False
            print("%s final %s: max |diff| %.3g: FAIL" % (mode, name,
                                                         diff.max()))
    print("%s final weights after %d steps (max |diff| %.2g): %s"
          % (mode, steps, worst, "ok" if ok_all else "FAIL"))
    return ok_all
