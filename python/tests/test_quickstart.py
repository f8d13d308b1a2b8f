"""The complete example of docs/python.md (examples/python/quickstart.py)
runs, its captured losses match PyTorch's at every printed step, and the
page shows the file verbatim.

Run by ctest `python.quickstart`.
"""
import os
import re
import subprocess
import sys
import unittest

EXAMPLES = os.environ["CAPTURE_TEST_EXAMPLES"]
EXAMPLE = os.path.join(EXAMPLES, "python", "quickstart.py")
DOC = os.path.join(os.path.dirname(EXAMPLES), "docs", "python.md")


class QuickstartTest(unittest.TestCase):
    def test_runs_and_matches_pytorch(self):
        run = subprocess.run([sys.executable, EXAMPLE], capture_output=True,
                             text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        steps = re.findall(r"^step +(\d+): loss (\S+) \(PyTorch (\S+)\)",
                           run.stdout, re.M)
        self.assertEqual([int(k) for k, _, _ in steps], [10, 20, 30, 40, 50],
                         run.stdout)
        for k, ours, theirs in steps:
            ours, theirs = float(ours), float(theirs)
            self.assertLessEqual(abs(ours - theirs),
                                 max(1e-4 * abs(theirs), 1e-5),
                                 "step %s: %g vs %g" % (k, ours, theirs))
        self.assertLess(float(steps[-1][1]), float(steps[0][1]))
        self.assertRegex(run.stdout, r"accuracy on the batch: [01]\.\d\d")

    def test_docs_show_it_verbatim(self):
        with open(EXAMPLE) as f:
            example = f.read()
        with open(DOC) as f:
            doc = f.read()
        self.assertIn(example, doc, "docs/python.md must show "
                      "examples/python/quickstart.py verbatim in its "
                      "```python block")


if __name__ == "__main__":
    unittest.main()
