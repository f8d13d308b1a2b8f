"""One set of weights for the imports of one update (`share=`).

SAC, TD3 and DDPG step several optimizers per update, each on its own loss
and each loss reading what the others train. Imported apart, each import
would hold its own copy of the weights it reads, and every update would
move them across the host. Imports that share a Space hold one
capture.Params: each tensor is one weight (named when first imported), a
step trains the weights its own loss reaches through its own model, and
the reads of weights another import trains go through ag.stop_gradient, so
the step's param pack holds its own weights only, as each PyTorch
optimizer steps its own. The recordings declare the trainable weights
first, in declaration order, and ag-plan-buffers places each pack where
its first weight is, so every module of the space lays the weights out
alike and shares one Weights buffer.

The steps and updates of a space with several members are deferred
(runtime deferred.h): each call returns at once, its outputs to come
(Outputs, a read-only dict that waits on its first read), and the device
runs every waiting call in one submission when something needs one: an
output read, a read of a module's weights (SAC's alpha = log_alpha.exp()
.item()), a forward, or a second call of the same recording. So SAC's
whole update (critics, actor, temperature, soft update) is one submission.
An error of a waiting call (a refused step) is raised by the first call of
the space after its submission, or by reading its outputs.
"""

import collections.abc

import capture


class Outputs(collections.abc.Mapping):
    """A deferred call's outputs, by name (numpy arrays): a dict whose
    first read waits for the call's submission, submitting the waiting
    calls first if need be."""

    __slots__ = ("_deferred", "_what", "_values", "_error", "_reported")

    def __init__(self, deferred, what):
        self._deferred = deferred  # the capture.Deferred
        self._what = what  # names the call in an error ("the step of ...")
        self._values = None  # the dict, once taken
        self._error = None  # the call's error, once taken
        self._reported = False  # whether the error was raised to the user

    @property
    def done(self):
        """Whether the call's submission ran."""
        return self._deferred.done

    def _take(self):
        """Takes the result (waiting for it): the values or the error."""
        if self._values is None and self._error is None:
            try:
                self._values = self._deferred.result()
            except capture.Error as e:
                _name_call(e, self._what)
                self._error = e

    def _get(self):
        self._take()
        if self._error is not None:
            self._reported = True
            raise self._error
        return self._values

    def __getitem__(self, name):
        return self._get()[name]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def __repr__(self):
        return repr(self._get())


def _name_call(error, what):
    """Adds to `error` which deferred call it is (once)."""
    note = "(in %s, deferred: submitted with the calls of its import's " \
        "space after it, which ran on the state it left)" % what
    if note not in getattr(error, "__notes__", ()):
        error.add_note(note)


class Space:
    """The weights the imports of one update share."""

    def __init__(self, device):
        self.params = capture.Params(device)
        self.weights = {}  # name -> capture.Weight, once declared
        self.trainable = set()  # names declared trainable
        self.names = {}  # id(tensor) -> its weight's name
        self.imports = []  # the Imported objects over these weights
        self.updates = 0  # the import_update callables over them
        self.pending = []  # Outputs of deferred calls not yet collected
        self.stepped = False  # whether any of them has trained
        # Constants the losses make, shared as the weights are.
        self.constants = {}  # id(tensor) -> its weight's name
        self.constant_values = {}  # a constant weight's name -> its values
        self.scalars = {}  # id(0-d tensor constant) -> its number
        self.aranges = {}  # size -> arange(size), argmax's positions

    def name_for(self, tensor, local):
        """The weight name of `tensor`: its own when an import of the space
        named it first, else `local`, which must be free."""
        known = self.names.get(id(tensor))
        if known is not None:
            return known
        if local in self.weights or local in self.names.values():
            raise capture.Error(
                "share: '%s' names another tensor in the shared weights; "
                "give the model as a dict ({'actor': actor}) so that its "
                "weights are named apart" % local)
        self.names[id(tensor)] = local
        return local

    def declare(self, name, tensor, trainable, loc):
        """Declares `name` (trainable once any import trains it): returns
        its value when declared or re-declared now, else None."""
        if name in self.weights:
            if not trainable or name in self.trainable:
                return None
            self.weights[name] = self.params.recreate(
                name, list(tensor.shape), trainable=True, loc=loc)
        else:
            self.weights[name] = self.params.weight(
                name, list(tensor.shape), trainable=trainable, loc=loc)
        if trainable:
            self.trainable.add(name)
        return tensor.detach().cpu().numpy().copy()

    def call(self, what, captured, inputs):
        """`captured` (a Captured or CapturedStep) on `inputs`: deferred,
        returning its Outputs, when the space has several members; else at
        once, returning the dict. Collects the calls submitted before."""
        self.collect()
        import capture.fx  # its DEFER_CALLS, read at each call
        if len(self.imports) + self.updates < 2 or \
                not capture.fx.DEFER_CALLS:
            return captured(inputs)
        out = Outputs(captured.defer(inputs), what)
        self.pending.append(out)
        return out

    def collect(self):
        """Takes the results of the deferred calls submitted so far, and
        raises the first error among them, naming its call."""
        if not self.pending or not self.pending[0].done:
            return  # submitted in order: none is done when the first is not
        done = [o for o in self.pending if o.done]
        self.pending = [o for o in self.pending if not o.done]
        error = None
        for out in done:
            out._take()
            if out._error is not None and not out._reported:
                out._reported = True  # raised once, here or on a read
                error = error or out._error
        if error is not None:
            raise error

    def join(self, imported):
        """Adds an import (its model and frozen modules named already). A
        frozen module that another import trains is that import's to keep
        in step (by version): comparing it by value would read back and
        upload what the device already holds."""
        if self.stepped:
            raise capture.Error(
                "share: the import to share with has trained already; import "
                "every loss of the update before its first step")
        self.imports.append(imported)
        owned = {id(t) for imp in self.imports
                 for t in imp._sync.tensors.values()}
        for imp in self.imports:
            for sync in imp._frozen:
                covered = [id(t) in owned for t in sync.tensors.values()]
                if any(covered) and not all(covered):
                    raise capture.Error(
                        "share: the frozen module '%s' is partly another "
                        "import's model; give the whole module to one "
                        "import" % sync.prefix[:-1])
                sync.follower = all(covered)

    def carry(self, change):
        """Runs `change` (a declaration, which makes every recording record
        again) keeping each import's optimizer state: the moments and t."""
        states = [(imp._active.step, imp._active.step.optimizer_state())
                  for imp in self.imports if imp._active is not None]
        change()
        for step, state in states:
            step.restore_optimizer(state["m"], state["v"], int(state["step"]))
