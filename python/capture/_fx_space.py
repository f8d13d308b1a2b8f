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
"""

import capture


class Space:
    """The weights the imports of one update share."""

    def __init__(self, device):
        self.params = capture.Params(device)
        self.weights = {}  # name -> capture.Weight, once declared
        self.trainable = set()  # names declared trainable
        self.names = {}  # id(tensor) -> its weight's name
        self.imports = []  # the Imported objects over these weights
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
