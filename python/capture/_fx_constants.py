"""The tensors an import's traces hold as constants.

make_fx keeps a tensor the loss reads that is no input and no parameter of
the model (a frozen module's, a buffer folded into the graph, a number made
a tensor, an argmax's positions) as a graph attribute. Each becomes a
read-only weight of the import's space (equal ones one weight, since the
loss makes new objects at every trace), a 0-d one a number, and a frozen
module's or the model's own tensor the weight it already is.
"""

import torch

from capture._fx_graph import _NO_LOC, EXTREMES, _where, needs_indices
from capture._fx_index import positions_needed
from capture._fx_values import Unsupported


class Constants:
    """The constants of one import, over the weights of its space."""

    def __init__(self, space, frozen_ids, own_ids, where):
        self.space = space
        self.frozen_ids = frozen_ids  # id(frozen module's tensor) -> name
        self.own_ids = own_ids  # id(the model's tensor) -> its weight's name
        self.where = where  # the model's class location, for declarations
        # id(tensor) -> its weight's name, for the tensors the traces read
        # (its model's, its frozen modules', its constants).
        self.names = {}
        self.values = space.constant_values  # name -> values
        self.scalars = {}  # id(0-d tensor constant) -> its number
        self.aranges = space.aranges  # size -> arange(size)
        # (name, tensor): constants to declare with the weights; None once
        # the import declared them.
        self.pending = []

    def collect(self, gm):
        """Every constant of the traced module `gm`; returns the positions
        (weight names) its argmax-like and index nodes compare with."""
        for node in gm.graph.nodes:  # tensor constants: read-only weights
            if node.op == "get_attr":
                self.constant(getattr(gm, node.target),
                              node.meta.get("loc", _NO_LOC))
        aranges = {}
        for node in gm.graph.nodes:
            if node.target in EXTREMES and needs_indices(node):
                aranges[node] = self.arange(node)
            size = positions_needed(node)  # and index ops (_fx_index)
            if size:
                aranges[node] = self.positions(
                    size, node.meta.get("loc", _NO_LOC))
        return aranges

    def arange(self, node):
        """The weight holding arange(size) for an argmax-like node: the
        first extreme's index is found by comparing positions."""
        loc = node.meta.get("loc", _NO_LOC)
        dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        meta = node.args[0].meta.get("tensor_meta")
        if dim is None or meta is None:
            raise Unsupported("%s: argmax over all elements is not "
                              "supported; give dim" % _where(loc))
        return self.positions(int(meta.shape[dim]), loc)

    def positions(self, size, loc):
        """The weight holding arange(size) as float32."""
        held = self.aranges.setdefault(
            size, torch.arange(size, dtype=torch.float32))
        self.constant(held, loc)
        return self.names[id(held)]

    def constant(self, value, loc):
        """A tensor the trace holds as a constant: a frozen module's, a
        number made a tensor (0-d: a Python number), or a read-only weight
        (constants made inside the loss are new objects at every trace: an
        equal one is the same weight)."""
        key = id(value)
        if key in self.frozen_ids:
            self.names[key] = self.frozen_ids[key]
            return
        if key in self.own_ids:  # the model's tensor, not read through it
            self.names[key] = self.own_ids[key]
            return
        if isinstance(value, torch.nn.Parameter) or key in self.names:
            return  # another module's: refused where it is read
        if value.dtype != torch.float32:
            raise Unsupported("%s: a %s tensor constant; constants are "
                              "float32" % (_where(loc), value.dtype))
        if value.dim() == 0:
            self.scalars[key] = float(value)
            return
        for name, held in self.values.items():
            if held.shape == value.shape and torch.equal(held, value):
                self.names[key] = name
                return
        name = "_constant%d" % len(self.values)
        self.names[key] = name
        self.values[name] = value.detach().clone()
        if self.pending is not None:
            self.pending.append((name, value))
            return
        # After the declaration (a forward traced after the step): a new
        # weight drops the recordings, which record again at their next
        # call; the moments and t are carried over, never started over.
        def declare():
            self.space.declare(name, value, False, self.where)
            self.space.params.set_values(
                {name: value.detach().cpu().numpy().copy()})
        self.space.carry(declare)
