"""PyTorch modules into Capture training steps, through ``torch.fx``.

``import_module(model, loss_fn, example_inputs, ...)`` traces
``loss_fn(model, **inputs)`` with ``torch.fx`` and replays each graph node as
the op of Capture's tracer (the C++ one, bound), so the step is recorded,
compiled and replayed exactly like a step written with ``capture`` itself::

    import capture.fx
    def loss_fn(model, x, labels):
        return torch.nn.functional.cross_entropy(model(x), labels)
    step = capture.fx.import_module(
        net, loss_fn, {"x": x, "labels": labels},
        optimizer=torch.optim.AdamW(net.parameters(), lr=1e-3),
        max_grad_norm=1.0)
    out = step.step(x=x, labels=labels)     # {"loss": ..., "grad_norm": ...}
    logits = step.forward(x=x)["output"]    # model.forward, same weights
    step.load_into(net)                      # the trained values, back

The weights carry PyTorch's parameter names and current values. An op,
module or argument the importer does not translate is an ``Unsupported``
error naming it and the user's source line; nothing is ever approximated.
"""

import inspect
import os
import re

import numpy as np
import torch
import torch.fx

import capture
from capture._fx_ops import (_FUNCTIONS, _METHODS, Unsupported, _is_value,
                             _module_call, _no)

__all__ = ["import_module", "Imported", "Unsupported"]

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_CAPTURE_DIR = os.path.dirname(os.path.abspath(capture.__file__)) + os.sep
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _user_frame(node):
    """(file, line) of the user's code that made `node`: the innermost
    frame of its stack trace outside torch and capture."""
    for file, line in _FRAME.findall(node.stack_trace or ""):
        path = os.path.abspath(file)
        if not path.startswith(_TORCH_DIR) and \
                not path.startswith(_CAPTURE_DIR):
            return (file, int(line))
    return ("<torch.fx>", 0)


def _where(loc):
    return "%s:%d" % loc


def _name_of(target):
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", repr(target))
    if module in ("_operator", "operator"):
        return "operator." + name
    if module.startswith("torch"):
        return "%s.%s" % ("torch.nn.functional"
                          if module == "torch.nn.functional" else "torch",
                          name)
    return "%s.%s" % (module, name) if module else name


class _Ops:
    """The capture ops, each located at one node's user line."""

    def __init__(self, loc):
        self.loc = loc

    def __getattr__(self, name):
        op = getattr(capture, name)
        loc = self.loc
        return lambda *a, **k: op(*a, loc=loc, **k)


class _Graph:
    """A torch.fx graph replayed as Capture tracer ops."""

    def __init__(self, root, graph, prefix, weights, what):
        self.what = what
        self.root = root
        self.graph = graph
        self.prefix = prefix
        self.weights = weights
        self.inputs = [n.target for n in graph.nodes if n.op == "placeholder"]

    def _weight(self, qualified, loc):
        name = qualified[len(self.prefix):] \
            if qualified.startswith(self.prefix) else qualified
        if name not in self.weights:
            raise Unsupported(
                "'%s' is a tensor attribute that is not a parameter or "
                "float buffer of the model (a constant made inside "
                "forward?); make it a buffer or an input" % name)
        return self.weights[name]

    def run(self, inputs):
        missing = [n for n in self.inputs if n not in inputs]
        extra = [n for n in inputs if n not in self.inputs]
        if missing or extra:
            raise capture.Error("%s takes the inputs %s; missing %s, "
                                "unexpected %s"
                                % (self.what, self.inputs, missing, extra))
        env = {}

        def value(a):
            return torch.fx.node.map_arg(a, lambda n: env[n])

        for node in self.graph.nodes:
            loc = _user_frame(node)
            c = _Ops(loc)
            try:
                if node.op == "placeholder":
                    env[node] = inputs[node.target]
                elif node.op == "get_attr":
                    env[node] = self._weight(node.target, loc)
                elif node.op == "output":
                    return self._outputs(value(node.args[0]), loc)
                else:
                    env[node] = self._call(node, c, value(node.args),
                                           value(node.kwargs), loc)
            except Unsupported as e:
                raise Unsupported("%s: %s (node '%s')"
                                  % (_where(loc), e, node.name)) from None
            except (TypeError, ValueError, IndexError) as e:
                raise capture.Error("%s: %s: %s (node '%s')"
                                    % (_where(loc), _name_of(node.target),
                                       e, node.name)) from None
        raise capture.Error("the traced graph has no output")

    def _call(self, node, c, args, kwargs, loc):
        if node.op == "call_module":
            module = self.root.get_submodule(node.target)
            return _module_call(
                c, module,
                lambda p: self._weight(node.target + "." + p, loc),
                args, kwargs)
        if node.op == "call_method":
            fn = _METHODS.get(node.target)
            if fn is None:
                _no("the tensor method .%s()" % node.target)
            return fn(c, *args, **kwargs)
        fn = _FUNCTIONS.get(node.target)
        if fn is None:
            _no("the op %s" % _name_of(node.target),
                "see capture.fx's supported ops in docs/python.md")
        return fn(c, *args, **kwargs)

    @staticmethod
    def _outputs(result, loc):
        if _is_value(result):
            return {"output": result}
        if isinstance(result, dict):
            return dict(result)
        if isinstance(result, (tuple, list)):
            return {"output%d" % i: r for i, r in enumerate(result)}
        raise capture.Error("%s: the traced function returned %s; expected "
                            "a tensor, a tuple or a dict of tensors"
                            % (_where(loc), type(result).__name__))


def _trace(root, what):
    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    try:
        return tracer.trace(root)
    except Exception as e:  # fx's own errors: control flow on values, ...
        raise capture.Error("torch.fx could not trace %s: %s: %s"
                            % (what, type(e).__name__, e)) from None


def _loss_root(model, loss_fn, names):
    """An nn.Module whose forward(self, <names>) is loss_fn(model, ...), so
    that fx sees the model's submodules and parameters under 'model.'."""
    for n in names:
        if not n.isidentifier():
            raise capture.Error("loss_fn parameter %r is not an identifier"
                                % n)
    args = ", ".join(names)
    scope = {}
    exec("def forward(self, %s):\n    return self._loss_fn(self.model, %s)\n"
         % (args, args), scope)
    root = type("CaptureLoss", (torch.nn.Module,),
                {"forward": scope["forward"]})()
    root.model = model
    root._loss_fn = loss_fn
    return root


def _class_location(model):
    """(file, line) of the model's class, where its weights are declared."""
    try:
        _, line = inspect.getsourcelines(type(model))
        return (inspect.getsourcefile(type(model)), line)
    except (OSError, TypeError):
        return ("<%s>" % type(model).__name__, 0)


def _as_array(name, value, dtype=None):
    """A call's input as the numpy array the runtime takes: torch tensors
    are read as they are; int64 indices become int32 when every value fits,
    and are refused otherwise (never wrapped)."""
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    a = np.asarray(value)
    if a.dtype == np.int64:
        if a.size and (a.min() < np.iinfo(np.int32).min or
                       a.max() > np.iinfo(np.int32).max):
            raise capture.Error("input '%s': int64 values outside int32's "
                                "range; Capture's indices are int32" % name)
        a = a.astype(np.int32)
    if dtype is not None and a.dtype != dtype:
        raise capture.Error("input '%s': dtype %s, expected %s"
                            % (name, a.dtype, dtype))
    return a


def _adamw_settings(optimizer, params, lr, betas, eps, weight_decay):
    if optimizer is None:
        return lr, tuple(betas), eps, weight_decay
    if not isinstance(optimizer, torch.optim.AdamW):
        raise capture.Error("optimizer: expected torch.optim.AdamW, got %s"
                            % type(optimizer).__name__)
    if len(optimizer.param_groups) != 1:
        raise Unsupported("optimizer: %d parameter groups; Capture's step "
                          "has one AdamW over every trainable parameter"
                          % len(optimizer.param_groups))
    g = optimizer.param_groups[0]
    for key, default in (("amsgrad", False), ("maximize", False)):
        if g.get(key, default) != default:
            raise Unsupported("optimizer: AdamW with %s=%r" % (key, g[key]))
    ids = {id(p) for p in g["params"]}
    trainable = {id(p) for _, p in params if p.requires_grad}
    if ids != trainable:
        raise capture.Error("optimizer: its parameters are not the model's "
                            "trainable parameters (Capture trains every "
                            "parameter with requires_grad)")
    return float(g["lr"]), tuple(g["betas"]), float(g["eps"]), \
        float(g["weight_decay"])


class Imported:
    """A PyTorch model imported into Capture: a training step (when a loss
    was given) and the model's forward, over one set of weights."""

    def __init__(self, model, loss_fn, example_inputs, adamw, max_grad_norm,
                 device, target):
        self.names = [n for n, _ in model.named_parameters()]
        self.params = capture.Params(device)
        values, self._weights = {}, {}
        where = _class_location(model)
        tensors = [(n, p, p.requires_grad)
                   for n, p in model.named_parameters()]
        tensors += [(n, b, False) for n, b in model.named_buffers()
                    if b.dtype == torch.float32]
        for name, t, trainable in tensors:
            if t.dtype != torch.float32:
                raise Unsupported("parameter '%s' is %s; Capture trains "
                                  "float32 weights" % (name, t.dtype))
            self._weights[name] = self.params.weight(
                name, list(t.shape), trainable=trainable, loc=where)
            values[name] = t.detach().cpu().numpy()
        self.params.set_values(values)
        self._model = model
        self._target = target
        self._forward = None  # traced at the first forward()
        self._step = None
        if loss_fn is not None:
            names = list(inspect.signature(loss_fn).parameters)[1:]
            missing = [n for n in names if n not in example_inputs]
            extra = [n for n in example_inputs if n not in names]
            if missing or extra:
                raise capture.Error(
                    "example_inputs: loss_fn takes %s; missing %s, "
                    "unexpected %s" % (names, missing, extra))
            self.inputs = names
            root = _loss_root(model, loss_fn, names)
            graph = _Graph(root, _trace(root, "the loss"), "model.",
                           self._weights, "the loss")
            self._loss_graph = graph
            self._examples = {n: _as_array(n, example_inputs[n])
                              for n in names}
            lr, betas, eps, wd = adamw
            self._adamw = dict(lr=lr, betas=betas, eps=eps, weight_decay=wd,
                               max_grad_norm=max_grad_norm)
            self._step = capture.capture_step(
                self._loss_outputs, self.params, lr=lr, betas=betas, eps=eps,
                weight_decay=wd, max_grad_norm=max_grad_norm, target=target)

    def _loss_outputs(self, inputs):
        out = self._loss_graph.run(inputs)
        if "output" in out and len(out) == 1:
            return {"loss": out["output"]}
        if "loss" not in out:
            raise capture.Error("loss_fn returned %s; expected the loss, or "
                                "a dict with 'loss' first" % list(out))
        return dict([("loss", out["loss"])] +
                    [(k, v) for k, v in out.items() if k != "loss"])

    @staticmethod
    def _arrays(inputs, kwargs):
        all_ = dict(inputs or {})
        all_.update(kwargs)
        return {n: _as_array(n, v) for n, v in all_.items()}

    def step(self, inputs=None, **kwargs):
        """One training step on a batch (numpy arrays or torch tensors, by
        the loss function's parameter names): the forward and backward
        pass, the clipping and AdamW in one submission. Returns the outputs
        (loss, grad_norm and any others loss_fn returned) as numpy."""
        return self._require_step()(self._arrays(inputs, kwargs))

    def forward(self, inputs=None, **kwargs):
        """The model's forward on the current (trained) weights, recorded
        once per input shape."""
        return self._forward_callable()(self._arrays(inputs, kwargs))

    def _forward_callable(self):
        if self._forward is None:
            if type(self._model).forward is torch.nn.Module.forward:
                raise capture.Error("the model defines no forward()")
            self._forward_graph = _Graph(
                self._model, _trace(self._model, "the model's forward"), "",
                self._weights, "the model's forward")
            self._forward = capture.capture(self._forward_graph.run,
                                            self.params, target=self._target)
        return self._forward

    def set_learning_rate(self, lr):
        """The learning rate of the next steps (never re-records)."""
        self._step.set_learning_rate(lr)

    def set_max_grad_norm(self, max_grad_norm):
        """The clip limit of the next steps (never re-records)."""
        self._step.set_max_grad_norm(max_grad_norm)

    def train_state(self):
        """The step counter and the hyperparameters of the next step."""
        return self._step.train_state()

    def optimizer_state(self):
        """AdamW's state, bit for bit: {'m', 'v', 'step'}. With
        state_dict() (the weights), what resumes training exactly."""
        return self._require_step().optimizer_state()

    def restore(self, weights, optimizer_state):
        """Resumes from state_dict() and optimizer_state() saved earlier
        (here or in another process, for the same model and loss): the next
        steps continue bit for bit."""
        step = self._require_step()
        weights = {n: _as_array(n, v) for n, v in dict(weights).items()}
        # Checked before anything changes: the weights here against their
        # declarations (as set_values would), the moments by
        # restore_optimizer, which changes nothing on error; so set_values
        # cannot fail after it.
        for name, value in weights.items():
            if name not in self._weights:
                raise capture.Error("restore: unknown weight '%s'; the "
                                    "model's are %s"
                                    % (name, list(self._weights)))
            shape = list(self._weights[name].shape)
            if list(value.shape) != shape or value.dtype != np.float32:
                raise capture.Error(
                    "restore: weight '%s' is %s %s, expected float32 %s"
                    % (name, value.dtype, list(value.shape), shape))
        s = optimizer_state
        step.restore_optimizer(s["m"], s["v"], int(s["step"]))
        self.params.set_values(weights)

    def state_dict(self):
        """The current weights by PyTorch's names, as numpy arrays."""
        return self.params.values()

    def load_into(self, model):
        """Copies the current weights into `model`'s parameters."""
        values = self.params.values()
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(torch.from_numpy(values[name]))

    def to_mlir(self, forward_inputs=None):
        """The module as `.mlir` text for capture-aot: entry 'train' (at the
        example inputs' shapes) and, given {name: array}, 'forward'."""
        t = capture.Tracer(self.params)
        if self._step is not None:
            t.train_step("train", {n: (list(a.shape), a.dtype.name)
                                   for n, a in self._examples.items()},
                         self._loss_outputs, **self._adamw)
        if forward_inputs is not None:
            self._forward_callable()
            arrays = self._arrays(forward_inputs, {})
            t.forward("forward", {n: (list(a.shape), a.dtype.name)
                                  for n, a in arrays.items()},
                      self._forward_graph.run)
        return t.to_mlir()

    def census(self):
        """The training step's census: dispatches, barriers, kernels,
        buffer bytes (Module.census)."""
        return self._require_step().census()

    def profile(self, inputs=None, **kwargs):
        """One training step, profiled: the outputs and 'profile' (host
        stages and device times). It trains like step()."""
        return self._require_step().profile(self._arrays(inputs, kwargs))

    def _require_step(self):
        if self._step is None:
            raise capture.Error("no training step: import_module was given "
                                "no loss_fn")
        return self._step

    @property
    def why_recorded(self):
        """Why the last step traced again ('' when it replayed)."""
        return self._step.why_recorded if self._step else ""


def import_module(model, loss_fn=None, example_inputs=None, *,
                  optimizer=None, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                  weight_decay=0.01, max_grad_norm=None, device=None,
                  target="lavapipe"):
    """Imports `model` (a torch.nn.Module) and, given `loss_fn(model,
    **inputs)` with `example_inputs` {name: array} for its inputs, its
    training step: AdamW (from `optimizer`, a torch.optim.AdamW over the
    model's parameters, or lr/betas/eps/weight_decay) after
    clip_grad_norm_(max_grad_norm) when given. The weights start at the
    model's current values. Returns an Imported."""
    if not isinstance(model, torch.nn.Module):
        raise capture.Error("model: expected a torch.nn.Module, got %s"
                            % type(model).__name__)
    if loss_fn is not None and example_inputs is None:
        raise capture.Error("loss_fn given without example_inputs")
    params = list(model.named_parameters())
    adamw = _adamw_settings(optimizer, params, lr, betas, eps, weight_decay)
    return Imported(model, loss_fn, example_inputs or {}, adamw,
                    max_grad_norm, device, target)
