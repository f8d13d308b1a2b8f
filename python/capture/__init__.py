"""Capture from Python: replay compiled training steps and forward passes.

A module compiled by ``capture-aot`` (``.capmod``) is loaded on a device:
a GPU through Vulkan, else the host device, which runs the kernels as
native code (a module compiled with ``--target=cpu``), else lavapipe, the
CPU Vulkan driver; every call replays one recorded queue submission (on
the host device, one call of the code)::

    import numpy as np, capture
    m = capture.Module.load(None, "ppo.capmod")   # or capture.Device(...)
    print(m.device_name, m.device_choice)         # where, and why
    out = m.run("train", {"obs": obs, "act": act, ...})   # one training step
    out["loss"], out["grad_norm"]
    m.set_learning_rate("train", 1e-4)            # never re-records

The tracer is the C++ one, bound: a Python function over ``capture.Tensor``
values is recorded once, compiled in-process and replayed afterwards::

    params = capture.Params()
    w = params.weight("fc.weight", [2, 4], capture.Init.linear(4, seed=1))
    b = params.weight("fc.bias", [2], capture.Init.linear(4, seed=2))
    step = capture.capture_step(
        lambda x: {"loss": capture.mse(capture.linear(x["x"], w, b), x["y"])},
        params, lr=1e-2, max_grad_norm=1.0)
    out = step(x=xs, y=ys)                        # loss, grad_norm

``capture.fx.import_module`` imports a PyTorch ``nn.Module`` and its loss
through ``torch.fx`` into such a step.

Errors are exceptions carrying the runtime's message and ``.code``:
``capture.Error``; a training step the runtime refused (a non-finite
gradient norm: nothing changed) is ``capture.UpdateRefused``; memory is
``capture.OutOfMemory``.
"""

import os

from . import _capture


class Error(RuntimeError):
    """A runtime error; ``.code`` is the runtime's StatusCode value."""

    code = 1


class UpdateRefused(Error):
    """A training step whose gradient norm was not finite: the update was
    not applied and the weights, moments and step counter are unchanged."""

    code = 4


class OutOfMemory(Error):
    """Device or host memory ran out (or the device's memory limit)."""

    code = 5


_capture.register_errors(Error, UpdateRefused, OutOfMemory)

# An op is located at its caller's line: the first frame outside here.
_capture.set_package_dir(os.path.dirname(os.path.abspath(__file__)) + os.sep)

Device = _capture.Device
Module = _capture.Module
devices = _capture.devices
advise_cpu_threads = _capture.advise_cpu_threads

# The tracer.
Params = _capture.Params
Weight = _capture.Weight
Tensor = _capture.Tensor
Init = _capture.Init
Tracer = _capture.Tracer
Captured = _capture.Captured
CapturedStep = _capture.CapturedStep
Deferred = _capture.Deferred
capture = _capture.capture
capture_step = _capture.capture_step
# The compiler's default device preset (its one home is the C++
# CompileOptions): what compile(), capture(), capture_step and capture.fx
# shape the kernels for when no target is given.
DEFAULT_TARGET = _capture.DEFAULT_TARGET

_OPS = ["exp", "log", "tanh", "sigmoid", "relu", "sqrt", "square", "floor",
        "ceil", "erf", "add", "sub", "mul", "div", "minimum", "maximum", "neg",
        "clamp", "matmul", "linear", "sum", "mean", "max", "softmax",
        "log_softmax", "cross_entropy", "mse", "get_rows", "reshape",
        "transpose", "broadcast_to", "slice", "concat", "one_hot",
        "stop_gradient", "compare", "assign"]
globals().update({name: getattr(_capture, name) for name in _OPS})

__all__ = ["Device", "Module", "devices", "advise_cpu_threads", "Error", "UpdateRefused",
           "OutOfMemory", "Params", "Weight", "Tensor", "Init", "Tracer",
           "Captured", "CapturedStep", "Deferred", "capture", "capture_step"] + _OPS
