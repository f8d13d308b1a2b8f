"""capture.fx's values: what a translated ATen node can be besides a
Capture tensor (int inputs, masks, refused values, a matmul's transposed
operand), and the helpers every translation shares."""

import numpy as np
import torch

import capture

aten = torch.ops.aten

# F.one_hot checks its values' range (a host read make_fx refuses): while
# tracing it is this op (fx.py swaps it in), one node that computes the same.
_LIBRARY = torch.library.Library("capture", "DEF")
_LIBRARY.define("one_hot(Tensor self, int num_classes) -> Tensor")
_LIBRARY.impl("one_hot", lambda t, n: torch._C._nn.one_hot(t, n), "CPU")


class Unsupported(capture.Error):
    """An op, module or argument the importer does not translate."""

    code = 2


def _no(what, hint=""):
    raise Unsupported("%s is not supported%s" % (what, hint and "; " + hint))


class Ints:
    """An int tensor (indices: actions, labels) as a view of a flat int32
    input. Capture computes nothing on integers, so an int value is the
    input it comes from (1-D, as the step declares every int input) and
    `index`, the numpy array of positions into it that PyTorch's view ops
    made (squeeze, unsqueeze, view, expand, slice). A consumer takes the
    input itself when `index` is the identity, and refuses otherwise."""

    def __init__(self, base, index):
        self.base = base
        self.index = index

    @property
    def shape(self):
        return list(self.index.shape)

    def flat(self, what):
        """The input, when this value is all of it in order."""
        if not np.array_equal(self.index.ravel(),
                              np.arange(self.index.size)) or \
                self.index.size != self.base.shape[0]:
            _no("%s of a reordered or repeated view of an integer input"
                % what, "pass the indices as they are used")
        return self.base


class Refused:
    """A value the importer cannot make (argmax indices, a random sample):
    an error only where it is used."""

    def __init__(self, why):
        self.why = why


class Mask:
    """A bool tensor as its 0/1 float mask (ag.compare). Arithmetic reads
    it as PyTorch promotes a bool: 0.0 and 1.0."""

    def __init__(self, value):
        self.value = value

    @property
    def shape(self):
        return list(self.value.shape)


class Picked:
    """Argmax indices (of argmax, max(dim), min(dim)) as what Capture can
    use them for: `mask`, the 0/1 mask of the first extreme along `dim`,
    of the input's shape, and `index`, the index as a float; both with the
    reduced dimension kept (1) when `kept`, else without it."""

    def __init__(self, mask, index, dim, kept):
        self.mask = mask
        self.index = index
        self.dim = dim
        self.kept = kept

    @property
    def shape(self):
        return list(self.index.shape)


def is_value(x):
    return isinstance(x, (capture.Tensor, capture.Weight))


def _check(x, what):
    if isinstance(x, Mask):
        return x.value
    if isinstance(x, Picked):
        _no("argmax indices used by %s" % what, "gather, one_hot, .float() "
            "and unsqueeze/squeeze of them are")
    if isinstance(x, Refused):
        raise Unsupported(x.why + " (used by %s)" % what)
    if isinstance(x, Ints):
        _no("%s of an integer tensor" % what, "Capture computes on float32; "
            "integer inputs can index (gather, one_hot, cross_entropy, "
            "embedding) and change views")
    return x


def _shape(x):
    if isinstance(x, Refused):
        raise Unsupported(x.why)
    return list(x.shape)


def _axis(d, rank, what):
    if d < -max(rank, 1) or d >= max(rank, 1):
        raise IndexError("%s: dimension %d out of range for rank %d"
                         % (what, d, rank))
    return d % rank if rank else 0


def _dims(dims, rank, what):
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        return None  # every dimension
    dims = [dims] if isinstance(dims, int) else list(dims)
    return sorted({_axis(d, rank, what) for d in dims})


def _reduce(c, fn, x, dims, keepdim, what):
    x = _check(x, what)
    shape = _shape(x)
    dims = _dims(dims, len(shape), what)
    if dims is None or len(dims) == len(shape):
        out = getattr(c, fn)(x)
        return c.reshape(out, [1] * len(shape)) if keepdim else out
    out = x
    for d in reversed(dims):
        out = getattr(c, fn)(out, d)
    if keepdim:
        out = c.reshape(out, [1 if i in dims else n
                              for i, n in enumerate(shape)])
    return out


def _count(shape, dims):
    dims = range(len(shape)) if dims is None else dims
    return int(np.prod([shape[d] for d in dims])) if shape else 1


class Transposed:
    """aten.t(x) that a matmul reads with its transpose flag."""

    def __init__(self, x):
        self.x = x


class LogSoftmax:
    """log_softmax(logits, 1) of rank 2, remembered so that nll_loss over it
    becomes cross_entropy (fx.py turns it into the tensor elsewhere)."""

    def __init__(self, logits, value):
        self.logits = logits
        self.value = value
