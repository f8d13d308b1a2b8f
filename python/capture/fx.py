"""PyTorch modules into Capture training steps, through ``make_fx``.

``import_module(model, loss_fn, example_inputs, ...)`` traces
``loss_fn(model, **inputs)`` with ``torch.fx``'s ``make_fx`` (ATen ops at the
example's shapes, through ``torch.distributions``, tuple unpacking, ``len``
and shape asserts) with the weights as the graph's inputs, and replays each
node as the op of Capture's tracer (the C++ one, bound), so the step is
recorded, compiled and replayed exactly like a step written with
``capture`` itself. Each node keeps its user line and whether autograd
would carry a gradient through it, so ``detach()`` and ``torch.no_grad()``
stop the gradient exactly as in PyTorch::

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

import contextlib
import inspect

import numpy as np
import torch
from torch.nn.utils.stateless import _reparametrize_module

import capture
from capture._fx_graph import _Graph, _trace
from capture._fx_inputs import (_Shaped, _Signature, _as_array, _describe,
                                _loss_outputs, _shape_key, _suggest)
from capture._fx_model import (_Models, _as_model, _class_location,
                               _optimizer_settings, current_lrs)
from capture._fx_values import Unsupported
from capture._fx_free import FreeNumbers
from capture._fx_constants import Constants
from capture._fx_space import Outputs, Space
from capture._fx_sync import ModuleSync
from capture._fx_update import Update

__all__ = ["import_module", "import_update", "Imported", "Outputs",
           "Unsupported", "MAX_SHAPES", "DEFER_CALLS"]

# How many input shapes a step records (a short last minibatch, another
# rollout size): each is its own recording over the shared weights.
MAX_SHAPES = 4

# Whether the steps and updates of imports that share weights are deferred
# into one submission (_fx_space, docs/python.md); False runs each call at
# once, so that a refused step raises at its own call.
DEFER_CALLS = True


class Imported:
    """A PyTorch model imported into Capture: a training step (when a loss
    was given) and the model's forward, over one set of weights."""

    def __init__(self, model, given, loss_fn, example_inputs, optimizer,
                 adamw, max_grad_norm, device, target, frozen, share):
        self._given = given  # what loss_fn is given: the user's model
        self.names = [n for n, _ in model.named_parameters()]
        # The weights, alone or shared with the other imports of an update.
        space = share._space if share is not None else Space(device)
        self._space = space
        self.params = space.params
        self._weights = space.weights  # name -> capture.Weight
        self._trains = []  # the weights this import's optimizer trains
        self._where = _class_location(model)
        tensors = [(n, p, p.requires_grad)
                   for n, p in model.named_parameters()]
        tensors += [(n, b, False) for n, b in model.named_buffers()
                    if b.dtype == torch.float32]
        for name, t, _ in tensors:
            if t.dtype != torch.float32:
                raise Unsupported("parameter '%s' is %s; Capture trains "
                                  "float32 weights" % (name, t.dtype))
        self._requires_grad = {n: r for n, _, r in tensors}
        self._bare = isinstance(model, _Models) and \
            len(dict.keys(model._parameters)) > 0
        # Each tensor's weight name: its own, or the name an import it
        # shares the weights with gave it first.
        self._key = {n: space.name_for(t, n) for n, t, _ in tensors}
        self._sync = ModuleSync(model, self.params,
                                [n for n, _, _ in tensors], keys=self._key)
        # Modules the loss reads and this step never trains (a target
        # network, the critics of an actor's loss): read-only weights named
        # '<key>.<name>', compared by value at every step.
        self._frozen, self._frozen_ids = [], {}
        # The model's tensors by id: a loss may read one directly (a
        # log_alpha from its globals) rather than through the model.
        self._own_ids = {id(t): self._key[n]
                         for n, t in self._sync.tensors.items()}
        own = self._own_ids
        for key, module in frozen.items():
            names = [n for n, _ in module.named_parameters()] + \
                [n for n, b in module.named_buffers()
                 if b.dtype == torch.float32]
            held = dict(module.named_parameters())
            held.update(module.named_buffers())
            keys = {n: space.name_for(held[n], key + "." + n) for n in names}
            sync = ModuleSync(module, self.params, names, key + ".",
                              frozen=True, keys=keys)
            self._frozen.append(sync)
            for n, t in sync.tensors.items():
                if id(t) in self._frozen_ids or id(t) in own:
                    raise capture.Error(
                        "frozen: '%s.%s' is also the model's or another "
                        "frozen module's tensor" % (key, n))
                self._frozen_ids[id(t)] = keys[n]
        # The tensors the traces hold as constants, as read-only weights.
        self._constants = Constants(space, self._frozen_ids, self._own_ids,
                                    self._where)
        space.join(self)
        self._model = model
        self._optimizer = optimizer
        self._target = target
        self._forwards = {}  # input shapes -> the forward, traced
        self._steps = {}  # input shapes -> _Shaped
        self._first = self._active = None
        self._why = ""
        if loss_fn is not None:
            self._import_loss(loss_fn, example_inputs, adamw, max_grad_norm)
        # Else the weights are declared after the first forward's trace,
        # with its constants (an argmax's positions).

    def _declared(self):
        """The weights, declared (a forward-only import declares them at
        its first forward, or when they are first read)."""
        if self._constants.pending is not None:
            self._declare(None)

    def _declare(self, reached):
        """Declares the weights: the module's (trainable where they require
        grad and, given `reached`, the loss reaches them: PyTorch's
        optimizer skips a parameter left without a gradient, so Capture
        must not train, decay or count it), then the constants. In a
        shared space the weights declared already stay, and one this loss
        trains becomes trainable."""
        space, values = self._space, {}
        for name, t in self._sync.tensors.items():
            key = self._key[name]
            trainable = self._requires_grad[name] and (
                reached is None or key in reached)
            if trainable:
                self._trains.append(key)
            value = space.declare(key, t, trainable, self._where)
            if value is not None:
                values[key] = value
        pending = list(self._constants.pending)
        for sync in self._frozen:
            pending += [(sync.keys[n], t) for n, t in sync.tensors.items()]
        for name, t in pending:
            value = space.declare(name, t, False, self._where)
            if value is not None:
                values[name] = value
        self._constants.pending = None
        if values:
            self.params.set_values(values)

    def _import_loss(self, loss_fn, example_inputs, adamw, max_grad_norm):
        sig = inspect.signature(loss_fn)
        names = list(sig.parameters)[1:]
        required = [n for n in names
                    if sig.parameters[n].default is inspect.Parameter.empty]
        for n in example_inputs:
            if n not in names:
                raise capture.Error("example_inputs: loss_fn has no parameter "
                                    "'%s'%s; it takes %s"
                                    % (n, _suggest(n, names), names))
        missing = [n for n in required if n not in example_inputs]
        if missing:
            raise capture.Error("example_inputs: loss_fn takes %s; missing %s"
                                " (parameters with defaults are constants "
                                "unless given)" % (names, missing))
        self.inputs = [n for n in names if n in example_inputs]
        self._loss_fn = loss_fn
        self._free = FreeNumbers(loss_fn)
        arrays = {n: _as_array(n, example_inputs[n]) for n in self.inputs}
        self._examples = arrays
        lr, betas, eps, wd, decoupled, groups = adamw
        # The optimizer's param groups after the first, by weight name.
        own = self._own_ids
        param_groups = [dict(weights=sorted(own[i] for i in ids), lr=g_lr,
                             betas=g_betas, eps=g_eps, weight_decay=g_wd)
                        for ids, g_lr, g_betas, g_eps, g_wd in groups]
        self._adamw = dict(lr=lr, betas=betas, eps=eps, weight_decay=wd,
                           decoupled_weight_decay=decoupled,
                           max_grad_norm=max_grad_norm,
                           param_groups=param_groups or None)
        self._lr = lr
        self._group_lrs = [g["lr"] for g in param_groups]
        self._group_index = {}  # optimizer group i -> the step's (_step_groups)
        self._first = self._shaped(arrays)
        self._steps[_shape_key(arrays)] = self._first
        self._active = self._first

    def _shaped(self, arrays):
        """The step at these inputs' shapes, traced and (at its first call)
        recorded. Every translation runs once here, so that what the
        importer cannot take is refused now, not at the first step."""
        signature = self._loss_graph(arrays)
        graph = signature.graph
        if self._constants.pending is not None:
            self._declare(graph.reached("loss"))

        def outputs(inputs):
            return _loss_outputs(graph.run(signature.wrap(inputs)))

        t = capture.Tracer(self.params)
        groups = self._step_groups()
        t.train_step("check", {n: (list(a.shape), a.dtype.name)
                               for n, a in signature.runtime(
                                   arrays, draw=False).items()},
                     outputs, **dict(self._adamw, param_groups=groups))
        a = self._adamw
        step = capture.capture_step(
            outputs, self.params, lr=self._lr, betas=a["betas"],
            eps=a["eps"], weight_decay=a["weight_decay"],
            decoupled_weight_decay=a["decoupled_weight_decay"],
            max_grad_norm=a["max_grad_norm"], target=self._target,
            trains=self._trains, param_groups=groups)
        return _Shaped(signature, outputs, step)

    def _step_groups(self):
        """The optimizer's param groups after the first as the step's, at
        their current lr: each with the weights the step trains (PyTorch
        skips a parameter the loss does not reach; a group left with none
        is no group of the step, and `_group_index` maps the optimizer's
        group numbers to the step's)."""
        groups, self._group_index = [], {}
        for i, (g, lr) in enumerate(zip(self._adamw["param_groups"] or [],
                                        self._group_lrs), 1):
            weights = [w for w in g["weights"] if w in self._trains]
            if weights:
                groups.append(dict(g, weights=weights, lr=lr))
                self._group_index[i] = len(groups)
        return groups or None

    def _loss_graph(self, arrays):
        """The loss's signature (its graph as `.graph`): the floats it reads
        from its globals are inputs (_fx_free), or, where a tensor cannot
        stand for one (math.exp(alpha)), constants that must not change."""
        error = None
        for lift in (True, False):
            signature = _Signature("step", arrays)
            signature.free = self._free
            signature.lifted = self._free.start(lift)
            try:
                signature.graph = self._graph(
                    lambda model, **ins: self._loss_fn(model, **ins),
                    signature, arrays, "the loss")
                return signature
            except (capture.Error, Unsupported) as e:
                error = error or e
                if not signature.lifted:
                    break
        raise error

    def _graph(self, fn, signature, arrays, what):
        """`fn(model, **inputs)` traced with the weights as placeholders."""
        model, held, given = self._model, self._sync.tensors, self._given
        weights = list(held)
        k = len(weights)
        inputs = list(signature.specs)
        j = k + len(inputs)
        free = signature.free

        def call(*args):
            lifted = free.swapped(dict(zip(signature.lifted, args[j:]))) \
                if free else contextlib.nullcontext()
            with _reparametrize_module(model, dict(zip(weights, args[:k]))), \
                    lifted:
                return fn(given, **dict(zip(inputs, args[k:j])))

        # The example's weights are copies: tracing reads only their shapes
        # (and must not sync the module, whose dicts hold the trace's).
        examples = [held[n].detach().clone().requires_grad_(
            self._requires_grad[n]) for n in weights] + \
            signature.tensors(arrays)
        with self._sync.quiet():
            gm = _trace(call, examples, what)
        aranges = self._constants.collect(gm)
        own = set(self._key.values())
        space = self._space
        graph = _Graph(gm, [self._key[n] for n in weights],
                       inputs + signature.lifted,
                       {self._key[n]: r
                        for n, r in self._requires_grad.items()},
                       self._weights, self._constants.names,
                       self._constants.scalars, aranges, what,
                       foreign=lambda name: name in space.trainable and
                       name not in own)
        graph.check()
        signature.cast(set(graph.casts.values()))
        signature.draws = list(graph.noise.values())
        return graph

    @staticmethod
    def _arrays(inputs, kwargs):
        all_ = dict(inputs or {})
        all_.update(kwargs)
        return {n: _as_array(n, v) for n, v in all_.items()}

    def step(self, inputs=None, **kwargs):
        """One training step on a batch (numpy arrays or torch tensors, by
        the loss function's parameter names): the forward and backward
        pass, the clipping and the optimizer's update in one submission.
        Returns the outputs (loss, grad_norm and any others loss_fn
        returned) as numpy. The optimizer's learning rate is read at every
        step (an lr schedule or param_groups[0]["lr"] = ... takes effect)."""
        self._require_step()
        arrays = self._arrays(inputs, kwargs)
        self._first.signature.check_names(arrays)
        self._free.check("step")
        self._before("step")
        shaped = self._for_shapes(arrays)
        arrays = shaped.signature.runtime(arrays)
        self._follow_optimizer()
        out = self._space.call(
            "the step of %s" % getattr(self._loss_fn, "__name__", "the loss"),
            shaped.step, arrays)
        self._trained()
        self._space.collect()  # a bare tensor's read submitted the calls
        return out

    def _trained(self):
        """After a step: the model is behind the device. A tensor given in
        the model's dict (log_alpha) is read by the user directly, not
        through a module that could sync it on reading: it is written back
        now."""
        self._space.stepped = True
        self._sync.trained()
        if self._bare:
            self._sync.read()

    def _for_shapes(self, arrays):
        """The step recorded at these shapes, made the active one: the
        optimizer state (moments and t) moves to it from the one before,
        on the device once both are recorded; the weights are shared
        already."""
        key = _shape_key(arrays)
        shaped = self._steps.get(key)
        if shaped is None:
            if len(self._steps) >= MAX_SHAPES:
                raise capture.Error(
                    "step: input shapes %s would be the step's %dth "
                    "recording; the limit is %d (capture.fx.MAX_SHAPES): "
                    "pad the batch to a recorded shape"
                    % (_describe(arrays), len(self._steps) + 1, MAX_SHAPES))
            shaped = self._shaped(arrays)
            self._steps[key] = shaped
            self._why = "new input shapes %s; recorded: %s" % (
                _describe(arrays), "; ".join(
                    _describe(s.signature.specs) for s in self._steps.values()
                    if s is not shaped))
        if shaped is not self._active:
            old = self._active.step
            shaped.step.take_optimizer_from(old)
            shaped.step.set_learning_rate(self._lr)
            for i, j in self._group_index.items():
                shaped.step.set_learning_rate(self._group_lrs[i - 1], group=j)
            limit = old.train_state()["max_grad_norm"]
            if limit is not None:  # None: imported without clipping
                shaped.step.set_max_grad_norm(limit)
            self._active = shaped
        return shaped

    def _before(self, what):
        """The user's changes to the model and the frozen modules, before a
        step or forward (the sync rule); in a shared space, to every
        import's model (what this step reads of them)."""
        for imp in self._space.imports:
            imp._sync.before(what)
        for sync in self._frozen:
            if not sync.follower:
                sync.before(what)

    def _follow_optimizer(self):
        if self._optimizer is None:
            return
        lrs = current_lrs(self._optimizer, self._adamw)
        if lrs[0] != self._lr:
            self.set_learning_rate(lrs[0])
        for i, lr in enumerate(lrs[1:], 1):
            if lr != self._group_lrs[i - 1]:
                self._group_lrs[i - 1] = lr
                if i in self._group_index:  # else it trains nothing here
                    self._active.step.set_learning_rate(
                        lr, group=self._group_index[i])

    def forward(self, inputs=None, **kwargs):
        """The model's forward on the current (trained) weights, traced and
        recorded once per input shape."""
        arrays = self._arrays(inputs, kwargs)
        self._space.collect()
        self._before("forward")
        signature, _, forward = self._forward_for(arrays)
        out = forward(signature.runtime(arrays))
        self._space.collect()  # the deferred calls went first
        return out

    def _forward_for(self, arrays):
        """(signature, graph, captured) of the forward at these shapes: one
        capture each (int inputs are flattened, so shapes are told apart
        here, not by the capture's own signature)."""
        key = _shape_key(arrays)
        if key not in self._forwards:
            signature, graph = self._import_forward(arrays)
            self._declared()
            forward = capture.capture(
                lambda inputs: graph.run(signature.wrap(inputs)),
                self.params, target=self._target)
            self._forwards[key] = (signature, graph, forward)
        return self._forwards[key]

    def _import_forward(self, arrays):
        if type(self._model).forward is torch.nn.Module.forward:
            raise capture.Error("the model defines no forward()")
        params = inspect.signature(self._model.forward).parameters
        names = [n for n, p in params.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for n in arrays:
            if n not in names:
                raise capture.Error("the model's forward takes %s; "
                                    "unexpected input '%s'%s"
                                    % (names, n, _suggest(n, names)))
        names = [n for n in names if n in arrays]
        signature = _Signature("forward", {n: arrays[n] for n in names})
        graph = self._graph(lambda model, **ins: model(**ins), signature,
                            arrays, "the model's forward")
        return signature, graph

    def set_learning_rate(self, lr):
        """The learning rate of the next steps (never re-records)."""
        self._require_step().set_learning_rate(lr)
        self._lr = lr

    def set_max_grad_norm(self, max_grad_norm):
        """The clip limit of the next steps (never re-records)."""
        self._require_step().set_max_grad_norm(max_grad_norm)

    def train_state(self):
        """The step counter and the hyperparameters of the next step."""
        return self._require_step().train_state()

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
        self._trained()

    def state_dict(self):
        """The current weights by PyTorch's names, as numpy arrays (the
        user's changes to the model and frozen modules first)."""
        self._declared()
        self._before("state_dict")
        return self.params.values()

    def load_into(self, model):
        """Copies the current weights into `model`'s parameters."""
        values = self.params.values()
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(torch.from_numpy(values[self._key.get(name, name)]))

    def to_mlir(self, forward_inputs=None):
        """The module as `.mlir` text for capture-aot: entry 'train' (at the
        example inputs' shapes) and, given {name: array}, 'forward'."""
        self._before("to_mlir")
        t = capture.Tracer(self.params)
        if self._first is not None:
            first = self._first
            adamw = dict(self._adamw, param_groups=self._step_groups())
            t.train_step("train", {n: (list(a.shape), a.dtype.name)
                                   for n, a in first.signature.runtime(
                                       self._examples, draw=False).items()},
                         first.outputs, **adamw)
        if forward_inputs is not None:
            arrays = self._arrays(forward_inputs, {})
            signature, graph, _ = self._forward_for(arrays)
            runtime = signature.runtime(arrays, draw=False)
            t.forward("forward", {n: (list(a.shape), a.dtype.name)
                                  for n, a in runtime.items()},
                      lambda inputs: graph.run(signature.wrap(inputs)))
        return t.to_mlir()

    def census(self):
        """The training step's census: dispatches, barriers, kernels,
        buffer bytes (Module.census)."""
        return self._require_step().census()

    def profile(self, inputs=None, **kwargs):
        """One training step, profiled: the outputs and 'profile' (host
        stages and device times). It trains like step()."""
        self._require_step()
        arrays = self._arrays(inputs, kwargs)
        self._first.signature.check_names(arrays)
        self._free.check("step")
        self._before("step")
        shaped = self._for_shapes(arrays)
        self._follow_optimizer()
        out = shaped.step.profile(shaped.signature.runtime(arrays))
        self._trained()
        return out

    def _require_step(self):
        """The step that holds the optimizer state now."""
        if self._active is None:
            raise capture.Error("no training step: import_module was given "
                                "no loss_fn")
        return self._active.step

    @property
    def why_recorded(self):
        """Why the last step traced again ('' when it replayed): its first
        recording, or new input shapes (with the shapes recorded before)."""
        if self._active is None:
            return ""
        why = self._active.step.why_recorded
        if why and self._why:
            why = self._why
        self._why = ""
        return why


def import_module(model, loss_fn=None, example_inputs=None, *,
                  optimizer=None, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                  weight_decay=0.01, max_grad_norm=None, device=None,
                  target=capture.DEFAULT_TARGET, frozen=None, share=None):
    """Imports `model` (a torch.nn.Module, or a dict or list of modules and
    leaf tensors trained together) and, given `loss_fn(model,
    **inputs)` with `example_inputs` {name: array} for its inputs, its
    training step: AdamW (from `optimizer`, a torch.optim.AdamW over the
    model's parameters, or lr/betas/eps/weight_decay) after
    clip_grad_norm_(max_grad_norm) when given. The weights start at the
    model's current values. `frozen` ({name: module}) are the other modules
    the loss reads and this step does not train (a target network): their
    tensors are read-only weights, uploaded again whenever the user changes
    them (a soft update through .data too). `share` (an Imported) makes
    this import hold its weights with that one's (on its device), for the
    losses of one update (SAC's critics, actor and temperature): a module
    one trains and the other reads is then one set of weights on the
    device, with no copy between them. Returns an Imported."""
    model, given = _as_model(model)
    if loss_fn is not None and example_inputs is None:
        raise capture.Error("loss_fn given without example_inputs")
    params = list(model.named_parameters())
    adamw = _optimizer_settings(optimizer, params, lr, betas, eps,
                                weight_decay)
    frozen = dict(frozen or {})
    for key, module in frozen.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise capture.Error("frozen: the names are identifiers ('target_"
                                "network'), got %r" % (key,))
        if not isinstance(module, torch.nn.Module):
            raise capture.Error("frozen['%s']: expected a torch.nn.Module, "
                                "got %s" % (key, type(module).__name__))
        if any(module is m for m in model.modules()):
            raise capture.Error("frozen['%s'] is the model itself, or part "
                                "of it" % key)
    if share is not None:
        if not isinstance(share, Imported):
            raise capture.Error("share: expected what import_module "
                                "returned, got %s" % type(share).__name__)
    return Imported(model, given, loss_fn, example_inputs or {}, optimizer,
                    adamw, max_grad_norm, device, target, frozen, share)


def import_update(fn, *, share, target=capture.DEFAULT_TARGET):
    """Imports `fn`, a function that writes the weights of `share`'s
    models in place (a target network's soft update through `.data`, a
    hard copy by load_state_dict), as PyTorch code does between steps.
    Returns a callable taking fn's own arguments: each call runs fn's
    writes on the device in one submission, with no weight crossing to the
    host; the modules read the new values back when next read. Python
    numbers in fn (tau) are constants of a recording, which is made again
    when fn's float arguments, or the floats it reads as globals (args.tau
    too), change."""
    if not isinstance(share, Imported):
        raise capture.Error("share: expected what import_module returned, "
                            "got %s" % type(share).__name__)
    if not callable(fn):
        raise capture.Error("import_update: expected a function, got %s"
                            % type(fn).__name__)
    return Update(fn, share._space, target)
