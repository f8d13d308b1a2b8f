"""The C++ tracer bound into Python: capture() and capture_step() over
Params record once and replay; values match numpy; errors, the guard and a
shape error name this file's lines; a Python exception inside a traced
function propagates unchanged and leaves nothing behind; a tensor kept from
an earlier trace is refused.

Run by ctest `python.tracer`.
"""
import math
import os
import re
import shutil
import tempfile
import unittest

import numpy as np

import capture

HERE = os.path.abspath(__file__)


def line(text):
    """The line of this file marked `# text`."""
    with open(HERE) as f:
        hits = [i for i, l in enumerate(f, 1) if l.rstrip().endswith(
            "# " + text)]
    assert len(hits) == 1, (text, hits)
    return hits[0]


class TracerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def linear_params(self, device=None):
        p = capture.Params(device or self.device)
        w = p.weight("fc.weight", [3, 4], capture.Init.linear(4, seed=1))
        b = p.weight("fc.bias", [3], capture.Init.linear(4, seed=2))
        return p, w, b

    def linear_step(self, device=None):
        """(params, w, b, an mse training step of a linear layer, x, y)."""
        p, w, b = self.linear_params(device)
        step = capture.capture_step(
            lambda i: {"loss": capture.mse(capture.linear(i["x"], w, b),
                                           i["y"])},
            p, lr=0.05, max_grad_norm=1.0)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((16, 4)).astype(np.float32)
        y = (x @ rng.standard_normal((4, 3))).astype(np.float32)
        return p, w, b, step, x, y

    def test_forward_matches_numpy_and_replays(self):
        p, w, b = self.linear_params()
        f = capture.capture(lambda i: {"y": capture.tanh(
            capture.linear(i["x"], w, b))}, p)
        x = np.linspace(-1, 1, 8 * 4, dtype=np.float32).reshape(8, 4)
        y = f(x=x)["y"]
        v = p.values()
        np.testing.assert_allclose(
            y, np.tanh(x @ v["fc.weight"].T + v["fc.bias"]), rtol=1e-5,
            atol=1e-6)
        self.assertIn("first call", f.why_recorded)
        f(x=x)
        self.assertEqual(f.why_recorded, "")
        f(x=x[:2])  # a new signature records again
        self.assertIn("new input signature", f.why_recorded)
        self.assertEqual(f.stats["recordings"], 2)
        self.assertEqual(f.stats["replays"], 1)

    def test_inputs_in_place_and_outputs_without_a_copy(self):
        p, w, b = self.linear_params()
        f = capture.capture(lambda i: {"y": capture.linear(i["x"], w, b)}, p)
        wide = np.arange(8 * 8, dtype=np.float32).reshape(8, 8) / 64
        strided = wide[:, ::2]  # not contiguous: viewed through a copy
        self.assertFalse(strided.flags.c_contiguous)
        y1 = f(x=strided)["y"]
        y2 = f(x=np.ascontiguousarray(strided))["y"]
        np.testing.assert_array_equal(y1, y2)
        # An output array owns the runtime's result (no second copy) and
        # is the caller's: writing it changes no later result.
        self.assertFalse(y1.flags.owndata)
        self.assertIsNotNone(y1.base)
        y1[:] = 7
        np.testing.assert_array_equal(f(x=strided)["y"], y2)
        # The same array changed in place between calls is read again.
        x = np.ascontiguousarray(strided)
        first = f(x=x)["y"]
        x += 1
        self.assertFalse(np.array_equal(f(x=x)["y"], first))

    def test_operators_and_methods(self):
        p = capture.Params(self.device)
        s = p.weight("s", [4], capture.Init.constant(2.0), trainable=False)
        f = capture.capture(lambda i: {
            "a": (1.0 - i["x"] * s) / 2.0 + s,
            "b": (i["x"] @ i["m"]).sum(axis=1),
            "c": (-i["x"]).exp().mean(),
            "d": i["x"].T ** 2}, p)
        x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
        m = np.ones((4, 3), np.float32)
        out = f(x=x, m=m)
        np.testing.assert_allclose(out["a"], (1 - x * 2) / 2 + 2, rtol=1e-6)
        np.testing.assert_allclose(out["b"], (x @ m).sum(axis=1), rtol=1e-6)
        np.testing.assert_allclose(out["c"], np.exp(-x).mean(), rtol=1e-6)
        np.testing.assert_allclose(out["d"], x.T ** 2, rtol=1e-6)

    def test_training_step_learns_and_keeps_hyperparameters(self):
        p, w, b, step, x, y = self.linear_step()
        losses = [float(step(x=x, y=y)["loss"]) for _ in range(30)]
        self.assertLess(losses[-1], 0.5 * losses[0])
        step.set_learning_rate(0.01)
        step.set_max_grad_norm(0.5)
        step(x=x, y=y)
        self.assertEqual(step.stats["recordings"], 1)
        state = step.train_state()
        self.assertEqual(state["step"], 31)
        self.assertAlmostEqual(state["lr"], 0.01)
        # The forward over the same Params reads the trained weights.
        f = capture.capture(lambda i: {"y": capture.linear(i["x"], w, b)}, p)
        v = p.values()
        np.testing.assert_allclose(f(x=x)["y"],
                                   x @ v["fc.weight"].T + v["fc.bias"],
                                   rtol=1e-5, atol=1e-5)
        with self.assertRaisesRegex(capture.Error, "shapes"):
            step(x=x[:2], y=y[:2])

    def test_the_host_device_trains_like_vulkan(self):
        """capture.Device("host") runs host code, no Vulkan: the recordings
        are compiled for the cpu target, and the step trains to the Vulkan
        device's numbers."""
        host = capture.Device("host")
        losses, trained = [], []
        for device in (self.device, host):
            p, w, b, step, x, y = self.linear_step(device)
            losses.append([float(step(x=x, y=y)["loss"]) for _ in range(5)])
            f = capture.capture(lambda i: {"y": capture.linear(i["x"], w, b)},
                                p)
            trained.append(f(x=x)["y"])
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
        np.testing.assert_allclose(trained[1], trained[0], rtol=1e-5,
                                   atol=1e-6)
        # The census counts the host code the host device runs.
        census = step.census()
        self.assertGreater(census["host_code_bytes"], 0)
        self.assertTrue(census["host_isa_level"].startswith("x86-64"))

    def first_step(self, step, p, seed):
        """One step of `step` (a loss of x [8, 4] and t [8, 3] over a linear
        weight 'w' [3, 4]) on random data: (x, t, w before, the outputs,
        y = x @ w.T in f64)."""
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((8, 4)).astype(np.float32)
        t = rng.standard_normal((8, 3)).astype(np.float32)
        w0 = p.values()["w"].astype(np.float64)
        out = step(x=x, t=t)
        return x, t, w0, out, x.astype(np.float64) @ w0.T

    def test_stop_gradient_is_detach(self):
        # loss = mse(y, 0.25 * stop_gradient(y) + 0.25 * y.stop_gradient()
        # + t) with y = x @ w.T: the target is a constant for the gradient,
        # as with torch's y.detach() (through the target the gradient would
        # be half as large).
        p = capture.Params(self.device)
        w = p.weight("w", [3, 4], capture.Init.linear(4, seed=3))

        def loss(i):
            y = capture.linear(i["x"], w)
            target = (0.25 * capture.stop_gradient(y)
                      + 0.25 * y.stop_gradient() + i["t"])
            return capture.mse(y, target)

        lr, wd = 0.01, 0.01
        step = capture.capture_step(loss, p, lr=lr, weight_decay=wd)
        x, t, w0, out, y = self.first_step(step, p, 5)
        r = y - (0.5 * y + t)
        grad = (2 * r / r.size).T @ x
        np.testing.assert_allclose(out["loss"], np.mean(r * r), rtol=1e-5)
        np.testing.assert_allclose(out["grad_norm"], np.linalg.norm(grad),
                                   rtol=1e-5)
        # AdamW's first step: m / sqrt(v) is sign(grad).
        w1 = w0 * (1 - lr * wd) - lr * grad / (np.abs(grad) + 1e-8)
        np.testing.assert_allclose(p.values()["w"], w1, rtol=1e-5,
                                   atol=1e-6)
        # A forward capture: the identity.
        f = capture.capture(
            lambda i: {"y": capture.stop_gradient(i["x"]) * 2.0}, p)
        np.testing.assert_array_equal(f(x=x)["y"], 2 * x)

    def test_floor_ceil_erf(self):
        # As functions and as methods: floor and ceil exactly numpy's
        # (halves on both sides of zero, integers, NaN, infinities), erf
        # within 2e-7 of math.erf.
        p = capture.Params(self.device)
        f = capture.capture(lambda i: {
            "floor": capture.floor(i["x"]), "ceil": i["x"].ceil(),
            "erf": capture.erf(i["x"]), "floor_m": i["x"].floor(),
            "ceil_f": capture.ceil(i["x"]), "erf_m": i["x"].erf()}, p)
        x = np.array([[-2.5, -0.5, -0.0, 0.5, 2.5, 3.0],
                      [-7.0, 1e-3, -1e-3, np.inf, -np.inf, np.nan],
                      [8388607.5, -3.9, 4.5, 0.3, -1.2, 2.0]], np.float32)
        out = f(x=x)
        np.testing.assert_array_equal(out["floor"], np.floor(x))
        np.testing.assert_array_equal(out["floor_m"], np.floor(x))
        np.testing.assert_array_equal(out["ceil"], np.ceil(x))
        np.testing.assert_array_equal(out["ceil_f"], np.ceil(x))
        want = np.array([math.erf(v) for v in x.flat]).reshape(x.shape)
        np.testing.assert_allclose(out["erf"], want, rtol=0, atol=2e-7)
        np.testing.assert_array_equal(out["erf_m"], out["erf"])

        # A training step: the gradient flows through erf
        # (2 / sqrt(pi) * exp(-y^2)) and not through floor (zero, as in
        # PyTorch): loss = mean((erf(y) + floor(y) - t)^2), y = x @ w.T.
        w = p.weight("w", [3, 4], capture.Init.linear(4, seed=4))

        def loss(i):
            y = capture.linear(i["x"], w)
            return capture.mse(capture.erf(y) + y.floor(), i["t"])

        step = capture.capture_step(loss, p, lr=1e-3)
        xs, t, w0, out, y = self.first_step(step, p, 6)
        erf_y = np.vectorize(math.erf)(y)
        r = erf_y + np.floor(y) - t
        dy = 2 * r / r.size * (2 / math.sqrt(math.pi)) * np.exp(-y * y)
        np.testing.assert_allclose(out["loss"], np.mean(r * r), rtol=1e-5)
        np.testing.assert_allclose(out["grad_norm"],
                                   np.linalg.norm(dy.T @ xs), rtol=1e-5)

    def test_compare_is_a_mask_without_gradient(self):
        p = capture.Params(self.device)
        x = np.array([[-1.0, 0.0, 2.0], [np.nan, 3.0, -0.5]], np.float32)
        y = np.array([0.0, 0.0, 2.0], np.float32)
        for pred, want in (("lt", x < y), ("le", x <= y), ("gt", x > y),
                           ("ge", x >= y), ("eq", x == y), ("ne", x != y)):
            f = capture.capture(lambda i, pred=pred: {
                "m": capture.compare(pred, i["x"], i["y"])}, p)
            np.testing.assert_array_equal(f(x=x, y=y)["m"],
                                          want.astype(np.float32), pred)
        f = capture.capture(
            lambda i: {"m": capture.compare("gt", i["x"], 0.5)}, p)
        np.testing.assert_array_equal(f(x=x)["m"], (x > 0.5).astype(
            np.float32))
        with self.assertRaisesRegex(ValueError, "predicate 'gte'; expected "
                                    "eq, ne, lt, le, gt or ge"):
            capture.capture(lambda i: {"m": capture.compare(
                "gte", i["x"], 0.0)}, p)(x=x)
        # loss = sum(w * x * (w > 0)): the mask is a constant, so the
        # gradient is x * (w > 0), never a term from the comparison.
        w = p.weight("w", [3], capture.Init.zeros())
        p.set_values({"w": np.array([1.0, -2.0, 3.0], np.float32)})
        step = capture.capture_step(
            lambda i: capture.sum(w * i["x"] * capture.compare("gt", w, 0.0)),
            p, lr=0.1, weight_decay=0.0)
        xs = np.array([1.0, 2.0, 4.0], np.float32)
        out = step(x=xs)
        self.assertAlmostEqual(float(out["loss"]), 13.0, places=5)
        self.assertAlmostEqual(float(out["grad_norm"]), np.hypot(1.0, 4.0),
                               places=5)

    def test_assign_weight(self):
        """capture.assign writes a weight at the entry's end: a soft update
        of a target from the weights a forward reads, twice, then a hard
        copy; the entry's reads see the old values; mistakes are errors at
        their line."""
        p, w, b = self.linear_params()
        t = p.weight("target.weight", [3, 4], capture.Init.zeros(),
                     trainable=False)
        tau = 0.25

        def soft(i):
            old = t * 1.0  # read before the assign: the old value
            capture.assign(t, w * tau + t * (1 - tau))
            return {"t": old}
        update = capture.capture(soft, p)
        hard = capture.capture(lambda i: capture.assign(t, w) or {}, p)
        w0 = p.values()["fc.weight"].astype(np.float64)
        want = np.zeros((3, 4))
        for _ in range(2):
            out = update()
            np.testing.assert_allclose(out["t"], want, atol=1e-7)
            want = tau * w0 + (1 - tau) * want
            np.testing.assert_allclose(p.values()["target.weight"], want,
                                       rtol=1e-6, atol=1e-7)
        hard()
        np.testing.assert_array_equal(p.values()["target.weight"],
                                      p.values()["fc.weight"])
        self.assertEqual(set(p.values()), {"fc.weight", "fc.bias",
                                           "target.weight"})

        def twice(i):
            capture.assign(t, w)
            capture.assign(t, w)  # assigned twice
            return {}
        with self.assertRaisesRegex(
                capture.Error, r"test_tracer.py:%d:.*assign: weight "
                "'target.weight' is assigned twice" % line("assigned twice")):
            capture.capture(twice, p)()

        def read_after(i):
            capture.assign(t, w)
            return {"y": t * 2.0}  # read after
        with self.assertRaisesRegex(
                capture.Error, r"test_tracer.py:%d:.*weight 'target.weight' "
                "is read after it was assigned" % line("read after")):
            capture.capture(read_after, p)()
        with self.assertRaisesRegex(
                capture.Error, r"assign: weight 'fc.bias' is f32 \[3\], "
                r"but the value is f32 \[3, 4\]"):
            capture.capture(lambda i: capture.assign(b, w) or {}, p)()
        other, ow, _ = self.linear_params()
        with self.assertRaisesRegex(capture.Error, "belongs to another "
                                    "Params"):
            capture.capture(lambda i: capture.assign(ow, w) or {}, p)()
        with self.assertRaisesRegex(capture.Error,
                                    "only an ag.forward assigns weights"):
            capture.capture_step(lambda i: capture.assign(t, w) or {
                "loss": capture.mse(capture.linear(i["x"], w, b), i["y"])},
                p)(x=np.ones((2, 4), np.float32),
                   y=np.ones((2, 3), np.float32))
        # Nothing of the refused recordings was written.
        np.testing.assert_array_equal(p.values()["target.weight"],
                                      p.values()["fc.weight"])

    def test_param_groups(self):
        """capture_step's param_groups: a group's weights take its own
        learning rate (0 keeps the bias's bits while the weight trains);
        a group that does not exist, a key misspelt or a weight the step
        does not train are errors."""
        p, w, b = self.linear_params()

        def loss(i):
            return {"loss": capture.mse(capture.linear(i["x"], w, b),
                                        i["y"])}
        x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
        y = np.ones((2, 3), np.float32)
        step = capture.capture_step(
            loss, p, lr=0.1, param_groups=[{"weights": ["fc.bias"],
                                            "lr": 0.5, "eps": 1e-6}])
        step.set_learning_rate(0.0, group=1)
        before = p.values()
        step(x=x, y=y)
        after = p.values()
        np.testing.assert_array_equal(after["fc.bias"], before["fc.bias"])
        self.assertFalse(np.array_equal(after["fc.weight"],
                                        before["fc.weight"]))
        with self.assertRaisesRegex(capture.Error, "setLearningRate of param "
                                    "group 2, but the step has 2"):
            step.set_learning_rate(0.1, group=2)
        with self.assertRaisesRegex(ValueError, r"param_groups\[0\]: unknown "
                                    "key 'learning_rate'"):
            capture.capture_step(loss, p, param_groups=[
                {"weights": ["fc.bias"], "learning_rate": 0.1}])
        with self.assertRaisesRegex(ValueError, "expected its 'weights'"):
            capture.capture_step(loss, p, param_groups=[{"lr": 0.1}])
        q, qw, qb = self.linear_params()
        q.weight("frozen", [3], capture.Init.zeros(), trainable=False)
        with self.assertRaisesRegex(capture.Error, "param group 1 lists "
                                    "@frozen, which the step does not train"):
            capture.capture_step(
                lambda i: {"loss": capture.mse(capture.linear(i["x"], qw, qb),
                                               i["y"])},
                q, param_groups=[{"weights": ["frozen"]}])(x=x, y=y)

    def test_census_entry_graph_and_profile(self):
        p, w, b = self.linear_params()
        step = capture.capture_step(
            lambda i: capture.mse(capture.linear(i["x"], w, b), i["y"]), p,
            max_grad_norm=1.0)
        with self.assertRaisesRegex(capture.Error, "no recording is loaded"):
            step.census()
        x = np.ones((2, 4), np.float32)
        y = np.ones((2, 3), np.float32)
        step(x=x, y=y)
        census = step.census()
        entry = census["entries"][0]
        self.assertEqual(entry["name"], "train")
        self.assertEqual(entry["kind"], "Train")
        self.assertGreater(entry["dispatches"], 0)
        self.assertEqual(census["trainable_weights"], 2)
        graph = step.entry_graph()
        self.assertIn("entry 'train'", graph)
        self.assertEqual(len(re.findall(r"^  d\d+ ", graph, re.M)),
                         entry["dispatches"])
        out = step.profile(x=x, y=y)
        prof = out["profile"]
        self.assertEqual(prof["submissions"], 1)
        self.assertFalse(prof["eager"])
        self.assertGreater(prof["host"]["wait_us"], 0)
        eager = step.profile(x=x, y=y, eager=True)["profile"]
        self.assertEqual(eager["submissions"], entry["dispatches"])
        self.assertEqual(step.train_state()["step"], 3)  # profiled steps train

    def test_nan_batch_is_refused(self):
        p, w, b = self.linear_params()
        step = capture.capture_step(
            lambda i: capture.mse(capture.linear(i["x"], w, b), i["y"]), p,
            max_grad_norm=1.0)
        x = np.ones((2, 4), np.float32)
        y = np.ones((2, 3), np.float32)
        step(x=x, y=y)
        before = p.values()
        with self.assertRaises(capture.UpdateRefused):
            step(x=np.full((2, 4), np.nan, np.float32), y=y)
        for k, v in p.values().items():
            np.testing.assert_array_equal(v, before[k])

    def test_shape_error_names_this_line(self):
        p, w, b = self.linear_params()

        def bad(i):
            return {"y": i["x"] + i["z"]}  # shape error here

        f = capture.capture(bad, p)
        with self.assertRaises(capture.Error) as e:
            f(x=np.ones((2, 4), np.float32), z=np.ones((3, 4), np.float32))
        self.assertIn("%s:%d" % (HERE, line("shape error here")),
                      str(e.exception))
        self.assertIn("do not broadcast", str(e.exception))

    def test_guard_refuses_item_at_its_line(self):
        p, w, b = self.linear_params()

        def reads_back(i):
            v = i["x"].sum().item()  # host read-back here
            return {"y": i["x"] * v}

        with self.assertRaises(capture.Error) as e:
            capture.capture(reads_back, p)(x=np.ones((2, 4), np.float32))
        self.assertIn("%s:%d" % (HERE, line("host read-back here")),
                      str(e.exception))
        # The user's lines, not the entry printed as IR.
        self.assertNotIn("see current operation", str(e.exception))

    def test_a_recording_comes_from_the_compile_cache(self):
        """A second process (here: a fresh Params) tracing the same code
        reads the compiled module from the cache (CAPTURE_CACHE_DIR), with
        the same results; CAPTURE_CACHE=0 compiles."""
        cache = tempfile.mkdtemp()
        saved = {k: os.environ.get(k)
                 for k in ("CAPTURE_CACHE_DIR", "CAPTURE_CACHE")}
        os.environ["CAPTURE_CACHE_DIR"] = cache
        os.environ.pop("CAPTURE_CACHE", None)
        try:
            def run():
                p, w, b = self.linear_params()
                f = capture.capture(
                    lambda i: {"y": capture.linear(i["x"], w, b)}, p)
                y = f(x=np.ones((2, 4), np.float32))["y"]
                return y, f.stats["cache_hits"]

            first, hit = run()
            self.assertEqual(hit, 0)
            self.assertEqual(len(os.listdir(cache)), 1)
            second, hit = run()
            self.assertEqual(hit, 1)
            np.testing.assert_array_equal(first, second)
            os.environ["CAPTURE_CACHE"] = "0"
            self.assertEqual(run()[1], 0)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            shutil.rmtree(cache)

    def test_guard_names_the_line_of_a_nested_captured_call(self):
        # The caller's line is found only inside a trace (a replay does not
        # pay for it): there it must still be the user's line.
        p, w, b = self.linear_params()
        x = np.ones((2, 4), np.float32)
        inner = capture.capture(lambda i: {"y": i["x"] * 2.0}, p)

        def outer(i):
            try:
                inner(x=x)  # nested call here
            except capture.Error as e:
                self.assertIn("called inside a function traced", str(e))
            return {"y": capture.linear(i["x"], w, b)}

        with self.assertRaises(capture.Error) as e:
            capture.capture(outer, p)(x=x)
        self.assertIn("%s:%d" % (HERE, line("nested call here")),
                      str(e.exception))
        self.assertEqual(inner(x=x)["y"].tolist(), (x * 2.0).tolist())

    def test_python_exception_propagates_and_nothing_is_left(self):
        p, w, b = self.linear_params()
        calls = []

        def fn(i):
            calls.append(1)
            if len(calls) == 1:
                raise KeyError("boom")
            return {"y": capture.linear(i["x"], w, b)}

        f = capture.capture(fn, p)
        with self.assertRaises(KeyError):
            f(x=np.ones((2, 4), np.float32))
        self.assertEqual(f.stats["cached"], 0)
        self.assertEqual(f(x=np.ones((2, 4), np.float32))["y"].shape, (2, 3))

    def test_tensor_from_an_earlier_trace_is_refused(self):
        p, w, b = self.linear_params()
        kept = []

        def fn(i):
            if kept:
                return {"y": i["x"] + kept[0]}
            kept.append(i["x"])
            return {"y": i["x"]}

        f = capture.capture(fn, p)
        f(x=np.ones((2, 4), np.float32))
        with self.assertRaisesRegex(ValueError, "trace that has finished"):
            f(x=np.ones((3, 4), np.float32))
        self.assertEqual(kept[0].shape, [])  # never read again

    def test_bad_operands_are_type_errors(self):
        p, w, b = self.linear_params()
        with self.assertRaisesRegex(TypeError, "expected a capture.Tensor"):
            capture.capture(lambda i: {"y": capture.tanh("x")}, p)(
                x=np.ones((1, 4), np.float32))
        with self.assertRaisesRegex(TypeError, "expected a capture.Tensor, a "
                                    "dict"):
            capture.capture(lambda i: 3, p)(x=np.ones((1, 4), np.float32))

    def test_tracer_to_mlir_and_compile(self):
        t = capture.Tracer()
        w = t.params.weight("w", [2, 2], capture.Init.constant(0.5))
        t.forward("f", {"x": [3, 2], "k": ([3], "int32")},
                  lambda i: {"y": capture.matmul(i["x"], w)})
        text = t.to_mlir()
        self.assertIn("ag.forward @f", text)
        self.assertIn(HERE, text)  # ops located at this file
        m = capture.Module.load(self.device, t.compile())
        y = m.run("f", {"x": np.ones((3, 2), np.float32),
                        "k": np.zeros(3, np.int32)})["y"]
        np.testing.assert_allclose(y, np.ones((3, 2)), rtol=1e-6)
        with self.assertRaisesRegex(TypeError, "int64"):
            t.forward("g", {"x": ([2], "int64")}, lambda i: {"y": i["x"]})
        # The Adam mode reaches the step's optimizer attribute.
        t.train_step("s", {"x": [3, 2]},
                     lambda i: capture.sum(capture.matmul(i["x"], w)),
                     weight_decay=0.1, decoupled_weight_decay=False)
        self.assertRegex(t.to_mlir(),
                         r"weight_decay = 1\.0+e-01, decoupled = false>")

    def test_adam_l2_weight_decay_trains_as_torch_adam(self):
        # decoupled_weight_decay=False is torch.optim.Adam(weight_decay=wd):
        # wd * p added to the clipped gradient, no decay of p. 10 steps of
        # a linear model, with and without clipping, against PyTorch's own
        # Adam; AdamW (the default) on the same data ends elsewhere.
        try:
            import torch
        except ImportError:
            self.skipTest("needs PyTorch")
        rng = np.random.default_rng(7)
        x = rng.standard_normal((16, 4)).astype(np.float32)
        y = rng.standard_normal((16, 3)).astype(np.float32)
        lr, wd, steps = 0.01, 0.1, 10

        def ours(decoupled, clip):
            p, w, b = self.linear_params()
            start = p.values()
            step = capture.capture_step(
                lambda i: capture.mse(capture.linear(i["x"], w, b), i["y"]),
                p, lr=lr, weight_decay=wd, max_grad_norm=clip,
                decoupled_weight_decay=decoupled)
            norms = [float(step(x=x, y=y)["grad_norm"]) for _ in range(steps)]
            self.assertEqual(step.train_state()["decoupled_weight_decay"],
                             decoupled)
            return start, p.values(), norms

        def torch_adam(start, clip):
            lin = torch.nn.Linear(4, 3)
            with torch.no_grad():
                lin.weight.copy_(torch.from_numpy(start["fc.weight"]))
                lin.bias.copy_(torch.from_numpy(start["fc.bias"]))
            opt = torch.optim.Adam(lin.parameters(), lr=lr, weight_decay=wd)
            for _ in range(steps):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(
                    lin(torch.from_numpy(x)), torch.from_numpy(y))
                loss.backward()
                if clip is not None:
                    torch.nn.utils.clip_grad_norm_(lin.parameters(), clip)
                opt.step()
            return {"fc.weight": lin.weight.detach().numpy(),
                    "fc.bias": lin.bias.detach().numpy()}

        for clip in (0.5, None):
            start, got, norms = ours(False, clip)
            if clip is not None:  # every step is clipped
                self.assertGreater(min(norms), clip)
            want = torch_adam(start, clip)
            for name in want:
                np.testing.assert_allclose(got[name], want[name], rtol=1e-5,
                                           atol=1e-6, err_msg=name)
            _, adamw, _ = ours(True, clip)
            self.assertGreater(
                np.abs(adamw["fc.weight"] - want["fc.weight"]).max(), 1e-4)


if __name__ == "__main__":
    unittest.main()
