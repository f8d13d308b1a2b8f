"""The CartPole example (examples/python/cartpole_ppo.py) learns: with
captured updates the mean episode length rises to several times its start,
and it follows the same loop with PyTorch's update (the same seed samples
the same actions while the weights agree); it prints the comparison table
and writes the plot.

Run by ctest `python.cartpole`.
"""
import os
import re
import subprocess
import sys
import unittest

EXAMPLES = os.environ["CAPTURE_TEST_EXAMPLES"]
WORK = os.environ["CAPTURE_TEST_WORK"]
ITERATIONS = 10


def curve(stdout, kind):
    return [float(v) for v in re.findall(
        r"^%s iteration +\d+: mean episode length +(\S+)" % kind, stdout,
        re.M)]


class CartPoleTest(unittest.TestCase):
    def test_learns_and_compares(self):
        os.makedirs(WORK, exist_ok=True)
        plot = os.path.join(WORK, "cartpole.png")
        table = os.path.join(WORK, "cartpole.md")
        for f in (plot, table):
            if os.path.exists(f):
                os.remove(f)
        run = subprocess.run(
            [sys.executable, os.path.join(EXAMPLES, "python", "cartpole_ppo.py"),
             "--iterations", str(ITERATIONS), "--plot", plot, "--table", table],
            capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        ours, theirs = curve(run.stdout, "capture"), curve(run.stdout, "torch")
        self.assertEqual(len(ours), ITERATIONS, run.stdout)
        self.assertEqual(len(theirs), ITERATIONS, run.stdout)
        # It learns: a random policy keeps the pole up ~20 steps.
        self.assertGreater(ours[-1], 3 * ours[0], ours)
        self.assertGreater(ours[-1], 80, ours)
        # The first iterations' rollouts are PyTorch's, step for step.
        for k in range(5):
            self.assertAlmostEqual(ours[k], theirs[k], delta=0.05 * theirs[k],
                                   msg="iteration %d" % (k + 1))
        with open(table) as f:
            text = f.read()
        self.assertRegex(text, r"\| capture \| [0-9.]+ \|")
        self.assertRegex(text, r"PyTorch time / captured time per update: "
                               r"[0-9.]+")
        with open(plot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
