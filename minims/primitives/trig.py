"""``ops.tan``: the tangent, a row of the primitive table beside ``Sin`` and ``Cos`` (issue 26:
MindSpore's own jet tests differentiate it).

Its derivative is ``1 / cos(x)^2``, written from ``x`` and not as ``1 + out^2``, so that the backward
rule does not depend on the rounded output near the poles at ``pi/2 + k pi``.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.prims import _Unary, elementwise_sympy
from ..core.stack import bind
from . import functional as F

__all__ = ["Tan", "tan"]


class Tan(_Unary):
    """``ops.Tan()(x)``: the tangent, elementwise (float inputs; MindSpore refuses integers on CPU)."""

    float_only = True

    def impl(self, x):
        return np.tan(x)

    def bprop(self, x, out, dout):
        return (F.div(dout, F.square(F.cos(x))),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), F.div(tangents[0], F.square(F.cos(primals[0])))

    sympy = staticmethod(elementwise_sympy(sympy.tan))


_tan = Tan()


def tan(input):  # noqa: A002 - MindSpore's parameter name
    """``ops.tan(input)``."""
    return _tan(input)
