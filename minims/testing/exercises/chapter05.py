"""Exercises of chapter 05 (debugging in PyNative mode).

5.1  the page's closing custom-bprop example, with a bprop that is the true gradient of x * y * y;
5.2  the gradient of the mean softmax cross-entropy with respect to the logits, by hand.
"""
from __future__ import annotations

import numpy as np
import sympy

from ...common.tensor import Tensor
from ... import dtype as mstype
from . import Exercise
from .declare import derivative_exercise, points_of
from .feedback import Quantity
from .measure import array_of, diff, numbers, symbols_of, values_of, where

TRUE_BPROP = derivative_exercise(
    "5.1", "the page's custom bprop, made the true gradient",
    "differentiate x y^2 by x and by y; multiply each by dout; return them in the order of "
    "construct's inputs.",
    build=lambda Net, point: Net(),
    formula=lambda x, y: x * y * y,
    points=[{"x": [0.5, -1.5], "y": [3.0, 0.25]}, {"x": 1.0, "y": 2.0}],
    orders=(0, 1))


_CE = points_of({"logits": [[1.0, -0.5, 0.25], [0.0, 2.0, -1.0], [0.5, 0.5, 1.5], [-2.0, 0.0, 1.0]]})[0]
_LABELS = np.array([0, 1, 2, 1])


def _ce_run(ce_grad):
    got = ce_grad(Tensor(_CE["logits"]), Tensor(_LABELS.astype(np.int32), mstype.int32))
    return [Quantity("gradient", "logits", 1, where(_CE), array_of(got))]


def _ce_expect():
    syms = symbols_of(_CE)
    z = syms["logits"]
    n = z.shape[0]
    loss = sympy.Add(*[sympy.log(sympy.Add(*[sympy.exp(e) for e in z[i]])) - z[i, _LABELS[i]]
                       for i in range(n)]) / n
    return [Quantity("gradient", "logits", 1, where(_CE), numbers(diff(loss, z), values_of(_CE, syms)))]


CE_GRAD = Exercise(
    "5.2", "the gradient of the cross-entropy by hand",
    "for one example, d(-log softmax(z)[label])/dz is softmax(z) minus the one-hot label "
    "(ops.softmax, ops.one_hot); the loss is a mean over the N examples.",
    run=_ce_run, expect=_ce_expect,
    solved="Compare it with ops.grad of nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean').")

EXERCISES = (TRUE_BPROP, CE_GRAD)
