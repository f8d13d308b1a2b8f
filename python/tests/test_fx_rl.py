"""capture.fx on reinforcement-learning updates written as their authors
write them: torch.distributions, Adam with its own eps, advantage
normalization with std, values unpacked from max(dim), no_grad targets,
len() and shape asserts, numpy scalars, keyword defaults, an annealed
learning rate set on the optimizer. Each trains against PyTorch's own step
from the same weights for 20 steps (losses, grad norms and weights within
1e-4 relative); no_grad and detach stop the gradient exactly where PyTorch
does. Mistakes are errors naming the input or the user's line, at
import_module.

Run by ctest `python.fx_rl`.
"""
import copy
import pickle
import unittest

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal

import capture
import capture.fx
from test_fx import (HERE, check_steps, check_weights, line_of,
                     torch_steps)
from cartpole_ppo import Agent as DiscreteAgent, ppo_loss  # noqa: E402

STEPS = 20


def layer(i, o, std=np.sqrt(2)):
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


def ppo_discrete_loss(agent, obs, actions, logprobs, advantages, returns,
                      values):
    """The CartPole example's PPO loss (examples/python/cartpole_ppo.py,
    the loss of single-file PPO agents), with an entropy bonus."""
    return ppo_loss(agent, obs, actions, logprobs, advantages, returns,
                    values, ent_coef=0.01)


class ContinuousAgent(nn.Module):
    """PPO's continuous actor-critic: a Normal with a state-independent
    log standard deviation."""

    def __init__(self, obs=3, act=2):
        super().__init__()
        self.critic = nn.Sequential(layer(obs, 64), nn.Tanh(), layer(64, 1, 1.0))
        self.actor_mean = nn.Sequential(layer(obs, 64), nn.Tanh(),
                                        layer(64, act, 0.01))
        self.actor_logstd = nn.Parameter(torch.zeros(1, act))

    def get_action_and_value(self, x, action):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        probs = Normal(action_mean, action_std)
        return (action, probs.log_prob(action).sum(1),
                probs.entropy().sum(1), self.critic(x))


class RPOAgent(ContinuousAgent):
    """RPO: PPO continuous whose update perturbs the mean with uniform
    noise, drawn as its authors draw it."""

    rpo_alpha = 0.5

    def get_action_and_value(self, x, action):
        action_mean = self.actor_mean(x)
        action_logstd = self.actor_logstd.expand_as(action_mean)
        action_std = torch.exp(action_logstd)
        z = torch.FloatTensor(action_mean.shape).uniform_(-self.rpo_alpha,
                                                          self.rpo_alpha)
        action_mean = action_mean + z
        probs = Normal(action_mean, action_std)
        return (action, probs.log_prob(action).sum(1),
                probs.entropy().sum(1), self.critic(x))


def ppo_continuous_loss(agent, obs, actions, logprobs, advantages, returns):
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(obs, actions)
    ratio = (newlogprob - logprobs).exp()
    mb_adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg_loss = torch.max(-mb_adv * ratio,
                        -mb_adv * torch.clamp(ratio, 0.8, 1.2)).mean()
    v_loss = 0.5 * ((newvalue.view(-1) - returns) ** 2).mean()
    return pg_loss - 0.0 * entropy.mean() + v_loss * 0.5


class QNetwork(nn.Module):
    def __init__(self, obs=4, actions=3, norm=False):
        super().__init__()
        self.network = nn.Sequential(
            nn.Linear(obs, 32), *( [nn.LayerNorm(32)] if norm else []),
            nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, actions))

    def forward(self, x):
        return self.network(x)


def dqn_loss(q_network, observations, actions, rewards, next_observations,
             dones, gamma=0.99):
    # The target from the online network itself, under no_grad: PyTorch
    # gives it no gradient, and neither may Capture.
    with torch.no_grad():
        target_max, _ = q_network(next_observations).max(dim=1)
        td_target = rewards.flatten() + gamma * target_max * (1 - dones.flatten())
    old_val = q_network(observations).gather(1, actions).squeeze()
    assert len(observations) == old_val.shape[0]
    return F.mse_loss(td_target, old_val)


def detach_loss(q_network, observations, actions, rewards):
    q = q_network(observations)
    target = rewards + np.float32(0.9) * q.detach().amax(1)
    return F.mse_loss(q.gather(1, actions).squeeze(1), target)


LOG_STD_MAX, LOG_STD_MIN = 2, -5


class SquashedActor(nn.Module):
    """SAC's actor: a tanh-squashed Normal, its scale and bias buffers."""

    def __init__(self, obs=3, act=2):
        super().__init__()
        self.fc1 = nn.Linear(obs, 32)
        self.fc_mean = nn.Linear(32, act)
        self.fc_logstd = nn.Linear(32, act)
        self.register_buffer("action_scale", torch.tensor([2.0, 0.5]))
        self.register_buffer("action_bias", torch.tensor([0.0, 0.5]))

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
        x_t = normal.rsample()  # reparameterization: mean + std * noise
        y_t = torch.tanh(x_t)
        action = y_t * self.action_scale + self.action_bias
        log_prob = normal.log_prob(x_t)
        log_prob -= torch.log(self.action_scale * (1 - y_t.pow(2)) + 1e-6)
        log_prob = log_prob.sum(1, keepdim=True)
        return action, log_prob


def sac_like_actor_loss(actor, observations, q_weights, alpha=0.2):
    pi, log_pi = actor.get_action(observations)
    q = (pi * q_weights).sum(1, keepdim=True)  # a fixed linear critic
    return ((alpha * log_pi) - q).mean()


def smoothed_target_loss(actor, observations, actions):
    # TD3's target policy smoothing: clipped noise on the action.
    clipped_noise = (torch.randn_like(actions) * 0.2).clamp(-0.5, 0.5)
    mean, _ = actor(observations)
    return F.mse_loss(mean, actions + clipped_noise)


class RLTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.device = capture.Device()

    def train_both(self, make, loss_fn, batch, opt_make, max_norm=0.5,
                   anneal=None):
        torch.manual_seed(0)
        model, twin = make(), make()
        twin.load_state_dict(model.state_dict())
        opt = opt_make(model.parameters())
        imported = capture.fx.import_module(model, loss_fn, batch,
                                            optimizer=opt,
                                            max_grad_norm=max_norm,
                                            device=self.device)
        ours = []
        for k in range(STEPS):
            if anneal:
                opt.param_groups[0]["lr"] = anneal(k)
            ours.append(imported.step(batch))
        want = torch_steps(twin, loss_fn, batch, opt_make(twin.parameters()),
                           max_norm, STEPS, anneal)
        check_steps(self, ours, want)
        check_weights(self, imported.state_dict(), twin,
                      max(g["lr"] for g in opt.param_groups), STEPS)
        return imported, opt, ours

    def ppo_batch(self, n=64, obs=4, actions=2, seed=1):
        g = torch.Generator().manual_seed(seed)
        return {"obs": torch.randn(n, obs, generator=g),
                "actions": torch.randint(0, actions, (n,), generator=g).float(),
                "logprobs": -torch.rand(n, generator=g) - 0.5,
                "advantages": torch.randn(n, generator=g),
                "returns": torch.randn(n, generator=g),
                "values": torch.randn(n, generator=g)}

    def test_ppo_discrete_categorical_adam_annealed(self):
        batch = self.ppo_batch()
        imported, opt, ours = self.train_both(
            DiscreteAgent, ppo_discrete_loss, batch,
            lambda p: torch.optim.Adam(p, lr=2.5e-4, eps=1e-5),
            anneal=lambda k: 2.5e-4 * (1.0 - k / STEPS))
        self.assertIn("approx_kl", ours[0])
        self.assertAlmostEqual(imported.train_state()["lr"],
                               2.5e-4 * (1.0 - (STEPS - 1) / STEPS))
        self.assertEqual(imported.why_recorded, "")
        # Only lr follows the optimizer; another change is refused.
        opt.param_groups[0]["eps"] = 1e-8
        with self.assertRaisesRegex(capture.Error, "optimizer: eps changed "
                                    "from 1e-05 to 1e-08 after import"):
            imported.step(batch)
        self.assertEqual(imported.train_state()["step"], STEPS)

    def test_param_groups_train_with_their_own_hyperparameters(self):
        """The actor and the critic in param groups of their own (the
        critic's lr, eps and betas its own, its lr annealed on its own), for
        Adam, AdamW with weight decay and Adam's L2 decay; PyTorch's numbers
        over 12 steps. Another change to a group after import is refused."""
        batch = self.continuous_batch(48, 3)

        def groups(model):
            return [{"params": list(model.actor_mean.parameters()) +
                     [model.actor_logstd]},
                    {"params": model.critic.parameters(), "lr": 1e-3,
                     "eps": 1e-8, "betas": (0.8, 0.99)}]
        for kind, wd in ((torch.optim.Adam, 0.0), (torch.optim.AdamW, 0.01),
                         (torch.optim.Adam, 0.01)):
            with self.subTest(optimizer=kind.__name__, weight_decay=wd):
                torch.manual_seed(0)
                model, twin = ContinuousAgent(), ContinuousAgent()
                twin.load_state_dict(model.state_dict())
                opt, t_opt = (kind(groups(m), lr=3e-4, eps=1e-5,
                                   weight_decay=wd) for m in (model, twin))
                imported = capture.fx.import_module(
                    model, ppo_continuous_loss, batch, optimizer=opt,
                    max_grad_norm=0.5, device=self.device)
                ours, want = [], []
                params = list(twin.parameters())
                for k in range(STEPS):
                    for o in (opt, t_opt):
                        o.param_groups[1]["lr"] = 1e-3 * (1.0 - k / STEPS)
                    ours.append(imported.step(batch))
                    loss = ppo_continuous_loss(twin, **batch)
                    t_opt.zero_grad()
                    loss.backward()
                    norm = torch.nn.utils.clip_grad_norm_(params, 0.5)
                    t_opt.step()
                    want.append((float(loss), float(norm)))
                check_steps(self, ours, want)
                check_weights(self, imported.state_dict(), twin, 1e-3,
                              STEPS)
                self.assertEqual(imported.why_recorded, "")
                opt.param_groups[1]["eps"] = 1e-6
                with self.assertRaisesRegex(
                        capture.Error, "optimizer: eps of param group 1 "
                        "changed from 1e-08 to 1e-06 after import"):
                    imported.step(batch)

        # A group whose parameters the loss does not reach (an unused head)
        # trains nothing, as in PyTorch, which skips them; its lr may change.
        torch.manual_seed(0)
        model, twin = ContinuousAgent(), ContinuousAgent()
        twin.load_state_dict(model.state_dict())
        for m in (model, twin):
            m.unused = nn.Linear(3, 3)
        twin.unused.load_state_dict(model.unused.state_dict())

        def with_unused(m):
            return groups(m) + [{"params": m.unused.parameters(), "lr": 1.0}]
        opt, t_opt = (torch.optim.Adam(with_unused(m), lr=3e-4)
                      for m in (model, twin))
        imported = capture.fx.import_module(
            model, ppo_continuous_loss, batch, optimizer=opt,
            max_grad_norm=0.5, device=self.device)
        ours = []
        for k in range(3):
            opt.param_groups[2]["lr"] = 0.5 / (k + 1)
            ours.append(imported.step(batch))
        check_steps(self, ours, torch_steps(twin, ppo_continuous_loss, batch,
                                            t_opt, 0.5, 3))
        check_weights(self, imported.state_dict(), twin, 1e-3, 3)

    def continuous_batch(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        return {"obs": torch.randn(n, 3, generator=g),
                "actions": torch.randn(n, 2, generator=g),
                "logprobs": -torch.rand(n, generator=g) - 1.0,
                "advantages": torch.randn(n, generator=g),
                "returns": torch.randn(n, generator=g)}

    def test_ppo_continuous_normal(self):
        batch = self.continuous_batch(48, 2)
        self.train_both(ContinuousAgent, ppo_continuous_loss, batch,
                        lambda p: torch.optim.Adam(p, lr=3e-4, eps=1e-5))

    def test_adam_weight_decay_is_l2_on_the_gradient(self):
        """torch.optim.Adam(weight_decay=...) adds wd * p to the clipped
        gradient (not AdamW's decay); with the clip active at every step,
        and both sides' weights compared."""
        batch = self.continuous_batch(32, 21)
        imported, _, _ = self.train_both(
            ContinuousAgent, ppo_continuous_loss, batch,
            lambda p: torch.optim.Adam(p, lr=1e-3, weight_decay=0.5),
            max_norm=0.05)
        self.assertFalse(imported.train_state()["decoupled_weight_decay"])

    def dqn_batch(self, n=32, seed=3):
        g = torch.Generator().manual_seed(seed)
        return {"observations": torch.randn(n, 4, generator=g),
                "actions": torch.randint(0, 3, (n, 1), generator=g),
                "rewards": torch.randn(n, 1, generator=g),
                "next_observations": torch.randn(n, 4, generator=g),
                "dones": (torch.rand(n, 1, generator=g) < 0.2).float()}

    def test_dqn_no_grad_target_is_exact(self):
        self.train_both(QNetwork, dqn_loss, self.dqn_batch(),
                        lambda p: torch.optim.Adam(p, lr=1e-3), max_norm=10.0)

    def test_no_grad_changes_the_gradient(self):
        # Without no_grad the gradient differs: the check above can fail.
        def through(q_network, observations, actions, rewards,
                    next_observations, dones):
            target_max, _ = q_network(next_observations).max(dim=1)
            td = rewards.flatten() + 0.99 * target_max * (1 - dones.flatten())
            return F.mse_loss(td, q_network(observations).gather(1, actions)
                              .squeeze())
        batch = self.dqn_batch()
        torch.manual_seed(0)
        model, twin = QNetwork(), QNetwork()
        twin.load_state_dict(model.state_dict())
        a = capture.fx.import_module(model, dqn_loss, batch, lr=1e-3,
                                     device=self.device).step(batch)
        b = capture.fx.import_module(twin, through, batch, lr=1e-3,
                                     device=self.device).step(batch)
        self.assertAlmostEqual(float(a["loss"]), float(b["loss"]), places=5)
        self.assertGreater(abs(float(a["grad_norm"]) - float(b["grad_norm"])),
                           1e-3)

    def test_in_place_ops(self):
        """ReLU(inplace=True) and `x -= y` on values no one else sees."""

        class InPlace(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(inplace=True),
                                         nn.Linear(16, 3))

            def forward(self, x):
                return self.net(x)

        def loss(q_network, observations, actions, rewards):
            q = q_network(observations).gather(1, actions).squeeze(1)
            q -= rewards
            q.mul_(0.5)
            return (q * q).mean()
        batch = {k: v for k, v in self.dqn_batch().items()
                 if k in ("observations", "actions")}
        batch["rewards"] = torch.randn(32)
        self.train_both(InPlace, loss, batch,
                        lambda p: torch.optim.Adam(p, lr=1e-3))

    def test_detach_and_layer_norm(self):
        batch = {k: v for k, v in self.dqn_batch().items()
                 if k in ("observations", "actions")}
        batch["rewards"] = torch.randn(32)
        self.train_both(lambda: QNetwork(norm=True), detach_loss, batch,
                        lambda p: torch.optim.AdamW(p, lr=1e-3), max_norm=1.0)

    def test_a_parameter_the_loss_does_not_reach_is_left_alone(self):
        """PPG's policy phase: the auxiliary value head is not in the loss.
        PyTorch's AdamW skips a parameter without a gradient (no decay,
        no moments); so does the import."""

        class WithAux(DiscreteAgent):
            def __init__(self):
                super().__init__()
                self.aux_critic = layer(64, 1, 1.0)

        batch = self.ppo_batch(n=32, seed=7)
        imported, _, _ = self.train_both(
            WithAux, ppo_discrete_loss, batch,
            lambda p: torch.optim.AdamW(p, lr=1e-3, weight_decay=0.1))
        torch.manual_seed(0)
        self.assertEqual(imported.state_dict()["aux_critic.weight"].tobytes(),
                         WithAux().aux_critic.weight.detach().numpy()
                         .tobytes())

    def seeded_steps(self, make, loss_fn, batch, frozen=None, max_norm=1.0,
                     seed=100, between=None):
        """Both sides from the same seed at every step: the noise that the
        step draws on the host is PyTorch's own. `between()` runs after
        each step (an update of the frozen modules)."""
        torch.manual_seed(0)
        model, twin = make(), make()
        twin.load_state_dict(model.state_dict())
        opt = torch.optim.Adam(model.parameters(), lr=3e-4)
        topt = torch.optim.Adam(twin.parameters(), lr=3e-4)
        imported = capture.fx.import_module(model, loss_fn, batch,
                                            optimizer=opt,
                                            max_grad_norm=max_norm,
                                            frozen=frozen,
                                            device=self.device)
        ours = []
        for k in range(STEPS):
            torch.manual_seed(seed + k)
            ours.append(imported.step(batch))
            torch.manual_seed(seed + k)
            check_steps(self, ours[-1:], torch_steps(twin, loss_fn, batch,
                                                     topt, max_norm, 1))
            if between:
                between()
        return imported, ours

    def test_rsample_draws_pytorchs_noise_each_step(self):
        g = torch.Generator().manual_seed(8)
        batch = {"observations": torch.randn(16, 3, generator=g),
                 "q_weights": torch.randn(1, 2, generator=g)}
        imported, ours = self.seeded_steps(SquashedActor, sac_like_actor_loss,
                                           batch)
        # Not a value frozen at import: the same batch gives other losses.
        self.assertGreater(len({float(o["loss"]) for o in ours}), STEPS // 2)
        # The import itself draws nothing from the user's generator.
        torch.manual_seed(5)
        capture.fx.import_module(SquashedActor(), sac_like_actor_loss, batch,
                                 device=self.device)
        after_import = torch.rand(1)
        torch.manual_seed(5)
        SquashedActor()
        self.assertEqual(float(after_import), float(torch.rand(1)))

    def test_rpo_uniform_perturbation(self):
        batch = self.continuous_batch(32, 17)
        # Each step's noise is PyTorch's own at that step (seeded alike).
        self.seeded_steps(RPOAgent, ppo_continuous_loss, batch, max_norm=0.5)

    def test_randn_like_smoothing_noise(self):
        g = torch.Generator().manual_seed(9)
        batch = {"observations": torch.randn(16, 3, generator=g),
                 "actions": torch.randn(16, 2, generator=g)}
        self.seeded_steps(SquashedActor, smoothed_target_loss, batch)

    def test_dqn_target_network_and_soft_updates(self):
        """DQN with a target network read under no_grad (a frozen module),
        its soft update written through .data and a hard update with
        load_state_dict between steps: each step reads the target's values
        of that moment, as PyTorch's does."""
        batch = self.dqn_batch()
        torch.manual_seed(0)
        q, target = QNetwork(), QNetwork()
        target.load_state_dict(q.state_dict())
        tq, ttarget = QNetwork(), QNetwork()
        tq.load_state_dict(q.state_dict())
        ttarget.load_state_dict(q.state_dict())

        def loss_with(target_network):
            def dqn_target_loss(q_network, observations, actions, rewards,
                                next_observations, dones, gamma=0.99):
                with torch.no_grad():
                    target_max, _ = target_network(next_observations).max(
                        dim=1)
                    td_target = rewards.flatten() + gamma * target_max * (
                        1 - dones.flatten())
                old_val = q_network(observations).gather(1, actions).squeeze()
                return F.mse_loss(td_target, old_val)
            return dqn_target_loss

        with self.assertRaisesRegex(capture.fx.Unsupported,
                                    "not the model's .*frozen="):
            capture.fx.import_module(q, loss_with(target), batch,
                                     device=self.device)
        opt = torch.optim.Adam(q.parameters(), lr=1e-3)
        topt = torch.optim.Adam(tq.parameters(), lr=1e-3)
        step = capture.fx.import_module(q, loss_with(target), batch,
                                        optimizer=opt, max_grad_norm=10.0,
                                        frozen={"target": target},
                                        device=self.device)
        self.assertIn("target.network.0.weight", step.state_dict())
        tau = 0.5
        for k in range(8):
            out = step.step(batch)
            want = torch_steps(tq, loss_with(ttarget), batch, topt, 10.0, 1)
            check_steps(self, [out], want)
            for net, tnet in ((target, q), (ttarget, tq)):
                if k % 2 == 1:  # the soft update, as written in DQN/SAC/TD3
                    for t_param, param in zip(net.parameters(),
                                              tnet.parameters()):
                        t_param.data.copy_(tau * param.data +
                                           (1.0 - tau) * t_param.data)
                if k == 4:
                    net.load_state_dict(tnet.state_dict())
        np.testing.assert_allclose(
            step.state_dict()["target.network.4.bias"],
            ttarget.network[4].bias.detach().numpy(), rtol=1e-4, atol=1e-5)

    def test_double_dqn_argmax(self):
        """Double DQN: the online network's argmax picks the target
        network's value (the first maximum, as PyTorch's argmax); the
        indices of max(dim) and their .float() too."""
        batch = self.dqn_batch()
        torch.manual_seed(0)
        q, target = QNetwork(), QNetwork()
        tq = QNetwork()
        tq.load_state_dict(q.state_dict())

        def double_dqn(q_network, observations, actions, rewards,
                       next_observations, dones, gamma=0.99):
            with torch.no_grad():
                next_actions = q_network(next_observations).argmax(
                    dim=1, keepdim=True)
                target_q = target(next_observations).gather(
                    1, next_actions).squeeze(1)
                td = rewards.flatten() + gamma * target_q * (
                    1 - dones.flatten())
            old = q_network(observations).gather(1, actions).squeeze()
            _, greedy = q_network(observations).max(dim=1)
            hot = F.one_hot(greedy, 3).float()
            return {"loss": F.mse_loss(td, old) +
                    0.1 * (q_network(observations) * hot).mean(),
                    "mean_greedy": greedy.float().mean()}

        opt = torch.optim.Adam(q.parameters(), lr=1e-3)
        topt = torch.optim.Adam(tq.parameters(), lr=1e-3)
        step = capture.fx.import_module(q, double_dqn, batch, optimizer=opt,
                                        max_grad_norm=10.0,
                                        frozen={"target": target},
                                        device=self.device)
        for _ in range(STEPS):
            with torch.no_grad():
                greedy = tq(batch["observations"]).argmax(1).float().mean()
            out = step.step(batch)
            check_steps(self, [out], torch_steps(tq, double_dqn, batch, topt,
                                                 10.0, 1))
            self.assertAlmostEqual(float(out["mean_greedy"]), float(greedy),
                                   places=5)
        # Ties: the first maximum, in a forward (greedy acting); min too.

        class Greedy(nn.Module):
            def forward(self, q):
                return q.argmax(1).float(), q.min(dim=0)[1].float()

        x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [5.0, -1.0, 5.0]],
                     np.float32)
        out = capture.fx.import_module(Greedy(), device=self.device).forward(
            q=x)
        self.assertEqual(out["output0"].tolist(), [1.0, 0.0, 0.0])
        self.assertEqual(out["output1"].tolist(), [0.0, 2.0, 1.0])

    def test_a_forward_with_argmax_after_training(self):
        """Greedy acting with the import of a trained step: the forward's
        argmax needs a constant the loss did not have; declaring it keeps
        the optimizer's moments (the steps after it still match)."""

        class GreedyQ(QNetwork):
            def forward(self, x):
                return self.network(x).argmax(1).float()

        def loss(q_network, observations, targets):
            return F.mse_loss(q_network.network(observations), targets)

        g = torch.Generator().manual_seed(16)
        batch = {"observations": torch.randn(8, 4, generator=g),
                 "targets": torch.randn(8, 3, generator=g)}
        torch.manual_seed(0)
        net, twin = GreedyQ(), GreedyQ()
        twin.load_state_dict(net.state_dict())
        step = capture.fx.import_module(
            net, loss, batch, optimizer=torch.optim.Adam(net.parameters()),
            device=self.device)
        topt = torch.optim.Adam(twin.parameters())
        for k in range(6):
            check_steps(self, [step.step(batch)],
                        torch_steps(twin, loss, batch, topt, 1e30, 1))
            if k == 2:
                x = batch["observations"][:5]
                np.testing.assert_array_equal(
                    step.forward(x=x)["output"],
                    twin(x).detach().numpy())
        self.assertEqual(step.train_state()["step"], 6)

    def test_acting_sees_every_change_to_the_weights(self):
        """A forward-only import (acting) compares the model with what it
        held when last in step at every call, by version counter, storage,
        shape and strides, and by value (one compare of the bytes for the
        model): each change below is what the next forward computes with,
        and a shape changed through .data is refused."""

        class Mixed(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 3)
                self.sq = nn.Linear(3, 3)
                # Not contiguous: numpy cannot view it, torch.equal compares.
                self.register_buffer("mix", torch.randn(4, 3).t())

            def forward(self, x):
                return self.sq(self.fc(x)) @ self.mix

        torch.manual_seed(3)
        net = Mixed()
        imported = capture.fx.import_module(net, device=self.device)
        x = torch.randn(5, 4)

        def agree():
            with torch.no_grad():
                want = net(x).numpy()
            np.testing.assert_allclose(imported.forward(x=x)["output"], want,
                                       rtol=1e-5, atol=1e-6)

        agree()
        net.fc.bias.data.add_(0.5)  # no version counter moves
        agree()
        net.fc.weight.data = torch.randn(3, 4)  # another storage
        agree()
        net.mix.data.mul_(2.0)  # the buffer numpy cannot view
        agree()
        with torch.no_grad():
            net.fc.weight.mul_(-1.0)  # a version counter moves
        agree()
        net.sq.weight.data = net.sq.weight.data.t()  # same bytes, strides
        agree()
        net.sq.bias.data = net.sq.bias.data[:2]  # same address, a shape
        with self.assertRaisesRegex(capture.Error, "sq.bias"):
            imported.forward(x=x)
        net.sq.bias.data = torch.zeros(3)
        agree()
        net.fc.weight.data = net.fc.weight.data.reshape(4, 3)
        with self.assertRaisesRegex(capture.Error, "fc.weight"):
            imported.forward(x=x)

    def test_sac_actor_with_frozen_critics(self):
        """SAC's actor loss: min of two critics (frozen for this step) of
        the actor's rsample'd action, with the log-prob correction."""

        class SoftQ(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(3 + 2, 32)
                self.fc2 = nn.Linear(32, 1)

            def forward(self, x, a):
                return self.fc2(F.relu(self.fc1(torch.cat([x, a], 1))))

        torch.manual_seed(0)
        qf1, qf2 = SoftQ(), SoftQ()

        def actor_loss(actor, observations, alpha=0.2):
            pi, log_pi = actor.get_action(observations)
            qf1_pi = qf1(observations, pi)
            qf2_pi = qf2(observations, pi)
            min_qf_pi = torch.min(qf1_pi, qf2_pi)
            return ((alpha * log_pi) - min_qf_pi).mean()

        def critics_update():  # the critics' own, between the actor's steps
            with torch.no_grad():
                for p in list(qf1.parameters()) + list(qf2.parameters()):
                    p.mul_(0.99)

        g = torch.Generator().manual_seed(11)
        batch = {"observations": torch.randn(16, 3, generator=g)}
        self.seeded_steps(SquashedActor, actor_loss, batch,
                          frozen={"qf1": qf1, "qf2": qf2}, max_norm=1e30,
                          seed=200, between=critics_update)

    def test_masks_activations_and_robust_losses(self):
        """Comparisons and what RL code writes with them: where, a clip
        fraction, masked_fill, abs, LeakyReLU, ELU, Softplus, GELU (erf)
        and tanh-GELU, smooth L1 and Huber losses."""

        class Mixed(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.1))
                self.b = nn.Sequential(nn.Linear(16, 16), nn.ELU(),
                                       nn.Linear(16, 16), nn.GELU())
                self.c = nn.Sequential(nn.Linear(16, 3),
                                       nn.GELU(approximate="tanh"))

            def forward(self, x):
                return self.c(self.b(self.a(x)))

        def loss(model, observations, targets, clip=0.3):
            out = model(observations)
            spread = F.softplus(out[:, 1]) + 0.1
            d = out[:, 0] - targets
            with torch.no_grad():
                clipfrac = ((d.abs() > clip).float()).mean()
            robust = F.smooth_l1_loss(out[:, 0], targets, beta=0.5) + \
                F.huber_loss(out[:, 2], targets, delta=0.7)
            picked = torch.where(d > 0, d * spread, -d)
            masked = out.masked_fill(out < -0.05, 0.0).sum(1)
            return {"loss": robust + picked.mean() + 0.1 * masked.mean() +
                    0.01 * out.abs().mean(), "clipfrac": clipfrac}

        g = torch.Generator().manual_seed(12)
        batch = {"observations": torch.randn(32, 4, generator=g),
                 "targets": torch.randn(32, generator=g)}
        _, _, ours = self.train_both(Mixed, loss, batch,
                                     lambda p: torch.optim.Adam(p, lr=1e-3))
        self.assertTrue(0 < float(ours[0]["clipfrac"]) < 1)

    def test_ppg_kl_between_categoricals(self):
        """PPG's auxiliary phase: kl_divergence of two Categoricals (its
        masked assignments of inf and 0) and a value head on
        hidden.detach()."""

        class PPGNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(4, 32), nn.Tanh())
                self.pi = nn.Linear(32, 3)
                self.aux_value = nn.Linear(32, 1)
                self.value = nn.Sequential(nn.Linear(4, 32), nn.Tanh(),
                                           nn.Linear(32, 1))

        def aux_loss(net, obs, old_logits, returns):
            hidden = net.body(obs)
            new = Categorical(logits=net.pi(hidden))
            old = Categorical(logits=old_logits)
            kl = torch.distributions.kl_divergence(old, new).mean()
            aux = 0.5 * ((net.aux_value(hidden).squeeze(-1) - returns) ** 2
                         ).mean()
            v = 0.5 * ((net.value(obs).squeeze(-1) - returns) ** 2).mean()
            # The value head over the detached features: no gradient to
            # the body through it.
            detached = net.aux_value(hidden.detach()).mean()
            return aux + kl + v + 0.1 * detached

        g = torch.Generator().manual_seed(13)
        batch = {"obs": torch.randn(24, 4, generator=g),
                 "old_logits": torch.randn(24, 3, generator=g),
                 "returns": torch.randn(24, generator=g)}
        self.train_both(PPGNet, aux_loss, batch,
                        lambda p: torch.optim.Adam(p, lr=5e-4, eps=1e-5))

    def test_forward_with_index_inputs(self):
        torch.manual_seed(0)
        net = QNetwork()
        imported = capture.fx.import_module(net, device=self.device)
        x = torch.randn(5, 4)
        np.testing.assert_allclose(imported.forward(x=x)["output"],
                                   net(x).detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
        # Another shape: traced and recorded again.
        np.testing.assert_allclose(imported.forward(x=x[:2])["output"],
                                   net(x[:2]).detach().numpy(), rtol=1e-5,
                                   atol=1e-6)

    def test_short_last_minibatch_records_per_shape(self):
        """Minibatches of 64, 64 and 40 rows for 3 epochs: a recording per
        shape over the same weights, the optimizer state following the
        active one; PyTorch's numbers at every step."""
        full = self.ppo_batch(n=168, seed=5)
        sizes = [(0, 64), (64, 128), (128, 168)]
        torch.manual_seed(0)
        model, twin = DiscreteAgent(), DiscreteAgent()
        twin.load_state_dict(model.state_dict())
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5)
        topt = torch.optim.Adam(twin.parameters(), lr=1e-3, eps=1e-5)
        first = {k: v[:64] for k, v in full.items()}
        imported = capture.fx.import_module(model, ppo_discrete_loss, first,
                                            optimizer=opt, max_grad_norm=0.5,
                                            device=self.device)
        ours, want, why = [], [], []
        for epoch in range(3):
            for lo, hi in sizes:
                mb = {k: v[lo:hi] for k, v in full.items()}
                ours.append(imported.step(mb))
                why.append(imported.why_recorded)
                want += torch_steps(twin, ppo_discrete_loss, mb, topt, 0.5, 1)
        check_steps(self, ours, want)
        self.assertIn("first", why[0])
        self.assertEqual(why[1], "")
        self.assertRegex(why[2], "new input shapes .*obs: \\[40, 4\\].*; "
                         "recorded: .*obs: \\[64, 4\\]")
        self.assertEqual(why[3:], [""] * 6)  # never records again
        self.assertEqual(imported.train_state()["step"], 9)
        values = imported.state_dict()
        for name, p in twin.named_parameters():
            np.testing.assert_allclose(values[name], p.detach().numpy(),
                                       rtol=1e-4, atol=1e-4, err_msg=name)
        # The limit: a fifth shape is refused, nothing changes.
        for n in (10, 11):
            imported.step({k: v[:n] for k, v in full.items()})
        with self.assertRaisesRegex(capture.Error, "5th recording; the limit "
                                    "is 4 \\(capture.fx.MAX_SHAPES\\)"):
            imported.step({k: v[:12] for k, v in full.items()})
        self.assertEqual(imported.train_state()["step"], 11)

    def test_a_model_imported_twice_is_one_model(self):
        """Two imports of one model (two losses) train the same weights:
        each step starts from what the other trained."""
        batch = self.dqn_batch()
        torch.manual_seed(0)
        net, twin = QNetwork(), QNetwork()
        twin.load_state_dict(net.state_dict())
        a = capture.fx.import_module(net, dqn_loss, batch, lr=1e-3,
                                     weight_decay=0.0, device=self.device)
        b = capture.fx.import_module(net, dqn_loss, batch, lr=2e-3,
                                     weight_decay=0.0, device=self.device)
        opt_a = torch.optim.AdamW(twin.parameters(), lr=1e-3, weight_decay=0)
        opt_b = torch.optim.AdamW(twin.parameters(), lr=2e-3, weight_decay=0)
        for step, opt in ((a, opt_a), (b, opt_b), (a, opt_a)):
            out = step.step(batch)
            check_steps(self, [out], torch_steps(twin, dqn_loss, batch, opt,
                                                 1e30, 1))

    def test_module_and_optimizer_stay_in_step(self):
        """The user's module reads the trained values however it is read;
        their in-place changes reach the next step; a replaced layer or
        parameter is an error; an lr_scheduler drives the step's lr."""
        batch = self.dqn_batch()
        torch.manual_seed(0)
        net, twin = QNetwork(), QNetwork()
        twin.load_state_dict(net.state_dict())
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 0.5 ** k)
        topt = torch.optim.Adam(twin.parameters(), lr=1e-3)
        tsched = torch.optim.lr_scheduler.LambdaLR(topt, lambda k: 0.5 ** k)
        imported = capture.fx.import_module(net, dqn_loss, batch,
                                            optimizer=opt, max_grad_norm=10.0,
                                            device=self.device)

        def both_step():
            out = imported.step(batch)
            sched.step()
            want = torch_steps(twin, dqn_loss, batch, topt, 10.0, 1)
            tsched.step()
            check_steps(self, [out], want)

        def same(what):
            for name, p in twin.named_parameters():
                mine = what(name)
                np.testing.assert_allclose(mine.detach().numpy(),
                                           p.detach().numpy(), rtol=1e-4,
                                           atol=1e-5, err_msg=name)

        for _ in range(3):
            both_step()
        # The lr of the last step (the next one reads the optimizer's).
        self.assertAlmostEqual(imported.train_state()["lr"], 1e-3 * 0.5 ** 2)
        # Read as an attribute (the first read after the steps), through
        # named_parameters and state_dict, and by calling it.
        same(lambda n: net.get_parameter(n))
        same(lambda n: dict(net.named_parameters())[n])
        same(lambda n: net.state_dict()[n])
        # A deep copy (a target network made from it) or a pickle has the
        # trained values and is the user's own: changing it is no change
        # to the imported model.
        target = copy.deepcopy(net)
        same(lambda n: target.get_parameter(n))
        same(lambda n: pickle.loads(pickle.dumps(net)).get_parameter(n))
        with torch.no_grad():
            target.network[0].weight.add_(1.0)
        x = batch["observations"][:3]
        np.testing.assert_allclose(net(x).detach().numpy(),
                                   twin(x).detach().numpy(), rtol=1e-4,
                                   atol=1e-5)
        # A change made in place (a checkpoint loaded, a weight scaled)
        # is what the next step trains from.
        other = QNetwork()
        net.load_state_dict(other.state_dict())
        twin.load_state_dict(other.state_dict())
        with torch.no_grad():
            net.network[2].weight.mul_(0.5)
            twin.network[2].weight.mul_(0.5)
        both_step()
        both_step()
        same(lambda n: net.get_parameter(n))
        # A write through .data (which moves no version counter) after
        # reading the module: seen by value.
        net.network[0].bias.data.add_(0.25)
        twin.network[0].bias.data.add_(0.25)
        both_step()
        same(lambda n: net.get_parameter(n))
        # A replaced layer or parameter: refused, nothing trained.
        step = imported.train_state()["step"]
        net.network[4] = nn.Linear(32, 3)
        with self.assertRaisesRegex(capture.Error, "'4' was replaced or "
                                    "removed after import_module"):
            imported.step(batch)
        net2 = QNetwork()
        imported2 = capture.fx.import_module(net2, dqn_loss, batch,
                                             device=self.device)
        net2.network[0].bias = nn.Parameter(torch.zeros(32))
        with self.assertRaisesRegex(capture.Error, "'bias' was replaced"):
            imported2.step(batch)
        self.assertEqual(imported.train_state()["step"], step)

    def test_float_of_an_index_input(self):
        """actions.float() of int actions: made on the host, then compared
        and computed with like any float."""
        def loss(q_network, observations, actions):
            q = q_network(observations)
            a = actions.float()
            chose_one = (a == 1).float()
            return ((q[:, 0] - a) ** 2 * (1 + chose_one)).mean()
        g = torch.Generator().manual_seed(15)
        batch = {"observations": torch.randn(16, 4, generator=g),
                 "actions": torch.randint(0, 3, (16,), generator=g)}
        self.train_both(QNetwork, loss, batch,
                        lambda p: torch.optim.Adam(p, lr=1e-3))

    def test_constants_made_in_the_loss(self):
        """A tensor made inside the loss is a read-only constant, the same
        weight at every shape; a 0-d one is a number."""
        def loss(q_network, observations):
            scale = torch.tensor([1.0, 0.5, 2.0])
            bias = torch.tensor(0.25)
            return ((q_network(observations) * scale + bias) ** 2).mean()
        torch.manual_seed(0)
        net, twin = QNetwork(), QNetwork()
        twin.load_state_dict(net.state_dict())
        step = capture.fx.import_module(net, loss, {"observations":
                                                    torch.zeros(8, 4)},
                                        lr=1e-3, device=self.device)
        topt = torch.optim.AdamW(twin.parameters(), lr=1e-3)
        g = torch.Generator().manual_seed(14)
        for n in (8, 5, 8):
            obs = torch.randn(n, 4, generator=g)
            check_steps(self, [step.step(observations=obs)],
                        torch_steps(twin, loss, {"observations": obs}, topt,
                                    1e30, 1))
        self.assertEqual([n for n in step.state_dict() if "constant" in n],
                         ["_constant0"])

    def test_input_mistakes_each_have_their_message(self):
        batch = self.dqn_batch()
        step = capture.fx.import_module(QNetwork(), dqn_loss, batch,
                                        device=self.device)
        cases = [
            (dict(batch, reward=batch["rewards"]), "unexpected input "
             "'reward'; did you mean 'rewards'\\?"),
            ({k: v for k, v in batch.items() if k != "dones"},
             "missing input 'dones'"),
            (dict(batch, rewards=batch["rewards"].double()), "float64"),
            (dict(batch, rewards=batch["rewards"] > 0), "input 'rewards': "
             "dtype bool"),
            (dict(batch, actions=batch["actions"].float()), "input 'actions' "
             "is float32, expected int32"),
            (dict(batch, observations=batch["observations"][None]),
             "input 'observations' has shape \\[1, 32, 4\\], but it was "
             "imported with rank 2"),
        ]
        for bad, message in cases:
            with self.assertRaisesRegex(capture.Error, message):
                step.step(bad)
        self.assertEqual(step.train_state()["step"], 0)
        with self.assertRaisesRegex(capture.Error, "loss_fn has no parameter "
                                    "'gama'; did you mean 'gamma'\\?"):
            capture.fx.import_module(QNetwork(), dqn_loss,
                                     dict(batch, gama=np.float32(0.5)),
                                     device=self.device)

    def test_unsupported_is_refused_at_import_with_the_line(self):
        def loss(q_network, observations):
            q = q_network(observations)
            return q.round().mean()  # no kernel yet
        with self.assertRaises(capture.fx.Unsupported) as e:
            capture.fx.import_module(QNetwork(), loss,
                                     {"observations": torch.randn(2, 4)},
                                     device=self.device)
        self.assertIn("round", str(e.exception))
        self.assertIn("%s:%d" % (HERE.replace("test_fx.py", "test_fx_rl.py"),
                                 line_of(loss, "round()")), str(e.exception))

        def noisy(q_network, observations):
            q = q_network(observations)
            return (q + torch.normal(q, 0.1)).mean()
        with self.assertRaisesRegex(capture.fx.Unsupported,
                                    "random numbers drawn from traced "
                                    "values \\(normal\\).*pass the noise "
                                    "as an input"):
            capture.fx.import_module(QNetwork(), noisy,
                                     {"observations": torch.randn(2, 4)},
                                     device=self.device)

        def view_then_inplace(q_network, observations):
            q = q_network(observations) * 1.0
            first = q[:, 0]
            q.add_(1.0)  # PyTorch's `first` sees it
            return first.mean()
        with self.assertRaisesRegex(capture.fx.Unsupported,
                                    "%s:%d: the in-place torch.add "
                                    "\\(aten.add_.Tensor\\) changes a "
                                    "tensor that 'mean' reads after it"
                                    % (HERE.replace("test_fx.py",
                                                    "test_fx_rl.py"),
                                       line_of(view_then_inplace,
                                               "q.add_"))):
            capture.fx.import_module(QNetwork(), view_then_inplace,
                                     {"observations": torch.randn(2, 4)},
                                     device=self.device)

        def argmax(q_network, observations):
            best = q_network(observations).argmax()  # of all elements
            return q_network(observations).mean() + best.float()
        with self.assertRaisesRegex(capture.fx.Unsupported,
                                    "argmax over all elements is not "
                                    "supported; give dim"):
            capture.fx.import_module(QNetwork(), argmax,
                                     {"observations": torch.randn(2, 4)},
                                     device=self.device)

        def host_read(q_network, observations):
            q = q_network(observations)
            if q.mean() > 0:  # control flow on a value
                return q.sum()
            return q.mean()
        with self.assertRaisesRegex(capture.Error, "%s:%d: could not trace "
                                    "the loss" % (
                                        HERE.replace("test_fx.py",
                                                     "test_fx_rl.py"),
                                        line_of(host_read, "if q.mean()"))):
            capture.fx.import_module(QNetwork(), host_read,
                                     {"observations": torch.randn(2, 4)},
                                     device=self.device)


if __name__ == "__main__":
    unittest.main()
