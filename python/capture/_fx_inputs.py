"""capture.fx's inputs: a call's arrays as the runtime takes them, and the
signature of a step or forward as imported, which gives each mistake its
own message."""

import difflib

import numpy as np
import torch

import capture
from capture._fx_values import Ints


def _as_array(name, value):
    """A call's input as the numpy array the runtime takes: torch tensors
    are read as they are; int64 indices become int32 when every value fits,
    and are refused otherwise (never wrapped); float64 and bool are refused
    (a narrowing or a cast would change what the user's code computes)."""
    if type(value) is np.ndarray and value.dtype == np.float32:
        return value  # the common case, at acting's per-call cost
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    a = np.asarray(value)
    if a.dtype == np.int64:
        if a.size and (a.min() < np.iinfo(np.int32).min or
                       a.max() > np.iinfo(np.int32).max):
            raise capture.Error("input '%s': int64 values outside int32's "
                                "range; Capture's indices are int32" % name)
        a = a.astype(np.int32)
    if a.dtype not in (np.float32, np.int32):
        raise capture.Error("input '%s': dtype %s; expected float32 or an "
                            "integer index type (int32, int64)%s"
                            % (name, a.dtype, "; convert it with "
                               ".astype(np.float32) if the values may round"
                               if a.dtype == np.float64 else ""))
    return a


def _long(name, a):
    """PyTorch's .long() of a float input, on the host: truncation toward
    zero, refused where it would not fit (PyTorch's result is undefined)."""
    # A NaN fails both comparisons; the cast truncates toward zero.
    if a.size and not (a.min() > -2.0 ** 31 - 1 and a.max() < 2.0 ** 31):
        raise capture.Error("input '%s': .long() of values that are not "
                            "finite or outside int32's range" % name)
    return a.astype(np.int32)


def _suggest(name, names):
    close = difflib.get_close_matches(name, names, n=1)
    return "; did you mean '%s'?" % close[0] if close else ""


class _Signature:
    """The inputs of a step or forward as imported: names, shapes and
    dtypes of the example. A call's mistakes each get their own message."""

    def __init__(self, what, arrays):
        self.what = what
        self.specs = {n: (list(a.shape), a.dtype) for n, a in arrays.items()}
        # 'x.long' -> 'x': a float input's int64 cast ('x.float': an int
        # input's float cast), made on the host at each call.
        self.casts = {}
        self.draws = []  # (name, draw, shape): noise drawn at each call
        self.lifted = []  # floats the loss reads from its globals
        self.free = None  # the FreeNumbers that reads them

    def cast(self, names):
        """Adds the host-made casts of these inputs: 'x.long' of a float
        input, 'x.float' of an int one (the others are no casts)."""
        for name in names:
            source, kind = name.rsplit(".", 1)
            if (self.specs[source][1] == np.int32) == (kind == "float"):
                self.casts[name] = source

    def check_names(self, arrays):
        """A call's names and dtypes against the import's: shapes may
        differ (another recording)."""
        names = list(self.specs)
        for n in arrays:
            if n not in self.specs:
                raise capture.Error("%s: unexpected input '%s'%s; it takes %s"
                                    % (self.what, n, _suggest(n, names),
                                       names))
        missing = [n for n in names if n not in arrays]
        if missing:
            raise capture.Error("%s: missing input%s %s; it takes %s"
                                % (self.what, "s" if len(missing) > 1 else "",
                                   ", ".join("'%s'" % n for n in missing),
                                   names))
        for n, a in arrays.items():
            shape, dtype = self.specs[n]
            if a.dtype != dtype:
                raise capture.Error("%s: input '%s' is %s, expected %s (as "
                                    "imported)" % (self.what, n, a.dtype,
                                                   dtype))
            if a.ndim != len(shape):
                raise capture.Error(
                    "%s: input '%s' has shape %s, but it was imported with "
                    "rank %d (%s)" % (self.what, n, list(a.shape), len(shape),
                                      shape))

    def runtime(self, arrays, draw=True):
        """`arrays`, of exactly this signature's names, dtypes and shapes
        (the caller found it by them), for the runtime: int inputs
        flattened (the step declares them 1-D; see _fx_values.Ints), the
        host-made casts added, and the noise drawn from torch's generator
        (zeros with `draw` false: a recording's example, which must not
        move the user's random stream)."""
        out = {}
        for n, a in arrays.items():
            out[n] = a.reshape(-1) if a.dtype == np.int32 else a
        for name, fn, shape in self.draws:
            out[name] = fn().numpy() if draw else \
                np.zeros(shape, np.float32)
        for name in self.lifted:
            out[name] = self.free.value(name)
        for name, source in self.casts.items():
            out[name] = _long(source, arrays[source]).reshape(-1) \
                if name.endswith(".long") else \
                arrays[source].astype(np.float32)
        return out

    def tensors(self, arrays):
        """The example as torch tensors for tracing: indices as int64, the
        dtype PyTorch code indexes with."""
        return [torch.from_numpy(np.array(arrays[n], dtype=np.int64)
                                 if arrays[n].dtype == np.int32
                                 else np.array(arrays[n]))
                for n in self.specs] + \
            [torch.from_numpy(self.free.value(n)) for n in self.lifted]

    def wrap(self, inputs):
        """The tracer's inputs as the graph's values: int inputs as Ints."""
        out = {}
        noise = {name for name, _, _ in self.draws} | set(self.lifted)
        for n, t in inputs.items():
            if n in noise:
                out[n] = t
                continue
            shape, dtype = self.specs[self.casts.get(n, n)]
            if n in self.casts:
                dtype = np.int32 if n.endswith(".long") else np.float32
            out[n] = Ints(t, np.arange(int(np.prod(shape))).reshape(shape)) \
                if dtype == np.int32 else t
        return out


def _shape_key(arrays):
    """What tells recordings apart: names, shapes and dtypes (the dtype's
    one-letter code: its .name costs a microsecond, a call's budget)."""
    return tuple(sorted((n, a.shape, a.dtype.char)
                        for n, a in arrays.items()))


def _describe(specs):
    """'obs: [64, 4], act: [64]' of arrays or of a signature's specs."""
    return ", ".join("%s: %s" % (n, list(v[0] if isinstance(v, tuple)
                                         else v.shape))
                     for n, v in sorted(specs.items()))


def _loss_outputs(out):
    """The traced loss's outputs as a step's: the loss first."""
    if "output" in out and len(out) == 1:
        return {"loss": out["output"]}
    if "loss" not in out:
        raise capture.Error("loss_fn returned %s; expected the loss, or a "
                            "dict with 'loss' first" % list(out))
    return dict([("loss", out["loss"])] +
                [(k, v) for k, v in out.items() if k != "loss"])


class _Shaped:
    """The step at one set of input shapes."""

    def __init__(self, signature, outputs, step):
        self.signature = signature  # names, shapes and dtypes
        self.outputs = outputs  # the traced function (inputs -> outputs)
        self.step = step  # the CapturedStep
