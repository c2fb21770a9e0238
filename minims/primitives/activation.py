"""Activation primitives: ReLU, ReLU6, Softmax, LogSoftmax, and their gradient primitives.

As in MindSpore, the derivatives of ReLU and ReLU6 are primitives of their own (``ReluGrad``,
``ReLU6Grad``).  ``ReluGrad`` has a backward rule, so ReLU can be differentiated twice;
``ReLU6Grad`` deliberately has none, so ``grad(grad(relu6))`` fails with an error naming the missing
rule — the situation the "custom bprop" documentation page solves with a Cell ``bprop``.
"""
from __future__ import annotations

import numpy as np
import sympy

from .. import ops
from ..common.tensor import _describe
from ..interpreters.stack import bind
from . import batch_rules
from . import scalar_forms as F
from .base import Primitive
from .math import _Unary, sym_elementwise
from .operands import keep_where, normalize_axis


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

    def impl(self, x):
        axis = normalize_axis(self.name, tuple(self.axis), x.ndim)
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


class LogSoftmax(_Unary):
    """``ops.LogSoftmax(axis=-1)``."""

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
        shifted = x - np.max(x, axis=axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))

    def bprop(self, x, out, dout):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        return (ops.sub(dout, ops.mul(ops.exp(out), ops.sum(dout, axis, keepdims=True))),)

    def jvp(self, primals, tangents):
        (x,), (t,) = primals, tangents
        out = bind(self, x)
        axis = normalize_axis(self.name, self.axis, x.ndim)
        return out, ops.sub(t, ops.sum(ops.mul(ops.exp(out), t), axis, keepdims=True))

    def sympy(self, x):
        axis = normalize_axis(self.name, self.axis, x.ndim)
        e = sym_elementwise(sympy.exp)(x)
        return x - sym_elementwise(sympy.log)(np.sum(e, axis=axis, keepdims=True))
