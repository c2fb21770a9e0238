"""Exercises of chapters 09 (forward mode, Jacobians) and 09b (costs, Hessians, vmap, linearize).

9.1  a jvp (forward-mode) rule for Softplus, differentiable again (``check_grads`` in forward mode);
     chapter 09;
9.2  a Hessian-vector product, forward over reverse; chapter 09b;
9.3  per-example gradients with ``vmap`` of ``grad``; chapter 09b.
"""
from __future__ import annotations

import numpy as np
import sympy

from ... import ops
from ...core.tensor import Tensor
from ...core.stack import active_traces, add_rewriter, remove_rewriter
from . import Exercise
from .chapter01 import SOFTPLUS_POINTS, softplus
from .declare import Box, derivative_exercise, points_of, random_source
from .feedback import Quantity
from .watch import Watch
from .measure import array_of, gradient_of, numbers, run_formula, symbols_of, values_of, where

SOFTPLUS_JVP = derivative_exercise(
    "9.1", "a jvp rule for Softplus",
    "look at Sin.jvp in chapter 01: the tangent of the output is the input's tangent times the "
    "derivative. Use minims ops, so that a second jvp can differentiate the rule.",
    build=lambda Softplus, point: Softplus(), formula=softplus, points=SOFTPLUS_POINTS,
    orders=(0, 1, 2), mode="fwd", check_grads_order=2, wants="class Softplus",
    worked="The tangent of log(1 + e^x) along t is t * sigmoid(x). jvp returns the pair (the output, its "
           "tangent): (bind(self, x), ops.mul(t, ops.sigmoid(x))), with minims ops so that a second jvp can "
           "differentiate the rule.")


# ----- 9.2: Hessian-vector products ------------------------------------------------------------------
def hvp_test_function(x):
    """The function of exercise 9.2: sum(tanh(x) * x) + x0 x1 x2 (its Hessian is not diagonal)."""
    return ops.sum(ops.tanh(x) * x) + x[0] * x[1] * x[2]


def _hvp_points():
    """(x, v): two readable points with n = 3, then random ones with n = 4 and 5."""
    rng = random_source("9.2")
    return points_of({"x": [0.5, -1.0, 2.0], "v": [1.0, 0.5, -2.0]}, {"x": [-0.3, 0.8, 1.2], "v": [0.0, 1.0, 1.0]},
                     *({"x": Box((n,), -1.5, 1.5).draw(rng), "v": Box((n,), -2.0, 2.0).draw(rng)}
                       for n in (4, 5)))


_HVP = _hvp_points()
_HV = "the Hessian-vector product H v"

#: how chapter 09b's section 2 names a nesting of transforms (outermost first)
_COMPOSITIONS = {("jvp", "grad"): "forward over reverse", ("grad", "jvp"): "reverse over forward",
                 ("grad", "grad"): "reverse over reverse", ("vmap", "jvp", "jvp"): "forward over forward"}
_TRANSFORMS = {"JVPTrace": "jvp", "TapeTrace": "grad", "BatchTrace": "vmap", "StagingTrace": "jit"}


def _spied(hvp, point):
    """Run ``hvp`` at ``point`` and watch it: the transforms (outermost first) each call of ``f`` ran
    under, and the number of entries of the largest Tensor any operation received (an observer sees
    every ``bind``, the arrays vmap batches and the graphs jit stages included)."""
    calls, largest = [], [0]

    def f(x):
        calls.append(tuple(_TRANSFORMS.get(type(t).__name__, type(t).__name__) for t in active_traces()))
        return hvp_test_function(x)

    def watch(prim, args):
        for a in args:
            if isinstance(a, Tensor):
                largest[0] = max(largest[0], int(np.prod(a.shape)))

    add_rewriter(watch)
    try:
        hvp(f, Tensor(point["x"]), Tensor(point["v"]))
    finally:
        remove_rewriter(watch)
    return calls, largest[0]


def _hvp_run(hvp):
    found = []
    for point in _HVP:
        got = hvp(hvp_test_function, Tensor(point["x"]), Tensor(point["v"]))
        found.append(Quantity(_HV, "", 2, where(point), array_of(got)))
    return found


def _hvp_expect():
    found = []
    for point in _HVP:
        syms = symbols_of({"x": point["x"]})
        x = list(syms["x"].flat)
        f = run_formula(hvp_test_function, [syms["x"]])[()]
        hessian = sympy.hessian(f, x)
        hv = hessian * sympy.Matrix([sympy.Float(float(e), 30) for e in point["v"]])
        found.append(Quantity(_HV, "", 2, where(point),
                              numbers(np.array(list(hv), dtype=object), values_of({"x": point["x"]}, syms))))
    return found


def _nesting(nest: tuple) -> str:
    """('jvp', 'grad') as 'inside jvp(grad(f)) (forward over reverse)'."""
    if not nest:
        return "outside any transform"
    text = "inside " + "(".join(nest) + "(f" + ")" * len(nest)
    return text + (f" ({_COMPOSITIONS[nest]})" if nest in _COMPOSITIONS else "")


def _how_hvp_worked(hvp) -> str:
    """What the answer did, measured at every point: how often it ran f, under which transforms, and
    whether it made an array as large as the n x n Hessian."""
    runs = [(_spied(hvp, point), point["x"].size) for point in _HVP]
    counts = sorted({len(calls) for (calls, _), _ in runs})
    nestings = sorted({nest for (calls, _), _ in runs for nest in calls})
    if counts == [0]:
        text = "Your hvp never called f"
    else:
        times = "once" if counts == [1] else " or ".join(map(str, counts)) + " times"
        text = f"Your hvp ran f {times} per point, {' or '.join(map(_nesting, nestings))}"
    if any(largest >= n * n for (_, largest), n in runs):
        return text + (", and made an array of n x n entries, as large as the Hessian: right, but H v needs "
                       "only a small multiple of one gradient's work (a jvp of grad(f) along v).")
    return text + ", and made no array as large as the n x n Hessian."


HVP = Exercise(
    "9.2", "a Hessian-vector product",
    "H v is the derivative of the gradient of f along v: which transform gives a derivative "
    "along a direction?",
    run=_hvp_run, expect=_hvp_expect, reference="sympy.hessian(f) times v",
    solved=_how_hvp_worked, wants="function hvp",
    worked="H v is the directional derivative of the gradient along v: ops.jvp(ops.grad(f), (x,), (v,))[1] "
           "(forward over reverse). It costs a small multiple of one gradient, and never forms the n x n "
           "Hessian.")


# ----- 9.3: per-example gradients ----------------------------------------------------------------------
def example_loss(w, x, y):
    """The loss of one example in exercise 9.3: (tanh(x . w) - y)^2."""
    return (ops.tanh(ops.sum(x * w)) - y) ** 2


def _batches():
    """(w, xs, ys): a readable batch of 4 examples of 3 features, then random ones of other sizes
    (an answer that hard-codes the batch size must not pass)."""
    rng = random_source("9.3")
    found = points_of({"w": [0.5, -0.25, 1.0],
                       "xs": [[1.0, 0.5, -0.5], [0.0, 2.0, 1.0], [-1.0, 1.0, 0.25], [0.5, 0.5, 0.5]],
                       "ys": [0.5, -0.5, 0.0, 1.0]})
    for batch, features in ((2, 4), (5, 2)):
        found.append({"w": Box((features,), -1.0, 1.0).draw(rng),
                      "xs": Box((batch, features), -2.0, 2.0).draw(rng),
                      "ys": Box((batch,), -1.0, 1.0).draw(rng)})
    return found


_BATCHES = _batches()
_PER_EXAMPLE = "the gradient for w of each example's loss"


def _batch_run(per_example_grads):
    return [Quantity(_PER_EXAMPLE, "", 1, where(b),
                     array_of(per_example_grads(Tensor(b["w"]), Tensor(b["xs"]), Tensor(b["ys"]))))
            for b in _BATCHES]


def _batch_expect():
    found = []
    for b in _BATCHES:
        rows = [gradient_of(example_loss, {"w": b["w"], "x": x, "y": y}, "w") for x, y in zip(b["xs"], b["ys"])]
        found.append(Quantity(_PER_EXAMPLE, "", 1, where(b), np.stack(rows)))
    return found


def _how_per_example_worked(per_example_grads) -> str:
    """How the answer computed the rows, measured: under which transforms its ops ran."""
    b = _BATCHES[0]
    with Watch() as seen:
        rows = array_of(per_example_grads(Tensor(b["w"]), Tensor(b["xs"]), Tensor(b["ys"])))
    deepest = max(seen.nestings, key=len, default=())
    how = _nesting(deepest) if deepest else "outside any transform"
    how = how.replace("(f", "(example_loss")
    return (f"Your function returned one row per example ({rows.shape[0]} x {rows.shape[1]} for "
            f"{rows.shape[0]} examples), its ops running {how}.")


PER_EXAMPLE = Exercise(
    "9.3", "per-example gradients with vmap",
    "ops.grad(example_loss) is the gradient for one example; vmap runs it on each example. "
    "w is the same for every example (in_axes).",
    run=_batch_run, expect=_batch_expect, reference="SymPy, one example at a time",
    solved=_how_per_example_worked, wants="function per_example_grads",
    worked="ops.grad(example_loss) is the gradient for w of one example's loss; ops.vmap runs it over the "
           "examples, with in_axes=(None, 0, 0): w shared, xs and ys split along their first axis. "
           "ops.vmap(ops.grad(example_loss), in_axes=(None, 0, 0))(w, xs, ys).")


EXERCISES = (SOFTPLUS_JVP, HVP, PER_EXAMPLE)
