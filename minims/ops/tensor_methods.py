"""Tensor operators and methods, routed to the primitive table.

Installed on :class:`minims.Tensor` when ``minims.ops`` is imported, so ``x * y``, ``x.sum()`` and
``x[0]`` are ordinary primitive applications: traced by gradient levels like any ``ops.*`` call.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F


def _reflect(fn):
    return lambda self, other: fn(other, self)


def _reshape(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return F.reshape(self, shape)


def _transpose(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return F.transpose(self, axes if axes else None)


def _sum(self, axis=None, keepdims=False, *, keep_dims=None, dtype=None):
    out = F.sum(self, axis=axis, keepdims=keepdims if keep_dims is None else keep_dims)
    return out if dtype is None else F.cast(out, dtype)


def _mean(self, axis=None, keep_dims=False, *, keepdims=None):
    return F.mean(self, axis=axis, keep_dims=keep_dims if keepdims is None else keepdims)


def _max(self, axis=None, keepdims=False, *, initial=None, where=None, keep_dims=None):
    return F.amax(self, axis, keepdims if keep_dims is None else keep_dims)


def _min(self, axis=None, keepdims=False, *, initial=None, where=None, keep_dims=None):
    return F.amin(self, axis, keepdims if keep_dims is None else keep_dims)


def _astype(self, dtype, copy=True):
    return F.cast(self, mstype.to_dtype(dtype, "Tensor.astype"))


def _squeeze(self, axis=None):
    return F.squeeze(self, axis)


def _expand_dims(self, axis):
    return F.expand_dims(self, axis)


def _flatten(self, order="C", *, start_dim=0, end_dim=-1):
    return F.flatten(self, start_dim, end_dim)


def _view(self, *shape):
    return _reshape(self, *shape)


def _argmax(self, axis=None, keepdims=False):
    return F.argmax(self, axis, keepdims)


def _argmin(self, axis=None, keepdims=False):
    return F.argmin(self, axis, keepdims)


def _any(self, axis=(), keep_dims=False):
    return F.ne(F.sum(F.cast(self, mstype.int64), axis=axis, keepdims=keep_dims), 0)


def _all(self, axis=(), keep_dims=False):
    return F.equal(F.sum(F.cast(F.logical_not(F.cast(self, mstype.bool_)), mstype.int64),
                         axis=axis, keepdims=keep_dims), 0)


def _copy(self):
    return Tensor._make(self._data.copy())


_METHODS = {
    "__add__": F.add, "__radd__": _reflect(F.add),
    "__sub__": F.sub, "__rsub__": _reflect(F.sub),
    "__mul__": F.mul, "__rmul__": _reflect(F.mul),
    "__truediv__": F.div, "__rtruediv__": _reflect(F.div),
    "__floordiv__": F.floor_divide, "__rfloordiv__": _reflect(F.floor_divide),
    "__mod__": F.floor_mod, "__rmod__": _reflect(F.floor_mod),
    "__pow__": F.pow, "__rpow__": _reflect(F.pow),
    "__matmul__": F.matmul, "__rmatmul__": _reflect(F.matmul),
    "__neg__": F.neg, "__pos__": lambda self: self, "__abs__": F.abs,
    "__invert__": F.logical_not,
    "__and__": F.logical_and, "__or__": F.logical_or,
    "__gt__": F.gt, "__lt__": F.lt, "__ge__": F.ge, "__le__": F.le,
    "__eq__": F.equal, "__ne__": F.ne,
    "__getitem__": F.getitem,
    "reshape": _reshape, "view": _view, "transpose": _transpose, "permute": _transpose,
    "sum": _sum, "mean": _mean, "max": _max, "min": _min,
    "argmax": _argmax, "argmin": _argmin, "any": _any, "all": _all,
    "astype": _astype, "to": _astype, "squeeze": _squeeze, "expand_dims": _expand_dims,
    "unsqueeze": _expand_dims, "flatten": _flatten, "copy": _copy,
    "exp": F.exp, "log": F.log, "sqrt": F.sqrt, "square": F.square, "abs": F.abs,
    "sin": F.sin, "cos": F.cos, "tanh": F.tanh, "sigmoid": F.sigmoid, "relu": F.relu,
    "neg": F.neg, "sign": F.sign, "reciprocal": F.reciprocal, "floor": F.floor,
    "add": F.add, "sub": F.sub, "mul": F.mul, "div": F.div, "pow": F.pow,
    "matmul": F.matmul, "maximum": F.maximum, "minimum": F.minimum,
    "broadcast_to": F.broadcast_to, "softmax": F.softmax,
}


def install() -> None:
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(lambda self: F.transpose(self, None))
    Tensor.mT = property(lambda self: F.transpose(self, tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)))
    Tensor.__hash__ = lambda self: id(self)       # defining __eq__ would otherwise drop hashing


install()
