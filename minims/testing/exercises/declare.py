"""Declaring an exercise about derivatives in a few lines.

Most exercises ask for code whose value and derivatives are known: a bprop or jvp rule, a Cell, a
hook, a rewrite for Graph mode.  :func:`derivative_exercise` turns the parts of such an exercise into
an :class:`~minims.testing.exercises.Exercise`:

* ``build(answer, point)`` makes, from the learner's answer, the function to measure (or a pair
  ``(function, {name: Parameter})`` when Parameter gradients are checked too);
* ``formula`` is the same function written for SymPy (see :func:`.measure.derived`);
* ``points`` are the inputs, as dicts ``{name: array}`` (Parameter values and settings included,
  last).

One point proves little: a rule that ignores ``dout`` can agree with the reference at one point
by chance, and a layer that hard-codes its constant agrees for the one value ever built.  So the
points are several, most of them drawn at random (:func:`drawn`, seeded by a key so that the
feedback is the same on every run), and so are the Parameters and settings (``alpha``, a learning
rate, a batch size).

Nothing here knows any particular exercise.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ...core.tensor import Tensor
from ..gradcheck import check_grads
from . import Exercise
from .feedback import Quantity
from .measure import derived, measured, where

__all__ = ["derivative_exercise", "points_of", "cell_of", "Box", "drawn", "random_source"]


def points_of(*points) -> list[dict]:
    """Each point as a dict of float64 arrays."""
    return [{name: np.asarray(value, dtype=np.float64) for name, value in p.items()} for p in points]


def random_source(key: str) -> np.random.Generator:
    """The random generator of one exercise: seeded by ``key``, so its points are the same on every
    run (the feedback can be reproduced, and a right answer is never refused by chance)."""
    return np.random.default_rng(zlib.crc32(key.encode()))


@dataclass(frozen=True)
class Box:
    """Where an entry of a random point is drawn: uniform in ``[low, high]``, of shape ``shape``,
    rounded to a multiple of ``step`` (two decimals: the feedback prints it exactly; 0.25: exact in
    float32 too), at least ``margin`` away from each value of ``away`` (a kink or a pole, where the
    derivative is not defined)."""

    shape: tuple = ()
    low: float = -1.0
    high: float = 1.0
    away: tuple = ()
    margin: float = 0.05
    step: float = 0.01

    def _uniform(self, rng) -> np.ndarray:
        values = np.round(rng.uniform(self.low, self.high, self.shape) / self.step) * self.step
        return np.round(values, 10) + 0.0           # 0.07 rather than 0.07000000000000001; no -0.0

    def draw(self, rng) -> np.ndarray:
        values = self._uniform(rng)
        for _ in range(1000):
            near = np.zeros(np.shape(values), dtype=bool)
            for a in self.away:
                near |= np.abs(values - a) < self.margin
            if not near.any():
                return values
            values = np.where(near, self._uniform(rng), values)
        raise ValueError(f"no point of {self} is {self.margin} away from {self.away}")


def drawn(key: str, count: int, **boxes: Box) -> list[dict]:
    """``count`` random points, one entry per keyword (``x=Box((3,), -8, 8)``), seeded by ``key``."""
    rng = random_source(key)
    return [{name: box.draw(rng) for name, box in boxes.items()} for _ in range(count)]


def cell_of(*names):
    """A ``build`` for a Cell class whose ``__init__`` takes the Parameters' values ``names`` (in
    order, from the point) and keeps them as attributes of the same names."""
    def build(cell_class, point):
        net = cell_class(*(Tensor(point[n]) for n in names))
        return net, {n: getattr(net, n) for n in names}
    return build


def derivative_exercise(id, title, hint, build, formula, points, orders=(0, 1, 2), wrt=None,
                        mode="rev", params=(), settings=(), symbolic=True, value_formula=None,
                        check_grads_order=None, solved="", reference="SymPy", facts=(), wants="",
                        worked=""):
    """An exercise whose answer is checked by its value and derivatives at ``points``.

    ``params``: the names of the point's Parameter values (their gradients are checked too);
    ``settings``: the names of constants the answer is built with (``alpha``), not differentiated.
    The feedback names each point with all its entries, Parameters and settings included.
    ``check_grads_order``: after SymPy agrees, also run ``check_grads`` (central differences) up
    to that order, in ``mode``.  ``facts``: ``(label, fn(answer), expected)`` triples checked first
    (the names of the Parameters, a dtype ...).  ``wants`` and ``worked``: as in :class:`Exercise`.
    """
    points = points_of(*points)

    def inputs(point):
        return {n: v for n, v in point.items() if n not in params and n not in settings}

    def made(answer, point):
        made = build(answer, point)
        return made if isinstance(made, tuple) else (made, None)

    def run(answer):
        found = [Quantity(label, "", 0, "", fn(answer)) for label, fn, _ in facts]
        for seed, point in enumerate(points):
            fn, weights = made(answer, point)
            found += measured(fn, inputs(point), orders, wrt, mode, seed, weights, at=where(point))
        return found

    def expect_at(point, seed, at):
        return derived(formula, point, orders, wrt, mode, seed, tuple(params), symbolic, value_formula,
                       tuple(settings), at=at)

    def expect():
        found = [Quantity(label, "", 0, "", value, source="the exercise") for label, _, value in facts]
        first = {n: points[0][n] for n in settings}
        for seed, point in enumerate(points):
            quantities = expect_at(point, seed, where(point))
            if any(not np.array_equal(point[n], first[n]) for n in settings):
                # what an answer that ignores its settings (one value written into the code) gives
                for q, other in zip(quantities, expect_at({**point, **first}, seed, where(point))):
                    q.alternatives[f"setting:{where(first)}"] = other.value
            found += quantities
        return found

    def confirm(answer):
        """check_grads (central differences, no SymPy) at every point, in the exercise's mode."""
        for point in points:
            fn, _ = made(answer, point)
            args = tuple(Tensor(v) for v in inputs(point).values())
            check_grads(fn, args, order=check_grads_order, modes=("fwd",) if mode == "fwd" else ("rev",))

    if check_grads_order and not solved:
        solved = f"check_grads(order={check_grads_order}) agrees with central differences too."
    return Exercise(id, title, hint, run, expect, reference, confirm if check_grads_order else None, solved,
                    wants=wants, worked=worked)
