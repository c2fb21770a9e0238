"""Special functions: ``Erf``, the error function (``ops.erf``), which the exact GELU needs.

``erf`` is not a composition of the table's primitives, so it is a row of its own: ``impl`` is
Python's ``math.erf`` (correctly rounded in float64, a float32 result rounded once more), the
backward and forward rules are ``2/√π exp(-x²)`` written in minims ops, the batching rule is the
shared elementwise one and the SymPy rule is ``sympy.erf``.
"""
from __future__ import annotations

import math

import numpy as np
import sympy

from ..core.prims import _Unary
from ..core.stack import bind
from . import functional as ops
from .accurate import in_float64
from .math import sym_elementwise

__all__ = ["Erf", "erf"]

_TWO_OVER_ROOT_PI = 2.0 / math.sqrt(math.pi)
_erf64 = np.vectorize(math.erf, otypes=[np.float64])


def _derivative(x):
    """``erf'(x) = 2/√π exp(-x²)``, in minims ops."""
    return ops.mul(ops.exp(ops.neg(ops.mul(x, x))), _TWO_OVER_ROOT_PI)


class Erf(_Unary):
    """``ops.Erf()(x)``: ``2/√π ∫₀ˣ exp(-t²) dt``."""

    float_only = True

    def impl(self, x):
        return in_float64(_erf64, x)

    def bprop(self, x, out, dout):
        return (ops.mul(dout, _derivative(x)),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), ops.mul(tangents[0], _derivative(primals[0]))

    sympy = staticmethod(sym_elementwise(sympy.erf))


_erf = Erf()


def erf(input):  # noqa: A002 - MindSpore's name
    """``ops.erf(input)``: the error function, elementwise (integers are computed as Float32)."""
    return _erf(input)
