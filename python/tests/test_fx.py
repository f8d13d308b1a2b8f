"""capture.fx: the PPO and MLP workloads written as ordinary PyTorch modules
import through make_fx and train to PyTorch's numbers (every step's loss
and grad_norm, and the final weights, within 1e-4 relative); the forward
matches; unsupported ops and modules are errors naming the op and the
user's line; the imported module compiles with capture-aot.

Run by ctest `python.fx` (CAPTURE_TEST_* name the tools and folders).
"""
import inspect
import os
import subprocess
import sys
import unittest

import numpy as np
import torch

import capture
import capture.fx

EXAMPLES = os.environ["CAPTURE_TEST_EXAMPLES"]
sys.path.insert(0, os.path.join(EXAMPLES, "python"))
import workloads  # noqa: E402

HERE = os.path.abspath(__file__)
STEPS = 12


def close(got, want, rel=1e-4, floor=1e-5):
    return abs(got - want) <= max(rel * abs(want), floor)


def check_steps(test, ours, want):
    """Each step's loss and grad_norm against PyTorch's [(loss, norm)]."""
    for k, (out, (loss, norm)) in enumerate(zip(ours, want), 1):
        test.assertTrue(close(float(out["loss"]), loss),
                        "step %d loss %r vs torch %r" % (k, out["loss"], loss))
        test.assertTrue(close(float(out["grad_norm"]), norm),
                        "step %d grad_norm %r vs torch %r"
                        % (k, out["grad_norm"], norm))


def torch_steps(model, loss_fn, batch, opt, max_norm, steps, anneal=None):
    """PyTorch's own training: [(loss, grad_norm)] per step. `loss_fn` may
    return the loss or a dict with it; `anneal(k)` sets step k's lr."""
    out = []
    params = [p for p in model.parameters() if p.requires_grad]
    for k in range(steps):
        if anneal:
            opt.param_groups[0]["lr"] = anneal(k)
        loss = loss_fn(model, **batch)
        loss = loss["loss"] if isinstance(loss, dict) else loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
        opt.step()
        out.append((float(loss), float(norm)))
    return out


def check_weights(test, values, twin, lr, steps):
    """The imported weights `values` against PyTorch's `twin`'s. Adam
    moves a weight by about lr per step whatever its gradient's size, so a
    gradient near zero whose rounding differs moves it by a fraction of lr:
    the absolute floor is 1% of the farthest Adam can move a weight in
    these steps (as test/e2e's MLP check)."""
    floor = max(1e-5, 0.01 * lr * steps)
    for name, p in twin.named_parameters():
        want_v = p.detach().numpy()
        diff = np.abs(values[name] - want_v)
        test.assertTrue(np.all(diff <= np.maximum(1e-4 * np.abs(want_v),
                                                  floor)),
                        "%s: max |diff| %g" % (name, diff.max()))


def line_of(fn, text):
    """The line number in this file of the first line of `fn` containing
    `text`."""
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(text)


class Rounding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x).round()  # unsupported: round


class Convolving(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 1, 3)

    def forward(self, x):
        return self.conv(x)


class BagOfWords(torch.nn.Module):
    """Embedding rows averaged per sample (3 ids each, flattened), then a
    linear classifier."""

    def __init__(self, padding_idx=None):
        super().__init__()
        self.embed = torch.nn.Embedding(20, 6, padding_idx=padding_idx)
        self.fc = torch.nn.Linear(6, 4)

    def forward(self, ids):
        return self.fc(self.embed(ids).view(-1, 3, 6).mean(1))


class EmbedRows(torch.nn.Module):
    """F.embedding of a table held as a parameter."""

    def __init__(self, table):
        super().__init__()
        self.table = torch.nn.Parameter(table.detach().clone())

    def forward(self, ids):
        return torch.nn.functional.embedding(ids, self.table)


def bag_loss(model, ids, labels):
    return torch.nn.functional.cross_entropy(model(ids), labels)


class FxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def check_training(self, make, loss_fn, batch, lr, max_norm):
        torch.manual_seed(0)
        model = make()
        twin = make()
        twin.load_state_dict(model.state_dict())
        imported = capture.fx.import_module(
            model, loss_fn, batch,
            optimizer=torch.optim.AdamW(model.parameters(), lr=lr),
            max_grad_norm=max_norm, device=self.device)
        ours = [imported.step(batch) for _ in range(STEPS)]
        want = torch_steps(twin, loss_fn, batch,
                           torch.optim.AdamW(twin.parameters(), lr=lr),
                           max_norm, STEPS)
        check_steps(self, ours, want)
        values = imported.state_dict()
        self.assertEqual(list(values), [n for n, _ in twin.named_parameters()])
        check_weights(self, values, twin, lr, STEPS)
        self.assertEqual(imported.train_state()["step"], STEPS)
        return imported, twin

    def test_ppo_trains_to_torch_numbers(self):
        g = torch.Generator().manual_seed(1)
        batch = {"obs": torch.randn(64, 64, generator=g),
                 "act": torch.randn(64, 8, generator=g),
                 "adv": torch.randn(64, generator=g),
                 "ret": torch.randn(64, generator=g),
                 "old_logp": torch.randn(64, generator=g)}
        imported, twin = self.check_training(
            workloads.ActorCritic, workloads.ppo_loss, batch, 3e-4, 0.5)
        # The forward reads the trained weights (one shared buffer).
        out = imported.forward(obs=batch["obs"][:5])
        mu, value = twin(batch["obs"][:5])
        np.testing.assert_allclose(out["output0"], mu.detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(out["output1"], value.detach().numpy(),
                                   rtol=1e-4, atol=1e-5)

    def test_mlp_trains_to_torch_numbers(self):
        g = torch.Generator().manual_seed(2)
        batch = {"x": torch.randn(128, 784, generator=g),
                 "labels": torch.randint(0, 10, (128,), generator=g)}
        imported, twin = self.check_training(
            workloads.mlp, workloads.mlp_loss, batch, 1e-3, 1.0)
        with self.assertRaisesRegex(capture.Error, "the model's forward takes "
                                    "\\['input'\\]; unexpected input 'x'"):
            imported.forward(x=batch["x"][:1])
        # nn.Sequential.forward's input is named 'input'.
        logits = imported.forward(input=batch["x"][:1])["output"]
        np.testing.assert_allclose(logits, twin(batch["x"][:1]).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
        # load_into gives torch the trained values.
        fresh = workloads.mlp()
        imported.load_into(fresh)
        for (n, a), (_, b) in zip(fresh.named_parameters(),
                                  twin.named_parameters()):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(),
                                       rtol=1e-4, atol=1e-5, err_msg=n)

    def test_resume_from_saved_state_is_bitwise(self):
        batch = {"x": np.linspace(-1, 1, 4 * 8, dtype=np.float32
                                  ).reshape(4, 8),
                 "labels": np.array([0, 1, 2, 0], np.int32)}

        def imported(seed):
            torch.manual_seed(seed)
            return capture.fx.import_module(
                workloads.mlp(8, 16, 3), workloads.mlp_loss, batch, lr=1e-2,
                max_grad_norm=1.0, device=self.device)

        straight = imported(0)
        for _ in range(3):
            straight.step(batch)
        weights = straight.state_dict()
        opt = straight.optimizer_state()
        self.assertEqual(opt["step"], 3)
        after = [straight.step(batch) for _ in range(2)]
        # Another model (other initial weights), resumed before its first
        # step, then continued: bitwise the same.
        resumed = imported(1)
        resumed.restore(weights, opt)
        again = [resumed.step(batch) for _ in range(2)]
        for a, b in zip(after, again):
            self.assertEqual(a["loss"].tobytes(), b["loss"].tobytes())
            self.assertEqual(a["grad_norm"].tobytes(),
                             b["grad_norm"].tobytes())
        for name, v in straight.state_dict().items():
            self.assertEqual(v.tobytes(), resumed.state_dict()[name].tobytes(),
                             name)
        self.assertEqual(resumed.train_state()["step"], 5)
        # Restored into a loaded recording too; a wrong size changes nothing.
        now = resumed.state_dict()
        with self.assertRaisesRegex(capture.Error, "moment"):
            resumed.restore(weights, dict(opt, m=opt["m"][:3]))
        with self.assertRaisesRegex(capture.Error, "weight '0.bias' is "
                                    "float32 \\[2\\], expected float32 "
                                    "\\[16\\]"):
            resumed.restore(dict(weights, **{"0.bias": np.ones(2, np.float32)}),
                            opt)
        self.assertEqual(resumed.train_state()["step"], 5)
        for name, v in resumed.state_dict().items():
            self.assertEqual(v.tobytes(), now[name].tobytes(), name)
        resumed.restore(weights, opt)
        self.assertEqual(resumed.train_state()["step"], 3)
        self.assertEqual(resumed.step(batch)["loss"].tobytes(),
                         after[0]["loss"].tobytes())

    def test_hyperparameters_never_record_again(self):
        model = workloads.mlp(8, 16, 3)
        batch = {"x": np.ones((4, 8), np.float32),
                 "labels": np.array([0, 1, 2, 0], np.int32)}
        imported = capture.fx.import_module(model, workloads.mlp_loss, batch,
                                            lr=1e-2, max_grad_norm=1.0,
                                            device=self.device)
        imported.step(batch)
        imported.set_learning_rate(1e-3)
        imported.set_max_grad_norm(0.5)
        imported.step(batch)
        self.assertEqual(imported.why_recorded, "")
        state = imported.train_state()
        self.assertAlmostEqual(state["lr"], 1e-3)
        self.assertAlmostEqual(state["max_grad_norm"], 0.5)

    def test_embedding_trains_to_torch_numbers(self):
        g = torch.Generator().manual_seed(3)
        # Repeated ids: their rows' gradients add up, as in torch.
        batch = {"ids": torch.randint(0, 20, (24,), generator=g),
                 "labels": torch.randint(0, 4, (8,), generator=g)}
        imported, twin = self.check_training(BagOfWords, bag_loss, batch,
                                             1e-2, 1.0)
        # F.embedding of rank-1 ids, in a forward.
        ids = torch.tensor([3, 0, 19, 3])
        fn = capture.fx.import_module(
            EmbedRows(twin.embed.weight), device=self.device)
        np.testing.assert_allclose(
            fn.forward(ids=ids.numpy())["output"],
            twin.embed.weight.detach().numpy()[ids.numpy()], rtol=0, atol=0)

    def test_embedding_with_padding_idx_is_refused(self):
        batch = {"ids": np.zeros((6,), np.int32),
                 "labels": np.zeros((2,), np.int32)}
        with self.assertRaises(capture.fx.Unsupported) as e:
            capture.fx.import_module(BagOfWords(padding_idx=0), bag_loss,
                                     batch, device=self.device).step(batch)
        self.assertIn("embedding with padding_idx=0", str(e.exception))
        # Indices of any rank: the rows of the flat input, then a view.
        table = torch.randn(5, 2)
        ids = np.array([[4, 0, 1], [1, 1, 3]], np.int32)
        rows = capture.fx.import_module(
            EmbedRows(table), device=self.device).forward(ids=ids)["output"]
        np.testing.assert_array_equal(rows, table.numpy()[ids])

    def test_max_and_min_with_a_0d_tensor(self):
        """torch.max(x, torch.tensor(v)): the 0-d tensor is a number to the
        importer; NaN and infinities as PyTorch's."""

        class Bounded(torch.nn.Module):
            def forward(self, x):
                return (torch.max(x, torch.tensor(0.5)),
                        torch.minimum(torch.tensor(-0.25), x))

        x = np.array([[1.0, -1.0, np.nan, 0.5], [np.inf, -np.inf, 0.3, 0.7]],
                     np.float32)
        out = capture.fx.import_module(Bounded(),
                                       device=self.device).forward(x=x)
        want = Bounded()(torch.from_numpy(x))
        np.testing.assert_array_equal(out["output0"], want[0].numpy())
        np.testing.assert_array_equal(out["output1"], want[1].numpy())

    def test_unsupported_op_names_op_and_line(self):
        model = Rounding()
        with self.assertRaises(capture.fx.Unsupported) as e:
            imported = capture.fx.import_module(model, device=self.device)
            imported.forward(x=np.ones((2, 4), np.float32))
        msg = str(e.exception)
        self.assertIn("round", msg)
        self.assertIn("%s:%d" % (HERE, line_of(Rounding.forward, "round")),
                      msg)

    def test_unsupported_module_names_it(self):
        with self.assertRaises(capture.fx.Unsupported) as e:
            capture.fx.import_module(Convolving(), device=self.device).forward(
                x=np.ones((1, 1, 5), np.float32))
        self.assertIn("torch.convolution", str(e.exception))
        self.assertIn("%s:%d" % (HERE, line_of(Convolving.forward, "conv(x)")),
                      str(e.exception))

    def test_bad_inputs_are_errors(self):
        model = workloads.mlp(8, 16, 3)
        batch = {"x": np.ones((4, 8), np.float32),
                 "labels": np.array([0, 1, 2, 0], np.int64)}
        with self.assertRaisesRegex(capture.Error, "missing \\['labels'\\]"):
            capture.fx.import_module(model, workloads.mlp_loss,
                                     {"x": batch["x"]}, device=self.device)
        imported = capture.fx.import_module(model, workloads.mlp_loss, batch,
                                            device=self.device)
        imported.step(batch)  # int64 labels that fit: int32, exactly
        big = dict(batch, labels=np.array([0, 1, 2, 2 ** 40], np.int64))
        with self.assertRaisesRegex(capture.Error, "outside int32's range"):
            imported.step(big)
        with self.assertRaisesRegex(capture.Error, "float64"):
            imported.step(dict(batch, x=np.ones((4, 8))))
        with self.assertRaisesRegex(capture.fx.Unsupported, "optimizer: SGD "
                                    "is not supported; torch.optim.Adam and "
                                    "AdamW are"):
            capture.fx.import_module(
                model, workloads.mlp_loss, batch,
                optimizer=torch.optim.SGD(model.parameters(), lr=0.1))

    def test_to_mlir_compiles_with_capture_aot(self):
        model = workloads.mlp(8, 16, 3)
        batch = {"x": np.ones((4, 8), np.float32),
                 "labels": np.array([0, 1, 2, 0], np.int32)}
        imported = capture.fx.import_module(model, workloads.mlp_loss, batch,
                                            max_grad_norm=1.0,
                                            device=self.device)
        text = imported.to_mlir(forward_inputs={"input": batch["x"][:1]})
        self.assertIn("ag.train_step @train", text)
        self.assertIn("ag.forward @forward", text)
        self.assertIn('"0.weight"', text)
        work = os.environ["CAPTURE_TEST_WORK"]
        os.makedirs(work, exist_ok=True)
        path = os.path.join(work, "imported_mlp.mlir")
        with open(path, "w") as f:
            f.write(text)
        subprocess.run([os.environ["CAPTURE_TEST_AOT"], path, "-o",
                        os.path.join(work, "imported_mlp.capmod")], check=True)


if __name__ == "__main__":
    unittest.main()
