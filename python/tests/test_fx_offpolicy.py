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

OBS, ACT = 3, 2
LOG_STD_MAX, LOG_STD_MIN = 2, -5
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


class SACActor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(OBS, 32)
        self.fc_mean = nn.Linear(32, ACT)
        self.fc_logstd = nn.Linear(32, ACT)
        self.register_buffer("action_scale",
                             torch.tensor((HIGH - LOW) / 2.0))
        self.register_buffer("action_bias", torch.tensor((HIGH + LOW) / 2.0))

    def forward(self, x):
        x = F.relu(self.fc1(x))
        mean = self.fc_mean(x)
        log_std = torch.tanh(self.fc_logstd(x))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (
            log_std + 1)
        return mean, log_std

    def get_action(self, x):
        mean, log_std = self(x)
        std = log_std.exp()
        normal = torch.distributions.Normal(mean, std)
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        action = y_t * self.action_scale + self.action_bias
        log_prob = normal.log_prob(x_t)
        log_prob -= torch.log(self.action_scale * (1 - y_t.pow(2)) + 1e-6)
        log_prob = log_prob.sum(1, keepdim=True)
        mean = torch.tanh(mean) * self.action_scale + self.action_bias
        return action, log_prob, mean


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
        qf1_a_values = qf1(observations, actions).view(-1)
        qf2_a_values = qf2(observations, actions).view(-1)
        qf1_loss = F.mse_loss(qf1_a_values, next_q_value)
        qf2_loss = F.mse_loss(qf2_a_values, next_q_value)
        return qf1_loss + qf2_loss

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
        qf1_a_values = qf1(observations, actions).view(-1)
        qf2_a_values = qf2(observations, actions).view(-1)
        qf1_loss = F.mse_loss(qf1_a_values, next_q_value)
        qf2_loss = F.mse_loss(qf2_a_values, next_q_value)
        return qf1_loss + qf2_loss

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


def soft_update(net, target, tau):
    for param, target_param in zip(net.parameters(), target.parameters()):
        target_param.data.copy_(tau * param.data + (1 - tau) *
                                target_param.data)


def replay_batch(n=16, seed=3):
    g = torch.Generator().manual_seed(seed)
    return {"observations": torch.randn(n, OBS, generator=g),
            "actions": torch.rand(n, ACT, generator=g) * 2 - 1,
            "next_observations": torch.randn(n, OBS, generator=g),
            "rewards": torch.randn(n, generator=g),
            "dones": (torch.rand(n, generator=g) < 0.2).float()}


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
        over the networks the others train; alpha = log_alpha.exp().item()
        after each temperature step reaches the next critic and actor
        steps; the targets soft-updated through .data."""
        torch.manual_seed(0)
        nets = [SACActor(), SoftQNetwork(), SoftQNetwork()]
        nets += [copy.deepcopy(nets[1]), copy.deepcopy(nets[2]),
                 torch.zeros(1, requires_grad=True)]
        twin = [copy.deepcopy(n) for n in nets[:5]] + [
            nets[5].detach().clone().requires_grad_(True)]
        actor, qf1, qf2, qf1_target, qf2_target, log_alpha = nets
        critic_loss, actor_loss, alpha_loss, read_alpha = sac(*nets)
        t_critic, t_actor, t_alpha, t_read = sac(*twin)

        def optimizers(n):
            return (torch.optim.Adam(list(n[1].parameters()) +
                                     list(n[2].parameters()), lr=1e-3),
                    torch.optim.Adam(n[0].parameters(), lr=3e-4),
                    torch.optim.Adam([n[5]], lr=1e-3))
        q_opt, a_opt, al_opt = optimizers(nets)
        tq_opt, ta_opt, tal_opt = optimizers(twin)
        batch = replay_batch()
        obs = {"observations": batch["observations"]}
        critic = capture.fx.import_module(
            {"qf1": qf1, "qf2": qf2}, critic_loss, batch, optimizer=q_opt,
            frozen={"actor": actor, "qf1_target": qf1_target,
                    "qf2_target": qf2_target}, device=self.device)
        policy = capture.fx.import_module(
            actor, actor_loss, obs, optimizer=a_opt,
            frozen={"qf1": qf1, "qf2": qf2}, device=self.device)
        temperature = capture.fx.import_module(
            {"log_alpha": log_alpha}, alpha_loss, obs, optimizer=al_opt,
            frozen={"actor": actor}, device=self.device)
        critics = {"qf1": twin[1], "qf2": twin[2]}
        for k in range(20):
            torch.manual_seed(100 + k)
            out = critic.step(batch)
            torch.manual_seed(100 + k)
            want = self.torch_step(t_critic, critics, tq_opt, batch)
            self.assert_close(out["loss"], want, "critic step %d" % k)
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
        self.assertAlmostEqual(float(log_alpha), float(twin[5]), places=6)
        self.assertNotEqual(float(log_alpha), 0.0)
        for mine, theirs, lr in zip(nets[:5], twin[:5],
                                    (3e-4, 1e-3, 1e-3, 1e-3, 1e-3)):
            check_weights(self, {n: p.detach().numpy()
                                 for n, p in mine.named_parameters()},
                          theirs, lr, 20)

    def test_td3_and_ddpg_updates(self):
        """TD3: the smoothed target (randn_like, clamps with numpy float32
        bounds), two critics, the actor every second step, three targets
        soft-updated; DDPG's critic, one Q network."""
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
            device=self.device)
        self.assertIn("1.fc3.bias", critic.state_dict())
        for k in range(20):
            torch.manual_seed(10 + k)
            out = critic.step(batch)
            torch.manual_seed(10 + k)
            want = self.torch_step(t_critic, [twin[1], twin[2]], tq_opt,
                                   batch)
            self.assert_close(out["loss"], want, "critic step %d" % k)
            if k % 2 == 1:
                out = policy.step(obs)
                want = self.torch_step(t_actor, twin[0], ta_opt, obs)
                self.assert_close(out["loss"], want, "actor step %d" % k)
                for n in (nets, twin):
                    for i in range(3):
                        soft_update(n[i], n[i + 3], 0.3)
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
