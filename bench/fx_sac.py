#!/usr/bin/python3
"""SAC's whole update as single-file agents write it (MuJoCo sizes: 17
observations, 6 actions, 256 hidden units, batch 256): the critics' step
(two Q networks under one Adam, a no_grad target from the actor and two
target networks), the actor's and the temperature's steps, the soft update
of both targets through .data, and alpha = log_alpha.exp().item(). Each
loss is imported with capture.fx on its own (one import per optimizer,
docs/python.md) and stepped from Python, against the same update in
PyTorch on one thread, in one process; rounds alternate so that machine
noise hits both alike, and the figures are the medians over the rounds of
each round's per-update median.

Three captured forms: "apart", each import holding the weights it reads
(the critics trained by one are downloaded and uploaded into the actor's,
the actor's into the critics', and the soft update runs in PyTorch on
values read back); "shared", the imports over one set of weights
(share=), their steps deferred into one submission, the soft update still
in PyTorch; "device", shared and the soft update imported with
capture.fx.import_update: the whole update is one submission (deferred
calls, runtime deferred.h) and no weight crosses to the host; "at once",
the same with capture.fx.DEFER_CALLS = False (a submission per call, as
before deferral), which shows what the deferral saves.

usage: PYTHONPATH=build/python bench/fx_sac.py [--batch 256] [--hidden 256]
           [--updates 50] [--rounds 5] [--json FILE]
"""
import argparse
import copy
import json
import statistics

import torch
import torch.nn as nn
import torch.nn.functional as F

import capture.fx
from fx_rl import timed  # bench/: the median of n calls, in us
import torch_timing  # noqa: E402

OBS, ACT = 17, 6
LOG_STD_MAX, LOG_STD_MIN = 2, -5


class SoftQNetwork(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(OBS + ACT, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x, a):
        x = torch.cat([x, a], 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class Actor(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(OBS, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc_mean = nn.Linear(hidden, ACT)
        self.fc_logstd = nn.Linear(hidden, ACT)
        self.register_buffer("action_scale", torch.ones(ACT))
        self.register_buffer("action_bias", torch.zeros(ACT))

    def forward(self, x):
        x = F.relu(self.fc2(F.relu(self.fc1(x))))
        log_std = torch.tanh(self.fc_logstd(x))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (
            log_std + 1)
        return self.fc_mean(x), log_std

    def get_action(self, x):
        mean, log_std = self(x)
        normal = torch.distributions.Normal(mean, log_std.exp())
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        action = y_t * self.action_scale + self.action_bias
        log_prob = normal.log_prob(x_t)
        log_prob -= torch.log(self.action_scale * (1 - y_t.pow(2)) + 1e-6)
        return action, log_prob.sum(1, keepdim=True)


class SAC:
    """The networks, optimizers and losses of one agent."""

    def __init__(self, hidden, seed):
        torch.manual_seed(seed)
        self.actor = Actor(hidden)
        self.qf1, self.qf2 = SoftQNetwork(hidden), SoftQNetwork(hidden)
        self.qf1_target = copy.deepcopy(self.qf1)
        self.qf2_target = copy.deepcopy(self.qf2)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp().item()
        self.q_optimizer = torch.optim.Adam(
            list(self.qf1.parameters()) + list(self.qf2.parameters()),
            lr=1e-3)
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(),
                                                lr=3e-4)
        self.a_optimizer = torch.optim.Adam([self.log_alpha], lr=1e-3)
        agent = self

        def critic_loss(critics, observations, actions, next_observations,
                        rewards, dones, gamma=0.99):
            with torch.no_grad():
                next_actions, next_log_pi = agent.actor.get_action(
                    next_observations)
                min_next = torch.min(
                    agent.qf1_target(next_observations, next_actions),
                    agent.qf2_target(next_observations, next_actions)) - \
                    alpha * next_log_pi
                next_q = rewards.flatten() + (1 - dones.flatten()) * gamma * \
                    min_next.view(-1)
            qf1_loss = F.mse_loss(agent.qf1(observations, actions).view(-1),
                                  next_q)
            qf2_loss = F.mse_loss(agent.qf2(observations, actions).view(-1),
                                  next_q)
            return qf1_loss + qf2_loss

        def actor_loss(actor, observations):
            pi, log_pi = actor.get_action(observations)
            min_q = torch.min(agent.qf1(observations, pi),
                              agent.qf2(observations, pi))
            return ((alpha * log_pi) - min_q).mean()

        def alpha_loss(log_alpha, observations):
            with torch.no_grad():
                _, log_pi = agent.actor.get_action(observations)
            return (-agent.log_alpha.exp() * (log_pi - ACT)).mean()

        alpha = self.alpha  # read by the losses from their closure

        def read_alpha():
            nonlocal alpha
            alpha = self.alpha = self.log_alpha.exp().item()

        self.losses = (critic_loss, actor_loss, alpha_loss)
        self.read_alpha = read_alpha

    def soft_update(self, tau=0.005):
        for net, target in ((self.qf1, self.qf1_target),
                            (self.qf2, self.qf2_target)):
            for p, tp in zip(net.parameters(), target.parameters()):
                tp.data.copy_(tau * p.data + (1 - tau) * tp.data)


def replay_batch(n, seed):
    g = torch.Generator().manual_seed(seed)
    return {"observations": torch.randn(n, OBS, generator=g),
            "actions": torch.rand(n, ACT, generator=g) * 2 - 1,
            "next_observations": torch.randn(n, OBS, generator=g),
            "rewards": torch.randn(n, generator=g),
            "dones": (torch.rand(n, generator=g) < 0.05).float()}


def torch_update(agent, batch, obs):
    critic_loss, actor_loss, alpha_loss = agent.losses
    for loss_fn, model, opt, inputs in (
            (critic_loss, None, agent.q_optimizer, batch),
            (actor_loss, agent.actor, agent.actor_optimizer, obs),
            (alpha_loss, None, agent.a_optimizer, obs)):
        loss = loss_fn(model, **inputs)
        opt.zero_grad()
        loss.backward()
        opt.step()
    agent.read_alpha()
    agent.soft_update()


def captured(agent, batch, obs, shared, on_device=False, defer=True):
    critic_loss, actor_loss, alpha_loss = agent.losses
    critic = capture.fx.import_module(
        {"qf1": agent.qf1, "qf2": agent.qf2}, critic_loss, batch,
        optimizer=agent.q_optimizer,
        frozen={"actor": agent.actor, "qf1_target": agent.qf1_target,
                "qf2_target": agent.qf2_target})
    share = critic if shared else None
    policy = capture.fx.import_module(
        agent.actor, actor_loss, obs, optimizer=agent.actor_optimizer,
        frozen={"qf1": agent.qf1, "qf2": agent.qf2}, share=share)
    temperature = capture.fx.import_module(
        {"log_alpha": agent.log_alpha}, alpha_loss, obs,
        optimizer=agent.a_optimizer, frozen={"actor": agent.actor},
        share=share)

    # The soft update as written, replayed on the device (import_update).
    soft_update = capture.fx.import_update(agent.soft_update, share=critic) \
        if on_device else agent.soft_update

    def update():
        capture.fx.DEFER_CALLS = defer
        critic.step(batch)
        policy.step(obs)
        temperature.step(obs)
        agent.read_alpha()
        soft_update()
        capture.fx.DEFER_CALLS = True
    return update


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--updates", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    torch_timing.set_threads(1)  # its BLAS too
    batch = replay_batch(args.batch, 1)
    obs = {"observations": batch["observations"]}
    theirs = SAC(args.hidden, 0)
    updates = {"apart": captured(SAC(args.hidden, 0), batch, obs, False),
               "shared": captured(SAC(args.hidden, 0), batch, obs, True),
               "device": captured(SAC(args.hidden, 0), batch, obs, True,
                                  on_device=True),
               "at once": captured(SAC(args.hidden, 0), batch, obs, True,
                                   on_device=True, defer=False)}
    for update in updates.values():
        update()  # the first calls record
    torch_update(theirs, batch, obs)
    times = {name: [] for name in list(updates) + ["torch"]}
    for _ in range(args.rounds):
        for name, update in updates.items():
            times[name].append(timed(update, args.updates))
        times["torch"].append(timed(lambda: torch_update(theirs, batch, obs),
                                    args.updates))
    us = {name: statistics.median(t) for name, t in times.items()}
    print("SAC update, batch %d, hidden %d, PyTorch on 1 thread, %d rounds "
          "of %d updates" % (args.batch, args.hidden, args.rounds,
                             args.updates))
    for name, what in (("apart", "3 imports, each its own weights"),
                       ("shared", "3 imports, share= one set of weights"),
                       ("device", "share=, soft update by import_update"),
                       ("at once", "the same, DEFER_CALLS = False")):
        print("  capture.fx (%s): %8.0f us/update, PyTorch / captured "
              "%.2fx" % (what, us[name], us["torch"] / us[name]))
    print("  PyTorch: %8.0f us/update" % us["torch"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"batch": args.batch, "hidden": args.hidden,
                       "us": us}, f, indent=1)


if __name__ == "__main__":
    main()
