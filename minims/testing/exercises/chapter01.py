"""Exercises of chapter 01 (how autodiff works): backward rules of new primitives, and the tiny engine.

1.1  a bprop rule for Softplus, log(1 + e^x), differentiable twice (``check_grads(order=2)``);
1.2  a bprop rule for x * exp(y) with a broadcast y (``sum_to``, two gradients in order);
1.3  ``exp`` for the 40-line engine's ``Var`` (a local derivative).
"""
from __future__ import annotations

import numpy as np

from ... import ops
from .declare import Box, derivative_exercise, drawn, points_of
from .measure import derived, sensitivity, where
from .feedback import AnswerError, Quantity
from . import Exercise

def softplus(x):
    """log(1 + e^x), for SymPy (exercises 1.1 and 9.1)."""
    return ops.log(1 + ops.exp(x))


#: Two readable points, then random ones out to |x| = 10, where sigmoid saturates (a rule right only
#: near 0 must not pass)
SOFTPLUS_POINTS = [{"x": [-2.0, 0.3, 1.5]}, {"x": [[0.5, -1.0], [2.5, 0.0]]},
                   *drawn("softplus", 3, x=Box((4,), -10.0, 10.0))]

SOFTPLUS = derivative_exercise(
    "1.1", "a bprop rule for Softplus",
    "differentiate log(1 + e^x) on paper: the result is a function minims has as an op. "
    "Multiply it by dout, return a tuple, and use minims ops only (an outer grad must record them).",
    build=lambda Softplus, point: Softplus(), formula=softplus, points=SOFTPLUS_POINTS,
    orders=(0, 1, 2), check_grads_order=2, wants="class Softplus",
    worked="d/dx log(1 + e^x) = e^x / (1 + e^x) = 1 / (1 + e^-x) = sigmoid(x). The rule multiplies it by "
           "dout and returns a tuple with one gradient; written with minims ops (ops.mul, ops.sigmoid), it is "
           "itself recorded by an outer grad, so the second derivative comes for free.")

SCALE_EXP = derivative_exercise(
    "1.2", "a bprop rule for x * exp(y), with y broadcast",
    "one gradient per input, in the order of the inputs, each times dout. y was broadcast over "
    "the rows of x: its gradient must come back with y's shape (see Mul.bprop).",
    build=lambda ScaleExp, point: ScaleExp(),
    formula=lambda x, y: x * ops.exp(y),
    points=[{"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], "y": [0.2, -0.4, 0.1]},
            *drawn("1.2", 3, x=Box((2, 3), -3.0, 3.0), y=Box((3,), -2.0, 2.0))],
    orders=(0, 1, 2), check_grads_order=2, wants="class ScaleExp",
    worked="d(x e^y)/dx = e^y and d(x e^y)/dy = x e^y, which is out. Each is multiplied by dout (shape [2, 3]); "
           "y (shape [3]) was broadcast over the rows of x, so its gradient is summed back to y's shape "
           "with sum_to (x's gradient already has x's shape).")


# ----- 1.3: the tiny engine ------------------------------------------------------------------------
_ENGINE_POINTS = points_of({"x": 0.5, "y": 2.0}, {"x": -1.3, "y": 0.4},
                           *drawn("1.3", 3, x=Box((), -2.0, 2.0), y=Box((), -2.0, 2.0)))


def _engine_formula(x, y):
    return ops.exp(x * y) + x


def _exp_of(Var, value: float):
    """``Var(value).exp()``, refused unless it is a Var: a float (math.exp of the value) is a constant to
    the engine, which then adds no gradient through exp, a slip the numbers alone cannot name."""
    out = Var(value).exp()
    if not isinstance(out, Var):
        raise AnswerError(
            f"Var.exp returned {type(out).__name__} {out!r}, not a Var", kind="returned",
            advice=f"your exp returns a {type(out).__name__}, not a Var. The engine lifts a plain number into "
                   "a Var with no parents, a constant: the gradient stops there, and x.grad gets only the "
                   "'+ x' part. Return Var(value, ((self, local_derivative),)), as Var.sin does.")
    return out


def _engine_run(Var):
    """Value and gradients of exp(x*y) + x, computed by the engine with the learner's Var.exp."""
    _exp_of(Var, 1.0)
    found = []
    for seed, point in enumerate(_ENGINE_POINTS):
        dout = sensitivity((), seed)
        x, y = Var(float(point["x"])), Var(float(point["y"]))
        out = (x * y).exp() + x
        (out * float(dout)).backward()         # the seed gradient dout, as ops.grad's sensitivity
        at = where(point)
        found += [Quantity("value", "", 0, at, np.float64(out.value)),
                  Quantity("gradient", "x", 1, at, np.float64(x.grad), sens=dout),
                  Quantity("gradient", "y", 1, at, np.float64(y.grad), sens=dout)]
    return found


def _engine_expect():
    found = []
    for seed, point in enumerate(_ENGINE_POINTS):
        found += derived(_engine_formula, point, orders=(0, 1), seed=seed)
    return found


def _what_exp_did(Var) -> str:
    """What the answer's exp made, measured at x = 1: the value, the parents, the local derivative."""
    out = _exp_of(Var, 1.0)
    locals_ = ", ".join(f"{float(local):.6g}" for _, local in out.parents)
    return (f"At x = 1 your exp made a Var of value {out.value:.6g} with {len(out.parents)} parent"
            f"{'s' if len(out.parents) != 1 else ''} (local derivative {locals_}; e = 2.71828), so the engine "
            "differentiates exp(x*y) + x as ops.grad does.")


VAR_EXP = Exercise(
    "1.3", "exp for the tiny engine",
    "look at Var.sin: a new Var with the value, and one (parent, local derivative) pair. "
    "What is the derivative of e^x?",
    run=_engine_run, expect=_engine_expect,
    solved=_what_exp_did, wants="class Var", solution="var_exp",
    worked="(e^x)' = e^x: the new Var holds e^x, and its one parent is self, with the local derivative e^x "
           "(the same number). The chapter's cell then adds it to the class: Var.exp = var_exp.")

EXERCISES = (SOFTPLUS, SCALE_EXP, VAR_EXP)
