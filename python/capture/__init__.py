"""Capture from Python: replay compiled training steps and forward passes.

A module compiled by ``capture-aot`` (``.capmod``) is loaded on a Vulkan
device (lavapipe, the CPU driver, when there is no GPU); every call replays
one recorded queue submission::

    import numpy as np, capture
    device = capture.Device()                     # or Device("gpu")
    m = capture.Module.load(device, "ppo.capmod")
    out = m.run("train", {"obs": obs, "act": act, ...})   # one training step
    out["loss"], out["grad_norm"]
    m.set_learning_rate("train", 1e-4)            # never re-records

Errors are exceptions carrying the runtime's message and ``.code``:
``capture.Error``; a training step the runtime refused (a non-finite
gradient norm: nothing changed) is ``capture.UpdateRefused``; memory is
``capture.OutOfMemory``.
"""

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

Device = _capture.Device
Module = _capture.Module
devices = _capture.devices

__all__ = ["Device", "Module", "devices", "Error", "UpdateRefused",
           "OutOfMemory"]
