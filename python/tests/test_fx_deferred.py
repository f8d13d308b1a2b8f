"""capture.fx's deferred calls: the steps and updates of imports that share
weights go to the device together, when something needs one of them, so
that SAC's whole update (critics, actor, temperature, the soft update of
both targets) is one submission. Checked against PyTorch's own update from
the same weights and noise, with the submissions counted on the device;
and a step refused while deferred, raised by the call that submitted it.

Run by ctest `python.fx_deferred`.
"""
import unittest

import numpy as np
import torch

import capture
import capture.fx
from test_fx_offpolicy import (check_sac_weights, replay_batch, sac,
                               sac_networks, sac_optimizers, soft_update)


class DeferredTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def imports(self, nets, losses, opts, batch, obs):
        actor, qf1, qf2, qf1_target, qf2_target, log_alpha = nets
        critic_loss, actor_loss, alpha_loss, _ = losses
        q_opt, a_opt, al_opt = opts
        critic = capture.fx.import_module(
            {"qf1": qf1, "qf2": qf2}, critic_loss, batch, optimizer=q_opt,
            frozen={"actor": actor, "qf1_target": qf1_target,
                    "qf2_target": qf2_target}, device=self.device)
        policy = capture.fx.import_module(
            actor, actor_loss, obs, optimizer=a_opt,
            frozen={"qf1": qf1, "qf2": qf2}, device=self.device,
            share=critic)
        temperature = capture.fx.import_module(
            {"log_alpha": log_alpha}, alpha_loss, obs, optimizer=al_opt,
            frozen={"actor": actor}, device=self.device, share=critic)
        soft = capture.fx.import_update(soft_update, share=critic)
        return critic, policy, temperature, soft

    def test_sac_update_is_one_submission(self):
        """20 SAC updates (the actor and temperature every second one, as
        SAC's policy frequency), the losses read only at the end: each
        update is one submission, and every loss and weight is
        PyTorch's."""
        nets, twin = sac_networks()
        losses, t_losses = sac(*nets), sac(*twin)
        opts, t_opts = sac_optimizers(nets), sac_optimizers(twin)
        batch = replay_batch()
        obs = {"observations": batch["observations"]}
        critic, policy, temperature, soft = self.imports(
            nets, losses, opts, batch, obs)
        read_alpha, t_read = losses[3], t_losses[3]
        got, want, submits = [], [], []
        for k in range(20):
            before = self.device.submit_count
            steps = [(critic, t_losses[0], {"qf1": twin[1], "qf2": twin[2]},
                      t_opts[0], batch, 100)]
            if k % 2 == 0:
                steps += [(policy, t_losses[1], twin[0], t_opts[1], obs, 200),
                          (temperature, t_losses[2], None, t_opts[2], obs,
                           300)]
            for imp, t_loss, model, opt, inputs, seed in steps:
                torch.manual_seed(seed + k)
                got.append(imp.step(inputs))
                torch.manual_seed(seed + k)
                loss = t_loss(model, **inputs)
                opt.zero_grad()
                loss.backward()
                opt.step()
                want.append(float(loss))
            if k % 2 == 0:
                read_alpha()
                t_read()
            for net, target in ((nets[1], nets[3]), (nets[2], nets[4])):
                soft(net, target, 0.25)
            for net, target in ((twin[1], twin[3]), (twin[2], twin[4])):
                soft_update(net, target, 0.25)
            submits.append(self.device.submit_count - before)
        # After the first update (recordings, their uploads), one
        # submission per update: in the temperature's step, else in the
        # next soft update, whose recording's last call still waits.
        self.assertEqual(submits[1:], [1] * 19, submits)
        self.assertTrue(all(isinstance(o, capture.fx.Outputs) for o in got))
        for i, (out, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(float(out["loss"]) - w),
                                 1e-4 * max(abs(w), 1e-2), "step %d" % i)
        check_sac_weights(self, nets, twin, 20)

    def test_a_refused_deferred_step(self):
        """A critic step on a batch with a NaN reward, deferred: the actor's
        and the temperature's steps after it still run (on the critics it
        left unchanged), the temperature's step, whose write-back submitted
        them, raises UpdateRefused naming the critic's step, and so does
        reading its outputs (once raised, not again by the next call); the
        critics are as before it."""
        nets, _ = sac_networks()
        losses = sac(*nets)
        batch = replay_batch()
        obs = {"observations": batch["observations"]}
        critic, policy, temperature, _ = self.imports(
            nets, losses, sac_optimizers(nets), batch, obs)
        critic.step(batch)
        policy.step(obs)
        temperature.step(obs)
        kept = {n: p.detach().numpy().copy()
                for n, p in nets[1].named_parameters()}
        actor_before = nets[0].fc1.weight.detach().numpy().copy()
        bad = dict(batch, rewards=batch["rewards"].clone())
        bad["rewards"][3] = float("nan")
        refused = critic.step(bad)
        policy.step(obs)
        with self.assertRaises(capture.UpdateRefused) as e:
            temperature.step(obs)
        self.assertIn("the AdamW update was not applied", str(e.exception))
        self.assertIn("in the step of critic_loss, deferred",
                      "".join(e.exception.__notes__))
        with self.assertRaises(capture.UpdateRefused):
            refused["loss"]
        for n, p in nets[1].named_parameters():
            np.testing.assert_array_equal(p.detach().numpy(), kept[n],
                                          err_msg=n)
        # The actor's step ran after the refused one.
        self.assertFalse(np.array_equal(nets[0].fc1.weight.detach().numpy(),
                                        actor_before))
        out = critic.step(batch)  # and training goes on
        self.assertTrue(np.isfinite(out["loss"]))

        # Raised by reading the outputs, an error is not raised again by
        # the next call.
        refused = critic.step(bad)
        with self.assertRaises(capture.UpdateRefused):
            refused["grad_norm"]
        policy.step(obs)
        temperature.step(obs)

        # Not deferred, the refused step raises at its own call.
        capture.fx.DEFER_CALLS = False
        try:
            before = self.device.submit_count
            with self.assertRaises(capture.UpdateRefused):
                critic.step(bad)
            self.assertIsInstance(policy.step(obs), dict)
            self.assertEqual(self.device.submit_count - before, 2)
        finally:
            capture.fx.DEFER_CALLS = True


if __name__ == "__main__":
    unittest.main()
