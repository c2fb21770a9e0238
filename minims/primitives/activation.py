"""Activation primitives: ReLU, ReLU6, Softmax, LogSoftmax, and their gradient primitives.

As in MindSpore, the derivatives of ReLU and ReLU6 are primitives of their own (``ReluGrad``,
``ReLU6Grad``).  ``ReluGrad`` has a backward rule, so ReLU can be differentiated twice;
``ReLU6Grad`` deliberately has none, so ``grad(grad(relu6))`` fails with an error naming the missing
rule — the situation the "custom bprop" documentation page solves with a Cell ``bprop``.
"""
from __future__ import annotations

import numpy as np
import sympy

from .. import dtype as mstype
from . import functional as ops
from ..tensors.convert import _describe
from ..core.stack import bind
from . import batch_rules
from .. import fast as _fast          # the fast-path switch: _fast.enabled
from ..fast import scalar_forms as F
from .accurate import in_float64, log_softmax
from ..core.primitive import Primitive
from .math import _Unary, sym_elementwise
from .operands import keep_where, normalize_axis
from .reduce import ReduceMax


def _is_int(a):
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


def _check_axis(prim, axis):
    """``axis`` is an int (or a tuple of ints); ``ops.Softmax(x)`` gives a Tensor here by mistake."""
    ok = _is_int(axis) or (isinstance(axis, (tuple, list)) and all(_is_int(a) for a in axis))
    if not ok:
        cls = type(prim).__name__
        raise TypeError(
            f"{cls}: axis must be an int or a tuple of ints, but got "
            f"{_describe(axis)}. A Primitive takes its attributes when created and its inputs when "
            f"called. Fix: ops.{cls}(axis=-1)(x)."
        )


class ReLU(_Unary):
    def impl(self, x):
        return np.maximum(x, 0)

    def bprop(self, x, out, dout):
        return (ReluGrad()(dout, out),)

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        return out, ReluGrad()(tangents[0], out)

    sympy = staticmethod(sym_elementwise(lambda v: sympy.Max(v, 0)))

    def fused_sympy(self, dtype, x):
        return sym_elementwise(lambda v: F.np_maximum(v, 0))(x)       # relu(-0.0) = +0.0, as impl


class ReluGrad(Primitive):
    """``dout * (out > 0)``: the derivative of ReLU, itself differentiable in ``dout``."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def batch(self, args, dims, size):
        return batch_rules.elementwise(self, args, dims, size)

    def impl(self, dout, out):
        return keep_where(out > 0, dout)

    def jvp(self, primals, tangents):
        (dout, out), (t, _) = primals, tangents       # linear in dout; piecewise constant in out
        return bind(self, dout, out), (None if t is None else bind(self, t, out))

    def sympy(self, dout, out):
        return np.frompyfunc(lambda d, o: sympy.Piecewise((d, o > 0), (0, True)), 2, 1)(dout, out)

    def bprop(self, dout, out, _out, ddout):
        return ReluGrad()(ddout, out), None


class ReLU6(_Unary):
    def impl(self, x):
        return np.clip(x, 0, 6)

    def bprop(self, x, out, dout):
        return (ReLU6Grad()(dout, x),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), ReLU6Grad()(tangents[0], primals[0])

    sympy = staticmethod(sym_elementwise(lambda v: sympy.Min(sympy.Max(v, 0), 6)))

    def fused_sympy(self, dtype, x):
        return sym_elementwise(lambda v: F.np_clip(v, 0, 6))(x)       # relu6(-0.0) = -0.0, as impl


class ReLU6Grad(Primitive):
    """``dout * (0 < x < 6)``.  No ``bprop``: MindSpore defines no second-order rule for ReLU6."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def batch(self, args, dims, size):
        return batch_rules.elementwise(self, args, dims, size)

    def impl(self, dout, x):
        return keep_where((x > 0) & (x < 6), dout)

    def sympy(self, dout, x):
        return np.frompyfunc(lambda d, v: sympy.Piecewise((d, (v > 0) & (v < 6)), (0, True)),
                             2, 1)(dout, x)


class Softmax(_Unary):
    """``ops.Softmax(axis=-1)``."""

    float_only = True

    def __init__(self, axis=-1):
        _check_axis(self, axis)
        self.axis = axis if isinstance(axis, (tuple, list)) else (axis,)

    def batch(self, args, dims, size):
        (x,), (d,) = args, dims
        x = batch_rules.front(x, d, size)
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim - 1)
        return type(self)(tuple(a + 1 for a in axis))(x), 0

    fast_kernel = "cross_entropy.softmax"

    def impl(self, x):
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim)
        if _fast.enabled:                        # Numba kernel; None = not its configuration
            out = _fast.cross_entropy.softmax(x, axis)
            if out is not None:
                return out
        shifted = x - np.max(x, axis=axis, keepdims=True)
        e = np.exp(shifted)
        return e / np.sum(e, axis=axis, keepdims=True)

    def bprop(self, x, out, dout):
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim)
        inner = ops.sum(ops.mul(dout, out), axis, keepdims=True)
        return (ops.mul(out, ops.sub(dout, inner)),)

    def jvp(self, primals, tangents):
        (x,), (t,) = primals, tangents
        out = bind(self, x)
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim)
        return out, ops.mul(out, ops.sub(t, ops.sum(ops.mul(t, out), axis, keepdims=True)))

    def sympy(self, x):
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim)
        e = sym_elementwise(sympy.exp)(x)
        return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_parts(x, axis):
    """``(p, q, big)`` for the rules of LogSoftmax, in float64 and in minims ops (so differentiable):
    the softmax ``p`` of x along ``axis``, accurate where it is tiny (the rounding of x - max is
    carried, as in ``accurate.log_softmax``); ``big`` flags the entry above 1/2 (at most one per
    slice), and ``q`` is 1 - p there, summed from the other entries so that it keeps its digits
    when p rounds to 1.  The maximum is a constant of the rules (stop_gradient): softmax does not
    depend on the shift."""
    x = ops.cast(x, mstype.float64)
    m = ops.stop_gradient(ReduceMax(True)(x, axis))
    t = ops.sub(x, m)
    c = ops.sub(t, x)
    e = ops.sub(ops.sub(x, ops.sub(t, c)), ops.add(m, c))         # x - m = t + e exactly (TwoSum)
    e = ops.select(ops.lt(ops.abs(t), float("inf")), e, ops.zeros_like(e))
    ex = ops.exp(t)
    ex = ops.add(ex, ops.mul(ex, e))
    p = ops.div(ex, ops.sum(ex, axis, keepdims=True))
    big = ops.gt(p, 0.5)
    q = ops.sum(ops.select(big, ops.zeros_like(p), p), axis, keepdims=True)
    return p, q, big


class LogSoftmax(_Unary):
    """``ops.LogSoftmax(axis=-1)``.

    Computed as ``(x - m) - log1p(r)`` (``accurate.log_softmax``; in float64, rounded once for a
    narrower dtype), so that ``log_softmax([40., 0.])[0]`` is -4.2e-18, not 0.  The rules take the
    softmax from x (``_softmax_parts``), not from ``exp(out)``, and write ``1 - p`` at an entry above
    1/2 as the sum of the other entries: ``dout - exp(out) * sum(dout)`` gave the gradient of that
    entry as ``1 - 1 = 0`` where the truth is 4.2e-18.
    """

    float_only = True

    def __init__(self, axis=-1):
        _check_axis(self, axis)
        self.axis = axis

    def batch(self, args, dims, size):
        (x,), (d,) = args, dims
        x = batch_rules.front(x, d, size)
        axis = normalize_axis(self.name, self.axis, x.ndim - 1)
        return type(self)(tuple(a + 1 for a in axis))(x), 0

    def impl(self, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        return in_float64(lambda v: log_softmax(v, axis), x)

    def bprop(self, x, out, dout):
        # dx = dout - p sum(dout); at the entry with p > 1/2: (dout - sum(dout)) + q sum(dout)
        axis = normalize_axis(self.name, self.axis, x.ndim)
        p, q, big = _softmax_parts(x, axis)
        d = ops.cast(dout, mstype.float64)
        s = ops.sum(d, axis, keepdims=True)
        dx = ops.select(big, ops.add(ops.sub(d, s), ops.mul(s, q)), ops.sub(d, ops.mul(p, s)))
        return (ops.cast(dx, x.dtype),)

    def jvp(self, primals, tangents):
        # tangent = t - sum(p t), with the entry above 1/2 (its tangent: top) taken out of the sum:
        # (t - top) + q top - sum over the others of p t
        (x,), (t,) = primals, tangents
        out = bind(self, x)
        axis = normalize_axis(self.name, self.axis, x.ndim)
        p, q, big = _softmax_parts(x, axis)
        t = ops.cast(t, mstype.float64)
        zeros = ops.zeros_like(t)
        top = ops.sum(ops.select(big, t, zeros), axis, keepdims=True)
        rest = ops.sum(ops.select(big, zeros, ops.mul(p, t)), axis, keepdims=True)
        return out, ops.cast(ops.sub(ops.add(ops.sub(t, top), ops.mul(q, top)), rest), out.dtype)

    def sympy(self, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        e = sym_elementwise(sympy.exp)(x)
        return x - sym_elementwise(sympy.log)(np.sum(e, axis=axis, keepdims=True))
