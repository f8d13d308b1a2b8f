#!/usr/bin/python3
"""PPO on CartPole written the way single-file PPO agents are written: an
actor-critic with a Categorical policy, Adam with eps 1e-5, a learning rate
annealed on the optimizer, advantage normalization, a clipped value loss,
and minibatches whose last one is short; the environment in numpy (the
cart-pole equations of Barto, Sutton and Anderson, as in Gym's
CartPole-v1). The loop is PyTorch's; the one change for Capture is the
update: `capture.fx.import_module(agent, ppo_loss, ...)` once, then
`step.step(minibatch)` in place of backward, clip and optimizer.step().
Acting calls the agent as usual: the module reads the captured weights.
The same loop then runs with PyTorch's own update (the same seed), and the
two are compared: the learning curve and the time per update.

usage: /usr/bin/python3 cartpole_ppo.py [--iterations 40] [--seed 0]
           [--plot curve.png] [--table table.md] [--only capture|torch]
           [--device host|cpu|gpu|...]

--device picks capture's device (capture.Device's selector: 'host' runs the
update as native code without Vulkan); the default is capture's default.
"""
import argparse
import math
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical

import capture
import capture.fx


class CartPole:
    """`n` cart-poles stepped together (Euler, tau 0.02 s). An episode ends
    when the pole leans past 12 degrees, the cart leaves [-2.4, 2.4], or
    after `limit` steps; ended ones restart at once."""

    GRAVITY, CART, POLE, HALF_LENGTH, FORCE, TAU = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    THETA_LIMIT, X_LIMIT = 12 * 2 * math.pi / 360, 2.4

    def __init__(self, n, rng, limit=500):
        self.n, self.rng, self.limit = n, rng, limit
        self.state = rng.uniform(-0.05, 0.05, (n, 4))
        self.steps = np.zeros(n, np.int64)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(action == 1, self.FORCE, -self.FORCE)
        total = self.CART + self.POLE
        pole_ml = self.POLE * self.HALF_LENGTH
        cos, sin = np.cos(theta), np.sin(theta)
        temp = (force + pole_ml * theta_dot ** 2 * sin) / total
        theta_acc = (self.GRAVITY * sin - cos * temp) / (
            self.HALF_LENGTH * (4.0 / 3.0 - self.POLE * cos ** 2 / total))
        x_acc = temp - pole_ml * theta_acc * cos / total
        self.state = np.stack([x + self.TAU * x_dot, x_dot + self.TAU * x_acc,
                               theta + self.TAU * theta_dot,
                               theta_dot + self.TAU * theta_acc], axis=1)
        self.steps += 1
        fell = (np.abs(self.state[:, 0]) > self.X_LIMIT) | \
            (np.abs(self.state[:, 2]) > self.THETA_LIMIT)
        done = fell | (self.steps >= self.limit)
        lengths = self.steps[done].copy()
        self.state[done] = self.rng.uniform(-0.05, 0.05, (int(done.sum()), 4))
        self.steps[done] = 0
        # The reward is 1 per step; a fall ends the return (no bootstrap).
        return np.ones(self.n), fell, done, lengths


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """The discrete actor-critic as single-file PPO agents write it."""

    def __init__(self, obs=4, actions=2):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, actions), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def ppo_loss(agent, obs, actions, logprobs, advantages, returns, values,
             clip_coef=0.2, ent_coef=0.0, vf_coef=0.5):
    """The minibatch loss of the usual PPO update loop, unchanged: it is
    the captured step's body and PyTorch's."""
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(
        obs, actions.long())
    logratio = newlogprob - logprobs
    ratio = logratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()
    mb_advantages = advantages
    mb_advantages = (mb_advantages - mb_advantages.mean()) / (
        mb_advantages.std() + 1e-8)
    pg_loss1 = -mb_advantages * ratio
    pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef)
    pg_loss = torch.max(pg_loss1, pg_loss2).mean()
    newvalue = newvalue.view(-1)
    v_loss_unclipped = (newvalue - returns) ** 2
    v_clipped = values + torch.clamp(newvalue - values, -clip_coef, clip_coef)
    v_loss_clipped = (v_clipped - returns) ** 2
    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - ent_coef * entropy_loss + v_loss * vf_coef
    return {"loss": loss, "approx_kl": approx_kl}


# 8 x 128 = 1024 steps per rollout in minibatches of 300: the last is 124.
ENVS, HORIZON, MINIBATCH, EPOCHS = 8, 128, 300, 4
GAMMA, LAMBDA, LR, MAX_NORM = 0.99, 0.95, 2.5e-3, 0.5


def train(kind, iterations, seed, log=print, device=None):
    """Trains for `iterations` rollouts of ENVS x HORIZON steps, updating
    with PyTorch's own step or (kind "capture") the imported one; returns
    per-iteration mean episode lengths and every update's time."""
    torch.manual_seed(seed)
    agent = Agent()
    optimizer = optim.Adam(agent.parameters(), lr=LR, eps=1e-5)
    rng = np.random.default_rng(seed)
    env = CartPole(ENVS, rng)
    batch_size = ENVS * HORIZON
    step = None
    curve, update_s, episodes = [], [], []
    next_obs = torch.tensor(env.state, dtype=torch.float32)
    for iteration in range(iterations):
        frac = 1.0 - iteration / iterations  # the annealed learning rate
        optimizer.param_groups[0]["lr"] = frac * LR
        obs = torch.zeros((HORIZON, ENVS, 4))
        actions = torch.zeros((HORIZON, ENVS))
        logprobs = torch.zeros((HORIZON, ENVS))
        rewards = torch.zeros((HORIZON, ENVS))
        fells = torch.zeros((HORIZON, ENVS))
        dones = torch.zeros((HORIZON, ENVS))
        values = torch.zeros((HORIZON, ENVS))
        for t in range(HORIZON):
            obs[t] = next_obs
            with torch.no_grad():  # acting reads the module: trained values
                action, logprob, _, value = agent.get_action_and_value(
                    next_obs)
            values[t] = value.flatten()
            actions[t], logprobs[t] = action, logprob
            reward, fell, done, lengths = env.step(action.numpy())
            rewards[t] = torch.tensor(reward)
            fells[t], dones[t] = torch.tensor(fell), torch.tensor(done)
            episodes.extend(lengths.tolist())
            next_obs = torch.tensor(env.state, dtype=torch.float32)
        # Generalized advantage estimation; a time-limit end bootstraps from
        # the next state's value, a fall does not.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(HORIZON)):
                nextvalues = next_value if t == HORIZON - 1 else values[t + 1]
                delta = rewards[t] + GAMMA * nextvalues * (1 - fells[t]) - \
                    values[t]
                advantages[t] = lastgaelam = delta + GAMMA * LAMBDA * (
                    1 - dones[t]) * lastgaelam
            returns = advantages + values
        b = {"obs": obs.reshape(-1, 4), "actions": actions.reshape(-1),
             "logprobs": logprobs.reshape(-1),
             "advantages": advantages.reshape(-1),
             "returns": returns.reshape(-1), "values": values.reshape(-1)}
        b_inds = np.arange(batch_size)
        for epoch in range(EPOCHS):
            rng.shuffle(b_inds)
            for start in range(0, batch_size, MINIBATCH):
                mb = {k: v[b_inds[start:start + MINIBATCH]]
                      for k, v in b.items()}
                t0 = time.perf_counter()
                if kind == "capture":
                    if step is None:  # imported once, at the first minibatch
                        step = capture.fx.import_module(
                            agent, ppo_loss, mb, optimizer=optimizer,
                            max_grad_norm=MAX_NORM, device=device)
                    step.step(mb)
                else:
                    loss = ppo_loss(agent, **mb)["loss"]
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), MAX_NORM)
                    optimizer.step()
                update_s.append(time.perf_counter() - t0)
        recent = episodes[-20:] if episodes else [0]
        curve.append(float(np.mean(recent)))
        log("%s iteration %3d: mean episode length %6.1f (last %d episodes)"
            % (kind, iteration + 1, curve[-1], len(recent)))
    return curve, update_s[1:]  # the first capture update also imports


def median_us(seconds):
    return 1e6 * float(np.median(seconds))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot")
    p.add_argument("--table")
    p.add_argument("--only", choices=["capture", "torch"])
    p.add_argument("--device", help="capture.Device selector ('host', "
                   "'vulkan', 'cpu', 'gpu', an index or part of a name; "
                   "default: CAPTURE_DEVICE, else a GPU, else 'host')")
    a = p.parse_args()
    if a.iterations < 1:
        p.error("--iterations must be >= 1, got %d" % a.iterations)
    torch.set_num_threads(1)  # the peer on one thread, as in bench/
    kinds = [a.only] if a.only else ["capture", "torch"]
    # As Params would choose it: CAPTURE_DEVICE, else a GPU, else the host.
    device = capture.Device(a.device or "")
    print("capture device: %s (%s)" % (device.name, device.choice))
    results = {}
    for kind in kinds:
        t0 = time.perf_counter()
        curve, updates = train(kind, a.iterations, a.seed, device=device)
        results[kind] = (curve, updates, time.perf_counter() - t0)
    rows = ["| update | final mean episode length | best | median us/update"
            " | p90 us/update | wall s |",
            "| --- | --- | --- | --- | --- | --- |"]
    for kind, (curve, updates, wall) in results.items():
        rows.append("| %s | %.1f | %.1f | %.0f | %.0f | %.1f |" % (
            kind, curve[-1], max(curve), median_us(updates),
            1e6 * float(np.percentile(updates, 90)), wall))
    if len(results) == 2:
        ratio = median_us(results["torch"][1]) / median_us(
            results["capture"][1])
        rows.append("")
        rows.append("PyTorch time / captured time per update: %.2f "
                    "(%d updates of minibatches of %d and %d)"
                    % (ratio, len(results["capture"][1]), MINIBATCH,
                       ENVS * HORIZON % MINIBATCH or MINIBATCH))
    table = "\n".join(rows)
    print(table)
    if a.table:
        with open(a.table, "w") as f:
            f.write(table + "\n")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for kind, (curve, _, _) in results.items():
            ax.plot(range(1, len(curve) + 1), curve, label=kind + " update")
        ax.set_xlabel("iteration (%d env steps each)" % (ENVS * HORIZON))
        ax.set_ylabel("mean episode length")
        ax.set_title("PPO on CartPole")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=100)
        print("wrote %s" % a.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
