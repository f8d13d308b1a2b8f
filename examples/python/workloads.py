"""The benchmark workloads as ordinary PyTorch modules (the shapes and the
math of bench/ppo_torch.py and bench/mlp_torch.py), with their losses as
plain functions: what capture.fx.import_module takes."""
import torch
import torch.nn.functional as F

LOG_SQRT_2PI = 0.9189385
ENTROPY_CONST = 1.4189385  # 0.5 + log(sqrt(2 pi))


class ActorCritic(torch.nn.Module):
    """PPO's actor-critic: tanh MLPs for the Gaussian policy's mean and for
    the value, and a trainable log_std."""

    def __init__(self, obs=64, hidden=64, actions=8):
        super().__init__()

        def net(out):
            return torch.nn.Sequential(
                torch.nn.Linear(obs, hidden), torch.nn.Tanh(),
                torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                torch.nn.Linear(hidden, out))

        self.actor = net(actions)
        self.critic = net(1)
        self.log_std = torch.nn.Parameter(torch.zeros(actions))

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(1)


def ppo_loss(model, obs, act, adv, ret, old_logp):
    """The clipped surrogate, the value loss and the entropy bonus."""
    mu, value = model(obs)
    z = (act - mu) / model.log_std.exp()
    logp = (-0.5 * z * z - model.log_std - LOG_SQRT_2PI).sum(dim=1)
    ratio = torch.exp(logp - old_logp)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
    policy = -surrogate.mean()
    value_loss = 0.5 * ((value - ret) ** 2).mean()
    entropy = (model.log_std + ENTROPY_CONST).sum()
    return policy + 0.5 * value_loss - 0.01 * entropy


def mlp(inputs=784, hidden=256, classes=10):
    """The classifier: inputs-hidden-hidden-classes with ReLU."""
    return torch.nn.Sequential(
        torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, classes))


def mlp_loss(model, x, labels):
    """Softmax cross-entropy with integer labels."""
    return F.cross_entropy(model(x), labels)
