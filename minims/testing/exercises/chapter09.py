"""Exercises of chapter 09 (forward mode, Jacobians, vmap).

9.1  a jvp (forward-mode) rule for Softplus, differentiable again (``check_grads`` in forward mode);
9.2  a Hessian-vector product, forward over reverse;
9.3  per-example gradients with ``vmap`` of ``grad``.
"""
from __future__ import annotations

import numpy as np
import sympy

from ... import ops
from ...common.tensor import Tensor
from . import Exercise
from .chapter01 import SOFTPLUS_POINTS, softplus
from .declare import derivative_exercise, points_of
from .feedback import Quantity
from .measure import array_of, gradient_of, numbers, run_formula, symbols_of, values_of, where

SOFTPLUS_JVP = derivative_exercise(
    "9.1", "a jvp rule for Softplus",
    "look at Sin.jvp in chapter 01: the tangent of the output is the input's tangent times the "
    "derivative. Use minims ops, so that a second jvp can differentiate the rule.",
    build=lambda Softplus, point: Softplus(), formula=softplus, points=SOFTPLUS_POINTS,
    orders=(0, 1, 2), mode="fwd", check_grads_order=2)


# ----- 9.2: Hessian-vector products ------------------------------------------------------------------
def hvp_test_function(x):
    """The function of exercise 9.2: sum(tanh(x) * x) + x0 x1 x2 (its Hessian is not diagonal)."""
    return ops.sum(ops.tanh(x) * x) + x[0] * x[1] * x[2]


_HVP = points_of({"x": [0.5, -1.0, 2.0], "v": [1.0, 0.5, -2.0]}, {"x": [-0.3, 0.8, 1.2], "v": [0.0, 1.0, 1.0]})


def _hvp_run(hvp):
    found = []
    for point in _HVP:
        got = hvp(hvp_test_function, Tensor(point["x"]), Tensor(point["v"]))
        found.append(Quantity("the Hessian-vector product H v", "", 2, where(point), array_of(got)))
    return found


def _hvp_expect():
    found = []
    for point in _HVP:
        syms = symbols_of({"x": point["x"]})
        x = list(syms["x"].flat)
        f = run_formula(hvp_test_function, [syms["x"]])[()]
        hessian = sympy.hessian(f, x)
        hv = hessian * sympy.Matrix([sympy.Float(float(e), 30) for e in point["v"]])
        found.append(Quantity("the Hessian-vector product H v", "", 2, where(point),
                              numbers(np.array(list(hv), dtype=object), values_of({"x": point["x"]}, syms))))
    return found


HVP = Exercise(
    "9.2", "a Hessian-vector product",
    "H v is the derivative of the gradient of f along v: which transform gives a derivative "
    "along a direction?",
    run=_hvp_run, expect=_hvp_expect, reference="sympy.hessian(f) times v",
    solved="No Hessian was built: one jvp of one grad.")


# ----- 9.3: per-example gradients ----------------------------------------------------------------------
def example_loss(w, x, y):
    """The loss of one example in exercise 9.3: (tanh(x . w) - y)^2."""
    return (ops.tanh(ops.sum(x * w)) - y) ** 2


_BATCH = points_of({"w": [0.5, -0.25, 1.0],
                    "xs": [[1.0, 0.5, -0.5], [0.0, 2.0, 1.0], [-1.0, 1.0, 0.25], [0.5, 0.5, 0.5]],
                    "ys": [0.5, -0.5, 0.0, 1.0]})[0]


_PER_EXAMPLE = "the gradient for w of each example's loss"


def _batch_run(per_example_grads):
    got = per_example_grads(Tensor(_BATCH["w"]), Tensor(_BATCH["xs"]), Tensor(_BATCH["ys"]))
    return [Quantity(_PER_EXAMPLE, "", 1, where(_BATCH), array_of(got))]


def _batch_expect():
    rows = [gradient_of(example_loss, {"w": _BATCH["w"], "x": x, "y": y}, "w")
            for x, y in zip(_BATCH["xs"], _BATCH["ys"])]
    return [Quantity(_PER_EXAMPLE, "", 1, where(_BATCH), np.stack(rows))]


PER_EXAMPLE = Exercise(
    "9.3", "per-example gradients with vmap",
    "ops.grad(example_loss) is the gradient for one example; vmap runs it on each example. "
    "w is the same for every example (in_axes).",
    run=_batch_run, expect=_batch_expect, reference="SymPy, one example at a time",
    solved="One row per example, each the gradient of that example's loss.")


EXERCISES = (SOFTPLUS_JVP, HVP, PER_EXAMPLE)
