"""capture.fx's tracing: make_fx with each node's grad mode and user line,
and the ATen graph replayed as Capture tracer ops (the translations are
_fx_ops.py and _fx_masks.py)."""

import contextlib
import operator
import os
import traceback

import torch
import torch.fx.experimental.proxy_tensor as _proxy

import capture
from capture._fx_index import (DeviceIndex, arange, device_index,
                               index_add, index_tensor, one_hot,
                               row_accumulations, rows_sum)
from capture._fx_ops import DRAWS, OPS, SHAPES, _amax, _amin, first_extreme
from capture._fx_values import (Ints, LogSoftmax, Refused, Transposed,
                                Unsupported, _no, aten, is_value)

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_CAPTURE_DIR = os.path.dirname(os.path.abspath(capture.__file__)) + os.sep
_NO_LOC = ("<unknown>", 0)


def _user_frame(frames):
    """(file, line) of the innermost frame of `frames` (a traceback.
    StackSummary, outermost first) in the user's code: outside torch,
    capture and Python's own contextlib."""
    for f in reversed(frames):
        path = os.path.abspath(f.filename)
        if path.startswith(_TORCH_DIR) or path.startswith(_CAPTURE_DIR) or \
                f.filename.startswith("<") or \
                os.path.basename(path) == "contextlib.py":
            continue
        return (f.filename, f.lineno)
    return _NO_LOC


def _where(loc):
    return "%s:%d" % loc


@contextlib.contextmanager
def _recording():
    """make_fx, with each node's grad mode and user line in node.meta: the
    grad mode is what PyTorch's autograd would see (no_grad blocks), which
    make_fx itself does not record."""
    create_node = _proxy.PythonKeyTracer.create_node

    def recorded(tracer, *args, **kwargs):
        node = create_node(tracer, *args, **kwargs)
        node.meta["grad"] = torch.is_grad_enabled()
        node.meta["loc"] = _user_frame(traceback.extract_stack())
        return node

    one_hot = torch.nn.functional.one_hot
    validate = torch.distributions.Distribution._validate_args
    # Argument validation reads tensor values (a host read): off while
    # tracing, as the values are checked by the step itself.
    torch.distributions.Distribution.set_default_validate_args(False)
    _proxy.PythonKeyTracer.create_node = recorded
    torch.nn.functional.one_hot = _one_hot
    try:
        yield
    finally:
        _proxy.PythonKeyTracer.create_node = create_node
        torch.nn.functional.one_hot = one_hot
        torch.distributions.Distribution.set_default_validate_args(validate)


def _one_hot(tensor, num_classes=-1):
    if num_classes < 0:
        _no("one_hot without num_classes", "the class count is read from "
            "the data; pass num_classes")
    return torch.ops.capture.one_hot(tensor, num_classes)


def _trace(fn, tensors, what):
    """`fn(*tensors)` as an ATen graph (make_fx, concrete shapes); PyTorch's
    own errors (a host read, control flow on values) name the user's line."""
    try:
        # Tracing runs the random ops: on a fork of torch's generator, so
        # that importing leaves the user's random stream where it was.
        with _recording(), torch.random.fork_rng(devices=[]):
            gm = _proxy.make_fx(fn)(*tensors)
    except (capture.Error, Unsupported):
        raise
    except Exception as e:
        loc = _user_frame(traceback.extract_tb(e.__traceback__))
        raise capture.Error("%s: could not trace %s: %s: %s"
                            % (_where(loc), what, type(e).__name__,
                               str(e).strip().splitlines()[0]
                               if str(e).strip() else "")) from None
    _eliminate_dead_code(gm)
    return gm


def _name_of(target):
    name = getattr(target, "__name__", None) or str(target)
    if isinstance(target, torch._ops.OpOverload):
        packet = target.overloadpacket.__name__
        return "torch.%s (aten.%s)" % (packet.strip("_"), name)
    return name


class _Ops:
    """The capture ops, each located at one node's user line."""

    def __init__(self, loc):
        self.loc = loc if loc != _NO_LOC else None

    def __getattr__(self, name):
        op = getattr(capture, name)
        if self.loc is None:
            return op
        loc = self.loc
        return lambda *a, **k: op(*a, loc=loc, **k)


def _is_operand(node, user):
    """Whether `node` is only a matmul operand in `user`."""
    if user.target is aten.mm.default:
        return node not in user.kwargs.values()
    if user.target is aten.addmm.default:
        return node is not user.args[0] and node not in user.kwargs.values()
    return False


class _Graph:
    """An ATen graph (make_fx) replayed as Capture tracer ops. Its
    placeholders are the weights (by name) and then the inputs."""

    def __init__(self, gm, weight_names, input_names, trainable, weights,
                 constants, scalars, aranges, what, foreign=None):
        self.gm = gm
        # Whether a weight is another import's to train (a shared space):
        # read through ag.stop_gradient, as this step's optimizer does not
        # hold it.
        self.foreign = foreign or (lambda name: False)
        self.aranges = aranges  # argmax-like node -> its arange's weight
        self.what = what
        self.weights = weights
        self.constants = constants
        self.scalars = scalars
        self.inputs = list(input_names)
        nodes = list(gm.graph.nodes)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        names = list(weight_names) + list(input_names)
        assert len(placeholders) == len(names)
        self.slots = dict(zip(placeholders, names))
        # Where PyTorch's autograd would carry a gradient: from a trainable
        # weight, through ops run with grad enabled, never through detach.
        self.live = {}
        self.attrs = {}  # get_attr node -> the weight it reads
        for n in nodes:
            if n.op == "get_attr":
                name = constants.get(id(getattr(gm, n.target, None)))
                if name is not None:
                    self.attrs[n] = name
        for n in nodes:
            if n.op == "placeholder":
                self.live[n] = trainable.get(self.slots[n], False)
            elif n.op == "get_attr":
                self.live[n] = trainable.get(self.attrs.get(n), False)
            elif n.op == "call_function":
                self.live[n] = n.meta.get("grad", True) and \
                    n.target is not aten.detach.default and \
                    any(self.live.get(a, False) for a in n.all_input_nodes)
            else:
                self.live[n] = False
        self.folded = {n for n in nodes if n.target is aten.t.default and
                       n.users and all(_is_operand(n, u) for u in n.users)}
        # x.long() of a float input and x.float() of an int input: made on
        # the host, as the inputs 'x.long' and 'x.float' (Capture computes
        # nothing on integers).
        self.casts = {}
        for n in nodes:
            if n.target is aten._to_copy.default and \
                    n.args[0].op == "placeholder" and \
                    self.slots[n.args[0]] in self.inputs:
                kind = _HOST_CASTS.get(n.kwargs.get("dtype"))
                if kind:
                    self.casts[n] = self.slots[n.args[0]] + kind
        # Random ops: drawn on the host at each call (DRAWS), inputs
        # 'noise0', 'noise1', ... in the order the loss draws them; what
        # only gives them a shape is not computed.
        self.noise = {}
        for n in nodes:
            if n.target in DRAWS:
                meta = n.meta.get("tensor_meta")
                try:
                    if meta is None or meta.dtype != torch.float32:
                        _no("%s of dtype %s" % (_name_of(n.target),
                                                meta and meta.dtype))
                    draw = DRAWS[n.target](n, list(meta.shape))
                except Unsupported as e:
                    raise Unsupported("%s: %s (in %s)" % (
                        _where(n.meta.get("loc", _NO_LOC)), e, what)) \
                        from None
                self.noise[n] = ("noise%d" % len(self.noise), draw,
                                 list(meta.shape))
                self.live[n] = False
        self.shape_only = {n for n in nodes if n.target in SHAPES and
                           n.users and all(u in self.noise for u in n.users)}
        # In-place ops (log_prob -= ..., ReLU(inplace=True)) on a value no
        # one else sees: their out-of-place op.
        order = {n: i for i, n in enumerate(nodes)}
        self._rows(nodes, order)
        self.inplace, self.hazards = {}, {}
        for n in nodes:
            functional = _functional(n.target)
            if functional is not None and n not in self.noise and \
                    n not in self.row_base:
                self.inplace[n] = functional
                why = _alias_hazard(n, order)
                if why:
                    self.hazards[n] = why

    def _rows(self, nodes, order):
        """Rows accumulated in a loop (C51's projection: index_add_ into
        each row of a fresh tensor): computed together at the last row's
        node (_fx_index), the per-row selects not at all."""
        self.row_base, self.row_last, self.skip = {}, {}, set()
        self.rows = row_accumulations(nodes, order)
        for base, rows in self.rows.items():
            for n, _, lparent, sparent in rows:
                if self.live.get(sparent) and n.meta.get("grad", True):
                    loc = n.meta.get("loc", _NO_LOC)
                    raise Unsupported(
                        "%s: index_add_ of rows that carry a gradient is not "
                        "supported (in %s); C51's target, computed under "
                        "torch.no_grad(), is" % (_where(loc), self.what))
                self.row_base[n] = base
                self.skip.add(n.args[0])
                # The row's index and source selects (and .long()) up to
                # their parents, which rows_sum reads, when nothing else
                # reads them.
                for arg, parent in ((n.args[2], lparent),
                                    (n.args[3], sparent)):
                    while arg is not parent and \
                            all(u in self.skip or u in self.row_base
                                for u in arg.users):
                        self.skip.add(arg)
                        arg = arg.args[0]
            self.row_last[base] = max((r[0] for r in rows), key=order.get)

    def reached(self, output):
        """The weights a gradient of `output` (the loss) reaches: those with
        a path to it through nodes that carry a gradient."""
        out = [n for n in self.gm.graph.nodes if n.op == "output"][0]
        result = out.args[0]
        if isinstance(result, dict):
            result = result.get(output)
        elif isinstance(result, (tuple, list)):
            result = result[0] if len(result) == 1 else None
        if not isinstance(result, torch.fx.Node):
            return set()
        seen, stack = set(), [result]
        while stack:
            node = stack.pop()
            if node in seen or not self.live.get(node, False):
                continue
            seen.add(node)
            stack.extend(node.all_input_nodes)
        return {self.slots[n] for n in seen if n.op == "placeholder"} | \
            {self.attrs[n] for n in seen if n in self.attrs}

    def check(self):
        """Refuses an op with no translation, before anything records."""
        for n, why in self.hazards.items():
            raise Unsupported("%s: the in-place %s %s; write it out of place "
                              "(x = x - y)" % (
                                  _where(n.meta.get("loc", _NO_LOC)),
                                  _name_of(n.target), why))
        for n in self.gm.graph.nodes:
            if n in self.inplace or n in self.row_base:
                continue
            if n.op == "call_function" and n.target not in OPS and \
                    n.target not in (operator.getitem, aten.detach.default) \
                    and n not in self.noise and n not in self.shape_only:
                loc = n.meta.get("loc", _NO_LOC)
                raise Unsupported("%s: %s is not supported; see capture.fx's "
                                  "translated ops in docs/python.md"
                                  % (_where(loc), _name_of(n.target)))

    def run(self, inputs):
        env = {}
        self.host_inputs = inputs

        def value(a):
            return torch.fx.node.map_arg(a, lambda n: env[n])

        for node in self.gm.graph.nodes:
            loc = node.meta.get("loc", _NO_LOC)
            try:
                if node.op == "placeholder":
                    env[node] = self._slot(self.slots[node], inputs)
                elif node.op == "get_attr":
                    env[node] = self._constant(node, loc)
                elif node.op == "output":
                    return self._outputs(value(node.args[0]), loc)
                else:
                    env[node] = self._call(node, _Ops(loc), value(node.args),
                                           value(node.kwargs), env)
            except Unsupported as e:
                raise Unsupported("%s: %s (in %s)"
                                  % (_where(loc), e, self.what)) from None
            except (TypeError, ValueError, IndexError) as e:
                raise capture.Error("%s: %s: %s (in %s)"
                                    % (_where(loc), _name_of(node.target), e,
                                       self.what)) from None
        raise capture.Error("the traced graph has no output")

    def _read(self, name):
        w = self.weights[name]
        return capture.stop_gradient(w) if self.foreign(name) else w

    def _slot(self, name, inputs):
        if name in self.weights:
            return self._read(name)
        return inputs[name]

    def _constant(self, node, loc):
        held = getattr(self.gm, node.target)
        key = id(held)
        if key in self.scalars:
            return self.scalars[key]
        if key not in self.constants:
            raise Unsupported(
                "%s reads a parameter of shape %s that is not the model's "
                "(another module's: a target network, a critic); pass that "
                "module as import_module(..., frozen={'name': module}) if "
                "the step reads it without training it, or make it part of "
                "the model" % (self.what, list(held.shape)))
        return self._read(self.constants[key])

    def _call(self, node, c, args, kwargs, env):
        target = node.target
        if target is operator.getitem:
            return args[0][args[1]]
        if node in self.folded:
            return Transposed(args[0])
        if node in self.casts and self.casts[node] in self.host_inputs:
            return self.host_inputs[self.casts[node]]
        if node in self.noise:
            return self.host_inputs[self.noise[node][0]]
        if node in self.shape_only:
            return None
        if node in self.skip:
            return None
        if node in self.row_base:
            return self._accumulate(node, c, env)
        index = self._index(node, c, args, kwargs)
        if index is not None:
            return index
        live_in = any(self.live.get(a, False) for a in node.all_input_nodes)
        if target is aten.detach.default:
            x = args[0]
            return c.stop_gradient(x) if live_in and is_value(x) else x
        if target in EXTREMES:
            out = self._extreme(node, c, args, kwargs)
            return _stop(c, out) if live_in and not self.live[node] else out
        fn = OPS.get(self.inplace.get(node, target))
        if fn is None:
            _no(_name_of(target), "see capture.fx's translated ops in "
                "docs/python.md")
        if target is aten.nll_loss_forward.default:
            src = node.args[0]
            if src.target is aten._log_softmax.default and \
                    len(args[0].shape) == 2 and src.args[1] in (1, -1):
                args = (LogSoftmax(env[src.args[0]], args[0]),) + \
                    tuple(args[1:])
        out = fn(c, *args, **kwargs)
        if live_in and not self.live[node]:  # no_grad: a gradient stops
            out = _stop(c, out)
        return out

    def _accumulate(self, node, c, env):
        """An index_add_ row: at the last row of its tensor, the tensor
        becomes its value plus every row's contribution."""
        base = self.row_base[node]
        if node is self.row_last[base]:
            pairs = {}
            for _, i, lparent, sparent in self.rows[base]:
                pairs.setdefault((lparent, sparent), []).append(i)
            env[base] = rows_sum(
                c, env[base], [(env[lp], env[sp], lp, rows)
                               for (lp, sp), rows in pairs.items()],
                self.weights[self.aranges[node]])
        return None

    def _index(self, node, c, args, kwargs):
        """The ops of indices computed in the step (_fx_index), or None."""
        target = node.target
        if target is aten._to_copy.default and is_value(args[0]) and \
                kwargs.get("dtype") in (torch.int64, torch.int32) and \
                node not in self.casts:
            return device_index(node.args[0], args[0])
        if target in (aten.arange.default, aten.arange.start):
            return arange(c, *args, **kwargs)
        positions = self.aranges.get(node)
        positions = positions and self.weights[positions]
        if target is aten.index.Tensor:
            return index_tensor(c, args[0], args[1], positions)
        if self.inplace.get(node, target) is aten.index_add.default:
            return index_add(c, *args, positions=positions, **kwargs)
        if target is torch.ops.capture.one_hot.default and \
                isinstance(args[0], DeviceIndex):
            return one_hot(c, args[0], args[1], positions)
        return None

    def _extreme(self, node, c, args, kwargs):
        """max(dim), min(dim): (values, indices); argmax: the indices."""
        x = args[0]
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        keepdim = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
        largest = node.target is not aten.min.dim
        if node not in self.aranges:  # the values alone
            values = (_amax if largest else _amin)(c, x, [dim], keepdim)
            return (values, Refused("max/min indices"))
        values, picked = first_extreme(c, x, dim, keepdim,
                                       self.weights[self.aranges[node]],
                                       largest)
        if node.target is aten.argmax.default:
            return picked
        return (values, picked)

    @staticmethod
    def _outputs(result, loc):
        def final(v):
            if isinstance(v, Refused):
                raise Unsupported(v.why)
            if isinstance(v, Ints):
                _no("returning an integer tensor")
            return v

        if is_value(result) or isinstance(result, (Ints, Refused)):
            return {"output": final(result)}
        if isinstance(result, dict):
            return {k: final(v) for k, v in result.items()}
        if isinstance(result, (tuple, list)):
            return {"output%d" % i: final(r) for i, r in enumerate(result)}
        raise capture.Error("%s: the traced function returned %s; expected "
                            "a tensor, a tuple or a dict of tensors"
                            % (_where(loc), type(result).__name__))


EXTREMES = (aten.max.dim, aten.min.dim, aten.argmax.default)


def needs_indices(node):
    """Whether an EXTREMES node's indices are used (argmax: always)."""
    if node.target is aten.argmax.default:
        return True
    return any(u.target is operator.getitem and u.args[1] == 1 and u.users
               for u in node.users)


_HOST_CASTS = {torch.int64: ".long", torch.int32: ".long",
               torch.float32: ".float"}

_VIEWS = {aten.view.default, aten._unsafe_view.default, aten.slice.Tensor,
          aten.select.int, aten.expand.default, aten.t.default,
          aten.unsqueeze.default, aten.squeeze.default, aten.squeeze.dim,
          aten.permute.default, aten.transpose.int, aten.alias.default,
          aten._reshape_alias.default, aten.detach.default}


def _functional(target):
    """aten.sub for aten.sub_ (the same overload), or None."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    name = target.overloadpacket.__name__
    if not name.endswith("_") or name.startswith("_"):
        return None
    packet = getattr(aten, name[:-1], None)
    op = getattr(packet, target._overloadname, None) if packet else None
    return op if op in OPS else None


def _alias_hazard(node, order):
    """Why an in-place op at `node` would be seen by a value other than
    its own result (an input or weight, or another view of the same
    tensor read after it), or ''."""
    root = node.args[0]
    while root.target in _VIEWS:
        root = root.args[0]
    if root.op in ("placeholder", "get_attr"):
        return "changes an input or weight of the step"
    family, stack = set(), [root]
    while stack:  # every view of the tensor it writes
        n = stack.pop()
        if n not in family:
            family.add(n)
            stack.extend(u for u in n.users if u.target in _VIEWS)
    for n in family:
        for user in n.users:
            if user is not node and order[user] > order[node] and \
                    user.target not in _VIEWS:
                return ("changes a tensor that '%s' reads after it, through "
                        "'%s'" % (user.name, n.name))
    return ""


def _eliminate_dead_code(gm):
    """fx's dead-code elimination, but an in-place op stays even when its
    result is unused (what it changes may be read through another name),
    and so does a random draw (it moves the generator that later draws
    read, in PyTorch's run as in the step's)."""
    for node in reversed(list(gm.graph.nodes)):
        if node.op == "call_function" and not node.users and \
                _functional(node.target) is None and \
                node.target not in DRAWS:
            gm.graph.erase_node(node)


def _stop(c, out):
    if is_value(out):
        return c.stop_gradient(out)
    if isinstance(out, tuple):
        return tuple(_stop(c, o) for o in out)
    return out
