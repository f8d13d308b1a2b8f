"""The ATen op translations of capture.fx: each takes the node's ops (`c`,
every capture op located at the node's user line) and the ATen op's own
arguments, and returns Capture tracer values. What is not in `OPS` is an
Unsupported error naming the op; a translation composes Capture's ops only
where the composition computes what PyTorch's kernel computes (the same
formula, so the same values up to rounding order)."""

import math

import numpy as np
import torch

from capture import _fx_masks as m
from capture._fx_values import (Ints, LogSoftmax, Mask, Picked, Refused,
                                Transposed,
                                _axis, _check, _count, _dims, _no, _reduce,
                                _shape, aten, is_value)


# Arithmetic. ATen passes Python numbers as they are.

def _arith(name, py):
    def fn(c, a, b, alpha=1):
        if alpha != 1:
            b = c.mul(b, alpha) if is_value(b) else b * alpha
        if not is_value(a) and not is_value(b):
            return py(_check(a, name), _check(b, name))
        return getattr(c, name)(_check(a, name), _check(b, name))
    return fn


_add = _arith("add", lambda a, b: a + b)
_sub = _arith("sub", lambda a, b: a - b)
_mul = _arith("mul", lambda a, b: a * b)


def _div(c, a, b, rounding_mode=None):
    if rounding_mode is not None:
        _no("div with rounding_mode=%r" % rounding_mode)
    return c.div(_check(a, "div"), _check(b, "div"))


def _rsub(c, a, b, alpha=1):
    return _sub(c, b, a, alpha)


def _pow(c, x, e):
    x = _check(x, "pow")
    if e == 2:
        return c.square(x)
    if e == 3:  # PyTorch's kernel multiplies for 3 too
        return c.mul(c.square(x), x)
    if e == 1:
        return x
    if e == 0.5:
        return c.sqrt(x)
    if e == -1:
        return c.div(1.0, x)
    if e == -2:
        return c.div(1.0, c.square(x))
    if e == -0.5:
        return c.div(1.0, c.sqrt(x))
    _no("pow with exponent %r" % (e,), "exponents -2, -1, -0.5, 0.5, 1, 2 "
        "and 3 are")


def _unary(name):
    return lambda c, x: getattr(c, name)(_check(x, name))


def _extremum(c, name, a, b):
    """torch.maximum/minimum; a 0-d tensor constant (torch.max(x,
    torch.tensor(0.))) arrives as a number: filled to the other's shape,
    so NaN still propagates as PyTorch's does."""
    if not is_value(a) and not isinstance(a, Mask):
        a, b = b, a
    a = _check(a, name)
    if not is_value(b) and not isinstance(b, Mask):
        b = m._filled(None)(c, a, float(b))
    return getattr(c, name)(a, _check(b, name))


def _clamp(c, x, lo=None, hi=None):
    x = _check(x, "clamp")
    if is_value(lo) or is_value(hi):
        return _clamp_tensor(c, x, lo, hi)
    return c.clamp(x, -math.inf if lo is None else float(lo),
                   math.inf if hi is None else float(hi))


def _clamp_tensor(c, x, lo=None, hi=None):
    if lo is not None:
        x = c.maximum(x, _check(lo, "clamp"))
    if hi is not None:
        x = c.minimum(x, _check(hi, "clamp"))
    return x


# Matmuls: aten.t of a weight feeding addmm/mm is folded into the matmul's
# transpose flag (fx.py skips t nodes whose every use is such an operand).
def _matmul(c, a, b):
    ta, tb = isinstance(a, Transposed), isinstance(b, Transposed)
    a, b = (a.x if ta else a), (b.x if tb else b)
    a, b = _check(a, "mm"), _check(b, "mm")
    if len(a.shape) != 2 or len(b.shape) != 2:
        _no("matmul of ranks %d and %d" % (len(a.shape), len(b.shape)),
            "only rank-2 operands are")
    return c.matmul(a, b, transpose_a=ta, transpose_b=tb)


def _addmm(c, bias, a, b, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        _no("addmm with beta=%r, alpha=%r" % (beta, alpha))
    if isinstance(b, Transposed) and not isinstance(a, Transposed) and \
            len(_shape(bias)) == 1:
        return c.linear(_check(a, "addmm"), _check(b.x, "addmm"), bias)
    return c.add(_matmul(c, a, b), _check(bias, "addmm"))


def _t(c, x):
    x = _check(x, "t")
    return c.transpose(x, [1, 0]) if len(x.shape) == 2 else x


# Reductions.

def _sum(c, x, dims=None, keepdim=False, dtype=None):
    if dtype is not None:
        _no("sum with dtype=%r" % dtype)
    return _reduce(c, "sum", x, dims, keepdim, "sum")


def _mean(c, x, dims=None, keepdim=False, dtype=None):
    if dtype is not None:
        _no("mean with dtype=%r" % dtype)
    return _reduce(c, "mean", x, dims, keepdim, "mean")


def _amax(c, x, dims=(), keepdim=False):
    return _reduce(c, "max", x, dims, keepdim, "amax")


def _amin(c, x, dims=(), keepdim=False):
    return c.neg(_reduce(c, "max", c.neg(_check(x, "amin")), dims, keepdim,
                         "amin"))


def first_extreme(c, x, dim, keepdim, positions, largest=True):
    """(values, Picked) of max(dim) / min(dim): PyTorch's indices are the
    first extreme along dim. The mask of extremes, each position's index
    where it is one (and the size elsewhere), the smallest: the first one;
    positions is arange(size) as a constant."""
    x = _check(x, "argmax")
    shape = _shape(x)
    d = _axis(dim, len(shape), "argmax")
    signed = x if largest else c.neg(x)
    top = _reduce(c, "max", signed, [d], True, "argmax")
    hit = c.compare("eq", signed, top)
    pos = c.reshape(positions, [shape[d]] + [1] * (len(shape) - 1 - d))
    size = float(shape[d])
    score = c.add(c.mul(pos, hit), c.mul(c.sub(1.0, hit), size))
    first = c.neg(_reduce(c, "max", c.neg(score), [d], True, "argmax"))
    mask = c.compare("eq", pos, first)
    values = top if largest else c.neg(top)
    if not keepdim:
        kept = shape[:d] + shape[d + 1:]
        values, first = c.reshape(values, kept), c.reshape(first, kept)
    return values, Picked(mask, first, d, keepdim)


def _var(c, x, dims=None, correction=1, keepdim=False):
    """torch.var: the mean of squared deviations over n - correction."""
    x = _check(x, "var")
    shape = _shape(x)
    d = _dims(dims, len(shape), "var")
    n = _count(shape, d) - (1 if correction is None else correction)
    if n <= 0:
        _no("var/std over %d element(s) with correction %r"
            % (_count(shape, d), correction), "PyTorch gives inf or nan")
    mean = _reduce(c, "mean", x, d, True, "var")
    dev = c.square(c.sub(x, mean))
    return c.div(_reduce(c, "sum", dev, d, keepdim, "var"), float(n))


def _std(c, x, dims=None, correction=1, keepdim=False):
    return c.sqrt(_var(c, x, dims, correction, keepdim))


def _logsumexp(c, x, dims, keepdim=False):
    """PyTorch's formula: max + log(sum(exp(x - max))), the max taken
    without gradient (its gradient is softmax(x) either way)."""
    x = _check(x, "logsumexp")
    shape = _shape(x)
    d = _dims(dims, len(shape), "logsumexp")
    m = c.stop_gradient(_reduce(c, "max", x, d, True, "logsumexp"))
    s = _reduce(c, "sum", c.exp(c.sub(x, m)), d, keepdim, "logsumexp")
    if not keepdim:
        m = c.reshape(m, _shape(s))
    return c.add(c.log(s), m)


def _softmax(name):
    def fn(c, x, dim, half_to_float=False):
        x = _check(x, name)
        return getattr(c, name)(x, _axis(dim, len(x.shape), name))
    return fn


# Shapes. Int values change only their index map.

def _sizes(shape, sizes, what):
    total = int(np.prod(shape)) if shape else 1
    sizes = [int(s) for s in sizes]
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1])) or 1
        sizes[sizes.index(-1)] = total // known
    if int(np.prod(sizes)) != total:
        raise ValueError("%s: %s does not fit %d elements"
                         % (what, sizes, total))
    return sizes


def _view(c, x, sizes):
    if isinstance(x, Ints):
        return Ints(x.base, x.index.reshape(_sizes(x.shape, sizes, "view")))
    x = _check(x, "view")
    sizes = _sizes(_shape(x), sizes, "view")
    return x if sizes == _shape(x) else c.reshape(x, sizes)


def _squeeze(c, x, dim=None):
    if isinstance(x, Picked) and x.kept and (
            dim is None or _axis(dim, len(x.shape), "squeeze") == x.dim):
        index = c.reshape(x.index, x.shape[:x.dim] + x.shape[x.dim + 1:])
        return Picked(x.mask, index, x.dim, False)
    shape = _shape(x)
    if dim is None:
        return _view(c, x, [n for n in shape if n != 1])
    d = _axis(dim, len(shape), "squeeze")
    if not shape or shape[d] != 1:
        return x
    return _view(c, x, shape[:d] + shape[d + 1:])


def _unsqueeze(c, x, dim):
    if isinstance(x, Picked) and not x.kept:
        d = _axis(dim, len(x.shape) + 1, "unsqueeze")
        if d == x.dim:
            return Picked(x.mask, c.reshape(x.index, _shape(x.mask)[:d] +
                                            [1] + x.shape[d:]), d, True)
    shape = _shape(x)
    d = _axis(dim, len(shape) + 1, "unsqueeze")
    return _view(c, x, shape[:d] + [1] + shape[d:])


def _expand(c, x, sizes, implicit=False):
    shape = _shape(x)
    lead = len(sizes) - len(shape)
    target = [shape[i - lead] if n == -1 else int(n)
              for i, n in enumerate(sizes)]
    if isinstance(x, Ints):
        return Ints(x.base, np.broadcast_to(x.index, target))
    if isinstance(x, Mask):
        return Mask(_expand(c, x.value, sizes))
    x = _check(x, "expand")
    return x if target == shape else c.broadcast_to(x, target)


def _permute(c, x, dims):
    rank = len(_shape(x))
    perm = [_axis(d, rank, "permute") for d in dims]
    if isinstance(x, Ints):
        return Ints(x.base, np.transpose(x.index, perm))
    return c.transpose(_check(x, "permute"), perm)


def _transpose(c, x, a, b):
    rank = len(_shape(x))
    perm = list(range(rank))
    a, b = _axis(a, rank, "transpose"), _axis(b, rank, "transpose")
    perm[a], perm[b] = perm[b], perm[a]
    return _permute(c, x, perm)


def _slice(c, x, dim=0, start=None, end=None, step=1):
    shape = _shape(x)
    d = _axis(dim, len(shape), "slice")
    lo, hi, st = slice(start, end, step).indices(shape[d])
    if isinstance(x, Ints):
        idx = [slice(None)] * len(shape)
        idx[d] = slice(lo, hi, st)
        return Ints(x.base, x.index[tuple(idx)])
    x = _check(x, "slice")
    if st != 1:
        _no("a slice with step %d" % st, "steps of 1 are")
    n = max(hi - lo, 0)
    return x if (lo, n) == (0, shape[d]) else c.slice(x, d, lo, n)


def _select(c, x, dim, index):
    shape = _shape(x)
    d = _axis(dim, len(shape), "select")
    k = index + shape[d] if index < 0 else index
    if not 0 <= k < shape[d]:
        raise IndexError("index %d out of range for size %d"
                         % (index, shape[d]))
    return _view(c, _slice(c, x, d, k, k + 1), shape[:d] + shape[d + 1:])


def _cat(c, tensors, dim=0):
    tensors = [_check(t, "cat") for t in tensors]
    return c.concat(tensors, _axis(dim, len(tensors[0].shape), "cat"))


def _identity(c, x, *args, **kwargs):
    return x


def _to_copy(c, x, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    if dtype is None:
        return x
    if isinstance(x, Picked):
        if dtype == torch.float32:
            return x.index
        if dtype in (torch.int64, torch.int32):
            return x
        _no("a cast of argmax indices to %s" % dtype)
    if isinstance(x, Mask):
        if dtype == torch.float32:
            return x.value
        if dtype == torch.bool:
            return x
        _no("a cast of a bool tensor to %s" % dtype, "use .float()")
    if isinstance(x, Ints):
        if dtype in (torch.int64, torch.int32):
            return x
        _no("a cast of an integer tensor to %s" % dtype,
            "pass the values as a float input")
    if dtype == torch.float32:
        return x
    _no("a cast of a float tensor to %s" % dtype)


# Indexing by integer inputs.

def _gather(c, x, dim, index, sparse_grad=False):
    """x.gather(dim, index) along the last dimension, where index picks one
    element per row: the row's dot product with one_hot(index), which is
    the element itself for finite rows (an infinite or NaN element
    elsewhere in the row makes it NaN, never a different finite value)."""
    x = _check(x, "gather")
    shape = _shape(x)
    d = _axis(dim, len(shape), "gather")
    if isinstance(index, Picked):
        if not index.kept or index.dim != d or \
                _shape(index.mask) != shape:
            _no("gather of argmax indices of another shape or dimension",
                "x.gather(d, x.argmax(d, keepdim=True)) of the same shape "
                "is")
        return _reduce(c, "sum", c.mul(x, index.mask), [d], True, "gather")
    if not isinstance(index, Ints):
        _no("gather with a float index")
    if d != len(shape) - 1 or index.shape != shape[:-1] + [1]:
        _no("gather of index shape %s from %s along dim %d"
            % (index.shape, shape, dim), "one index per row along the last "
            "dimension (q.gather(1, actions) with actions of shape [N, 1]) "
            "is")
    hot = c.one_hot(index.flat("gather"), shape[-1])
    if len(shape) != 2:
        hot = c.reshape(hot, shape)
    return _reduce(c, "sum", c.mul(x, hot), [d], True, "gather")


def _one_hot(c, x, num_classes=-1):
    if num_classes < 0:
        _no("one_hot without num_classes", "the class count is read from "
            "the data; pass num_classes")
    if isinstance(x, Picked):
        if x.kept or x.dim != len(_shape(x.mask)) - 1 or \
                _shape(x.mask)[-1] != num_classes:
            _no("one_hot of argmax indices other than over the last "
                "dimension, with its size")
        return x.mask
    if not isinstance(x, Ints):
        _no("one_hot of a float tensor")
    hot = c.one_hot(x.flat("one_hot"), num_classes)
    return _view(c, hot, x.shape + [num_classes])


def _embedding(c, weight, index, padding_idx=-1, scale_grad_by_freq=False,
               sparse=False):
    if padding_idx != -1:
        _no("embedding with padding_idx=%r" % padding_idx, "torch gives that "
            "row no gradient, which the row lookup does not; leave it None")
    if scale_grad_by_freq or sparse:
        _no("embedding with scale_grad_by_freq or sparse")
    if not isinstance(index, Ints):
        _no("embedding with float indices")
    rows = c.get_rows(_check(weight, "embedding"), index.flat("embedding"))
    return _view(c, rows, index.shape + [_shape(weight)[1]])


def _nll_loss(c, logp, target, weight=None, reduction=1, ignore_index=-100):
    """nll_loss of log_softmax(x) is Capture's cross_entropy(x); of other
    log-probabilities, minus their gather's mean."""
    if weight is not None or reduction != 1:
        _no("nll_loss/cross_entropy with weight or reduction other than "
            "'mean'")
    if not isinstance(target, Ints) or len(target.shape) != 1:
        _no("nll_loss/cross_entropy with targets that are not one class "
            "index per row")
    if isinstance(logp, LogSoftmax):
        loss = c.cross_entropy(logp.logits, target.flat("cross_entropy"))
    else:
        logp = _check(logp, "nll_loss")
        picked = c.mul(logp, c.one_hot(target.flat("nll_loss"),
                                       _shape(logp)[1]))
        loss = c.neg(c.mean(c.sum(picked, 1)))
    return (loss, Refused("nll_loss's total weight is not supported"))

def _mse_loss(c, a, b, reduction=1):
    a, b = _check(a, "mse_loss"), _check(b, "mse_loss")
    if reduction == 1:
        return c.mse(a, b)
    d = c.square(c.sub(a, b))
    return c.sum(d) if reduction == 2 else d


def _layer_norm(c, x, shape, weight, bias, eps):
    """(x - mean) * rsqrt(var + eps) * weight + bias over the last
    len(shape) dimensions, the biased variance: PyTorch's formula."""
    x = _check(x, "layer_norm")
    rank = len(_shape(x))
    dims = list(range(rank - len(shape), rank))
    mean = _reduce(c, "mean", x, dims, True, "layer_norm")
    dev = c.sub(x, mean)
    var = _reduce(c, "mean", c.square(dev), dims, True, "layer_norm")
    rstd = c.div(1.0, c.sqrt(c.add(var, float(eps))))
    out = c.mul(dev, rstd)
    if weight is not None:
        out = c.mul(out, weight)
    if bias is not None:
        out = c.add(out, bias)
    return (out, Refused("layer_norm's saved mean"),
            Refused("layer_norm's saved rstd"))

def _random(name):
    def fn(c, *args, **kwargs):
        _no("random numbers drawn from traced values (%s)" % name,
            "draw standard noise (torch.randn_like, Normal.rsample) and "
            "scale it, or pass the noise as an input")
    return fn


def _scalars(name, node, keys, defaults):
    """A random op's number arguments after its tensor, by position or
    keyword; a traced value among them is refused."""
    values = list(defaults)
    for i, key in enumerate(keys):
        if len(node.args) > i + 1:
            v = node.args[i + 1]
        elif key in node.kwargs:
            v = node.kwargs[key]
        else:
            continue
        if isinstance(v, torch.fx.Node):
            _random(name)(None)
        values[i] = float(v)
    return values


def _draw_normal(node, shape):
    mean, std = _scalars("normal_", node, ("mean", "std"), (0.0, 1.0))
    return lambda: torch.empty(shape).normal_(mean, std)


def _draw_uniform(node, shape):
    lo, hi = _scalars("uniform_", node, ("from", "to"), (0.0, 1.0))
    return lambda: torch.empty(shape).uniform_(lo, hi)


# The random ops a step draws on the host, each call, from torch's own
# generator in the order the loss calls them, so that a run from the same
# seed sees PyTorch's numbers: op -> (node, shape) -> draw().
DRAWS = {
    aten.normal_.default: _draw_normal,
    aten.uniform_.default: _draw_uniform,
    aten.randn.default: lambda node, shape: lambda: torch.randn(shape),
    aten.randn_like.default: lambda node, shape: lambda: torch.randn(shape),
    aten.rand.default: lambda node, shape: lambda: torch.rand(shape),
    aten.rand_like.default: lambda node, shape: lambda: torch.rand(shape),
}

# Ops that only give a random op its shape (empty(shape).normal_()).
SHAPES = (aten.empty.memory_format, aten.empty_like.default)


def _dropout(c, x, p, train):
    if p == 0 or not train:
        return (x, Refused("dropout's mask is not supported"))
    _no("dropout with p=%g in training mode" % p, "a captured step is "
        "deterministic; use p=0 or model.eval()")


OPS = {
    aten.add.Tensor: _add, aten.add.Scalar: _add,
    aten.sub.Tensor: _sub, aten.sub.Scalar: _sub,
    aten.mul.Tensor: _mul, aten.mul.Scalar: _mul,
    aten.div.Tensor: _div, aten.div.Scalar: _div, aten.div.Tensor_mode: _div,
    aten.rsub.Scalar: _rsub, aten.rsub.Tensor: _rsub,
    aten.neg.default: _unary("neg"),
    aten.pow.Tensor_Scalar: _pow,
    aten.exp.default: _unary("exp"), aten.log.default: _unary("log"),
    aten.tanh.default: _unary("tanh"), aten.sigmoid.default: _unary("sigmoid"),
    aten.relu.default: _unary("relu"), aten.sqrt.default: _unary("sqrt"),
    aten.rsqrt.default: lambda c, x: c.div(1.0, c.sqrt(_check(x, "rsqrt"))),
    aten.reciprocal.default: lambda c, x: c.div(1.0, _check(x, "reciprocal")),
    aten.square.default: _unary("square"),
    aten.maximum.default: lambda c, a, b: _extremum(c, "maximum", a, b),
    aten.minimum.default: lambda c, a, b: _extremum(c, "minimum", a, b),
    aten.clamp.default: _clamp, aten.clamp.Tensor: _clamp_tensor,
    aten.clamp_min.default: lambda c, x, lo: _clamp(c, x, lo, None),
    aten.clamp_max.default: lambda c, x, hi: _clamp(c, x, None, hi),
    aten.mm.default: _matmul, aten.addmm.default: _addmm, aten.t.default: _t,
    aten.sum.default: _sum, aten.sum.dim_IntList: _sum,
    aten.mean.default: _mean, aten.mean.dim: _mean,
    aten.amax.default: _amax, aten.amin.default: _amin,
    aten.max.default: lambda c, x: _amax(c, x),
    aten.min.default: lambda c, x: _amin(c, x),
    # max.dim, min.dim and argmax: fx.py computes them (first_extreme), as
    # they need an arange constant.
    aten.max.dim: None, aten.min.dim: None, aten.argmax.default: None,
    aten.var.correction: _var, aten.std.correction: _std,
    aten.logsumexp.default: _logsumexp,
    aten._softmax.default: _softmax("softmax"),
    aten._log_softmax.default: _softmax("log_softmax"),
    aten.view.default: _view, aten._unsafe_view.default: _view,
    aten.reshape.default: _view,
    aten._reshape_alias.default: lambda c, x, sizes, strides: _view(c, x,
                                                                   sizes),
    aten.squeeze.default: _squeeze, aten.squeeze.dim: _squeeze,
    aten.unsqueeze.default: _unsqueeze, aten.expand.default: _expand,
    aten.permute.default: _permute, aten.transpose.int: _transpose,
    aten.slice.Tensor: _slice, aten.select.int: _select,
    aten.cat.default: _cat,
    aten.clone.default: _identity, aten.alias.default: _identity,
    aten.lift_fresh_copy.default: _identity,
    aten._to_copy.default: _to_copy,
    aten.gather.default: _gather, torch.ops.capture.one_hot.default: _one_hot,
    aten.embedding.default: _embedding,
    aten.nll_loss_forward.default: _nll_loss,
    aten.mse_loss.default: _mse_loss,
    aten.native_layer_norm.default: _layer_norm,
    aten.native_dropout.default: _dropout,
    aten.normal.Tensor_Tensor: _random("normal"),
    aten.normal.float_Tensor: _random("normal"),
    aten.normal.Tensor_float: _random("normal"),
    aten.bernoulli.default: _random("bernoulli"),
    aten.bernoulli_.float: _random("bernoulli_"),
    aten.multinomial.default: _random("multinomial"),
    aten.where.self: m._where,
    aten.masked_fill.Scalar: m._masked_fill,
    aten.masked_fill.Tensor: m._masked_fill,
    aten.index_put.default: m._index_put,
    aten.abs.default: m._abs, aten.sign.default: m._sign,
    aten.leaky_relu.default: m._leaky_relu, aten.elu.default: m._elu,
    aten.softplus.default: m._softplus, aten.gelu.default: m._gelu,
    aten.smooth_l1_loss.default: m._smooth_l1,
    aten.huber_loss.default: m._huber,
    aten.logical_not.default: m._logical("not"),
    aten.bitwise_not.default: m._logical("not"),
    aten.logical_and.default: m._logical("and"),
    aten.bitwise_and.Tensor: m._logical("and"),
    aten.logical_or.default: m._logical("or"),
    aten.bitwise_or.Tensor: m._logical("or"),
    aten.scalar_tensor.default: lambda c, v, **kw: float(v),
    # Computed in _fx_graph (_fx_index): they need an arange constant.
    aten.index_add.default: None, aten.index.Tensor: None,
    aten.arange.default: None, aten.arange.start: None,
    aten.floor.default: _unary("floor"), aten.ceil.default: _unary("ceil"),
    aten.erf.default: _unary("erf"),
    aten.zeros_like.default: m._filled(0.0),
    aten.ones_like.default: m._filled(1.0),
    aten.full_like.default: m._filled(None),
    aten.lt.Tensor: m._compare("lt"), aten.lt.Scalar: m._compare("lt"),
    aten.le.Tensor: m._compare("le"), aten.le.Scalar: m._compare("le"),
    aten.gt.Tensor: m._compare("gt"), aten.gt.Scalar: m._compare("gt"),
    aten.ge.Tensor: m._compare("ge"), aten.ge.Scalar: m._compare("ge"),
    aten.eq.Tensor: m._compare("eq"), aten.eq.Scalar: m._compare("eq"),
    aten.ne.Tensor: m._compare("ne"), aten.ne.Scalar: m._compare("ne"),
}
