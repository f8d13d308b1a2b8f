#!/usr/bin/python3
"""Capture from Python in one page: an ordinary PyTorch classifier and its
loss, imported through torch.fx and trained with captured steps (each one
queue submission), beside PyTorch's own training from the same weights;
then the trained weights answer on the device and go back into PyTorch.

usage: PYTHONPATH=build/python /usr/bin/python3 examples/python/quickstart.py
"""
import torch
import torch.nn.functional as F

import capture.fx


def make_net():
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                               torch.nn.Linear(32, 4))


def loss_fn(model, x, labels):
    return F.cross_entropy(model(x), labels)


torch.manual_seed(0)
net, twin = make_net(), make_net()
twin.load_state_dict(net.state_dict())  # PyTorch's copy, for comparison
x = torch.randn(64, 16)
labels = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long()  # 4 classes

step = capture.fx.import_module(
    net, loss_fn, {"x": x, "labels": labels},
    optimizer=torch.optim.AdamW(net.parameters(), lr=1e-2), max_grad_norm=1.0)
opt = torch.optim.AdamW(twin.parameters(), lr=1e-2)
for k in range(1, 51):
    out = step.step(x=x, labels=labels)  # forward, backward, clip, AdamW
    loss = loss_fn(twin, x, labels)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(twin.parameters(), 1.0)
    opt.step()
    if k % 10 == 0:
        print("step %2d: loss %.6f (PyTorch %.6f), grad_norm %.4f"
              % (k, out["loss"], loss.item(), out["grad_norm"]))

logits = step.forward(input=x)["output"]  # the trained weights, on the device
print("accuracy on the batch: %.2f" % (logits.argmax(1) == labels.numpy()).mean())
step.load_into(net)  # the trained values, back into PyTorch
