"""capture.fx's comparisons and what is written with them: where,
masked_fill, boolean-mask assignment, abs, sign, LeakyReLU, ELU, Softplus,
tanh-GELU, smooth L1 and Huber losses, logical ops."""

import math

import torch

from capture._fx_values import Ints, Mask, _check, _no, is_value

# Comparisons, masks and what is written with them. A mask selects with
# arithmetic (a * m + b * (1 - m)), which is the selected value itself for
# finite values; an infinite or NaN value in the branch not taken makes
# NaN, never a different finite number.

def _compare(predicate):
    def fn(c, a, b):
        if isinstance(a, Ints) or isinstance(b, Ints):
            _no("a comparison of integer tensors")
        a = _check(a, predicate)
        if is_value(b) or isinstance(b, Mask):
            return Mask(c.compare(predicate, a, _check(b, predicate)))
        return Mask(c.compare(predicate, a, float(b)))
    return fn


def _mask(x, what):
    if not isinstance(x, Mask):
        _no("%s of a tensor that is not a comparison's result" % what)
    return x.value


def _choose(c, m, a, b):
    """where(m, a, b) for a 0/1 mask m; numbers on either side."""
    if not is_value(a) and not is_value(b):
        return c.add(c.mul(m, float(a)), c.mul(c.sub(1.0, m), float(b)))
    for v, keep, other in ((a, m, b), (b, None, a)):
        if not is_value(v) and math.isinf(float(v)):
            # t + m / (1 - m) * inf-sign: t where m is 0, +-inf where 1.
            t = _check(other, "where")
            hit = m if keep is not None else c.sub(1.0, m)
            step = c.div(hit, c.sub(1.0, hit))
            return c.add(t, step) if float(v) > 0 else c.sub(t, step)
    picked = c.mul(_check(a, "where"), m) if is_value(a) else \
        c.mul(m, float(a))
    rest = c.sub(1.0, m)
    other = c.mul(_check(b, "where"), rest) if is_value(b) else \
        c.mul(rest, float(b))
    return c.add(picked, other)


def _where(c, cond, a, b):
    return _choose(c, _mask(cond, "where"), a, b)


def _masked_fill(c, x, mask, value):
    return _choose(c, _mask(mask, "masked_fill"), value, x)


def _index_put(c, x, indices, values, accumulate=False):
    if accumulate or len(indices) != 1 or not isinstance(indices[0], Mask):
        _no("index_put with other than one boolean mask",
            "t[mask] = value is")
    if is_value(values) and list(values.shape) not in ([], [1]):
        _no("t[mask] = tensor", "a number or a one-element tensor is")
    m = indices[0].value
    return _choose(c, m, values, x)


def _sign(c, x):
    x = _check(x, "sign")
    return c.sub(c.compare("gt", x, 0.0), c.compare("lt", x, 0.0))


def _abs(c, x):
    """x * sign(x): the value |x|, and PyTorch's gradient sign(x) (0 at
    0), the sign being a constant for autodiff."""
    x = _check(x, "abs")
    return c.mul(x, _sign(c, x))


def _leaky_relu(c, x, slope=0.01):
    x = _check(x, "leaky_relu")
    return _choose(c, c.compare("gt", x, 0.0), x, c.mul(x, float(slope)))


def _elu(c, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)); the
    exponential of the branch not taken is clamped, so it cannot
    overflow into the select."""
    x = _check(x, "elu")
    neg = c.mul(c.sub(c.exp(c.clamp(c.mul(x, float(input_scale)),
                                     -math.inf, 0.0)), 1.0), float(alpha))
    out = _choose(c, c.compare("gt", x, 0.0), x, neg)
    return out if scale == 1 else c.mul(out, float(scale))


def _softplus(c, x, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, x where beta x > threshold (PyTorch's
    rule; log(1 + e) where it uses log1p: the same to float rounding above
    ~1e-7)."""
    x = _check(x, "softplus")
    bx = c.mul(x, float(beta))
    soft = c.div(c.log(c.add(c.exp(c.clamp(bx, -math.inf,
                                           float(threshold))), 1.0)),
                 float(beta))
    return _choose(c, c.compare("gt", bx, float(threshold)), x, soft)


def _gelu(c, x, approximate="none"):
    x = _check(x, "gelu")
    if approximate != "tanh":  # PyTorch's: x * 0.5 * (1 + erf(x / sqrt 2))
        return c.mul(c.mul(x, 0.5),
                     c.add(c.erf(c.mul(x, math.sqrt(0.5))), 1.0))
    inner = c.mul(c.add(x, c.mul(c.mul(c.square(x), x), 0.044715)),
                  math.sqrt(2.0 / math.pi))
    return c.mul(c.mul(x, 0.5), c.add(c.tanh(inner), 1.0))


def _reduce_loss(c, loss, reduction, what):
    if reduction == 1:
        return c.mean(loss)
    if reduction == 2:
        return c.sum(loss)
    return loss


def _smooth_l1(c, a, b, reduction=1, beta=1.0):
    d = c.sub(_check(a, "smooth_l1_loss"), _check(b, "smooth_l1_loss"))
    z = _abs(c, d)
    if beta == 0:
        return _reduce_loss(c, z, reduction, "smooth_l1_loss")
    quad = c.div(c.mul(c.square(d), 0.5), float(beta))
    lin = c.sub(z, 0.5 * float(beta))
    return _reduce_loss(c, _choose(c, c.compare("lt", z, float(beta)), quad,
                                   lin), reduction, "smooth_l1_loss")


def _huber(c, a, b, reduction=1, delta=1.0):
    d = c.sub(_check(a, "huber_loss"), _check(b, "huber_loss"))
    z = _abs(c, d)
    quad = c.mul(c.square(d), 0.5)
    lin = c.mul(c.sub(z, 0.5 * float(delta)), float(delta))
    return _reduce_loss(c, _choose(c, c.compare("lt", z, float(delta)), quad,
                                   lin), reduction, "huber_loss")


def _logical(op):
    def fn(c, a, b=None):
        a = _mask(a, op)
        if op == "not":
            return Mask(c.sub(1.0, a))
        b = _mask(b, op)
        if op == "and":
            return Mask(c.mul(a, b))
        return Mask(c.maximum(a, b))
    return fn


def _filled(value):
    """zeros_like, ones_like, full_like: a compare of x with itself is 1
    where the other is 0 (NaN included), so their sum is ones with x's
    shape and no gradient, whatever x holds."""
    def fn(c, x, *args, **kwargs):
        dtype = kwargs.get("dtype")
        fill = args[0] if value is None else value
        if dtype not in (None, torch.float32) or isinstance(x, Ints):
            _no("a %s of dtype %s" % ("full_like" if value is None else
                                      "zeros_like/ones_like", dtype))
        x = _check(x, "full_like")
        ones = c.add(c.compare("eq", x, x), c.compare("ne", x, x))
        return ones if fill == 1 else c.mul(ones, float(fill))
    return fn
