"""capture.fx's indexing by indices computed in the step: C51's projection
(`l = b.floor().clamp(0, n - 1)`, then `index_add_` of each row, or
`one_hot(l.long(), n)`) and the pick `pmfs[torch.arange(len(x)), action]`.

Capture computes on float32, so an integer tensor made in the step is kept
as the float tensor of its values (`DeviceIndex`); an index selects by
comparing with the positions 0..n-1 (an arange constant), which is exact
for whole values. PyTorch raises on an index out of range, which a step
cannot do: so an index made in the step is taken only where the graph
itself proves it whole and within range (floor or ceil, then a clamp with
whole bounds), and refused otherwise, naming the fix.
"""

import math

import torch

from capture._fx_values import Ints, Picked, _no, _reduce, _shape, aten

_ROUNDING = {aten.floor.default, aten.ceil.default, aten.round.default,
             aten.trunc.default}
_SAME_VALUES = {aten.select.int, aten.slice.Tensor, aten.view.default,
                aten._unsafe_view.default, aten.reshape.default,
                aten.squeeze.default, aten.squeeze.dim,
                aten.unsqueeze.default, aten.expand.default,
                aten.clone.default, aten.alias.default}
_INTS = (torch.int64, torch.int32)


class DeviceIndex:
    """An integer tensor computed in the step: `value`, the float tensor of
    its values, which the graph proves whole and within [lo, hi]."""

    def __init__(self, value, lo, hi):
        self.value = value
        self.lo = lo
        self.hi = hi

    @property
    def shape(self):
        return _shape(self.value)


class Positions:
    """torch.arange(n) of integers: the row positions of an advanced
    index (`x[torch.arange(len(x)), action]`)."""

    def __init__(self, n):
        self.n = n

    @property
    def shape(self):
        return [self.n]


def _whole(v):
    return v is None or (isinstance(v, (int, float)) and
                         not isinstance(v, bool) and math.isfinite(v) and
                         float(v).is_integer())


def whole_range(node):
    """(lo, hi) when the graph proves every value of `node` whole and
    within [lo, hi] (infinite bounds when unbounded), else None."""
    if not isinstance(node, torch.fx.Node):
        return None
    if node.target in _ROUNDING:
        return (-math.inf, math.inf)
    if node.target in _SAME_VALUES:
        return whole_range(node.args[0])
    if node.target in (aten.clamp.default, aten.clamp_min.default,
                       aten.clamp_max.default):
        inner = whole_range(node.args[0])
        bounds = list(node.args[1:]) + [None, None]
        lo, hi = (bounds[0], bounds[1]) \
            if node.target is aten.clamp.default else \
            ((bounds[0], None) if node.target is aten.clamp_min.default
             else (None, bounds[0]))
        lo = node.kwargs.get("min", lo)
        hi = node.kwargs.get("max", hi)
        if inner is None or not _whole(lo) or not _whole(hi):
            return None
        return (max(inner[0], -math.inf if lo is None else lo),
                min(inner[1], math.inf if hi is None else hi))
    return None


def device_index(node, value):
    """x.long() of `value`, the float tensor of graph node `node` computed
    in the step."""
    r = whole_range(node)
    if r is None:
        _no(".long() of a float tensor computed in the step that is not "
            "provably whole and bounded", "Capture computes on float32 and "
            "cannot raise on an index out of range as PyTorch does: round "
            "and bound it in the graph, as x.floor().clamp(0, n - 1).long()")
    return DeviceIndex(value, *r)


def _arg(node, i, key, default=None):
    return node.args[i] if len(node.args) > i else \
        node.kwargs.get(key, default)


def _size(node, dim):
    meta = node.meta.get("tensor_meta")
    return None if meta is None else int(meta.shape[dim])


def positions_needed(node):
    """The size of the arange constant `node` compares indices with, or
    None: argmax-like nodes are fx.py's; these are the index ops'."""
    t = node.target
    if t in (aten.index_add.default, aten.index_add_.default):
        return _size(node.args[0], _arg(node, 1, "dim"))
    if t is aten.index.Tensor:
        return _size(node.args[0], 1)
    if t is torch.ops.capture.one_hot.default:
        src = node.args[0]
        if src.target is aten._to_copy.default and \
                src.args[0].op != "placeholder":
            return int(_arg(node, 1, "num_classes", -1))
    return None


def hot(c, index, n, positions, what):
    """The 0/1 float mask [..., n] of `index` (an input's Ints, or a
    DeviceIndex within [0, n))."""
    if isinstance(index, Ints):
        flat = c.one_hot(index.flat(what), n)
        return c.reshape(flat, index.shape + [n])
    if not isinstance(index, DeviceIndex):
        _no("%s with float indices" % what)
    if index.lo < 0 or index.hi > n - 1:
        _no("%s of indices computed in the step within [%s, %s], which "
            "may fall outside [0, %d)" % (what, index.lo, index.hi, n),
            "PyTorch raises on such an index; clamp(0, %d) them" % (n - 1))
    shape = index.shape
    values = c.reshape(index.value, shape + [1])
    return c.compare("eq", values,
                     c.reshape(positions, [1] * len(shape) + [n]))


def one_hot(c, index, n, positions):
    return hot(c, index, n, positions, "one_hot")


def index_add(c, base, dim, index, source, positions, alpha=1):
    """base.index_add(dim, index, source) of a 1-D base: each position
    gets the sum of the sources whose index it is."""
    shape = _shape(base)
    if len(shape) != 1 or len(index.shape) != 1 or \
            _shape(source) != index.shape:
        _no("index_add of a %d-D tensor" % len(shape), "index_add_ into a "
            "row (target[i].index_add_(0, idx[i], src[i])) is")
    mask = hot(c, index, shape[0], positions, "index_add")  # [K, n]
    src = c.reshape(source, index.shape + [1])
    if alpha != 1:
        src = c.mul(src, float(alpha))
    return c.add(base, _reduce(c, "sum", c.mul(mask, src), [0], False,
                               "index_add"))


def index_tensor(c, x, indices, positions):
    """x[torch.arange(len(x)), idx]: row b's element idx[b] along dim 1
    (its slice, for x of rank 3 and more), as the sum of the row with
    idx's one-hot mask."""
    shape = _shape(x)
    if len(indices) != 2 or not isinstance(indices[0], Positions) or \
            len(shape) < 2 or indices[0].n != shape[0] or \
            indices[1] is None or list(indices[1].shape) != [shape[0]]:
        _no("this advanced indexing", "x[torch.arange(len(x)), idx], one "
            "index per row, is")
    idx = indices[1]
    n = shape[1]
    if isinstance(idx, Picked):
        if idx.kept or idx.dim != 1 or _shape(idx.mask) != shape[:2]:
            _no("advanced indexing by argmax indices of another shape")
        mask = idx.mask
    else:
        mask = hot(c, idx, n, positions, "advanced indexing")
    mask = c.reshape(mask, shape[:2] + [1] * (len(shape) - 2))
    return _reduce(c, "sum", c.mul(x, mask), [1], False, "advanced indexing")


def arange(c, *args, **kwargs):
    """torch.arange of integers (positions for advanced indexing)."""
    dtype = kwargs.get("dtype")
    if dtype not in (None,) + _INTS or \
            not all(isinstance(a, int) for a in args):
        _no("torch.arange of floats or with a float bound",
            "torch.arange(n) of integers, as positions, is")
    start, end, step = (0, args[0], 1) if len(args) == 1 else \
        (args + (1,))[:3]
    if start != 0 or step != 1:
        _no("torch.arange(%d, %d, %d)" % (start, end, step),
            "torch.arange(n) is")
    return Positions(end)


# Rows accumulated in a loop: `for i in range(len(t)):
# t[i].index_add_(0, l[i].long(), d[i])` over a fresh tensor t. make_fx
# unrolls it into one index_add_ per row; taken together, every row once,
# they are one computation over the whole batch.

def _row(node):
    """(parent, i) when `node` is select(parent, 0, i)."""
    if isinstance(node, torch.fx.Node) and node.target is aten.select.int \
            and node.args[1] == 0:
        return node.args[0], node.args[2]
    return None, None


def _index_row(node):
    """(parent, i) of an index row: l[i].long() or l[i] of an int input."""
    if isinstance(node, torch.fx.Node) and \
            node.target is aten._to_copy.default and \
            node.kwargs.get("dtype") in _INTS:
        return _row(node.args[0])
    return _row(node)


def row_accumulations(nodes, order):
    """{base: [(index_add_ node, i, index parent, source parent)]} of the
    rows accumulated in a loop into a fresh tensor `base`, each row's
    index and source rows of the same parents; only where every other read
    of `base` comes after the last row's."""
    groups = {}
    for n in nodes:
        if n.target is not aten.index_add_.default or \
                _arg(n, 1, "dim") != 0 or _arg(n, 4, "alpha", 1) != 1:
            continue
        base, i = _row(n.args[0])
        lparent, li = _index_row(n.args[2])
        sparent, si = _row(n.args[3])
        if base is None or base.op != "call_function" or \
                lparent is None or sparent is None or not li == si == i:
            continue
        groups.setdefault(base, []).append((n, i, lparent, sparent))
    out = {}
    for base, rows in groups.items():
        last = max(order[r[0]] for r in rows)
        views = {r[0].args[0] for r in rows}
        if all(u in views or order[u] > last for u in base.users) and \
                all(len(v.users) == 1 for v in views):
            out[base] = rows
    return out


def rows_sum(c, base, pairs, positions):
    """`base` plus, for each (index parent, source parent, index parent's
    node, rows) whose rows were all accumulated once, the batch's one-hot
    contributions."""
    shape = _shape(base)
    total = base
    for lvalue, svalue, lnode, rows in pairs:
        if sorted(rows) != list(range(shape[0])) or len(shape) != 2:
            _no("index_add_ into the rows of a tensor other than into "
                "every row once", "for i in range(len(t)): "
                "t[i].index_add_(0, l[i].long(), d[i]) is")
        index = lvalue if isinstance(lvalue, Ints) else \
            device_index(lnode, lvalue)
        mask = hot(c, index, shape[1], positions, "index_add_")  # [B, K, n]
        src = c.reshape(svalue, _shape(svalue) + [1])
        total = c.add(total, _reduce(c, "sum", c.mul(mask, src), [1], False,
                                     "index_add_"))
    return total
