"""Exercises of chapter 03 (custom layers).

3.1  a ``LeakyReLU(alpha)`` Cell built from existing ops (no bprop: autodiff derives it), built with
     several values of alpha (a layer that hard-codes one must not pass);
3.2  a Cell ``Scale`` with a custom bprop that also returns its Parameter's gradient
     (``internal_params``), the Parameter broadcast over the input.
"""
from __future__ import annotations

import numpy as np
import sympy

from .declare import Box, cell_of, derivative_exercise, drawn
from .measure import elementwise


def _leaky_relu(x, alpha):
    """x where x > 0, alpha x elsewhere, for SymPy (alpha is a symbol of the point, like x)."""
    a = np.asarray(alpha, dtype=object)[()]
    return elementwise(lambda s: sympy.Piecewise((s, s > 0), (a * s, True)))(x)


def _alphas(LeakyReLU) -> str:
    """The settings the answer was built with and got right."""
    alphas = ", ".join(f"{float(p['alpha']):g}" for p in _LEAKY_POINTS)
    return f"Your LeakyReLU was right when built with each of alpha = {alphas}."


_LEAKY_POINTS = [{"x": [-2.0, -0.5, 0.25, 3.0], "alpha": 0.1}, {"x": [[1.5, -1.0], [-0.1, 0.7]], "alpha": 0.1},
                 *drawn("3.1", 3, x=Box((5,), -3.0, 3.0, away=(0.0,)), alpha=Box((), 0.02, 0.9))]

LEAKY_RELU = derivative_exercise(
    "3.1", "a LeakyReLU layer from existing ops",
    "a Python `if` cannot decide for a whole Tensor at once; Threshold shows the op that "
    "chooses element by element.",
    build=lambda LeakyReLU, point: LeakyReLU(float(point["alpha"])),
    formula=_leaky_relu,
    symbolic=False,
    points=_LEAKY_POINTS,
    settings=("alpha",),
    orders=(0, 1, 2), wants="class LeakyReLU", solved=_alphas,
    worked="Keep alpha in __init__ (self.alpha = alpha) and pick element by element in construct: "
           "ops.select(x > 0, x, self.alpha * x) computes both candidates and takes, entry by entry, the one "
           "the condition says. Autodiff derives the gradient from select: 1 where x > 0, alpha elsewhere.")


SCALE = derivative_exercise(
    "3.2", "a custom bprop that returns a Parameter's gradient",
    "declare the Parameter in self.internal_params, and return a pair: the input gradients "
    "and a dict {Parameter: gradient}. w has shape [1] but was used against x of shape [3].",
    build=cell_of("w"),
    formula=lambda x, w: w * x,
    points=[{"x": [0.5, -1.0, 2.0], "w": [1.5]}, *drawn("3.2", 3, x=Box((3,), -2.0, 2.0), w=Box((1,), -2.0, 2.0))],
    orders=(0, 1), params=("w",), wants="class Scale",
    solved="Your bprop's gradients for the input and for the Parameter w both match SymPy.",
    worked="self.internal_params = [self.w] lets the bprop use w. d(w x)/dx = w and d(w x)/dw = x, each times "
           "dout; w (shape [1]) was broadcast over x (shape [3]), so its gradient is summed back: "
           "ops.sum(x * dout, keepdim=True). The bprop returns ((w * dout,), {self.w: that sum}).")

EXERCISES = (LEAKY_RELU, SCALE)
