"""The Python numbers a loss function reads from its globals and closure.

make_fx records a Python number as a constant of the graph, so a loss that
reads a global its training loop reassigns (SAC's ``alpha =
log_alpha.exp().item()``, an annealed coefficient) would go on with the
value of import time. Each float such a loss reads is therefore lifted: an
input of the step, its current value read at every call, exactly when
PyTorch's own loss would read it. An int or bool (a shape, a flag) cannot
be lifted: it shapes the graph, so a change of it is an error at the next
call. Only the names the loss function's own code reads are seen, not those
of the functions it calls; docs/python.md says so.
"""

import contextlib
import numbers

import numpy as np

import capture


def _code_names(code):
    """The global names `code` and its nested code (comprehensions,
    lambdas) read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _is_float(value):
    return isinstance(value, (float, np.floating)) and \
        not isinstance(value, bool)


def _is_guarded(value):
    return isinstance(value, (numbers.Integral, np.bool_)) or \
        (isinstance(value, np.ndarray) and value.ndim == 0)


class FreeNumbers:
    """The numbers `fn` reads as globals or closure cells: floats to lift
    (inputs named after the variable), ints and bools to guard."""

    def __init__(self, fn):
        self.fn = fn
        self.where = {}  # name -> ('global', dict) or ('cell', cell)
        self.lifted = []  # the names lifted by the last trace
        self.guarded = {}  # name -> its value when traced
        code = getattr(fn, "__code__", None)
        if code is None:  # a callable object: nothing seen
            return
        g = fn.__globals__
        for name in sorted(_code_names(code)):
            if name in g:
                self.where[name] = ("global", g)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            self.where[name] = ("cell", cell)

    def _get(self, name):
        kind, holder = self.where[name]
        try:
            return holder[name] if kind == "global" else holder.cell_contents
        except (KeyError, ValueError):
            return None

    def _set(self, name, value):
        kind, holder = self.where[name]
        if kind == "global":
            holder[name] = value
        else:
            holder.cell_contents = value

    def floats(self):
        """{name: value} of the floats it reads now."""
        return {n: float(v) for n in self.where
                for v in [self._get(n)] if _is_float(v)}

    def start(self, lift):
        """Before a trace: lifts the floats (when `lift`) and guards the
        rest. Returns the lifted names."""
        self.lifted = sorted(self.floats()) if lift else []
        self.guarded = {n: v for n in self.where for v in [self._get(n)]
                        if n not in self.lifted and
                        (_is_guarded(v) or _is_float(v))}
        return self.lifted

    @contextlib.contextmanager
    def swapped(self, values):
        """While tracing: the lifted names hold the trace's tensors."""
        saved = {n: self._get(n) for n in values}
        for n, v in values.items():
            self._set(n, v)
        try:
            yield
        finally:
            for n, v in saved.items():
                self._set(n, v)

    def value(self, name):
        """A lifted float's current value, as the step's input."""
        v = self._get(name)
        if not _is_float(v) and not isinstance(v, numbers.Real):
            raise capture.Error(
                "step: loss_fn reads '%s', a float when imported (an input "
                "of the step); it is now %s" % (name, type(v).__name__))
        return np.asarray(v, np.float32)

    def check(self, what):
        """Refuses a call after a guarded number changed."""
        for name, then in self.guarded.items():
            now = self._get(name)
            if type(now) is not type(then) or now != then:
                raise capture.Error(
                    "%s: loss_fn reads '%s', which was %r when imported and "
                    "is now %r; it shapes the captured step (an int or bool,"
                    " or a float used where a tensor cannot be), so import "
                    "again, or pass it as an input of loss_fn"
                    % (what, name, then, now))
