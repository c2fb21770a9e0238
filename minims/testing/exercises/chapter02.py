"""Exercises of chapter 02 (Cell and Parameter).

2.1  a Cell ``Affine(w, b)`` with Parameters ``w`` and ``b`` computing tanh(x w + b);
2.2  one step of gradient descent by hand: gradients for the Parameters, then an update in place.
"""
from __future__ import annotations

import numpy as np

from ... import nn, ops
from ... import Parameter
from ...core.tensor import Tensor
from . import Exercise
from .declare import Box, derivative_exercise, drawn, points_of
from .feedback import AnswerError, Quantity
from .measure import gradient_of, where

_W = [[0.5, -1.0], [0.25, 2.0], [-1.5, 0.75]]
_B = [0.1, -0.2]


def _plain_tensors(net) -> list[str]:
    """The attributes of ``net`` that hold a Tensor but not a Parameter."""
    return sorted(name for name, value in vars(net).items()
                  if isinstance(value, Tensor) and not isinstance(value, Parameter))


def _parameter_names(Affine):
    """The names of the trainable Parameters, sorted: a Cell lists them in the order its __init__
    assigned them (MindSpore too), and either order is right.  A Cell that keeps w and b as plain
    Tensors has none: refused with that diagnosis (the numbers alone would only say "[] differs")."""
    net = Affine(Tensor(np.array(_W)), Tensor(np.array(_B)))
    names = sorted(p.name for p in net.trainable_params())
    plain = _plain_tensors(net)
    if not names and plain:
        kept = " and ".join(f"self.{n}" for n in plain)
        raise AnswerError(
            f"{type(net).__name__} has no trainable Parameters; {kept} are plain Tensors", kind="parameters",
            advice=f"your Cell keeps {kept} as plain Tensors, not Parameters. A Cell trains only its Parameters: "
                   "net.trainable_params() is empty, so ops.grad(net, None, net.trainable_params()) has nothing "
                   "to differentiate and an optimizer nothing to update. Wrap each one: "
                   "self.w = Parameter(w, name='w').")
    return names


def _what_affine_holds(Affine) -> str:
    """The answer's Parameters, measured: their names and shapes."""
    net = Affine(Tensor(np.array(_W)), Tensor(np.array(_B)))
    held = " and ".join(f"{p.name} {list(p.shape)}" for p in net.trainable_params())
    return (f"Your Affine holds the trainable Parameters {held}, and ops.grad(net, None, "
            "net.trainable_params()) gives SymPy's gradients for both.")


def _affine(Affine, point):
    net = Affine(Tensor(point["w"]), Tensor(point["b"]))
    return net, {p.name: p for p in net.trainable_params()}


AFFINE = derivative_exercise(
    "2.1", "a Cell with two Parameters",
    "a Parameter is made from a Tensor and a name; assigned to self, the Cell finds it. "
    "construct uses ops.matmul and ops.tanh.",
    build=_affine,
    formula=lambda x, w, b: ops.tanh(ops.matmul(x, w) + b),
    points=[{"x": [[1.0, -0.5, 0.25], [0.0, 2.0, -1.0]], "w": _W, "b": _B},
            *drawn("2.1", 2, x=Box((2, 3), -2.0, 2.0), w=Box((3, 2), -1.5, 1.5), b=Box((2,), -1.0, 1.0))],
    orders=(0, 1), params=("w", "b"),
    facts=[("the names of the trainable Parameters (in any order)", _parameter_names, ["b", "w"])],
    solved=_what_affine_holds, wants="class Affine",
    worked="In __init__, self.w = Parameter(w, name='w') and self.b = Parameter(b, name='b'): a Parameter "
           "assigned to an attribute is registered with the Cell, so trainable_params() finds it. construct "
           "computes ops.tanh(ops.matmul(x, self.w) + self.b).")


# ----- 2.2: one SGD step -----------------------------------------------------------------------------
#: (x, the Dense layer's weight and bias, the learning rate): one readable step, then random ones
# with random learning rates (an update that hard-codes lr = 0.1 must not pass)
_STEPS = points_of({"x": [[1.0, -2.0, 0.5], [0.5, 1.0, -1.0]], "weight": [[0.5, -0.25, 1.0], [1.5, 0.5, -0.5]],
                    "bias": [0.25, -0.75], "lr": 0.1},
                   *drawn("2.2", 2, x=Box((2, 3), -2.0, 2.0), weight=Box((2, 3), -1.5, 1.5),
                          bias=Box((2,), -1.0, 1.0), lr=Box((), 0.01, 0.3)))


def _loss(x, weight, bias):
    """The loss of the exercise, sum((x W^T + b)^2), for the symbolic interpreter."""
    return ops.sum((ops.matmul(x, weight.T) + bias) ** 2)


def _at(step) -> str:
    return where({"x": step["x"], "lr": step["lr"]})


def _sgd_run(sgd_step):
    found = []
    for step in _STEPS:
        net = nn.Dense(3, 2, weight_init=Tensor(step["weight"]), bias_init=Tensor(step["bias"]))
        params = net.trainable_params()
        # names and values before the step, the Parameters themselves kept: the learner's code may
        # wrap net in another Cell (TrainOneStepCell), which prefixes their names ('n.weight')
        names = [p.name for p in params]
        before = [p.asnumpy().astype(np.float64) for p in params]
        sgd_step(net, Tensor(step["x"]), float(step["lr"]))
        found += [Quantity(f"the change of Parameter {name} after one step", "", 0, _at(step),
                           p.asnumpy().astype(np.float64) - old) for name, p, old in zip(names, params, before)]
    return found


def _how_sgd_stepped(sgd_step) -> str:
    """What the answer's step did to the network, measured on the first step: which Parameters it
    changed, and whether in place (the objects the network holds) or not at all."""
    step = _STEPS[0]
    net = nn.Dense(3, 2, weight_init=Tensor(step["weight"]), bias_init=Tensor(step["bias"]))
    params = net.trainable_params()
    before = [p.asnumpy().copy() for p in params]
    sgd_step(net, Tensor(step["x"]), float(step["lr"]))
    changed = [p.name for p, old in zip(params, before) if not np.array_equal(p.asnumpy(), old)]
    rates = ", ".join(f"{float(s['lr']):g}" for s in _STEPS)
    return (f"Your step changed {' and '.join(changed)} in place (the Parameter objects the network holds), "
            f"each by -lr times its gradient, at the learning rates {rates}.")


def _sgd_expect():
    point = ("x", "weight", "bias")
    return [Quantity(f"the change of Parameter {name} after one step", "", 0, _at(step),
                     -step["lr"] * gradient_of(_loss, {n: step[n] for n in point}, name))
            for step in _STEPS for name in ("weight", "bias")]


SGD_STEP = Exercise(
    "2.2", "one step of gradient descent",
    "ops.grad with grad_position=None and weights=... gives one gradient per Parameter; "
    "a Parameter changes in place with set_data (or ops.assign).",
    run=_sgd_run, expect=_sgd_expect, wants="function sgd_step",
    solved=_how_sgd_stepped,
    worked="grads = ops.grad(lambda x: ops.sum(net(x) ** 2), None, params)(x) with params = "
           "net.trainable_params() gives one gradient per Parameter; then each Parameter is changed in "
           "place, p.set_data(p - lr * g). (p = p - lr * g would only rebind the name p.)")

EXERCISES = (AFFINE, SGD_STEP)
