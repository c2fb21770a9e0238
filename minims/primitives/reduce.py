"""Reductions over axes: sum (a row of the core, ``minims.core.prims``), mean, max, min (with
``keep_dims``) and argmax/argmin.

``ReduceMax``'s gradient is shared evenly between tied maxima, so it is exact for the usual case of
one maximum and still a valid subgradient when several elements tie.
"""
from __future__ import annotations

import numpy as np
import sympy

from . import functional as ops
from ..core.stack import bind
from ..tensors.convert import _describe
from ..core.primitive import Primitive
from ..core.prims import ReduceSum, _Reduce
from ..core import install
from . import batch_rules, tangents as T
from .operands import as_operand, normalize_axis


def _reduce_init(self, keep_dims=False):
    """``ops.ReduceSum(keep_dims=False)``: the attribute is a bool (TypeError, as MindSpore)."""
    if not isinstance(keep_dims, (bool, np.bool_)):
        cls = type(self).__name__
        raise TypeError(
            f"{cls}: keep_dims must be a bool, but got {_describe(keep_dims)}. A Primitive takes its "
            f"attributes when created and its inputs when called. Fix: ops.{cls}(keep_dims=False)(x, axis).")
    self.keep_dims = bool(keep_dims)


def _reduce_call(self, x, axis=()):
    """``ops.ReduceSum(keep_dims=False)(x, axis=())``; ``axis=()`` or None reduces every axis."""
    x = as_operand(self.name, x, "x")
    return bind(self, x, normalize_axis(self.name, axis, len(x.shape)))


# the core's base of the reductions (``ReduceSum`` is a row of the core), with MindSpore's calls
install(_Reduce, __init__=_reduce_init, __call__=_reduce_call)


class _LinearReduce(_Reduce):
    """Sum and mean are linear: the tangent of the result is the same reduction of the tangent."""

    def jvp(self, primals, tangents):
        (x, axes), (t, _) = primals, tangents
        return bind(self, x, axes), bind(self, t, axes)


class ReduceMean(_LinearReduce):
    def impl(self, x, axes):
        dtype = x.dtype if x.dtype.kind == "f" else np.float32
        if x.size == 0:      # the mean of nothing is NaN, without NumPy's "Mean of empty slice" warning
            return np.full(np.sum(x, axis=axes, keepdims=self.keep_dims).shape, np.nan, dtype=dtype)
        return np.asarray(np.mean(x, axis=axes, keepdims=self.keep_dims), dtype=dtype)

    def bprop(self, x, axes, out, dout):
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        g = self._expand(ops.div(dout, max(count, 1)), x, axes)     # count 0: x is empty, so is g
        return ops.broadcast_to(g, x.shape), None

    def sympy(self, x, axes):
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        return np.asarray(np.sum(x, axis=axes, keepdims=self.keep_dims) / count, dtype=object)


class _ReduceExtreme(_Reduce):
    _np = None

    def impl(self, x, axes):
        if x.size == 0:
            raise ValueError(f"{self.name}: cannot reduce an empty tensor of shape {list(x.shape)}.")
        return np.asarray(self._np(x, axis=axes, keepdims=self.keep_dims))

    def jvp(self, primals, tangents):
        """Each result moves with the element it was taken from (tied elements: their mean, as the
        backward rule shares the gradient)."""
        (x, axes), (t, _) = primals, tangents
        out = bind(self, x, axes)
        hit = ops.cast(ops.equal(x, self._expand(out, x, axes)), t.dtype)
        total = ReduceSum(self.keep_dims)
        # (the mean of tied integer tangents is a float: back to the output's dtype, as MindSpore's)
        return out, T.fit(ops.div(bind(total, ops.mul(hit, t), axes), bind(total, hit, axes)), out)

    def sympy(self, x, axes):
        extreme = sympy.Max if isinstance(self, ReduceMax) else sympy.Min
        kept = [i for i in range(x.ndim) if i not in axes]
        rows = np.transpose(x, kept + list(axes)).reshape([x.shape[i] for i in kept] + [-1])
        out = np.empty(rows.shape[:-1], dtype=object)
        for idx in np.ndindex(out.shape):
            out[idx] = extreme(*rows[idx])
        return out.reshape(self._kept_shape(x, axes)) if self.keep_dims else out

    def bprop(self, x, axes, out, dout):
        out_b = self._expand(out, x, axes)
        hit = ops.cast(ops.equal(x, out_b), dout.dtype)
        count = ops.sum(hit, axes, keepdims=True)
        g = self._expand(dout, x, axes)
        return ops.div(ops.mul(hit, g), count), None


class ReduceMax(_ReduceExtreme):
    _np = staticmethod(np.max)


class ReduceMin(_ReduceExtreme):
    _np = staticmethod(np.min)


class Argmax(Primitive):
    """``ops.Argmax(axis=-1, output_type=int32)(x)``."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    differentiable = False

    def __init__(self, axis=-1, output_type=None):
        self.axis = axis
        self.output_type = output_type

    def impl(self, x):
        dt = np.int32 if self.output_type is None else self.output_type.np_dtype
        return np.asarray(np.argmax(x, axis=self.axis)).astype(dt)

    def batch(self, args, dims, size):
        (x,), (d,) = args, dims
        x = batch_rules.front(x, d, size)
        if self.axis is None:                       # over the whole example: its flattened index
            x = ops.reshape(x, (size, -1))
            axis = 1
        else:
            axis = batch_rules.batch_axis_shifted(self.axis, x.ndim - 1)
        return type(self)(axis, self.output_type)(x), 0


class Argmin(Argmax):
    def impl(self, x):
        dt = np.int32 if self.output_type is None else self.output_type.np_dtype
        return np.asarray(np.argmin(x, axis=self.axis)).astype(dt)
