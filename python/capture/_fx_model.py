"""capture.fx's model and optimizer as import_module takes them: a module,
or several modules and tensors trained together, and the torch.optim
optimizer whose settings the step's AdamW takes."""

import inspect

import torch

import capture
from capture._fx_values import Unsupported


def _class_location(model):
    """(file, line) of the model's class, where its weights are declared."""
    try:
        _, line = inspect.getsourcelines(type(model))
        return (inspect.getsourcefile(type(model)), line)
    except (OSError, TypeError):
        return ("<%s>" % type(model).__name__, 0)


def _optimizer_settings(optimizer, params, lr, betas, eps, weight_decay):
    """(lr, betas, eps, weight_decay, decoupled, groups) of the step's
    optimizer, from `optimizer`: torch.optim.AdamW (decoupled weight decay)
    or torch.optim.Adam (its weight decay an L2 term added to the clipped
    gradient: decoupled=False, `#ag.adamw<..., decoupled = false>`). The
    values are its first param group's; `groups` are the others, as
    (ids of their parameters, lr, betas, eps, weight_decay)."""
    if optimizer is None:
        return lr, tuple(betas), eps, weight_decay, True, []
    kind = type(optimizer)
    if kind not in (torch.optim.AdamW, torch.optim.Adam):
        raise Unsupported("optimizer: %s is not supported; torch.optim.Adam "
                          "and AdamW are" % kind.__name__)
    for i, g in enumerate(optimizer.param_groups):
        for key, default in (("amsgrad", False), ("maximize", False),
                             ("capturable", False), ("differentiable", False)):
            if g.get(key, default) != default:
                raise Unsupported("optimizer: %s with %s=%r%s"
                                  % (kind.__name__, key, g[key],
                                     " (param group %d)" % i if i else ""))
    ids = [{id(p) for p in g["params"]} for g in optimizer.param_groups]
    trainable = {id(p) for _, p in params if p.requires_grad}
    if set().union(*ids) != trainable:
        raise capture.Error("optimizer: its parameters are not the model's "
                            "trainable parameters (Capture trains every "
                            "parameter with requires_grad)")
    # Adam without weight decay is AdamW's update: the AdamW kernel.
    decoupled = kind is torch.optim.AdamW or \
        all(g["weight_decay"] == 0 for g in optimizer.param_groups)

    def values(g):
        return float(g["lr"]), tuple(g["betas"]), float(g["eps"]), \
            float(g["weight_decay"])
    groups = [(i,) + values(g)
              for i, g in zip(ids[1:], optimizer.param_groups[1:])]
    return values(optimizer.param_groups[0]) + (decoupled, groups)


def current_lrs(opt, adamw):
    """The learning rates of `opt`'s param groups now, first group first,
    after checking that nothing else of them changed since the import made
    `adamw` (the step's settings, its param_groups the groups after the
    first): only lr follows the optimizer."""
    imported = [adamw] + (adamw["param_groups"] or [])
    if len(opt.param_groups) != len(imported):
        raise capture.Error(
            "optimizer: it now has %d parameter groups, %d when imported; "
            "import again" % (len(opt.param_groups), len(imported)))
    for i, (g, then) in enumerate(zip(opt.param_groups, imported)):
        for key, now in (("betas", tuple(g["betas"])), ("eps", g["eps"]),
                         ("weight_decay", g["weight_decay"])):
            if now != then[key]:
                raise capture.Error(
                    "optimizer: %s%s changed from %r to %r after import; "
                    "only lr follows the optimizer (import again)"
                    % (key, " of param group %d" % i if i else "",
                       then[key], now))
    return [float(g["lr"]) for g in opt.param_groups]


class _Models(torch.nn.Module):
    """Several modules and tensors trained as one model (SAC's two critics
    under one optimizer, its log_alpha): their own objects, under the
    names the user gave them, so the weights are named 'qf1.fc1.weight',
    'log_alpha' and a loss that reads them from its globals reads what the
    import swaps."""

    def __init__(self, parts):
        super().__init__()
        for key, part in parts:
            if isinstance(part, torch.nn.Module):
                self.add_module(key, part)
            else:  # a leaf tensor, kept as the user's object
                self._parameters[key] = part


def _as_model(model):
    """(nn.Module, what loss_fn is given) of import_module's `model`: a
    module, or a dict (or list) of modules and leaf tensors."""
    if isinstance(model, torch.nn.Module):
        return model, model
    if isinstance(model, dict):
        parts = list(model.items())
    elif isinstance(model, (list, tuple)):
        parts = [(str(i), m) for i, m in enumerate(model)]
    else:
        raise capture.Error("model: expected a torch.nn.Module, or a dict "
                            "or list of modules and tensors, got %s"
                            % type(model).__name__)
    if not parts:
        raise capture.Error("model: the %s is empty" % type(model).__name__)
    seen = {}
    for key, part in parts:
        if isinstance(model, dict) and (not isinstance(key, str) or
                                        not key.isidentifier()):
            raise capture.Error("model: the names are identifiers ('qf1'), "
                                "got %r" % (key,))
        if isinstance(part, torch.Tensor):
            if not part.is_leaf or part.dtype != torch.float32:
                raise capture.Error(
                    "model['%s']: a tensor to train must be a float32 leaf "
                    "(torch.zeros(1, requires_grad=True)), got %s%s"
                    % (key, part.dtype, "" if part.is_leaf else
                       ", computed from other tensors"))
        elif not isinstance(part, torch.nn.Module):
            raise capture.Error("model['%s']: expected a torch.nn.Module or "
                                "a tensor, got %s"
                                % (key, type(part).__name__))
        if id(part) in seen:
            raise capture.Error("model: '%s' and '%s' are the same object"
                                % (seen[id(part)], key))
        seen[id(part)] = key
    return _Models(parts), model
