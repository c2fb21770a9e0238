"""Arithmetic on tangents for the ``jvp`` rules, where ``None`` is a zero tangent.

A forward-mode rule receives one tangent per input, ``None`` for an input that is constant at that
level (a Python number, a mask, a weight that is not being differentiated).  These helpers let a
rule be written once for all cases, skipping the work a zero would make: ``add(None, t)`` is ``t``,
``mul(None, y)`` is ``None``.  ``fit`` gives a tangent its output's shape and dtype (an input that
broadcasts has a smaller tangent than the output it feeds).
"""
from __future__ import annotations

from . import functional as ops
from ..core.prims import fit  # noqa: F401 - the core's, for the rules here

__all__ = ["add", "sub", "mul", "div", "neg", "fit", "or_zeros"]


def add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ops.add(a, b)


def sub(a, b):
    if b is None:
        return a
    return ops.neg(b) if a is None else ops.sub(a, b)


def mul(t, factor):
    """``t * factor``; a zero stays a zero."""
    return None if t is None else ops.mul(t, factor)


def div(t, divisor):
    return None if t is None else ops.div(t, divisor)


def neg(t):
    return None if t is None else ops.neg(t)


def or_zeros(t, primal):
    """``t``, or an explicit zero shaped like ``primal`` (for a linear primitive of several inputs)."""
    return ops.zeros_like(primal) if t is None else t
