"""Trains the PPO step of examples/ppo_train.mlir for N steps, in the
reference interpreter or on the device, from PyTorch's initial weights and
inputs (ppo_torch.py --dump), and compares every step's loss and gradient
norm and the final weights with PyTorch's (1e-4 relative, 1e-5 absolute
floor).

Schedules exercise what the runtime promises: --lr-at/--max-grad-norm-at
change the hyperparameters before a step (PyTorch: param_groups and the
clip limit), --nan-at/--inf-at make one step's gradient norm NaN/Inf (a
NaN observation; advantages scaled by 1e30), which must be refused with
weights, moments and t bitwise unchanged, after which training goes on as
PyTorch does when it skips that step.

usage: ppo_train_check.py interp|device CAPTURE_AOT RUNNER PPO_TORCH_PY MODEL
           WORKDIR --steps N [--lr-at K=V]... [--max-grad-norm-at K=V]...
           [--nan-at K]... [--inf-at K]...
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import torch

from train_check_lib import close, compare_history, compare_weights, run_steps

p = argparse.ArgumentParser()
p.add_argument("mode", choices=["interp", "device"])
p.add_argument("capture_aot")
p.add_argument("runner")
p.add_argument("ppo_torch")
p.add_argument("model")
p.add_argument("work")
p.add_argument("--steps", type=int, required=True)
p.add_argument("--lr-at", action="append", default=[])
p.add_argument("--max-grad-norm-at", action="append", default=[])
p.add_argument("--nan-at", type=int, action="append", default=[])
p.add_argument("--inf-at", type=int, action="append", default=[])
p.add_argument("--aot-flag", action="append", default=[],
               help="a capture-aot flag for device mode (--target=cpu)")
p.add_argument("--run-flag", action="append", default=[],
               help="a capture-run flag for device mode (--device=host)")
a = p.parse_args()

INPUTS = ["obs", "act", "adv", "ret", "old_logp"]


def at(items):
    out = {}
    for item in items:
        k, v = item.split("=")
        out[int(k)] = float(v)
    return out


lr_at, clip_at = at(a.lr_at), at(a.max_grad_norm_at)
refused = set(a.nan_at) | set(a.inf_at)
schedule = bool(lr_at or clip_at or refused)

# PyTorch's initial weights and inputs (and, without a schedule, its own
# 20-step history, which the replica below must reproduce).
dump = os.path.join(a.work, "torch")
subprocess.run([sys.executable, a.ppo_torch, "--dump", dump,
                "--dump-steps", str(a.steps)], check=True,
               stdout=subprocess.DEVNULL)
load = lambda name: np.load(os.path.join(dump, name))
names = sorted(f[len("init."):-len(".npy")] for f in os.listdir(dump)
               if f.startswith("init."))
inputs = {n: load("input.%s.npy" % n) for n in INPUTS}

# Per-step input overrides that make the norm non-finite.
overrides = {}
for k in a.nan_at:
    obs = inputs["obs"].copy()
    obs[3, 5] = np.nan
    overrides[k] = ("obs", obs)
for k in a.inf_at:
    overrides[k] = ("adv", (inputs["adv"] * np.float32(1e30)).astype(np.float32))


def torch_reference():
    """ppo_torch.py's step on the same weights and inputs, with the schedule;
    a refused step runs forward/backward but not the optimizer (and does not
    count as a step)."""
    params = {n: torch.nn.Parameter(torch.tensor(load("init.%s.npy" % n)))
              for n in names}
    order = list(params.values())
    opt = torch.optim.AdamW(order, lr=3e-4, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=0.01)
    max_norm = 0.5

    def mlp(prefix, x):
        for i in (0, 2):
            x = torch.tanh(x @ params["%s.%d.weight" % (prefix, i)].T +
                           params["%s.%d.bias" % (prefix, i)])
        return x @ params[prefix + ".4.weight"].T + params[prefix + ".4.bias"]

    history = []
    for k in range(1, a.steps + 1):
        if k in lr_at:
            for group in opt.param_groups:
                group["lr"] = lr_at[k]
        max_norm = clip_at.get(k, max_norm)
        t = {n: torch.tensor(v) for n, v in inputs.items()}
        if k in overrides:
            t[overrides[k][0]] = torch.tensor(overrides[k][1])
        log_std = params["log_std"]
        mu = mlp("actor", t["obs"])
        logp = (-0.5 * ((t["act"] - mu) / log_std.exp()) ** 2 - log_std
                - 0.9189385).sum(-1)
        ratio = (logp - t["old_logp"]).exp()
        pg = -torch.min(ratio * t["adv"],
                        ratio.clamp(0.8, 1.2) * t["adv"]).mean()
        vl = 0.5 * ((mlp("critic", t["obs"]).squeeze(-1) - t["ret"]) ** 2).mean()
        ent = (log_std + 1.4189385).sum()
        loss = pg + 0.5 * vl - 0.01 * ent
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(order, max_norm)
        if k not in refused:
            opt.step()
        history.append((float(loss), float(gn)))
    return history, {n: q.detach().numpy() for n, q in params.items()}


want_hist, want_final = torch_reference()
failed = False


if not schedule:
    # The replica is ppo_torch.py's step: same history, same weights.
    ref_loss, ref_norm = load("loss.npy"), load("grad_norm.npy")
    same = all(close(l, rl) and close(g, rg) for (l, g), rl, rg
               in zip(want_hist, ref_loss, ref_norm))
    same &= all(np.allclose(want_final[n], load("final.%s.npy" % n),
                            rtol=1e-6, atol=1e-7) for n in names)
    print("torch replica matches ppo_torch.py: %s" % ("ok" if same else "FAIL"))
    failed |= not same

# The run under test.
extra = []
for k, v in sorted(lr_at.items()):
    extra += ["--lr-at", "%d=%r" % (k, v)]
for k, v in sorted(clip_at.items()):
    extra += ["--max-grad-norm-at", "%d=%r" % (k, v)]
for k, (name, value) in sorted(overrides.items()):
    path = os.path.join(a.work, "override%d.%s.npy" % (k, name))
    np.save(path, value)
    extra += ["--input-at", "%d:%s=%s" % (k, name, path)]
state_dir = os.path.join(a.work, a.mode + "-state")
if refused:
    extra += ["--keep-going", "--dump-state", state_dir]
run = run_steps(a.mode, a.capture_aot, a.runner, a.model, a.work, a.steps,
                {n: os.path.join(dump, "input.%s.npy" % n) for n in INPUTS},
                {n: os.path.join(dump, "init.%s.npy" % n) for n in names},
                extra + a.run_flag, a.aot_flag)
if run.returncode != (1 if refused else 0):
    print("%s exited with %d:\n%s%s" % (a.mode, run.returncode, run.stdout,
                                        run.stderr))
    sys.exit(1)

for k in sorted(refused):
    m = re.search(r"^step %d: update not applied: (.*)$" % k, run.stdout, re.M)
    kind = "nan" if k in a.nan_at else "inf"
    ok = bool(m) and (" is " + kind) in m.group(1)
    print("%s step %d refused (grad_norm %s): %s"
          % (a.mode, k, kind, "ok" if ok else "FAIL: " + run.stdout))
    failed |= not ok
failed |= not compare_history(a.mode, run.stdout, want_hist, refused)
failed |= not compare_weights(a.mode, a.work, a.steps, want_final)

# A refused step leaves weights, moments and t exactly as they were.
for k in sorted(refused):
    before = os.path.join(state_dir, "step-%d" % (k - 1))
    after = os.path.join(state_dir, "step-%d" % k)
    if k == 1:
        print("a refused first step is compared with the initial state")
    same = True
    files = [n + ".npy" for n in names] + ["adam.m.npy", "adam.v.npy"]
    for f in files:
        x = np.load(os.path.join(after, f))
        y = (np.load(os.path.join(dump, "init." + f)) if k == 1 and f[:-4] in names
             else np.zeros_like(x) if k == 1 else np.load(os.path.join(before, f)))
        same &= x.tobytes() == y.tobytes()
    t_before = 0 if k == 1 else int(open(os.path.join(before, "t.txt")).read())
    t_after = int(open(os.path.join(after, "t.txt")).read())
    same &= t_before == t_after == k - 1 - len([r for r in refused if r < k])
    print("%s step %d left weights, moments and t=%d bitwise unchanged: %s"
          % (a.mode, k, t_after, "ok" if same else "FAIL"))
    failed |= not same

for line in run.stdout.splitlines():
    if line.startswith("command buffers recorded"):
        print(line)
sys.exit(1 if failed else 0)
