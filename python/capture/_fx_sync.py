"""The user's nn.Module and an import's captured weights, kept in step.

After a captured step the device holds the trained weights; the module's
own tensors are behind. Rather than copy every weight back after every
step (a download and a copy per tensor: ~60 us for a PPO actor-critic,
much of a replay), the module is brought up to date when something reads
it. Every read of a parameter or buffer goes through its module's
`_parameters` / `_buffers` dict (attribute access, a forward,
`parameters()`, `named_parameters()`, `state_dict()`), so those dicts are
replaced by `_Watched`, which syncs first. The other way, a change the user
makes is seen at the next step: an in-place write (`copy_`, an optimizer of
their own, `load_state_dict`) moves the tensor's version counter, and the
new values are uploaded; a replaced parameter or submodule (a changed
architecture) is an error that says to import again.

A write through `tensor.data` moves no version counter (PyTorch gives
`.data` one of its own), so the model is also compared by value with what
it held when last in step, once it has been read after a step (reading it
is how the user gets a tensor to write); a training loop that does not
read the module between steps does not pay for the compare. What cannot be
seen: references to the tensors taken before the import and written
without going through the module. docs/python.md says so.
"""

import contextlib
import copy

import numpy as np
import torch

import capture


def _numpy_view(t):
    """A numpy array sharing `t`'s memory, or None where it has none (a
    tensor on a GPU, not contiguous, of a dtype numpy lacks)."""
    if t.device.type != "cpu" or not t.is_contiguous():
        return None
    try:
        return t.detach().numpy()
    except (RuntimeError, TypeError):
        return None


class _Watched(dict):
    """A module's `_parameters` or `_buffers` (or `_modules`): reads sync
    the module first; writes and deletions mark the architecture changed.
    `owners` are the imports of the module (a model imported twice)."""

    __slots__ = ("owners",)

    def _read(self):
        for owner in self.owners:
            owner.read()

    def __getitem__(self, key):
        self._read()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._read()
        return dict.get(self, key, default)

    def items(self):
        self._read()
        return dict.items(self)

    def values(self):
        self._read()
        return dict.values(self)

    def __iter__(self):
        self._read()
        return dict.__iter__(self)

    # A copy or a pickle of the module (copy.deepcopy(net) for a target
    # network, torch.save(net)) is of its current values, as a plain dict:
    # the import watches the original only.
    def __reduce_ex__(self, protocol):
        return (dict, (dict(self.items()),))

    def __copy__(self):
        return dict(self.items())

    def __deepcopy__(self, memo):
        return copy.deepcopy(dict(self.items()), memo)

    def _written(self, key):
        for owner in self.owners:
            owner.written(key)

    def __setitem__(self, key, value):
        self._written(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key):
        self._written(key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        self._written(key)
        return dict.pop(self, key, *default)


class ModuleSync:
    """Keeps `model`'s tensors named in `names` and `params` (a
    capture.Params holding them as `prefix` + name) in step. A frozen
    module (`frozen`: a target network, which the step reads and never
    trains) is compared by value at every step instead of by version, as
    the usual soft update writes it through `.data`."""

    def __init__(self, model, params, names, prefix="", frozen=False,
                 keys=None):
        self.model = model
        self.params = params
        self.prefix = prefix
        self.frozen = frozen
        # name -> its weight's name in `params` (prefix + name, or the name
        # the weights shared with another import give it).
        self.keys = keys or {n: prefix + n for n in names}
        # A frozen module that another import of a shared space trains:
        # that import keeps it in step, by version (Imported._before).
        self.follower = False
        held = dict(model.named_parameters())
        held.update(model.named_buffers())
        self.tensors = {n: held[n] for n in names}  # name -> the user's tensor
        self.versions = {}  # name -> its version when last in step
        self.snapshots = {}  # frozen: name -> its values when last in step
        self.behind = False  # the device has values the module lacks
        self.busy = 0  # inside a sync or a trace: no syncing, no checks
        self.changed = None  # what replaced a tensor or submodule, if any
        self._mark()
        for module in model.modules():
            for attr in ("_parameters", "_buffers", "_modules"):
                table = getattr(module, attr)
                if not isinstance(table, _Watched):
                    table = _Watched(table)
                    table.owners = []
                    object.__setattr__(module, attr, table)
                table.owners.append(self)
        self.owners = model._modules.owners  # every import of this model

    def _mark(self):
        """Notes what the user's tensors hold now, in step with the device:
        each one's version counter, storage address, shape and strides, and
        a copy of its bytes (a numpy view of it kept beside, where it has
        one, so that the compare is one call for the model; a tensor without
        one, on another device or not contiguous, is compared with
        torch.equal). A numpy view makes PyTorch refuse to resize_ the
        storage in place, which would free the memory the view reads."""
        self.marks = [(t._version, t.data_ptr(), t.shape, t.stride())
                      for t in self.tensors.values()]
        self.versions = [m[0] for m in self.marks]
        self.views, self.kept, self.viewed = [], [], []
        self.snapshots = {}  # name -> a clone, for the tensors not viewed
        for name, t in self.tensors.items():
            view = _numpy_view(t)
            if view is None:
                self.snapshots[name] = t.detach().clone()
                continue
            self.views.append(view)
            self.kept.append(view.copy())
            self.viewed.append(name)

    def _moved(self):
        """The names whose version counter moved (an in-place write)."""
        now = [t._version for t in self.tensors.values()]
        if now == self.versions:
            return set()
        return {n for n, v, w in zip(self.tensors, now, self.versions)
                if v != w}

    def _differ(self):
        """The names whose values may differ from when last in step, by
        version or by value: a write through .data moves no version
        counter, and `p.data = t` gives p another storage or view of it (a
        transpose keeps the bytes)."""
        marks = [(t._version, t.data_ptr(), t.shape, t.stride())
                 for t in self.tensors.values()]
        if marks == self.marks:
            changed = set()
            views, kept, viewed = self.views, self.kept, self.viewed
        else:
            changed = {n for n, m, k in zip(self.tensors, marks, self.marks)
                       if m != k}
            # Those are changed already; their old views are not compared.
            keep = [i for i, n in enumerate(self.viewed) if n not in changed]
            views = [self.views[i] for i in keep]
            kept = [self.kept[i] for i in keep]
            viewed = [self.viewed[i] for i in keep]
        differ = capture._capture.changed_buffers(views, kept)
        if differ:
            changed.update(viewed[i] for i in differ)
        if self.snapshots:
            changed.update(n for n, snap in self.snapshots.items()
                           if not torch.equal(self.tensors[n], snap))
        return changed

    @contextlib.contextmanager
    def quiet(self):
        """While tracing: the module's dicts hold the trace's tensors."""
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1

    def read(self):
        """A read of the module: the trained values first, if behind."""
        if not self.behind or self.busy:
            return
        with self.quiet():
            values = self.params.values()
            with torch.no_grad():
                for name, t in self.tensors.items():
                    t.copy_(torch.from_numpy(values[self.keys[name]]))
            self.behind = False
            self._mark()

    def written(self, key):
        if self.busy or self.changed:
            return
        self.changed = key

    def trained(self):
        """After a step or a restore: the module is behind."""
        self.behind = True

    def before(self, what):
        """Before a step or a forward: refuses a changed architecture and
        uploads the values the user changed in place."""
        if self.changed is not None:
            raise capture.Error(
                "%s: %s's '%s' was replaced or removed after "
                "import_module (a new layer or parameter); the captured step "
                "would go on with the old one: import the model again"
                % (what, "the model" if not self.prefix else
                   "the frozen module '%s'" % self.prefix[:-1], self.changed))
        for other in self.owners:  # what another import trained, first
            if other is not self:
                other.read()
        if self.frozen or not self.behind:
            # By value: a write through .data moves no version counter.
            # The model is compared so only once read after a step (its
            # tensors hold the trained values then): a training loop that
            # does not read it between steps does not pay for it.
            changed = self._differ()
        else:
            changed = self._moved()
        if not changed:
            return
        if self.behind:
            raise capture.Error(
                "%s: the model's %s changed in place while the trained "
                "values were not yet read back; read the model (any call "
                "or parameters()) before changing it"
                % (what, sorted(changed)))
        self.params.set_values({
            self.keys[n]: self.tensors[n].detach().cpu().numpy().astype(
                np.float32, copy=True) for n in sorted(changed)})
        self._mark()
