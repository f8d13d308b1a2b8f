"""The torch.fx node translations of capture.fx: each takes the node's ops
(`c`, every capture op located at the node's user line) and torch's own
arguments, so that a function and its method form (torch.sum(x, 1),
x.sum(1)) share one. What is not here is an Unsupported error."""

import operator

import numpy as np
import torch
import torch.nn.functional as F

import capture


class Unsupported(capture.Error):
    """An op, module or argument the importer does not translate."""

    code = 2


def _is_value(x):
    return isinstance(x, (capture.Tensor, capture.Weight))


def _shape(x):
    return list(x.shape)


def _axis(d, rank, what):
    if not isinstance(d, int):
        raise TypeError("%s: expected an int dimension, got %r" % (what, d))
    if d < -rank or d >= max(rank, 1):
        raise IndexError("%s: dimension %d out of range for rank %d"
                         % (what, d, rank))
    return d % rank if rank else 0


def _dims(dim, rank, what):
    if dim is None:
        return None
    dims = [dim] if isinstance(dim, int) else list(dim)
    return sorted({_axis(d, rank, what) for d in dims})


def _reduce(c, fn_name, x, dim, keepdim, what):
    shape = _shape(x)
    dims = _dims(dim, len(shape), what)
    if dims is None:  # every element: a scalar (ones with keepdim)
        out = getattr(c, fn_name)(x)
        return c.reshape(out, [1] * len(shape)) if keepdim else out
    out = x
    for d in reversed(dims):
        out = getattr(c, fn_name)(out, d)
    if keepdim:
        out = c.reshape(out, [1 if i in dims else n
                              for i, n in enumerate(shape)])
    return out


def _sizes(args):
    """view(2, 3), view((2, 3)) and view([2, 3]) alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return list(args[0])
    return list(args)


def _infer(shape, sizes, what):
    total = int(np.prod(shape)) if shape else 1
    sizes = [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise ValueError("%s: more than one -1 in %s" % (what, sizes))
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1])) or 1
        if total % known:
            raise ValueError("%s: %s does not fit %d elements"
                             % (what, sizes, total))
        sizes[sizes.index(-1)] = total // known
    return sizes


def _no(what, hint=""):
    raise Unsupported("%s is not supported%s" % (what, hint and "; " + hint))


def _check_defaults(what, kwargs, defaults):
    for key, default in defaults.items():
        if key in kwargs and kwargs[key] != default:
            _no("%s with %s=%r" % (what, key, kwargs[key]),
                "only %s=%r is" % (key, default))


# Each translation takes the node's ops (`c`) and torch's own arguments, so
# a function and its method form (torch.sum(x, 1), x.sum(1)) share one.

def _sum(c, x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        _no("sum with dtype=%r" % dtype)
    return _reduce(c, "sum", x, dim, keepdim, "sum")


def _mean(c, x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        _no("mean with dtype=%r" % dtype)
    return _reduce(c, "mean", x, dim, keepdim, "mean")


def _amax(c, x, dim=(), keepdim=False):
    return _reduce(c, "max", x, None if dim == () else dim, keepdim, "amax")


def _max(c, x, other=None, dim=None, keepdim=False):
    if _is_value(other):
        return c.maximum(x, other)
    if other is not None or dim is not None:
        _no("torch.max(x, dim), which also returns indices",
            "use torch.amax(x, dim)")
    return c.max(x)


def _min(c, x, other=None):
    if _is_value(other):
        return c.minimum(x, other)
    _no("torch.min(x) as a reduction", "only the elementwise "
        "torch.min(a, b) is")


def _binary(name):
    def fn(c, a, b, alpha=1):
        if alpha != 1:
            _no("%s with alpha=%r" % (name, alpha))
        if not _is_value(a) and not _is_value(b):
            return {"add": operator.add, "sub": operator.sub,
                    "mul": operator.mul, "div": operator.truediv}[name](a, b)
        return getattr(c, name)(a, b)
    return fn


def _div(c, a, b, rounding_mode=None):
    if rounding_mode is not None:
        _no("div with rounding_mode=%r" % rounding_mode)
    return _binary("div")(c, a, b)


def _rsub(c, a, b, alpha=1):
    return _binary("sub")(c, b, a, alpha)


def _pow(c, x, exponent):
    if not _is_value(x):
        return x ** exponent
    if exponent == 2:
        return c.square(x)
    if exponent == 0.5:
        return c.sqrt(x)
    if exponent == 1:
        return x
    _no("pow with exponent %r" % (exponent,), "exponents 2, 1 and 0.5 are "
        "(write x * x * x for a cube)")


def _clamp(c, x, min=None, max=None):
    lo = -float("inf") if min is None else float(min)
    hi = float("inf") if max is None else float(max)
    if _is_value(min) or _is_value(max):
        _no("clamp with tensor bounds", "use torch.minimum/torch.maximum")
    return c.clamp(x, lo, hi)


def _unary(name):
    return lambda c, x: getattr(c, name)(x)


def _softmax(name):
    def fn(c, x, dim=None, _stacklevel=3, dtype=None):
        if dim is None:
            _no("%s without dim" % name)
        if dtype is not None:
            _no("%s with dtype=%r" % (name, dtype))
        return getattr(c, name)(x, _axis(dim, len(x.shape), name))
    return fn


def _reshape(c, x, *sizes):
    return c.reshape(x, _infer(_shape(x), _sizes(sizes), "reshape"))


def _flatten(c, x, start_dim=0, end_dim=-1):
    shape = _shape(x)
    if not shape:
        return c.reshape(x, [1])
    s = _axis(start_dim, len(shape), "flatten")
    e = _axis(end_dim, len(shape), "flatten")
    return c.reshape(x, shape[:s] + [int(np.prod(shape[s:e + 1]))] +
                     shape[e + 1:])


def _squeeze(c, x, dim=None):
    shape = _shape(x)
    if dim is None:
        return c.reshape(x, [n for n in shape if n != 1])
    d = _axis(dim, len(shape), "squeeze")
    if shape[d] != 1:
        return x
    return c.reshape(x, shape[:d] + shape[d + 1:])


def _unsqueeze(c, x, dim):
    shape = _shape(x)
    d = _axis(dim, len(shape) + 1, "unsqueeze")
    return c.reshape(x, shape[:d] + [1] + shape[d:])


def _transpose(c, x, dim0, dim1):
    rank = len(x.shape)
    perm = list(range(rank))
    a, b = _axis(dim0, rank, "transpose"), _axis(dim1, rank, "transpose")
    perm[a], perm[b] = perm[b], perm[a]
    return c.transpose(x, perm)


def _t(c, x):
    if len(x.shape) < 2:
        return x
    return c.transpose(x, [1, 0])


def _permute(c, x, *dims):
    rank = len(x.shape)
    return c.transpose(x, [_axis(d, rank, "permute") for d in _sizes(dims)])


def _expand(c, x, *sizes):
    sizes = _sizes(sizes)
    shape = _shape(x)
    lead = len(sizes) - len(shape)
    target = [n if n != -1 else shape[i - lead] for i, n in enumerate(sizes)]
    return c.broadcast_to(x, target)


def _matmul(c, a, b):
    if len(a.shape) != 2 or len(b.shape) != 2:
        _no("matmul of ranks %d and %d" % (len(a.shape), len(b.shape)),
            "only rank-2 operands are (reshape first)")
    return c.matmul(a, b)


def _linear(c, x, weight, bias=None):
    return c.linear(x, weight, bias)


def _cat(c, tensors, dim=0):
    return c.concat(list(tensors), dim)


def _one_hot(c, x, num_classes=-1):
    if num_classes < 0:
        _no("one_hot without num_classes", "the class count is read from "
            "the data; pass num_classes")
    return c.one_hot(x, num_classes)


def _embedding(c, input, weight, padding_idx=None, max_norm=None,
               norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    _check_defaults("embedding", dict(max_norm=max_norm,
                                      scale_grad_by_freq=scale_grad_by_freq,
                                      sparse=sparse),
                    dict(max_norm=None, scale_grad_by_freq=False,
                         sparse=False))
    if padding_idx is not None:
        _no("embedding with padding_idx=%r" % padding_idx, "torch gives that "
            "row no gradient, which the row lookup does not; leave it None")
    # ag.get_rows looks up a list of rows, and i32 tensors do not reshape.
    if len(_shape(input)) != 1:
        _no("embedding of indices of shape %s" % _shape(input),
            "only one dimension of indices is; pass them flattened and "
            "view the rows, e.g. embed(ids).view(batch, length, dim)")
    return c.get_rows(weight, input)


def _cross_entropy(c, input, target, weight=None, size_average=None,
                   ignore_index=-100, reduce=None, reduction="mean",
                   label_smoothing=0.0):
    _check_defaults("cross_entropy", dict(
        weight=weight, size_average=size_average, ignore_index=ignore_index,
        reduce=reduce, reduction=reduction, label_smoothing=label_smoothing),
        dict(weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean", label_smoothing=0.0))
    return c.cross_entropy(input, target)


def _mse_loss(c, input, target, size_average=None, reduce=None,
              reduction="mean"):
    _check_defaults("mse_loss", dict(size_average=size_average,
                                     reduce=reduce),
                    dict(size_average=None, reduce=None))
    if reduction == "mean":
        return c.mse(input, target)
    d = c.square(c.sub(input, target))
    if reduction == "sum":
        return c.sum(d)
    if reduction == "none":
        return d
    _no("mse_loss with reduction=%r" % reduction)


def _identity(c, x, *args, **kwargs):
    return x


def _to_float(c, x, *args, **kwargs):
    if x.dtype != "float32":
        _no("a cast of an int32 tensor to float", "pass it as a float input")
    return x


def _detach(c, x):
    _no("detach()", "Capture differentiates through every use; pass the "
        "detached value as an input of the step")


def _size(c, x, dim=None):
    shape = tuple(x.shape)
    return shape if dim is None else shape[_axis(dim, len(shape), "size")]


def _getitem(c, x, index):
    if not _is_value(x):
        return x[index]
    shape = _shape(x)
    index = index if isinstance(index, tuple) else (index,)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        fill = len(shape) - (len(index) - 1 - index.count(None))
        index = index[:at] + (slice(None),) * fill + index[at + 1:]
    out, axis, final = x, 0, []
    for i in index:
        if i is None:
            final.append(1)
            continue
        if axis >= len(shape):
            raise IndexError("too many indices for a tensor of rank %d"
                             % len(shape))
        n = shape[axis]
        if isinstance(i, int):
            k = i + n if i < 0 else i
            if not 0 <= k < n:
                raise IndexError("index %d out of range for size %d" % (i, n))
            out = c.slice(out, axis, k, 1)
        elif isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                _no("indexing with a step of %d" % step)
            out = c.slice(out, axis, start, max(stop - start, 0))
            final.append(max(stop - start, 0))
        else:
            _no("indexing with %s" % type(i).__name__,
                "integers, slices, None and ... are")
        axis += 1
    final += shape[axis:]
    return c.reshape(out, final) if list(out.shape) != final else out


def _getattr(c, x, name):
    if name == "shape":
        return tuple(x.shape)
    if name == "T":
        return c.transpose(x, list(range(len(x.shape)))[::-1])
    _no("the attribute .%s of a tensor" % name)


_FUNCTIONS = {
    operator.add: _binary("add"), torch.add: _binary("add"),
    operator.sub: _binary("sub"), torch.sub: _binary("sub"),
    operator.mul: _binary("mul"), torch.mul: _binary("mul"),
    operator.truediv: _div, torch.div: _div, torch.true_divide: _div,
    torch.rsub: _rsub,
    operator.neg: lambda c, x: c.neg(x) if _is_value(x) else -x,
    torch.neg: lambda c, x: c.neg(x),
    operator.pow: _pow, torch.pow: _pow,
    operator.matmul: _matmul, torch.matmul: _matmul, torch.mm: _matmul,
    operator.getitem: _getitem, getattr: _getattr,
    torch.exp: _unary("exp"), torch.log: _unary("log"),
    torch.tanh: _unary("tanh"), torch.sigmoid: _unary("sigmoid"),
    torch.relu: _unary("relu"), torch.sqrt: _unary("sqrt"),
    torch.square: _unary("square"),
    F.relu: lambda c, x, inplace=False: c.relu(x),
    F.tanh: _unary("tanh"), F.sigmoid: _unary("sigmoid"),
    torch.minimum: lambda c, a, b: c.minimum(a, b),
    torch.maximum: lambda c, a, b: c.maximum(a, b),
    torch.max: _max, torch.min: _min, torch.amax: _amax,
    torch.clamp: _clamp, torch.clip: _clamp,
    torch.sum: _sum, torch.mean: _mean,
    torch.softmax: _softmax("softmax"), F.softmax: _softmax("softmax"),
    torch.log_softmax: _softmax("log_softmax"),
    F.log_softmax: _softmax("log_softmax"),
    torch.reshape: _reshape, torch.flatten: _flatten,
    torch.squeeze: _squeeze, torch.unsqueeze: _unsqueeze,
    torch.transpose: _transpose, torch.t: _t, torch.permute: _permute,
    torch.cat: _cat, torch.concat: _cat,
    F.linear: _linear, F.one_hot: _one_hot, F.embedding: _embedding,
    F.cross_entropy: _cross_entropy, F.mse_loss: _mse_loss,
}

_METHODS = {
    "add": _binary("add"), "sub": _binary("sub"), "mul": _binary("mul"),
    "div": _div, "neg": lambda c, x: c.neg(x), "pow": _pow,
    "matmul": _matmul, "exp": _unary("exp"), "log": _unary("log"),
    "tanh": _unary("tanh"), "sigmoid": _unary("sigmoid"),
    "relu": _unary("relu"), "sqrt": _unary("sqrt"),
    "square": _unary("square"), "clamp": _clamp, "clip": _clamp,
    "sum": _sum, "mean": _mean, "amax": _amax, "max": _max,
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "view": _reshape, "reshape": _reshape, "flatten": _flatten,
    "squeeze": _squeeze, "unsqueeze": _unsqueeze, "transpose": _transpose,
    "t": _t, "permute": _permute, "expand": _expand,
    "contiguous": _identity, "clone": _identity, "float": _to_float,
    "detach": _detach, "size": _size,
    "dim": lambda c, x: len(x.shape),
}


def _module_call(c, module, weight, args, kwargs):
    """A leaf module (torch.nn's own): its functional form."""
    m = module
    if isinstance(m, torch.nn.Linear):
        return c.linear(args[0], weight("weight"),
                        weight("bias") if m.bias is not None else None)
    if isinstance(m, torch.nn.Tanh):
        return c.tanh(args[0])
    if isinstance(m, torch.nn.ReLU):
        return c.relu(args[0])
    if isinstance(m, torch.nn.Sigmoid):
        return c.sigmoid(args[0])
    if isinstance(m, torch.nn.Identity):
        return args[0]
    if isinstance(m, torch.nn.Embedding):
        return _embedding(c, args[0], weight("weight"), m.padding_idx,
                          m.max_norm, m.norm_type, m.scale_grad_by_freq,
                          m.sparse)
    if isinstance(m, torch.nn.Softmax):
        return _softmax("softmax")(c, args[0], m.dim)
    if isinstance(m, torch.nn.LogSoftmax):
        return _softmax("log_softmax")(c, args[0], m.dim)
    if isinstance(m, torch.nn.Flatten):
        return _flatten(c, args[0], m.start_dim, m.end_dim)
    if isinstance(m, torch.nn.Dropout):
        if m.p == 0 or not m.training:
            return args[0]
        _no("Dropout(p=%g) in training mode" % m.p, "a captured step is "
            "deterministic; use p=0 or model.eval()")
    if isinstance(m, torch.nn.MSELoss):
        return _mse_loss(c, *args, reduction=m.reduction)
    if isinstance(m, torch.nn.CrossEntropyLoss):
        return _cross_entropy(c, *args, weight=m.weight,
                              ignore_index=m.ignore_index,
                              reduction=m.reduction,
                              label_smoothing=m.label_smoothing)
    _no("the module %s.%s" % (type(m).__module__, type(m).__name__),
        "supported modules: Linear, Embedding, Tanh, ReLU, Sigmoid, "
        "Identity, Softmax, "
        "LogSoftmax, Flatten, Dropout (p=0 or eval), MSELoss, "
        "CrossEntropyLoss; or write its forward with supported ops")
