"""Exercises of chapter 07 (Graph mode): rewrite Python control flow so that ``jit`` can compile it.

7.1  a piecewise function written with ``if``/``elif`` on a Tensor, rewritten with ``ops.select``;
7.2  Newton's square root with a ``while`` loop on a Tensor's value, rewritten as a fixed loop.
"""
from __future__ import annotations

import sympy

from ...graph.jit import jit
from .declare import derivative_exercise
from .measure import elementwise

SOFT_THRESHOLD = derivative_exercise(
    "7.1", "soft thresholding, compiled by jit",
    "compute every candidate and pick element by element with ops.select; two conditions need "
    "two selects, one inside the other.",
    build=lambda soft_threshold, point: jit(soft_threshold),
    formula=elementwise(lambda s: sympy.Piecewise((s - 1, s > 1), (s + 1, s < -1), (0, True))),
    symbolic=False,
    points=[{"x": [-2.5, -0.5, 0.75, 1.5]}, {"x": [[3.0, -1.25], [0.0, 1.01]]}],
    orders=(0, 1, 2),
    solved="jit compiled it, and its values and derivatives match SymPy's Piecewise.")

NEWTON_SQRT = derivative_exercise(
    "7.2", "Newton's square root, compiled by jit",
    "the number of steps must not depend on a Tensor's value: a loop over a Python int is "
    "unrolled while tracing. Newton converges fast; take enough steps for 9.",
    build=lambda newton_sqrt, point: jit(newton_sqrt),
    formula=elementwise(sympy.sqrt),
    symbolic=False,
    points=[{"a": [0.25, 2.0, 9.0]}],
    orders=(0, 1, 2),
    solved="The unrolled iteration converges, and so do its first and second derivatives.")

EXERCISES = (SOFT_THRESHOLD, NEWTON_SQRT)
