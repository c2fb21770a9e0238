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
    "the backward pass ignores the step: it returns dout times the derivative of the fast sigmoid "
    "x / (1 + 10|x|) (differentiate it on paper for x > 0 and x < 0), as a tuple.",
    build=lambda Spike, point: Spike(),
    formula=elementwise(lambda s: s / (1 + 10 * sympy.Abs(s))),
    value_formula=elementwise(lambda s: sympy.Piecewise((1, s > 0), (0, True))),
    symbolic=False,
    points=[{"x": [-1.0, -0.05, 0.02, 0.3, 2.0]},
            *drawn("4.1", 3, x=Box((5,), -2.0, 2.0, away=(0.0,), margin=0.02))],
    orders=(0, 1), wants="class Spike",
    solved="Your Spike's value is the step, and its gradient the fast sigmoid's derivative.",
    worked="construct keeps the step (ops.gt(x, 0), cast to x's dtype); bprop ignores it and returns "
           "(dout / ops.square(1 + 10 * ops.abs(x)),): the derivative of x / (1 + 10|x|), times dout.")

HYPOT = derivative_exercise(
    "4.2", "a bprop for hypot that reuses out",
    "two gradients, in the order of construct's inputs, each times dout; out is the forward "
    "result. Tensor arithmetic is made of minims ops, so it can be differentiated again.",
    build=lambda Hypot, point: Hypot(),
    formula=lambda x, y: ops.sqrt(x * x + y * y),
    points=[{"x": [3.0, -1.0, 0.5], "y": [4.0, 2.0, -1.5]},
            *drawn("4.2", 3, x=Box((3,), -3.0, 3.0, away=(0.0,)), y=Box((3,), -3.0, 3.0, away=(0.0,)))],
    orders=(0, 1, 2), check_grads_order=2, wants="class Hypot",
    worked="d sqrt(x^2 + y^2)/dx = x / sqrt(x^2 + y^2) = x / out, and likewise y / out: the bprop returns "
           "(dout * x / out, dout * y / out). Being Tensor arithmetic, it is recorded by an outer grad.")

EXERCISES = (SPIKE, HYPOT)
