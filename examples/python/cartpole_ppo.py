#!/usr/bin/python3
"""PPO on CartPole: the environment in numpy (the classic cart-pole
equations of Barto, Sutton and Anderson, as in Gym's CartPole-v1), the
rollouts in Python, and each PPO update one captured training step that
capture.fx imported from an ordinary PyTorch module. The same loop then
runs with PyTorch's own update (the same model, seed and AdamW), and the
two are compared: the learning curve and the wall time per update.

usage: /usr/bin/python3 cartpole_ppo.py [--iterations 40] [--seed 0]
           [--plot curve.png] [--table table.md] [--only capture|torch]
"""
import argparse
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

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


class Policy(torch.nn.Module):
    """Discrete actor-critic: tanh MLPs for the action logits and the value."""

    def __init__(self, obs=4, hidden=64, actions=2):
        super().__init__()
        self.actor = torch.nn.Sequential(
            torch.nn.Linear(obs, hidden), torch.nn.Tanh(),
            torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
            torch.nn.Linear(hidden, actions))
        self.critic = torch.nn.Sequential(
            torch.nn.Linear(obs, hidden), torch.nn.Tanh(),
            torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
            torch.nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(1)


def ppo_loss(model, obs, act, adv, ret, old_logp):
    """Clipped surrogate, value loss and entropy bonus of a discrete policy."""
    logits, value = model(obs)
    logp_all = F.log_softmax(logits, dim=1)
    logp = (logp_all * F.one_hot(act, 2)).sum(dim=1)
    ratio = torch.exp(logp - old_logp)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
    entropy = -(logp_all.exp() * logp_all).sum(dim=1).mean()
    value_loss = ((value - ret) ** 2).mean()
    return -surrogate.mean() + 0.5 * value_loss - 0.01 * entropy


ENVS, HORIZON, MINIBATCH, EPOCHS = 8, 128, 256, 4
GAMMA, LAMBDA, LR, MAX_NORM = 0.99, 0.95, 1e-3, 0.5


class CaptureUpdate:
    """Acting and updating on the device: the captured forward and step."""

    name = "capture"

    def __init__(self, model, example):
        self.imported = capture.fx.import_module(
            model, ppo_loss, example,
            optimizer=torch.optim.AdamW(model.parameters(), lr=LR),
            max_grad_norm=MAX_NORM)

    def act(self, obs):
        out = self.imported.forward(obs=obs)
        return out["output0"], out["output1"]

    def update(self, batch):
        return float(self.imported.step(batch)["loss"])


class TorchUpdate:
    """The same on the CPU with PyTorch's own forward, backward and AdamW."""

    name = "torch"

    def __init__(self, model, example):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=LR)

    def act(self, obs):
        with torch.no_grad():
            logits, value = self.model(torch.from_numpy(obs))
        return logits.numpy(), value.numpy()

    def update(self, batch):
        t = {k: torch.from_numpy(v) for k, v in batch.items()}
        t["act"] = t["act"].long()  # F.one_hot takes int64 in PyTorch
        loss = ppo_loss(self.model, **t)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), MAX_NORM)
        self.opt.step()
        return float(loss)


def log_softmax(logits):
    z = logits - logits.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def train(kind, iterations, seed, log=print):
    """Trains for `iterations` rollouts of ENVS x HORIZON steps with update
    `kind`; returns per-iteration mean episode lengths, and the times of
    every update and of every policy call while acting."""
    torch.manual_seed(seed)
    model = Policy()
    rng = np.random.default_rng(seed)
    env = CartPole(ENVS, rng)
    n = ENVS * HORIZON
    example = {"obs": np.zeros((MINIBATCH, 4), np.float32),
               "act": np.zeros(MINIBATCH, np.int32),
               "adv": np.zeros(MINIBATCH, np.float32),
               "ret": np.zeros(MINIBATCH, np.float32),
               "old_logp": np.zeros(MINIBATCH, np.float32)}
    agent = (CaptureUpdate if kind == "capture" else TorchUpdate)(model,
                                                                   example)
    curve, update_s, act_s, episodes = [], [], [], []
    obs = env.state.astype(np.float32)
    for it in range(iterations):
        buf = {k: np.zeros((HORIZON, ENVS), np.float32)
               for k in ("rew", "val", "logp", "fell", "done")}
        buf_obs = np.zeros((HORIZON, ENVS, 4), np.float32)
        buf_act = np.zeros((HORIZON, ENVS), np.int32)
        for t in range(HORIZON):
            t0 = time.perf_counter()
            logits, value = agent.act(obs)
            act_s.append(time.perf_counter() - t0)
            logp = log_softmax(logits.astype(np.float64))
            act = (rng.random(ENVS) < np.exp(logp[:, 1])).astype(np.int32)
            buf_obs[t], buf_act[t] = obs, act
            buf["val"][t] = value
            buf["logp"][t] = logp[np.arange(ENVS), act]
            rew, fell, done, lengths = env.step(act)
            buf["rew"][t], buf["fell"][t], buf["done"][t] = rew, fell, done
            episodes.extend(lengths.tolist())
            obs = env.state.astype(np.float32)
        _, last_value = agent.act(obs)
        # Generalized advantage estimation; a time-limit end bootstraps
        # from the value of the state it ended in (approximated by the
        # next one's), a fall does not.
        adv = np.zeros((HORIZON, ENVS))
        gae = np.zeros(ENVS)
        for t in reversed(range(HORIZON)):
            next_value = last_value if t == HORIZON - 1 else buf["val"][t + 1]
            delta = buf["rew"][t] + GAMMA * next_value * (1 - buf["fell"][t]) \
                - buf["val"][t]
            gae = delta + GAMMA * LAMBDA * (1 - buf["done"][t]) * gae
            adv[t] = gae
        ret = adv + buf["val"]
        flat = {"obs": buf_obs.reshape(n, 4), "act": buf_act.reshape(n),
                "adv": adv.reshape(n), "ret": ret.reshape(n),
                "old_logp": buf["logp"].reshape(n)}
        for _ in range(EPOCHS):
            order = rng.permutation(n)
            for start in range(0, n, MINIBATCH):
                idx = order[start:start + MINIBATCH]
                a = flat["adv"][idx]
                batch = {"obs": flat["obs"][idx], "act": flat["act"][idx],
                         "adv": ((a - a.mean()) / (a.std() + 1e-8)
                                 ).astype(np.float32),
                         "ret": flat["ret"][idx].astype(np.float32),
                         "old_logp": flat["old_logp"][idx]}
                t0 = time.perf_counter()
                agent.update(batch)
                update_s.append(time.perf_counter() - t0)
        recent = episodes[-20:] if episodes else [0]
        curve.append(float(np.mean(recent)))
        log("%s iteration %3d: mean episode length %6.1f (last %d episodes)"
            % (kind, it + 1, curve[-1], len(recent)))
    return curve, update_s, act_s


def median_us(seconds):
    return 1e6 * float(np.median(seconds))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot")
    p.add_argument("--table")
    p.add_argument("--only", choices=["capture", "torch"])
    a = p.parse_args()
    if a.iterations < 1:
        p.error("--iterations must be >= 1, got %d" % a.iterations)
    torch.set_num_threads(1)  # the peer on one thread, as in bench/
    kinds = [a.only] if a.only else ["capture", "torch"]
    results = {}
    for kind in kinds:
        t0 = time.perf_counter()
        curve, updates, acts = train(kind, a.iterations, a.seed)
        results[kind] = (curve, updates, acts, time.perf_counter() - t0)
    rows = ["| update | final mean episode length | best | median us/update"
            " | p90 us/update | median us/policy call (batch %d) | wall s |"
            % ENVS, "| --- | --- | --- | --- | --- | --- | --- |"]
    for kind, (curve, updates, acts, wall) in results.items():
        rows.append("| %s | %.1f | %.1f | %.0f | %.0f | %.0f | %.1f |" % (
            kind, curve[-1], max(curve), median_us(updates),
            1e6 * float(np.percentile(updates, 90)), median_us(acts), wall))
    if len(results) == 2:
        ratio = median_us(results["torch"][1]) / median_us(
            results["capture"][1])
        rows.append("")
        rows.append("PyTorch time / captured time per update: %.2f "
                    "(%d updates of batch %d each)"
                    % (ratio, len(results["capture"][1]), MINIBATCH))
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
        for kind, (curve, _, _, _) in results.items():
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
