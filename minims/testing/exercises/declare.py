"""Declaring an exercise about derivatives in a few lines.

Most exercises ask for code whose value and derivatives are known: a bprop or jvp rule, a Cell, a
hook, a rewrite for Graph mode.  :func:`derivative_exercise` turns the parts of such an exercise into
an :class:`~minims.testing.exercises.Exercise`:

* ``build(answer, point)`` makes, from the learner's answer, the function to measure (or a pair
  ``(function, {name: Parameter})`` when Parameter gradients are checked too);
* ``formula`` is the same function written for SymPy (see :func:`.measure.derived`);
* ``points`` are the inputs, as dicts ``{name: array}`` (Parameter values included, last).

Nothing here knows any particular exercise.
"""
from __future__ import annotations

import numpy as np

from ...common.tensor import Tensor
from ..gradcheck import check_grads
from . import Exercise
from .feedback import Quantity
from .measure import derived, measured

__all__ = ["derivative_exercise", "points_of", "cell_of"]


def points_of(*points) -> list[dict]:
    """Each point as a dict of float64 arrays."""
    return [{name: np.asarray(value, dtype=np.float64) for name, value in p.items()} for p in points]


def cell_of(*names):
    """A ``build`` for a Cell class whose ``__init__`` takes the Parameters' values ``names`` (in
    order, from the point) and keeps them as attributes of the same names."""
    def build(cell_class, point):
        net = cell_class(*(Tensor(point[n]) for n in names))
        return net, {n: getattr(net, n) for n in names}
    return build


def derivative_exercise(id, title, hint, build, formula, points, orders=(0, 1, 2), wrt=None,
                        mode="rev", params=(), symbolic=True, value_formula=None,
                        check_grads_order=None, solved="", reference="SymPy", facts=()):
    """An exercise whose answer is checked by its value and derivatives at ``points``.

    ``check_grads_order``: after SymPy agrees, also run ``check_grads`` (central differences) up
    to that order, in ``mode``.  ``facts``: ``(label, fn(answer), expected)`` triples checked first
    (the names of the Parameters, a dtype ...).
    """
    points = points_of(*points)

    def inputs(point):
        return {n: v for n, v in point.items() if n not in params}

    def made(answer, point):
        made = build(answer, point)
        return made if isinstance(made, tuple) else (made, None)

    def run(answer):
        found = [Quantity(label, "", 0, "", fn(answer)) for label, fn, _ in facts]
        for seed, point in enumerate(points):
            fn, weights = made(answer, point)
            found += measured(fn, inputs(point), orders, wrt, mode, seed, weights)
        return found

    def expect():
        found = [Quantity(label, "", 0, "", value, source="the exercise") for label, _, value in facts]
        for seed, point in enumerate(points):
            found += derived(formula, point, orders, wrt, mode, seed, tuple(params), symbolic, value_formula)
        return found

    def confirm(answer):
        """check_grads (central differences, no SymPy) at every point, in the exercise's mode."""
        for point in points:
            fn, _ = made(answer, point)
            args = tuple(Tensor(v) for v in inputs(point).values())
            check_grads(fn, args, order=check_grads_order, modes=("fwd",) if mode == "fwd" else ("rev",))

    if check_grads_order and not solved:
        solved = f"check_grads(order={check_grads_order}) agrees with central differences too."
    return Exercise(id, title, hint, run, expect, reference, confirm if check_grads_order else None, solved)
