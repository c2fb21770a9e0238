"""Comparison, logical and selection primitives.

Comparisons return Bool tensors and are not differentiable (a gradient level does not record them).
``Select`` is differentiable in its two value operands: the gradient goes to whichever operand each
element was taken from.
"""
from __future__ import annotations

import numpy as np
import sympy

from . import functional as ops
from ..core.stack import bind
from ..core.tensor import Tensor
from ..core.primitive import Primitive
from .math import _Binary
from . import batch_rules, tangents as T
from .operands import as_operand, sum_to


class _Compare(_Binary):
    differentiable = False
    takes_booleans = True


class Greater(_Compare):
    def impl(self, x, y):
        return np.greater(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Gt, 2, 1)(x, y)


class Less(_Compare):
    def impl(self, x, y):
        return np.less(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Lt, 2, 1)(x, y)


class GreaterEqual(_Compare):
    def impl(self, x, y):
        return np.greater_equal(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Ge, 2, 1)(x, y)


class LessEqual(_Compare):
    def impl(self, x, y):
        return np.less_equal(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Le, 2, 1)(x, y)


class Equal(_Compare):
    def impl(self, x, y):
        return np.equal(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Eq, 2, 1)(x, y)


class NotEqual(_Compare):
    def impl(self, x, y):
        return np.not_equal(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Ne, 2, 1)(x, y)


class LogicalAnd(_Compare):
    def impl(self, x, y):
        return np.logical_and(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.And, 2, 1)(x, y)


class LogicalOr(_Compare):
    def impl(self, x, y):
        return np.logical_or(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Or, 2, 1)(x, y)


class LogicalNot(Primitive):

    checks_rule_results = False       # built-in rule: checked over the table by the tests
    differentiable = False
    takes_booleans = True

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def impl(self, x):
        return np.logical_not(x)

    def sympy(self, x):
        return np.frompyfunc(sympy.Not, 1, 1)(x)


class Select(Primitive):
    """``ops.select(cond, x, y)``: ``x`` where ``cond`` is True, else ``y`` (broadcasting)."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    takes_booleans = True

    def __call__(self, cond, x, y):
        cond = as_operand(self.name, cond, "cond")
        if not isinstance(cond, Tensor) or cond.dtype.kind != "bool":
            got = cond.dtype if isinstance(cond, Tensor) else type(cond).__name__
            raise TypeError(
                f"Select: 'cond' must be a Bool Tensor, but got {got}. "
                "Fix: build it with a comparison, e.g. ops.gt(x, 0)."
            )
        x = as_operand(self.name, x, "x")
        y = as_operand(self.name, y, "y")
        if isinstance(x, Tensor) and not isinstance(y, Tensor):
            y = ops.cast(Tensor(y), x.dtype)
        elif isinstance(y, Tensor) and not isinstance(x, Tensor):
            x = ops.cast(Tensor(x), y.dtype)
        return bind(self, cond, x, y)

    def batch(self, args, dims, size):
        return batch_rules.elementwise(self, args, dims, size)

    def impl(self, cond, x, y):
        return np.where(cond, x, y)

    def bprop(self, cond, x, y, out, dout):
        zeros = ops.zeros_like(dout)
        dx = sum_to(ops.select(cond, dout, zeros), x)
        dy = sum_to(ops.select(cond, zeros, dout), y)
        return None, dx, dy

    def jvp(self, primals, tangents):
        (cond, x, y), (_, tx, ty) = primals, tangents
        out = bind(self, cond, x, y)
        if tx is None and ty is None:
            return out, None
        return out, T.fit(bind(self, cond, T.or_zeros(tx, x), T.or_zeros(ty, y)), out)

    def sympy(self, cond, x, y):
        return np.frompyfunc(lambda c, a, b: sympy.Piecewise((a, c), (b, True)), 3, 1)(cond, x, y)
