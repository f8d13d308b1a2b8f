"""capture.fx on whole off-policy updates written as their authors write
them: SAC (two critics under one optimizer, the actor, the temperature
log_alpha with its own optimizer and alpha read back with .item()), TD3
(target policy smoothing, clamps with numpy bounds, a delayed actor) and
DDPG, each loss an import of its own with its own optimizer, the target
networks soft-updated through .data between steps. Each update runs
against PyTorch's own from the same weights and the same noise, to 1e-4.

Run by ctest `python.fx_offpolicy`.
"""
import copy
import math
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import capture
import capture.fx
from test_fx import check_weights
from test_fx_rl import SquashedActor

OBS, ACT = 3, 2
HIGH = np.array([1.0, 2.0], np.float32)  # an action space's bounds
LOW = -HIGH
ENT_COEF = 0.01  # a global the training loop anneals


class SoftQNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(OBS + ACT, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 1)

    def forward(self, x, a):
        x = torch.cat([x, a], 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class SACActor(SquashedActor):
    """test_fx_rl's squashed actor with this file's action bounds and
    get_action's three results, the squashed mean last."""

    def __init__(self):
        super().__init__(OBS, ACT)
        self.action_scale.copy_(torch.tensor((HIGH - LOW) / 2.0))
        self.action_bias.copy_(torch.tensor((HIGH + LOW) / 2.0))

    def get_action(self, x):
        action, log_prob = super().get_action(x)
        mean, _ = self(x)
        return (action, log_prob,
                torch.tanh(mean) * self.action_scale + self.action_bias)


class DeterministicActor(nn.Module):
    """TD3's and DDPG's actor."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(OBS, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc_mu = nn.Linear(32, ACT)
        self.register_buffer("action_scale",
                             torch.tensor((HIGH - LOW) / 2.0))
        self.register_buffer("action_bias", torch.tensor((HIGH + LOW) / 2.0))

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = torch.tanh(self.fc_mu(x))
        return x * self.action_scale + self.action_bias


def twin_q_loss(qf1, qf2, observations, actions, next_q_value):
    """SAC's and TD3's critics' regression onto one target."""
    qf1_a_values = qf1(observations, actions).view(-1)
    qf2_a_values = qf2(observations, actions).view(-1)
    qf1_loss = F.mse_loss(qf1_a_values, next_q_value)
    qf2_loss = F.mse_loss(qf2_a_values, next_q_value)
    return qf1_loss + qf2_loss


def sac(actor, qf1, qf2, qf1_target, qf2_target, log_alpha, gamma=0.99):
    """SAC's three losses over these networks. alpha is read back from
    log_alpha after each temperature step, as the authors write it: a
    Python float the critic and actor losses read from their closure."""
    alpha = log_alpha.exp().item()
    target_entropy = -float(ACT)

    def critic_loss(critics, observations, actions, next_observations,
                    rewards, dones):
        with torch.no_grad():
            next_state_actions, next_state_log_pi, _ = actor.get_action(
                next_observations)
            qf1_next_target = qf1_target(next_observations,
                                         next_state_actions)
            qf2_next_target = qf2_target(next_observations,
                                         next_state_actions)
            min_qf_next_target = torch.min(
                qf1_next_target, qf2_next_target) - alpha * next_state_log_pi
            next_q_value = rewards.flatten() + (1 - dones.flatten()) * \
                gamma * (min_qf_next_target).view(-1)
        return twin_q_loss(qf1, qf2, observations, actions, next_q_value)

    def actor_loss(actor, observations):
        pi, log_pi, _ = actor.get_action(observations)
        qf1_pi = qf1(observations, pi)
        qf2_pi = qf2(observations, pi)
        min_qf_pi = torch.min(qf1_pi, qf2_pi)
        return ((alpha * log_pi) - min_qf_pi).mean()

    def alpha_loss(log_alpha_, observations):
        with torch.no_grad():
            _, log_pi, _ = actor.get_action(observations)
        return (-log_alpha.exp() * (log_pi + target_entropy)).mean()

    def read_alpha():
        nonlocal alpha
        alpha = log_alpha.exp().item()

    return critic_loss, actor_loss, alpha_loss, read_alpha


def td3(actor, qf1, qf2, target_actor, qf1_target, qf2_target, gamma=0.99,
        policy_noise=0.2, noise_clip=0.5):
    def critic_loss(critics, observations, actions, next_observations,
                    rewards, dones):
        with torch.no_grad():
            clipped_noise = (torch.randn_like(actions) * policy_noise).clamp(
                -noise_clip, noise_clip) * target_actor.action_scale
            next_state_actions = (target_actor(next_observations) +
                                  clipped_noise).clamp(LOW[0], HIGH[0])
            qf1_next_target = qf1_target(next_observations,
                                         next_state_actions)
            qf2_next_target = qf2_target(next_observations,
                                         next_state_actions)
            min_qf_next_target = torch.min(qf1_next_target, qf2_next_target)
            next_q_value = rewards.flatten() + (1 - dones.flatten()) * \
                gamma * (min_qf_next_target).view(-1)
        return twin_q_loss(qf1, qf2, observations, actions, next_q_value)

    def actor_loss(actor, observations):
        return -qf1(observations, actor(observations)).mean()

    return critic_loss, actor_loss


def ddpg_critic(target_actor, qf1_target, gamma=0.99):
    def critic_loss(qf1, observations, actions, next_observations, rewards,
                    dones):
        with torch.no_grad():
            next_state_actions = target_actor(next_observations)
            qf1_next_target = qf1_target(next_observations,
                                         next_state_actions)
            next_q_value = rewards.flatten() + (1 - dones.flatten()) * \
                gamma * (qf1_next_target).view(-1)
        qf1_a_values = qf1(observations, actions).view(-1)
        return F.mse_loss(qf1_a_values, next_q_value)
    return critic_loss


N_ATOMS, V_MIN, V_MAX = 11, -10.0, 10.0


class C51Network(nn.Module):
    """C51's network: a categorical value distribution per action over
    fixed atoms (a buffer)."""

    def __init__(self, obs=4, n=3):
        super().__init__()
        self.n, self.n_atoms = n, N_ATOMS
        self.register_buffer("atoms",
                             torch.linspace(V_MIN, V_MAX, steps=N_ATOMS))
        self.network = nn.Sequential(nn.Linear(obs, 32), nn.ReLU(),
                                     nn.Linear(32, n * N_ATOMS))

    def get_action(self, x, action=None):
        logits = self.network(x)
        pmfs = torch.softmax(logits.view(len(x), self.n, self.n_atoms),
                             dim=2)
        q_values = (pmfs * self.atoms).sum(2)
        if action is None:
            action = torch.argmax(q_values, 1)
        return action, pmfs[torch.arange(len(x)), action]

    def forward(self, x):  # greedy acting
        action, pmf = self.get_action(x)
        return action.float(), pmf


def c51(target_network, gamma=0.99, scatter_free=False):
    """C51's loss: the target distribution projected onto the atoms with
    floor/ceil and index_add_ into each row, as its authors write it (or
    with one_hot instead of the loop)."""
    def c51_loss(q_network, observations, actions, next_observations,
                 rewards, dones):
        with torch.no_grad():
            _, next_pmfs = target_network.get_action(next_observations)
            next_atoms = rewards + gamma * target_network.atoms * (1 - dones)
            delta_z = target_network.atoms[1] - target_network.atoms[0]
            tz = next_atoms.clamp(V_MIN, V_MAX)
            b = (tz - V_MIN) / delta_z
            l = b.floor().clamp(0, N_ATOMS - 1)
            u = b.ceil().clamp(0, N_ATOMS - 1)
            # (l == u).float(): b exactly whole puts its mass on l.
            d_m_l = (u + (l == u).float() - b) * next_pmfs
            d_m_u = (b - l) * next_pmfs
            if scatter_free:
                target_pmfs = (d_m_l.unsqueeze(-1) *
                               F.one_hot(l.long(), N_ATOMS)).sum(1) + \
                    (d_m_u.unsqueeze(-1) *
                     F.one_hot(u.long(), N_ATOMS)).sum(1)
            else:
                target_pmfs = torch.zeros_like(next_pmfs)
                for i in range(target_pmfs.size(0)):
                    target_pmfs[i].index_add_(0, l[i].long(), d_m_l[i])
                    target_pmfs[i].index_add_(0, u[i].long(), d_m_u[i])
        _, old_pmfs = q_network.get_action(observations, actions.flatten())
        return (-(target_pmfs * old_pmfs.clamp(min=1e-5, max=1 - 1e-5).log()
                  ).sum(-1)).mean()
    return c51_loss


def soft_update(net, target, tau):
    for param, target_param in zip(net.parameters(), target.parameters()):
        target_param.data.copy_(tau * param.data + (1 - tau) *
                                target_param.data)


def soft_update_lerp(net, target, tau):
    with torch.no_grad():
        for p, tp in zip(net.parameters(), target.parameters()):
            tp.lerp_(p, tau)


def soft_update_out(net, target, tau):
    """Stable-Baselines3's polyak_update: in place, with out=."""
    with torch.no_grad():
        for p, tp in zip(net.parameters(), target.parameters()):
            tp.mul_(1 - tau)
            torch.add(tp, p, alpha=tau, out=tp)


def targets_update(n, tau):
    """TD3's three target networks (n[3:]) soft-updated from n[:3]."""
    for i in range(3):
        soft_update(n[i], n[i + 3], tau)


def replay_batch(n=16, seed=3):
    g = torch.Generator().manual_seed(seed)
    return {"observations": torch.randn(n, OBS, generator=g),
            "actions": torch.rand(n, ACT, generator=g) * 2 - 1,
            "next_observations": torch.randn(n, OBS, generator=g),
            "rewards": torch.randn(n, generator=g),
            "dones": (torch.rand(n, generator=g) < 0.2).float()}


def sac_networks():
    """SAC's networks (actor, qf1, qf2, both targets, log_alpha) and a twin
    for PyTorch's own update."""
    torch.manual_seed(0)
    nets = [SACActor(), SoftQNetwork(), SoftQNetwork()]
    nets += [copy.deepcopy(nets[1]), copy.deepcopy(nets[2]),
             torch.zeros(1, requires_grad=True)]
    twin = [copy.deepcopy(n) for n in nets[:5]] + [
        nets[5].detach().clone().requires_grad_(True)]
    return nets, twin


def sac_optimizers(nets):
    """The critics', actor's and temperature's Adams over sac_networks."""
    return (torch.optim.Adam(list(nets[1].parameters()) +
                             list(nets[2].parameters()), lr=1e-3),
            torch.optim.Adam(nets[0].parameters(), lr=3e-4),
            torch.optim.Adam([nets[5]], lr=1e-3))


def check_sac_weights(test, nets, twin, steps):
    """The user's SAC objects hold PyTorch's values after `steps`."""
    test.assertAlmostEqual(float(nets[5]), float(twin[5]), places=6)
    test.assertNotEqual(float(nets[5]), 0.0)
    for mine, theirs, lr in zip(nets[:5], twin[:5],
                                (3e-4, 1e-3, 1e-3, 1e-3, 1e-3)):
        check_weights(test, {n: p.detach().numpy()
                             for n, p in mine.named_parameters()},
                      theirs, lr, steps)


class OffPolicyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def assert_close(self, got, want, what):
        self.assertLessEqual(abs(float(got) - want),
                             1e-4 * max(abs(want), 1e-2),
                             "%s: %r vs PyTorch's %r" % (what, float(got),
                                                         want))

    def torch_step(self, loss_fn, model, opt, inputs):
        loss = loss_fn(model, **inputs)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return float(loss)

    def test_sac_update(self):
        """SAC's whole update: the critics (one Adam over qf1 and qf2), the
        actor and the temperature every second step, each its own import
        over the networks the others train, apart and with share= (one set
        of weights); alpha = log_alpha.exp().item() after each temperature
        step reaches the next critic and actor steps; the targets
        soft-updated through .data."""
        for shared in (False, True):
            with self.subTest(shared=shared):
                self.sac_update(shared)

    def sac_update(self, shared):
        nets, twin = sac_networks()
        actor, qf1, qf2, qf1_target, qf2_target, log_alpha = nets
        critic_loss, actor_loss, alpha_loss, read_alpha = sac(*nets)
        t_critic, t_actor, t_alpha, t_read = sac(*twin)
        q_opt, a_opt, al_opt = sac_optimizers(nets)
        tq_opt, ta_opt, tal_opt = sac_optimizers(twin)
        batch = replay_batch()
        obs = {"observations": batch["observations"]}
        critic = capture.fx.import_module(
            {"qf1": qf1, "qf2": qf2}, critic_loss, batch, optimizer=q_opt,
            frozen={"actor": actor, "qf1_target": qf1_target,
                    "qf2_target": qf2_target}, device=self.device)
        share = critic if shared else None
        policy = capture.fx.import_module(
            actor, actor_loss, obs, optimizer=a_opt,
            frozen={"qf1": qf1, "qf2": qf2}, device=self.device, share=share)
        temperature = capture.fx.import_module(
            {"log_alpha": log_alpha}, alpha_loss, obs, optimizer=al_opt,
            frozen={"actor": actor}, device=self.device, share=share)
        # One set of weights: the temperature's import holds the critics.
        self.assertEqual(shared, "qf1.fc1.weight" in
                         temperature.state_dict())
        critics = {"qf1": twin[1], "qf2": twin[2]}
        for k in range(20):
            torch.manual_seed(100 + k)
            out = critic.step(batch)
            torch.manual_seed(100 + k)
            want = self.torch_step(t_critic, critics, tq_opt, batch)
            self.assert_close(out["loss"], want, "critic step %d" % k)
            if k == 6:  # the user changes the critics before the actor's step
                for n in (nets, twin):
                    with torch.no_grad():
                        for p in list(n[1].parameters()) + \
                                list(n[2].parameters()):
                            p.mul_(0.5)
            if k % 2 == 0:
                torch.manual_seed(200 + k)
                out = policy.step(obs)
                torch.manual_seed(200 + k)
                want = self.torch_step(t_actor, twin[0], ta_opt, obs)
                self.assert_close(out["loss"], want, "actor step %d" % k)
                torch.manual_seed(300 + k)
                out = temperature.step(obs)
                torch.manual_seed(300 + k)
                want = self.torch_step(t_alpha, None, tal_opt, obs)
                self.assert_close(out["loss"], want, "alpha step %d" % k)
                read_alpha()
                t_read()
            for n in (nets, twin):
                soft_update(n[1], n[3], 0.5)
                soft_update(n[2], n[4], 0.5)
        # The user's own objects hold the trained values.
        check_sac_weights(self, nets, twin, 20)

    def test_td3_and_ddpg_updates(self):
        """TD3: the smoothed target (randn_like, clamps with numpy float32
        bounds), two critics, the actor every second step (sharing the
        critics' weights), three targets soft-updated on the device, each
        whole update one submission; DDPG's critic, one Q network."""
        torch.manual_seed(1)
        nets = [DeterministicActor(), SoftQNetwork(), SoftQNetwork()]
        nets += [copy.deepcopy(n) for n in nets]
        twin = [copy.deepcopy(n) for n in nets]
        critic_loss, actor_loss = td3(*nets)
        t_critic, t_actor = td3(*twin)
        actor, qf1, qf2, target_actor, qf1_target, qf2_target = nets

        def optimizers(n):
            return (torch.optim.Adam(list(n[1].parameters()) +
                                     list(n[2].parameters()), lr=1e-3),
                    torch.optim.Adam(n[0].parameters(), lr=3e-4))
        q_opt, a_opt = optimizers(nets)
        tq_opt, ta_opt = optimizers(twin)
        batch = replay_batch(seed=4)
        obs = {"observations": batch["observations"]}
        critic = capture.fx.import_module(
            [qf1, qf2], critic_loss, batch, optimizer=q_opt,
            frozen={"target_actor": target_actor, "qf1_target": qf1_target,
                    "qf2_target": qf2_target}, device=self.device)
        policy = capture.fx.import_module(
            actor, actor_loss, obs, optimizer=a_opt, frozen={"qf1": qf1},
            device=self.device, share=critic)
        self.assertIn("1.fc3.bias", critic.state_dict())
        # The three soft updates on the device; the losses read at the
        # end, so that each whole update is one submission (deferred).
        targets = capture.fx.import_update(targets_update, share=critic)
        losses, submits = [], []
        for k in range(20):
            before = self.device.submit_count
            torch.manual_seed(10 + k)
            out = critic.step(batch)
            torch.manual_seed(10 + k)
            want = self.torch_step(t_critic, [twin[1], twin[2]], tq_opt,
                                   batch)
            losses.append((out, want, "critic step %d" % k))
            if k % 2 == 1:
                out = policy.step(obs)
                want = self.torch_step(t_actor, twin[0], ta_opt, obs)
                losses.append((out, want, "actor step %d" % k))
                targets(nets, 0.3)
                targets_update(twin, 0.3)
            submits.append(self.device.submit_count - before)
        self.assertEqual(submits[4:], [1] * 16, submits)
        for out, want, what in losses:
            self.assert_close(out["loss"], want, what)
        for mine, theirs in zip(nets, twin):
            check_weights(self, {n: p.detach().numpy()
                                 for n, p in mine.named_parameters()},
                          theirs, 1e-3, 20)

        # DDPG's critic over the TD3 networks' current values.
        loss = ddpg_critic(target_actor, qf1_target)
        t_loss = ddpg_critic(twin[3], twin[4])
        opt = torch.optim.Adam(qf1.parameters(), lr=1e-3)
        t_opt = torch.optim.Adam(twin[1].parameters(), lr=1e-3)
        step = capture.fx.import_module(
            qf1, loss, batch, optimizer=opt,
            frozen={"target_actor": target_actor, "qf1_target": qf1_target},
            device=self.device)
        for k in range(10):
            out = step.step(batch)
            self.assert_close(out["loss"],
                              self.torch_step(t_loss, twin[1], t_opt, batch),
                              "ddpg step %d" % k)

    def test_target_updates_on_the_device(self):
        """A DQN-style critic with a target network updated on the device:
        a hard copy by load_state_dict and soft updates as written, with a
        tau that changes (a new recording), against PyTorch; the target
        module reads back the device's values, and a write of the user's
        between updates is seen; each step with the update before it is
        one submission."""
        torch.manual_seed(2)
        q, twin_q = SoftQNetwork(), None
        tq = copy.deepcopy(q)
        twin_q, twin_tq = copy.deepcopy(q), copy.deepcopy(q)

        def critic(target):
            def loss_fn(q, observations, actions, next_observations,
                        rewards, dones):
                with torch.no_grad():
                    y = rewards + 0.9 * (1 - dones) * target(
                        next_observations, actions).view(-1)
                return F.mse_loss(q(observations, actions).view(-1), y)
            return loss_fn
        opt = torch.optim.Adam(q.parameters(), lr=1e-2)
        twin_opt = torch.optim.Adam(twin_q.parameters(), lr=1e-2)
        batch = replay_batch(seed=6)
        imp = capture.fx.import_module(q, critic(tq), batch, optimizer=opt,
                                       frozen={"tq": tq}, device=self.device)
        hard = capture.fx.import_update(
            lambda: tq.load_state_dict(q.state_dict()), share=imp)
        soft = capture.fx.import_update(soft_update, share=imp)
        # The same update written with lerp_ and with mul_ and add(out=).
        others = [soft_update_lerp, soft_update_out]
        imported = [capture.fx.import_update(f, share=imp) for f in others]
        submits = []
        for k in range(12):
            before = self.device.submit_count
            out = imp.step(batch)
            want = self.torch_step(critic(twin_tq), twin_q, twin_opt, batch)
            self.assert_close(out["loss"], want, "critic step %d" % k)
            submits.append(self.device.submit_count - before)
            if k % 4 == 0:
                hard()
                twin_tq.load_state_dict(twin_q.state_dict())
            elif k in (5, 9):
                imported[k == 9](q, tq, 0.125)
                others[k == 9](twin_q, twin_tq, 0.125)
            else:
                tau = 0.25 if k < 6 else 0.5
                soft(q, tq, tau)
                soft_update(twin_q, twin_tq, tau)
            if k == 8:  # the user's own write, seen by the next update
                for t in (tq, twin_tq):
                    t.fc1.bias.data.mul_(0.5)
        # Each step is one submission, the update before it taken along
        # (deferred); but the first (recordings) and the one after the
        # user's .data write, whose compare reads the target back first.
        self.assertEqual(submits[1:9] + submits[10:], [1] * 10, submits)
        self.assertEqual(len(soft._recordings), 2)  # tau 0.25, then 0.5
        for n, p in twin_tq.named_parameters():
            np.testing.assert_allclose(
                dict(tq.named_parameters())[n].detach().numpy(),
                p.detach().numpy(), rtol=1e-4, atol=1e-6, err_msg=n)

        with self.assertRaisesRegex(capture.Error, "wrote no weight"):
            capture.fx.import_update(lambda: None, share=imp)()
        fresh = torch.zeros(3)
        with self.assertRaisesRegex(
                capture.fx.Unsupported, r"test_fx_offpolicy.py:\d+: update: "
                r"aten.add_.Tensor reads a tensor that is no weight"):
            capture.fx.import_update(
                lambda: tq.fc1.bias.data.add_(fresh), share=imp)()
        with self.assertRaisesRegex(capture.Error, "share: expected"):
            capture.fx.import_update(soft_update, share=q)

    def c51_batch(self, n=12):
        g = torch.Generator().manual_seed(5)
        batch = {"observations": torch.randn(n, 4, generator=g),
                 "actions": torch.randint(0, 3, (n, 1), generator=g),
                 "next_observations": torch.randn(n, 4, generator=g),
                 "rewards": torch.randn(n, 1, generator=g) * 4,
                 "dones": (torch.rand(n, 1, generator=g) < 0.3).float()}
        # b exactly whole (l == u): a done transition with reward 0, one
        # past v_max (clamped) and one on an atom.
        batch["rewards"][:3, 0] = torch.tensor([0.0, 50.0, 4.0])
        batch["dones"][:3, 0] = 1.0
        return batch

    def test_c51_projection_as_written(self):
        """C51: argmax of the target's expected values picks its
        distribution (pmfs[torch.arange(len(x)), action]); the projection
        with floor, ceil, l == u and index_add_ into each row in a loop;
        and the same with one_hot; 20 steps with a hard target update, to
        PyTorch's losses and weights; greedy acting after training."""
        batch = self.c51_batch()
        for scatter_free in (False, True):
            torch.manual_seed(0)
            q, target = C51Network(), C51Network()
            target.load_state_dict(q.state_dict())
            tq, ttarget = copy.deepcopy(q), copy.deepcopy(target)
            opt = torch.optim.Adam(q.parameters(), lr=2.5e-4, eps=0.01 / 32)
            t_opt = torch.optim.Adam(tq.parameters(), lr=2.5e-4,
                                     eps=0.01 / 32)
            step = capture.fx.import_module(
                q, c51(target, scatter_free=scatter_free), batch,
                optimizer=opt, frozen={"target_network": target},
                device=self.device)
            t_loss = c51(ttarget, scatter_free=scatter_free)
            for k in range(20):
                out = step.step(batch)
                self.assert_close(out["loss"],
                                  self.torch_step(t_loss, tq, t_opt, batch),
                                  "step %d" % k)
                if k == 9:
                    target.load_state_dict(q.state_dict())
                    ttarget.load_state_dict(tq.state_dict())
            check_weights(self, step.state_dict(), tq, 2.5e-4, 20)
        x = batch["observations"]
        action, pmf = tq(x)
        out = step.forward(x=x)
        np.testing.assert_array_equal(out["output0"], action.numpy())
        np.testing.assert_allclose(out["output1"], pmf.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)

    def test_indices_made_in_the_step_must_be_bounded(self):
        """PyTorch raises on an index out of range; a step cannot, so an
        index made in the step is taken only where the graph bounds it."""
        batch = self.c51_batch(4)
        target = C51Network()

        def unclamped(q_network, observations, actions, next_observations,
                      rewards, dones):
            _, pmfs = q_network.get_action(observations, actions.flatten())
            b = (torch.sigmoid(rewards) * 5).floor()  # in range, unproven
            return (pmfs * F.one_hot(b.long(), N_ATOMS).squeeze(1)).mean()

        def unrounded(q_network, observations, actions, next_observations,
                      rewards, dones):
            _, pmfs = q_network.get_action(observations, actions.flatten())
            b = (torch.sigmoid(rewards) * 5).clamp(0, N_ATOMS - 1)
            return (pmfs * F.one_hot(b.long(), N_ATOMS).squeeze(1)).mean()

        def some_rows(q_network, observations, actions, next_observations,
                      rewards, dones):
            _, pmfs = q_network.get_action(observations, actions.flatten())
            l = (torch.sigmoid(rewards) * 5).floor().clamp(0, N_ATOMS - 1).expand(
                -1, N_ATOMS)
            t, d = torch.zeros_like(pmfs), pmfs.detach()
            for i in range(len(t) - 1):
                t[i].index_add_(0, l[i].long(), d[i])
            return (t * pmfs).mean()

        for fn, message in (
                (unclamped, "one_hot of indices computed in the step within "
                 "\\[-inf, inf\\], which may fall outside \\[0, 11\\)"
                 ".*clamp\\(0, 10\\)"),
                (unrounded, "\\.long\\(\\) of a float tensor computed in"
                 " the step that is not provably whole"),
                (some_rows, "index_add_ into the rows of a tensor other "
                 "than into every row once")):
            with self.assertRaisesRegex(capture.fx.Unsupported, message):
                capture.fx.import_module(C51Network(), fn, batch,
                                         frozen={"t": target},
                                         device=self.device)

    def test_index_add_of_an_input_index(self):
        """t.index_add(0, idx, src) with idx an int input: as PyTorch's,
        and an index out of range at a call is the runtime's error naming
        the input, the position and the value, with no outputs."""

        class Scatter(nn.Module):
            def forward(self, x, idx):
                return torch.zeros_like(x[:4]).index_add(0, idx, x)

        x = np.arange(6, dtype=np.float32) + 0.5
        idx = np.array([0, 3, 3, 1, 0, 2], np.int64)
        step = capture.fx.import_module(Scatter(), device=self.device)
        np.testing.assert_array_equal(
            step.forward(x=x, idx=idx)["output"],
            Scatter()(torch.from_numpy(x), torch.from_numpy(idx)).numpy())
        with self.assertRaisesRegex(capture.Error, "input 'idx' has 4 at "
                                    "position 2, expected an index in "
                                    "\\[0, 4\\)"):
            step.forward(x=x, idx=np.array([0, 3, 4, 1, 0, 2], np.int64))

    def test_share_mistakes(self):
        torch.manual_seed(3)
        actor, qf1 = DeterministicActor(), SoftQNetwork()
        batch = replay_batch(seed=5)
        obs = {"observations": batch["observations"]}
        target = copy.deepcopy(qf1)
        critic_loss = ddpg_critic(actor, target)

        def actor_loss(actor, observations):
            return -qf1(observations, actor(observations)).mean()

        critic = capture.fx.import_module(
            qf1, critic_loss, batch, frozen={"actor": actor, "t": target},
            device=self.device)
        with self.assertRaisesRegex(capture.Error, "share: expected what "
                                    "import_module returned, got DeterministicActor"):
            capture.fx.import_module(actor, actor_loss, obs,
                                     frozen={"qf1": qf1}, share=actor)
        # The actor's own names clash with the critic's (both fc1.weight).
        with self.assertRaisesRegex(capture.Error, "share: 'fc1.weight' "
                                    "names another tensor.*as a dict"):
            capture.fx.import_module(DeterministicActor(), actor_loss, obs,
                                     frozen={"qf1": qf1}, share=critic)
        # A frozen module that is partly the critics' import's model.
        with self.assertRaisesRegex(capture.Error, "share: the frozen module"
                                    " 'both' is partly another import's "
                                    "model"):
            capture.fx.import_module(
                actor, actor_loss, obs, share=critic,
                frozen={"both": nn.ModuleList([qf1, SoftQNetwork()])})
        critic.step(batch)
        with self.assertRaisesRegex(capture.Error, "share: the import to "
                                    "share with has trained already"):
            capture.fx.import_module(actor, actor_loss, obs,
                                     frozen={"qf1": qf1}, share=critic)

    def test_a_global_float_is_read_at_each_step(self):
        """A float the loss reads from its globals (a coefficient the loop
        anneals) is an input, read when the step runs; an int it reads
        shapes the step, and a change of it is an error."""
        global ENT_COEF
        torch.manual_seed(2)
        actor, twin = SACActor(), None
        twin = copy.deepcopy(actor)

        def loss(actor, observations):
            mean, log_std = actor(observations)
            return (mean ** 2).mean() - ENT_COEF * log_std.mean()

        opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
        t_opt = torch.optim.Adam(twin.parameters(), lr=1e-3)
        obs = {"observations": replay_batch()["observations"]}
        step = capture.fx.import_module(actor, loss, obs, optimizer=opt,
                                        device=self.device)
        saved = ENT_COEF
        try:
            for k in range(6):
                ENT_COEF = 0.5 * k
                self.assert_close(step.step(obs)["loss"],
                                  self.torch_step(loss, twin, t_opt, obs),
                                  "step %d" % k)
        finally:
            ENT_COEF = saved

        width = 2

        def sliced(actor, observations):
            mean, _ = actor(observations)
            return mean[:, :width].sum() * math.exp(ENT_COEF)

        step = capture.fx.import_module(actor, sliced, obs,
                                        device=self.device)
        step.step(obs)
        width = 1
        with self.assertRaisesRegex(
                capture.Error, "step: loss_fn reads 'width', which was 2 when"
                " imported and is now 1; it shapes the captured step"):
            step.step(obs)
        width = 2
        step.step(obs)
        # math.exp takes no tensor: ENT_COEF stays a constant, guarded.
        try:
            ENT_COEF = 0.25
            with self.assertRaisesRegex(capture.Error,
                                        "loss_fn reads 'ENT_COEF', which "
                                        "was 0.01 when imported"):
                step.step(obs)
        finally:
            ENT_COEF = saved

    def test_model_given_as_a_dict_or_list(self):
        q = SoftQNetwork()
        with self.assertRaisesRegex(capture.Error, "model: the names are "
                                    "identifiers"):
            capture.fx.import_module({"q 1": q}, device=self.device)
        with self.assertRaisesRegex(capture.Error, "model\\['q'\\]: expected "
                                    "a torch.nn.Module or a tensor, got "
                                    "int"):
            capture.fx.import_module({"q": 3}, device=self.device)
        with self.assertRaisesRegex(capture.Error, "a tensor to train must "
                                    "be a float32 leaf"):
            capture.fx.import_module({"a": torch.ones(1,
                                                      requires_grad=True) * 2},
                                     device=self.device)
        with self.assertRaisesRegex(capture.Error, "'a' and 'b' are the "
                                    "same object"):
            capture.fx.import_module({"a": q, "b": q}, device=self.device)
        with self.assertRaisesRegex(capture.Error, "frozen\\['t'\\] is the "
                                    "model itself, or part of it"):
            capture.fx.import_module([q], frozen={"t": q},
                                     device=self.device)
        with self.assertRaisesRegex(capture.Error, "the model defines no "
                                    "forward"):
            capture.fx.import_module([q], device=self.device).forward(
                x=np.zeros((1, 3), np.float32))


if __name__ == "__main__":
    unittest.main()
