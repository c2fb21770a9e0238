"""``ops.tan``: the tangent, as ``sin(x) / cos(x)`` (issue 26: MindSpore's own jet tests use it).

A composition rather than a row of the primitive table: its gradient and its forward-mode and
Taylor rules come from ``Sin``'s, ``Cos``'s and ``Div``'s, and ``vmap`` and the symbolic interpreter
run it as they run those (at the cost of a last-place rounding difference from NumPy's ``tan``).
"""
from __future__ import annotations

from . import functional as F

__all__ = ["tan"]


def tan(input):  # noqa: A002 - MindSpore's parameter name
    """``ops.tan(input)``: the tangent, elementwise."""
    return F.div(F.sin(input), F.cos(input))
