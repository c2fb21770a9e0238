"""Exercises of chapter 04 (custom bprop).

4.1  a surrogate gradient: a step forward, the derivative of a fast sigmoid backward;
4.2  a bprop for hypot(x, y) = sqrt(x^2 + y^2) that reuses ``out``, differentiable twice.
"""
from __future__ import annotations

import sympy

from ... import ops
from .declare import Box, derivative_exercise, drawn
from .measure import elementwise

SPIKE = derivative_exercise(
    "4.1", "a surrogate gradient for a spike",
    "the backward pass ignores the step: it returns dout times 1 / (1 + 10|x|)^2, as a tuple "
    "(ops.abs, ops.square).",
    build=lambda Spike, point: Spike(),
    formula=elementwise(lambda s: s / (1 + 10 * sympy.Abs(s))),
    value_formula=elementwise(lambda s: sympy.Piecewise((1, s > 0), (0, True))),
    symbolic=False,
    points=[{"x": [-1.0, -0.05, 0.02, 0.3, 2.0]},
            *drawn("4.1", 3, x=Box((5,), -2.0, 2.0, away=(0.0,), margin=0.02))],
    orders=(0, 1),
    solved="The value is the step; the gradient is the fast sigmoid's derivative (SymPy).")

HYPOT = derivative_exercise(
    "4.2", "a bprop for hypot that reuses out",
    "two gradients, in the order of construct's inputs, each times dout; out is the forward "
    "result. Tensor arithmetic is made of minims ops, so it can be differentiated again.",
    build=lambda Hypot, point: Hypot(),
    formula=lambda x, y: ops.sqrt(x * x + y * y),
    points=[{"x": [3.0, -1.0, 0.5], "y": [4.0, 2.0, -1.5]},
            *drawn("4.2", 3, x=Box((3,), -3.0, 3.0, away=(0.0,)), y=Box((3,), -3.0, 3.0, away=(0.0,)))],
    orders=(0, 1, 2), check_grads_order=2)

EXERCISES = (SPIKE, HYPOT)
