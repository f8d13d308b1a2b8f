"""Trains the MLP classifier step of examples/mlp_train.mlir for N steps, in
the reference interpreter or on the device, from PyTorch's initial weights
(nn.Linear's init, seed 0) on one fixed batch, and compares every step's
loss and gradient norm and the final weights with PyTorch's (AdamW after
clip_grad_norm_(1.0)): loss and norm within 1e-4 relative (1e-5 absolute),
weights within 1e-4 relative or 1% of AdamW's largest move (see below).

usage: mlp_train_check.py interp|device CAPTURE_AOT RUNNER MODEL WORKDIR
           --steps N
"""
import argparse
import os
import sys

import numpy as np
import torch

from train_check_lib import compare_history, compare_weights, run_steps

p = argparse.ArgumentParser()
p.add_argument("mode", choices=["interp", "device"])
p.add_argument("capture_aot")
p.add_argument("runner")
p.add_argument("model")
p.add_argument("work")
p.add_argument("--steps", type=int, required=True)
a = p.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)
net = torch.nn.Sequential()
net.add_module("fc1", torch.nn.Linear(784, 256))
net.add_module("relu1", torch.nn.ReLU())
net.add_module("fc2", torch.nn.Linear(256, 256))
net.add_module("relu2", torch.nn.ReLU())
net.add_module("fc3", torch.nn.Linear(256, 10))
g = torch.Generator().manual_seed(1)
x = torch.randn(128, 784, generator=g)
labels = torch.randint(0, 10, (128,), generator=g, dtype=torch.int32)

inputs = {"x": os.path.join(a.work, "x.npy"),
          "labels": os.path.join(a.work, "labels.npy")}
np.save(inputs["x"], x.numpy())
np.save(inputs["labels"], labels.numpy())
params = {}
for name, q in net.named_parameters():
    params[name] = os.path.join(a.work, "init.%s.npy" % name)
    np.save(params[name], q.detach().numpy())

# The reference runs in float64: in float32 PyTorch's own results move by
# ~4e-5 with the BLAS kernel it picks (OPENBLAS_CORETYPE), more than the
# comparison should absorb.
net = net.double()
opt = torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999),
                        eps=1e-8, weight_decay=0.01)
history = []
for _ in range(a.steps):
    loss = torch.nn.functional.cross_entropy(net(x.double()), labels.long())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()
    history.append((float(loss), float(norm)))
final = {n: q.detach().numpy() for n, q in net.named_parameters()}

run = run_steps(a.mode, a.capture_aot, a.runner, a.model, a.work, a.steps,
                inputs, params)
if run.returncode != 0:
    print("%s exited with %d:\n%s%s" % (a.mode, run.returncode, run.stdout,
                                        run.stderr))
    sys.exit(1)
ok = compare_history(a.mode, run.stdout, history)
# Adam moves a weight by about lr per step whatever its gradient's size, so
# where a gradient is tiny (a cancelling sum over the batch) float rounding
# in it shifts the weight by a fraction of lr: the absolute floor is 1% of
# the farthest AdamW can move a weight in these steps (1e-5 is below the
# rounding of 784-term dot products here).
ok &= compare_weights(a.mode, a.work, a.steps, final,
                      floor=0.01 * 1e-3 * a.steps)
sys.exit(0 if ok else 1)
