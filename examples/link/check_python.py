"""The installed Python package, from the prefix's dist-packages: it is the
one imported (not the build tree's), and its tracer records, compiles and
replays (which needs libMLIR through the extension's RPATH).

usage: check_python.py SITE_PACKAGES"""
import sys

import numpy as np

import capture
import capture.fx  # noqa: F401 (the importer's files were installed too)

assert capture.__file__.startswith(sys.argv[1]), capture.__file__
params = capture.Params()
w = params.weight("w", [2], capture.Init.constant(3.0))
y = capture.capture(lambda i: {"y": i["x"] * w}, params)(
    x=np.ones(2, np.float32))["y"]
assert list(y) == [3.0, 3.0], y
print("import capture:", capture.Device().name, "traced", list(y))
