"""Exercises of chapter 02 (Cell and Parameter).

2.1  a Cell ``Affine(w, b)`` with Parameters ``w`` and ``b`` computing tanh(x w + b);
2.2  one step of gradient descent by hand: gradients for the Parameters, then an update in place.
"""
from __future__ import annotations

import numpy as np

from ... import nn, ops
from ...common.tensor import Tensor
from . import Exercise
from .declare import derivative_exercise, points_of
from .feedback import Quantity
from .measure import gradient_of, where

_W = [[0.5, -1.0], [0.25, 2.0], [-1.5, 0.75]]
_B = [0.1, -0.2]


def _parameter_names(Affine):
    net = Affine(Tensor(np.array(_W)), Tensor(np.array(_B)))
    return [p.name for p in net.trainable_params()]


def _affine(Affine, point):
    net = Affine(Tensor(point["w"]), Tensor(point["b"]))
    return net, {p.name: p for p in net.trainable_params()}


AFFINE = derivative_exercise(
    "2.1", "a Cell with two Parameters",
    "a Parameter is made from a Tensor and a name; assigned to self, the Cell finds it. "
    "construct uses ops.matmul and ops.tanh.",
    build=_affine,
    formula=lambda x, w, b: ops.tanh(ops.matmul(x, w) + b),
    points=[{"x": [[1.0, -0.5, 0.25], [0.0, 2.0, -1.0]], "w": _W, "b": _B}],
    orders=(0, 1), params=("w", "b"),
    facts=[("the names of the trainable Parameters", _parameter_names, ["w", "b"])],
    solved="ops.grad(net, None, net.trainable_params()) gives the same gradients as SymPy.")


# ----- 2.2: one SGD step -----------------------------------------------------------------------------
_STEP = points_of({"x": [[1.0, -2.0, 0.5], [0.5, 1.0, -1.0]], "weight": [[0.5, -0.25, 1.0], [1.5, 0.5, -0.5]],
                   "bias": [0.25, -0.75]})[0]
_LR = 0.1


def _loss(x, weight, bias):
    """The loss of the exercise, sum((x W^T + b)^2), for the symbolic interpreter."""
    return ops.sum((ops.matmul(x, weight.T) + bias) ** 2)


def _sgd_run(sgd_step):
    net = nn.Dense(3, 2, weight_init=Tensor(_STEP["weight"]), bias_init=Tensor(_STEP["bias"]))
    before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    sgd_step(net, Tensor(_STEP["x"]), _LR)
    at = where({"x": _STEP["x"]})
    return [Quantity(f"the change of Parameter {p.name} after one step", "", 0, at,
                     p.asnumpy().astype(np.float64) - before[p.name]) for p in net.trainable_params()]


def _sgd_expect():
    return [Quantity(f"the change of Parameter {name} after one step", "", 0, where({"x": _STEP["x"]}),
                     -_LR * gradient_of(_loss, _STEP, name)) for name in ("weight", "bias")]


SGD_STEP = Exercise(
    "2.2", "one step of gradient descent",
    "ops.grad with grad_position=None and weights=... gives one gradient per Parameter; "
    "a Parameter changes in place with set_data (or ops.assign).",
    run=_sgd_run, expect=_sgd_expect,
    solved="Each Parameter moved by -lr times its SymPy gradient.")

EXERCISES = (AFFINE, SGD_STEP)
