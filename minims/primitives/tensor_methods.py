"""Tensor operators and methods, routed to the primitive table.

Installed on :class:`minims.Tensor` when ``minims.ops`` is imported, so ``x * y``, ``x.sum()`` and
``x[0]`` are ordinary primitive applications: traced by gradient levels like any ``ops.*`` call.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..core.stack import Tracer
from ..core import install
from ..core.tensor import Tensor
from . import functional as ops
from . import views


def _reflect(fn):
    return lambda self, other: fn(other, self)


def _sequence_operand(fn):
    """``t - [4, 3, 2, 1]``: MindSpore's Tensor ``+`` and ``-`` (either side) take a list or tuple as
    the other operand, converted to a Tensor of ``t``'s dtype (MindSpore 2.10: ``Tensor([1, 2]) +
    [1.5, 2.5]`` is Int64 ``[2, 4]``); its ``*``, ``/``, comparisons and ``ops.add``/``ops.sub``
    refuse one, and so do minims'."""
    def operator(self, other):
        if isinstance(other, (list, tuple)):
            other = Tensor(other, self.dtype)
        return fn(self, other)
    return operator


# ----- views: the result shares its entries with self (``views.py``), as in MindSpore's PyNative mode
def _getitem(self, index):
    return views.taken(self, ops.getitem(self, index), "index", index)


def _reshape(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    out = ops.reshape(self, shape)
    return views.taken(self, out, "reshape", out.shape)


def _transpose(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    return _transposed(self, axes if axes else None)


def _transposed(self, axes):
    perm = tuple(range(self.ndim))[::-1] if axes is None else tuple(a % max(self.ndim, 1) for a in axes)
    return views.taken(self, ops.transpose(self, perm), "transpose", perm)


def _sum(self, axis=None, keepdims=False, *, keep_dims=None, dtype=None):
    out = ops.sum(self, axis=axis, keepdims=keepdims if keep_dims is None else keep_dims)
    return out if dtype is None else ops.cast(out, dtype)


def _mean(self, axis=None, keep_dims=False, *, keepdims=None):
    return ops.mean(self, axis=axis, keep_dims=keep_dims if keepdims is None else keepdims)


def _max(self, axis=None, keepdims=False, *, initial=None, where=None, keep_dims=None):
    return ops.amax(self, axis, keepdims if keep_dims is None else keep_dims)


def _min(self, axis=None, keepdims=False, *, initial=None, where=None, keep_dims=None):
    return ops.amin(self, axis, keepdims if keep_dims is None else keep_dims)


def _astype(self, dtype, copy=True):
    return ops.cast(self, mstype.to_dtype(dtype, "Tensor.astype"))


def _squeeze(self, axis=None):
    out = ops.squeeze(self, axis)
    return views.taken(self, out, "reshape", out.shape)


def _expand_dims(self, axis):
    out = ops.expand_dims(self, axis)
    return views.taken(self, out, "reshape", out.shape)


def _flatten(self, order="C", *, start_dim=0, end_dim=-1):
    out = ops.flatten(self, start_dim, end_dim)
    return views.taken(self, out, "reshape", out.shape)


def _view(self, *shape):
    return _reshape(self, *shape)


def _argmax(self, axis=None, keepdims=False):
    return ops.argmax(self, axis, keepdims)


def _argmin(self, axis=None, keepdims=False):
    return ops.argmin(self, axis, keepdims)


def _any(self, axis=(), keep_dims=False):
    return ops.ne(ops.sum(ops.cast(self, mstype.int64), axis=axis, keepdims=keep_dims), 0)


def _all(self, axis=(), keep_dims=False):
    return ops.equal(ops.sum(ops.cast(ops.logical_not(ops.cast(self, mstype.bool_)), mstype.int64),
                         axis=axis, keepdims=keep_dims), 0)


def _copy(self):
    """A copy: a Tensor being differentiated or traced stays so (its copy is ``Identity`` of it)."""
    if isinstance(self, Tracer):
        return ops.identity(self)
    return Tensor._make(self._data.copy())


def _deepcopy(self, memo):
    return _copy(self)


_METHODS = {
    "__add__": _sequence_operand(ops.add), "__radd__": _sequence_operand(_reflect(ops.add)),
    "__sub__": _sequence_operand(ops.sub), "__rsub__": _sequence_operand(_reflect(ops.sub)),
    "__mul__": ops.mul, "__rmul__": _reflect(ops.mul),
    "__truediv__": ops.div, "__rtruediv__": _reflect(ops.div),
    "__floordiv__": ops.floor_divide, "__rfloordiv__": _reflect(ops.floor_divide),
    "__mod__": ops.floor_mod, "__rmod__": _reflect(ops.floor_mod),
    "__pow__": ops.pow, "__rpow__": _reflect(ops.pow),
    "__matmul__": ops.matmul, "__rmatmul__": _reflect(ops.matmul),
    "__neg__": ops.neg, "__pos__": lambda self: self, "__abs__": ops.abs,
    "__invert__": ops.logical_not,
    "__and__": ops.logical_and, "__or__": ops.logical_or,
    "__gt__": ops.gt, "__lt__": ops.lt, "__ge__": ops.ge, "__le__": ops.le,
    "__eq__": ops.equal, "__ne__": ops.ne,
    "__getitem__": _getitem, "__setitem__": ops.setitem,
    "reshape": _reshape, "view": _view, "transpose": _transpose, "permute": _transpose,
    "sum": _sum, "mean": _mean, "var": ops.var, "std": ops.std, "max": _max, "min": _min,
    "argmax": _argmax, "argmin": _argmin, "any": _any, "all": _all,
    "astype": _astype, "to": _astype, "squeeze": _squeeze, "expand_dims": _expand_dims,
    "unsqueeze": _expand_dims, "flatten": _flatten, "copy": _copy, "__copy__": _copy,
    "__deepcopy__": _deepcopy,
    "exp": ops.exp, "log": ops.log, "sqrt": ops.sqrt, "square": ops.square, "abs": ops.abs,
    "sin": ops.sin, "cos": ops.cos, "tanh": ops.tanh, "sigmoid": ops.sigmoid, "relu": ops.relu,
    "neg": ops.neg, "sign": ops.sign, "reciprocal": ops.reciprocal, "floor": ops.floor,
    "add": ops.add, "sub": ops.sub, "mul": ops.mul, "div": ops.div, "pow": ops.pow,
    "matmul": ops.matmul, "maximum": ops.maximum, "minimum": ops.minimum,
    "broadcast_to": ops.broadcast_to, "softmax": ops.softmax,
}


# the ops spelling of common ufuncs, for the message
_OPS_NAME = {"add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "div", "divide": "div",
             "power": "pow", "matmul": "matmul", "negative": "neg", "absolute": "abs", "exp": "exp",
             "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tanh": "tanh", "square": "square",
             "maximum": "maximum", "minimum": "minimum", "sign": "sign", "floor": "floor",
             "reciprocal": "reciprocal"}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``np.sin(t)``, ``np.ones(2) + t``, ``np.float32(2) * t``: NumPy computes on the values and
    returns an ndarray, as with MindSpore 2.10 (``t + np.ones(2)``, a Tensor on the left, is minims'
    own operator, which refuses the array).  On a Tensor being differentiated or traced NumPy's
    result would be a constant that silently drops the gradient, so that is refused, naming the op."""
    if any(isinstance(a, Tracer) for a in inputs):
        name = _OPS_NAME.get(ufunc.__name__)
        operator = ufunc.__name__ in ("add", "subtract", "multiply", "true_divide", "divide", "power", "matmul")
        raise TypeError(
            f"numpy.{ufunc.__name__} cannot compute on a Tensor that is being differentiated or traced "
            "(inside grad, jvp, vmap or a compiled graph): NumPy does not record what it computes, so the "
            "result would be a constant with no gradient. Fix: use "
            + (f"ops.{name}({'x' if ufunc.nin == 1 else 'x, y'})" if name else "the minims op that computes the same (minims.ops)")
            + (", or put the Tensor on the left (x * 2.0) with a Python number or Tensor(array) on the "
               "right." if operator else "."))
    arrays = tuple(a._data if isinstance(a, Tensor) else a for a in inputs)
    return getattr(ufunc, method)(*arrays, **kwargs)


install(Tensor, **_METHODS, __array_ufunc__=_array_ufunc,
        T=property(lambda self: _transposed(self, None)),
        mT=property(lambda self: _transposed(self, tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2))),
        __hash__=lambda self: id(self))        # defining __eq__ would otherwise drop hashing
