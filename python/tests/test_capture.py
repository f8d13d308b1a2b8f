"""The Python package on the device: a PPO training step compiled by
capture-aot trains from Python to the same numbers as capture-run, resumes
bitwise from saved moments, and reports errors as exceptions with codes.

Run by ctest `python.capture` (CAPTURE_TEST_* name the tools and folders).
"""
import os
import re
import subprocess
import unittest

import numpy as np

import capture

AOT = os.environ["CAPTURE_TEST_AOT"]
RUN = os.environ["CAPTURE_TEST_RUN"]
EXAMPLES = os.environ["CAPTURE_TEST_EXAMPLES"]
WORK = os.environ["CAPTURE_TEST_WORK"]
NAMES = ["obs", "act", "adv", "ret", "old_logp"]


def setUpModule():
    os.makedirs(WORK, exist_ok=True)
    subprocess.run([AOT, os.path.join(EXAMPLES, "ppo_train.mlir"), "-o",
                    os.path.join(WORK, "ppo.capmod")], check=True)
    subprocess.run(["/usr/bin/python3", os.path.join(EXAMPLES, "ppo_init.py"),
                    os.path.join(WORK, "data")], check=True)


def data(prefix):
    out = {}
    for f in sorted(os.listdir(os.path.join(WORK, "data"))):
        if f.startswith(prefix + "."):
            out[f[len(prefix) + 1:-4]] = np.load(os.path.join(WORK, "data", f))
    return out


class CaptureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def load(self):
        m = capture.Module.load(self.device, os.path.join(WORK, "ppo.capmod"))
        m.set_params(data("init"))
        return m

    def test_trains_like_capture_run(self):
        m = self.load()
        self.assertEqual(m.entries, ["train"])
        batch = data("input")
        ours = []
        for _ in range(3):
            out = m.run("train", batch)
            ours.append("loss=%.9g grad_norm=%.9g" % (out["loss"], out["grad_norm"]))
        args = [RUN, os.path.join(WORK, "ppo.capmod"), "--entry", "train", "--steps", "3"]
        for name in NAMES:
            args += ["--input", "%s=%s/data/input.%s.npy" % (name, WORK, name)]
        for name in data("init"):
            args += ["--param", "%s=%s/data/init.%s.npy" % (name, WORK, name)]
        text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        theirs = re.findall(r"^step \d+: (loss=\S+ grad_norm=\S+)$", text, re.M)
        self.assertEqual(ours, theirs)
        self.assertEqual(m.train_state("train")["step"], 3)
        self.assertEqual(m.record_count, 1)
        self.assertEqual(out["loss"].shape, ())
        self.assertEqual(out["loss"].dtype, np.float32)

    def test_resume_from_saved_state_is_bitwise(self):
        a, b = self.load(), self.load()
        batch = data("input")
        for _ in range(2):
            a.run("train", batch)
        b.set_params(a.params())
        b.set_moments("train", *a.moments("train"))
        b.set_train_step("train", a.train_state("train")["step"])
        for _ in range(2):
            la, lb = a.run("train", batch)["loss"], b.run("train", batch)["loss"]
            self.assertEqual(la.tobytes(), lb.tobytes())
        for name, value in a.params().items():
            self.assertEqual(value.tobytes(), b.params()[name].tobytes(), name)
        for x, y in zip(a.moments("train"), b.moments("train")):
            self.assertEqual(x.tobytes(), y.tobytes())

    def test_hyperparameters_change_without_recording(self):
        m = self.load()
        m.set_learning_rate("train", 1e-4)
        m.set_max_grad_norm("train", 0.25)
        m.run("train", data("input"))
        state = m.train_state("train")
        self.assertAlmostEqual(state["lr"], 1e-4, places=9)
        self.assertAlmostEqual(state["max_grad_norm"], 0.25)
        self.assertEqual(m.record_count, 1)

    def test_errors_are_exceptions_with_codes(self):
        m = self.load()
        batch = data("input")
        bad = dict(batch, obs=batch["obs"][:, :3])
        with self.assertRaises(capture.Error) as e:
            m.run("train", bad)
        self.assertIn("obs", str(e.exception))
        self.assertIn("[64, 64]", str(e.exception))
        with self.assertRaisesRegex(capture.Error, "float32 or int32"):
            m.run("train", dict(batch, obs=batch["obs"].astype(np.float64)))
        with self.assertRaisesRegex(capture.Error, "no entry 'trian'|'trian'"):
            m.run("trian", batch)
        with self.assertRaisesRegex(capture.Error, "does not exist|cannot"):
            capture.Module.load(self.device, os.path.join(WORK, "nope.capmod"))
        # A refused step is its own exception, and changes nothing.
        before = m.params()
        nan = dict(batch, obs=np.full_like(batch["obs"], np.nan))
        with self.assertRaises(capture.UpdateRefused) as e:
            m.run("train", nan)
        self.assertEqual(e.exception.code, 4)
        self.assertIn("was not applied", str(e.exception))
        after = m.params()
        for name in before:
            self.assertEqual(before[name].tobytes(), after[name].tobytes())
        self.assertEqual(m.train_state("train")["refused_steps"], 1)
        m.run("train", batch)  # the next step works

    def test_census_graph_and_profile_agree_with_capture_run(self):
        m = self.load()
        census = m.census()
        info = subprocess.run([RUN, os.path.join(WORK, "ppo.capmod"),
                               "--info"], capture_output=True, text=True,
                              check=True).stdout
        entry = census["entries"][0]
        want = re.search(r"^  train +Train +(\d+) +(\d+) ", info, re.M)
        self.assertIsNotNone(want, info)
        self.assertEqual(entry["dispatches"], int(want.group(1)))
        self.assertEqual(entry["barriers"], int(want.group(2)))
        self.assertEqual(m.entry_graph("train").splitlines()[0],
                         "entry 'train' (Train): %s dispatches, %s barriers"
                         % (want.group(1), want.group(2)))
        with self.assertRaisesRegex(capture.Error, "train"):
            m.entry_graph("trian")
        out = m.run("train", data("input"), profile=True)
        self.assertEqual(out["profile"]["submissions"], 1)
        self.assertEqual(out["profile"]["entry"], "train")
        self.assertIn("loss", out)
        eager = m.run("train", data("input"), eager=True, profile=True)
        self.assertEqual(eager["profile"]["submissions"], entry["dispatches"])

    def test_cpu_threads_advice_follows_the_work_estimates(self):
        # PPO at batch 64: ~0.27M work per dispatch, under the 1M from
        # which llvmpipe's pool pays; the same from bytes and from a path.
        path = os.path.join(WORK, "ppo.capmod")
        a = capture.advise_cpu_threads(path)
        self.assertEqual(a["threads"], 0)
        self.assertFalse(a["pool"])
        self.assertEqual(a["entry"], "train")
        self.assertGreater(a["work_per_dispatch"], 100000)
        self.assertLess(a["work_per_dispatch"], 1000000)
        self.assertIn("the submitting thread", a["reason"])
        with open(path, "rb") as f:
            self.assertEqual(capture.advise_cpu_threads(f.read()), a)
        with self.assertRaises(capture.Error) as e:
            capture.advise_cpu_threads(os.path.join(WORK, "nope.capmod"))
        self.assertIn("cannot open module file", str(e.exception))
        with self.assertRaises(capture.Error):
            capture.advise_cpu_threads(b"not a module")

    def test_wait_policy_is_chosen_and_checked(self):
        block = capture.Device(wait="block")
        self.assertEqual(block.wait, "block (DeviceOptions)")
        self.assertTrue(capture.Device(wait="spin").wait.startswith("spin "))
        self.assertIn(" (auto: ", self.device.wait)
        with self.assertRaises(capture.Error) as e:
            capture.Device(wait="spn")
        self.assertIn("Device(wait=) is 'spn', expected 'auto', 'block' or "
                      "'spin' (did you mean 'spin'?)", str(e.exception))

    def test_the_default_device_and_why(self):
        """CAPTURE_DEVICE picks when no selector is given; without it the
        default is a GPU, else the host device; .choice says which rule."""
        saved = os.environ.pop("CAPTURE_DEVICE", None)
        try:
            default = capture.Device()
            gpu = any(d["type"] in ("discrete-gpu", "integrated-gpu",
                                    "virtual-gpu") for d in capture.devices())
            if gpu:
                self.assertTrue(default.choice.startswith("default: the "),
                                default.choice)
            else:
                self.assertEqual(default.choice,
                                 "default: no Vulkan GPU, so the host device")
                self.assertTrue(default.name.startswith("host CPU"))
            os.environ["CAPTURE_DEVICE"] = "host"
            host = capture.Device()
            self.assertEqual(host.choice, "CAPTURE_DEVICE 'host'")
            self.assertTrue(host.name.startswith("host CPU"))
            self.assertEqual(capture.Device("vulkan").choice,
                             "selector 'vulkan'")
        finally:
            os.environ.pop("CAPTURE_DEVICE", None)
            if saved is not None:
                os.environ["CAPTURE_DEVICE"] = saved

    def test_load_without_a_device_picks_one_the_module_runs_on(self):
        """Module.load(None, ...): CAPTURE_DEVICE, else a GPU, else the host
        device for a module with host code, else lavapipe."""
        cpu = os.path.join(WORK, "ppo-cpu.capmod")
        subprocess.run([AOT, os.path.join(EXAMPLES, "ppo_train.mlir"),
                        "--target=cpu", "-o", cpu], check=True)
        plain_path = os.path.join(WORK, "ppo.capmod")
        saved = os.environ.pop("CAPTURE_DEVICE", None)
        try:
            gpu = any(d["type"] in ("discrete-gpu", "integrated-gpu",
                                    "virtual-gpu") for d in capture.devices())
            plain = capture.Module.load(None, plain_path)
            with open(cpu, "rb") as f:
                native = capture.Module.load(None, f.read())
            if not gpu:
                self.assertIn("the host device cannot run it (the module has "
                              "no host code", plain.device_choice)
                self.assertEqual(native.device_choice,
                                 "default: no Vulkan GPU, so the host device")
                self.assertTrue(native.device_name.startswith("host CPU"))
            losses = []
            for m in (plain, native):
                m.set_params(data("init"))
                losses.append(m.run("train", data("input"))["loss"])
            np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
            os.environ["CAPTURE_DEVICE"] = "vulkan"
            self.assertEqual(capture.Module.load(None, cpu).device_choice,
                             "CAPTURE_DEVICE 'vulkan'")
            with self.assertRaises(ValueError) as e:
                capture.Module.load(None, cpu, share_weights_with=plain)
            self.assertIn("share_weights_with needs the device",
                          str(e.exception))
        finally:
            os.environ.pop("CAPTURE_DEVICE", None)
            if saved is not None:
                os.environ["CAPTURE_DEVICE"] = saved

    def test_changed_buffers_names_what_differs(self):
        """capture.fx's sync check: the indices whose bytes differ; lists
        of different lengths and objects without a buffer are errors."""
        a = np.arange(6, dtype=np.float32)
        b = np.ones((2, 3), dtype=np.float32)
        changed = capture._capture.changed_buffers
        self.assertEqual(changed([a, b], [a.copy(), b.copy()]), [])
        c = b.copy()
        c[1, 2] = 2.0
        self.assertEqual(changed([a, b], [a.copy(), c]), [1])
        self.assertEqual(changed([a], [a[:5].copy()]), [0])  # size differs
        with self.assertRaises(ValueError) as e:
            changed([a, b], [a])
        self.assertIn("changed_buffers: 2 buffers against 1 kept",
                      str(e.exception))
        with self.assertRaises(TypeError):
            changed([a], [3.0])

    def test_devices_lists_the_device(self):
        names = [d["name"] for d in capture.devices()]
        self.assertIn(self.device.name, names)


if __name__ == "__main__":
    unittest.main()
