"""A function that writes module weights in place, replayed on the device.

A target network's update is written as PyTorch code over the tensors'
`.data` (or under no_grad)::

    for p, tp in zip(net.parameters(), target.parameters()):
        tp.data.copy_(tau * p.data + (1 - tau) * tp.data)

and DQN's hard copy as `target.load_state_dict(net.state_dict())`. Done by
PyTorch between captured steps, every such update reads the trained weights
back from the device and uploads the targets again. `import_update` runs
the function once under a dispatch mode that sees every ATen op, without
writing the user's tensors: each tensor is a weight of the shared space
(found by its storage, as `.data` and `state_dict()` alias it) or a value
computed from them, and each in-place write of a weight (`copy_`, `mul_`,
`add_`, `lerp_`, an `out=`) makes its new value. The result is a small
program that a forward capture replays with `capture.assign` for every
weight written: one submission, no weight crossing to the host.

Python numbers in the function (tau, 1 - tau) are constants of a
recording: the recordings are keyed on the function's float arguments and
the floats it reads from its globals, closure cells and their attributes
(`args.tau`), so a changed tau records again rather than replaying an old
one.
"""

import numbers
import traceback

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import capture
from capture._fx_free import FreeNumbers, _code_names
from capture._fx_graph import _user_frame
from capture._fx_values import Unsupported

aten = torch.ops.aten

# The recordings an update keeps (one per set of float constants).
MAX_RECORDINGS = 8

# The arithmetic an update takes (out of place, in place or out=); add, sub
# and rsub with PyTorch's alpha.
_BINARY = {"mul", "add", "sub", "div", "rsub", "lerp"}
_IDENTITY = {"detach", "alias", "clone", "view_as", "contiguous"}


def _opname(func):
    """aten.mul_.Tensor -> ('mul', True); aten.mul.out -> ('mul', True);
    aten.mul.Tensor -> ('mul', False)."""
    base = func.overloadpacket.__name__
    if func._overloadname == "out":
        return base, True
    if base.endswith("_") and not base.startswith("_"):
        return base[:-1], True
    return base, False


class _Program:
    """What the function computed: ops over weight reads and numbers, and
    the new value of each weight it wrote."""

    def __init__(self):
        self.ops = []  # (kind, operands, alpha, loc); operands are refs
        self.writes = {}  # weight name -> ref of its new value
        self.write_locs = {}  # weight name -> where it was written

    # A ref: ("w", name) a weight's value on entry, ("v", i) op i's result,
    # ("c", number) a constant.
    def add(self, kind, operands, alpha, loc):
        self.ops.append((kind, operands, alpha, loc))
        return ("v", len(self.ops) - 1)

    def run(self, weights):
        """Inside a capture: the ops, then the assigns."""
        values = []

        def get(ref):
            if ref[0] == "w":
                return weights[ref[1]]
            if ref[0] == "c":
                return ref[1]
            return values[ref[1]]
        for kind, operands, alpha, loc in self.ops:
            a, b = (get(r) for r in operands[:2])

            def scaled(x):  # PyTorch's alpha * x
                return x if alpha == 1 else capture.mul(x, alpha, loc=loc)
            if kind in ("add", "sub"):
                value = getattr(capture, kind)(a, scaled(b), loc=loc)
            elif kind == "rsub":  # b - alpha * a
                value = capture.sub(b, scaled(a), loc=loc)
            elif kind == "lerp":  # a + w * (b - a)
                w = get(operands[2])
                value = capture.add(a, capture.mul(
                    capture.sub(b, a, loc=loc), w, loc=loc), loc=loc)
            else:
                value = getattr(capture, kind)(a, b, loc=loc)
            values.append(value)
        for name, ref in sorted(self.writes.items()):
            capture.assign(weights[name], get(ref),
                           loc=self.write_locs[name])
        return {}


class _Recorder(TorchDispatchMode):
    """Runs the function on the host's values, writing none of the user's
    tensors, and builds its _Program."""

    def __init__(self, by_storage, what):
        super().__init__()
        self.by_storage = by_storage  # (ptr, shape, stride) -> weight name
        self.what = what
        self.program = _Program()
        self.refs = {}  # id(tensor made here) -> its ref
        self.keep = []  # those tensors, alive while ids are keys
        self.current = {}  # weight name -> (ref, host value) once written

    def _loc(self):
        return _user_frame(traceback.extract_stack())

    def _weight(self, t):
        return self.by_storage.get((t.data_ptr(), tuple(t.shape),
                                    tuple(t.stride())))

    def _operand(self, x, func):
        """(ref, host value) of an operand."""
        if isinstance(x, torch.Tensor):
            ref = self.refs.get(id(x))
            if ref is not None:
                return ref, x
            name = self._weight(x)
            if name is not None:
                return self.current.get(name, (("w", name), x))
            if x.dim() == 0 and x.dtype.is_floating_point:
                return ("c", float(x)), x
            self._refuse(func, "a tensor that is no weight of the shared "
                         "imports (%s %s)" % (x.dtype, list(x.shape)))
        if isinstance(x, numbers.Real) and not isinstance(x, bool):
            return ("c", float(x)), x
        self._refuse(func, "an operand %r" % (x,))

    def _refuse(self, func, what):
        raise Unsupported(
            "%s:%d: %s: %s reads %s; an update is elementwise arithmetic "
            "(mul, add, sub, div, lerp, copy_) over the weights of the "
            "imports it shares"
            % (self._loc() + (self.what, func, what)))

    def _made(self, value, ref):
        self.refs[id(value)] = ref
        self.keep.append(value)
        return value

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name, in_place = _opname(func)
        if name in _IDENTITY and not in_place:
            ref, host = self._operand(args[0], func)
            out = func(*args, **kwargs)
            if ref[0] == "w" and self._weight(out) is not None:
                return out  # an alias of the weight itself (.data)
            return self._made(out, ref)
        if name == "copy" and in_place:
            return self._write(func, args[0], self._operand(args[1], func))
        if name not in _BINARY:
            self._refuse(func, "it (not an op an update takes)")
        out_arg = kwargs.pop("out", None)
        alpha = kwargs.pop("alpha", 1)
        if kwargs:
            self._refuse(func, "keywords %s" % sorted(kwargs))
        operands = [self._operand(x, func) for x in args]
        host = [h for _, h in operands]
        ref = self.program.add(name, [r for r, _ in operands], float(alpha),
                               self._loc())
        value = getattr(torch, name)(
            *host, **({"alpha": alpha} if alpha != 1 else {}))
        if in_place:
            dst = out_arg if out_arg is not None else args[0]
            return self._write(func, dst, (ref, value))
        return self._made(value, ref)

    def _write(self, func, dst, new):
        """`dst` (a weight, or a tensor made here) written with `new`, (ref,
        host value); returns `dst`, as the in-place op does."""
        ref, value = new
        name = self._weight(dst)
        if name is None:
            if id(dst) in self.refs:  # an intermediate of the function
                self.refs[id(dst)] = ref
                with torch.no_grad():
                    dst.copy_(value)
                return dst
            self._refuse(func, "a write to a tensor that is no weight of "
                         "the shared imports")
        if ref[0] == "c" or tuple(value.shape) != tuple(dst.shape):
            self._refuse(func, "a value of shape %s written into weight "
                         "'%s' of shape %s (a number or a broadcast; write "
                         "a tensor of the weight's shape)"
                         % (list(getattr(value, "shape", [])), name,
                            list(dst.shape)))
        self.current[name] = (ref, value.detach().clone())
        self.program.writes[name] = ref
        self.program.write_locs[name] = self._loc()
        return dst


class Update:
    """`fn` imported: call it as `fn` was called; each call is one
    submission that writes the weights `fn` writes."""

    def __init__(self, fn, space, target):
        self._fn = fn
        self._space = space
        self._target = target
        self._free = FreeNumbers(fn)
        # The names fn's code reads: attributes of its globals among them.
        self._names = sorted(_code_names(fn.__code__)) \
            if hasattr(fn, "__code__") else []
        self._recordings = {}  # key -> (capture.Captured, written names)
        self._last = None
        space.updates += 1  # its calls are deferred with the steps

    def _numbers(self, args, kwargs):
        """The key of a call: what is not a tensor or module by identity,
        the floats read as globals, cells and their attributes by value."""
        def key(x):
            if isinstance(x, (torch.Tensor, torch.nn.Module)):
                return ("id", id(x))
            if isinstance(x, (list, tuple)):
                return tuple(key(v) for v in x)
            if isinstance(x, dict):
                return tuple(sorted((k, key(v)) for k, v in x.items()))
            return ("value", type(x).__name__, x)
        free = []
        for n in sorted(self._free.where):
            v = self._free._get(n)
            if isinstance(v, (numbers.Real, str)):
                free.append((n, v))
            elif v is not None and not callable(v) and \
                    not isinstance(v, type(torch)):
                for attr in self._names:
                    a = getattr(v, attr, None)
                    if isinstance(a, numbers.Real):
                        free.append((n + "." + attr, a))
        return (key(args), key(kwargs), tuple(free))

    def _by_storage(self):
        """Every tensor of the space's imports, by storage: weight name."""
        found = {}
        for imp in self._space.imports:
            for sync in [imp._sync] + imp._frozen:
                for n, t in sync.tensors.items():
                    found[(t.data_ptr(), tuple(t.shape),
                           tuple(t.stride()))] = sync.keys[n]
        return found

    def _syncs(self):
        for imp in self._space.imports:
            yield imp._sync
            for sync in imp._frozen:
                yield sync

    def _record(self, args, kwargs):
        if len(self._recordings) >= MAX_RECORDINGS:
            raise capture.Error(
                "update: the function's numbers changed %d times (each is a "
                "recording: tau and 1 - tau are constants of one); pass "
                "them the same each call" % MAX_RECORDINGS)
        for sync in self._syncs():  # the host values: in step first
            sync.read()
        recorder = _Recorder(self._by_storage(), "update")
        with torch.no_grad(), recorder:
            self._fn(*args, **kwargs)
        program = recorder.program
        if not program.writes:
            raise capture.Error(
                "update: the function wrote no weight of the imports it "
                "shares (a write goes through .data.copy_, an in-place op "
                "under torch.no_grad() or load_state_dict)")
        for name in program.writes:
            if name not in self._space.weights:
                raise capture.Error("update: '%s' is not declared yet; "
                                    "import the losses first" % name)
        weights = self._space.weights
        captured = capture.capture(lambda inputs: program.run(weights),
                                   self._space.params, target=self._target)
        return captured, set(program.writes)

    def __call__(self, *args, **kwargs):
        key = self._numbers(args, kwargs)
        recording = self._recordings.get(key)
        if recording is None:
            recording = self._record(args, kwargs)
            self._recordings[key] = recording
        captured, written = recording
        syncs = list(self._syncs())
        for sync in syncs:  # the user's changes, uploaded first
            if not sync.follower:
                sync.before("update")
        self._space.call("the update %s" % getattr(
            self._fn, "__name__", "function"), captured, None)
        for sync in syncs:
            if any(sync.keys[n] in written for n in sync.tensors):
                sync.trained()
