"""Exercises of chapter 05 (debugging in PyNative mode).

5.1  the page's closing custom-bprop example, with a bprop that is the true gradient of x * y * y;
5.2  the gradient of the mean softmax cross-entropy with respect to the logits, by hand.
"""
from __future__ import annotations

import numpy as np
import sympy

from ...core.tensor import Tensor
from ... import dtype as mstype
from . import Exercise
from .declare import Box, derivative_exercise, drawn, random_source
from .feedback import Quantity
from .measure import array_of, diff, numbers, symbols_of, values_of, where

TRUE_BPROP = derivative_exercise(
    "5.1", "the page's custom bprop, made the true gradient",
    "differentiate x y^2 by x and by y; multiply each by dout; return them in the order of "
    "construct's inputs.",
    build=lambda Net, point: Net(),
    formula=lambda x, y: x * y * y,
    points=[{"x": [0.5, -1.5], "y": [3.0, 0.25]}, {"x": 1.0, "y": 2.0},
            *drawn("5.1", 2, x=Box((3,), -2.0, 2.0), y=Box((3,), -2.0, 2.0))],
    orders=(0, 1), wants="class Net",
    worked="d(x y^2)/dx = y^2 and d(x y^2)/dy = 2 x y; the bprop returns (dout * y * y, dout * 2 * x * y), "
           "in the order of construct's inputs.")


# ----- 5.2: the cross-entropy's gradient ---------------------------------------------------------------
def _batches():
    """(logits, labels): the page's batch of 4 examples and 3 classes, then random ones of other
    sizes (an answer that hard-codes N = 4 or 3 classes must not pass)."""
    rng = random_source("5.2")
    found = [(np.array([[1.0, -0.5, 0.25], [0.0, 2.0, -1.0], [0.5, 0.5, 1.5], [-2.0, 0.0, 1.0]]),
              np.array([0, 1, 2, 1]))]
    for n, classes in ((2, 5), (6, 2), (3, 4)):
        found.append((Box((n, classes), -3.0, 3.0).draw(rng), rng.integers(0, classes, n)))
    return found


_BATCHES = _batches()


def _at(logits, labels) -> str:
    return where({"logits": logits, "labels": labels})


def _ce_run(ce_grad):
    found = []
    for logits, labels in _BATCHES:
        got = ce_grad(Tensor(logits), Tensor(labels.astype(np.int32), mstype.int32))
        found.append(Quantity("gradient", "logits", 1, _at(logits, labels), array_of(got)))
    return found


def _ce_expect():
    found = []
    for logits, labels in _BATCHES:
        point = {"logits": logits}
        z = symbols_of(point)["logits"]
        n = z.shape[0]
        loss = sympy.Add(*[sympy.log(sympy.Add(*[sympy.exp(e) for e in z[i]])) - z[i, labels[i]]
                           for i in range(n)]) / n
        found.append(Quantity("gradient", "logits", 1, _at(logits, labels),
                              numbers(diff(loss, z), values_of(point, {"logits": z}))))
    return found


def _what_ce_grad_gave(ce_grad) -> str:
    """The answer's gradient, measured: each row sums to 0 and the rows' sizes follow the batch."""
    sums = [np.abs(array_of(ce_grad(Tensor(z), Tensor(y.astype(np.int32), mstype.int32))).sum(axis=1)).max()
            for z, y in _BATCHES]
    sizes = ", ".join(f"{z.shape[0]} x {z.shape[1]}" for z, _ in _BATCHES)
    zero = "each row sums to 0 (to rounding)" if max(sums) < 1e-12 else "its rows do not sum to 0"
    return (f"Your ce_grad gave the mean's gradient for batches of {sizes} (examples x classes); {zero}, "
            "as a softmax minus a one-hot label does.")


CE_GRAD = Exercise(
    "5.2", "the gradient of the cross-entropy by hand",
    "for one example, d(-log softmax(z)[label])/dz is softmax(z) minus the one-hot label "
    "(ops.softmax, ops.one_hot); the loss is a mean over the N examples.",
    run=_ce_run, expect=_ce_expect, wants="function ce_grad", solved=_what_ce_grad_gave,
    worked="For one example the loss is log(sum_j e^z_j) - z_label; its gradient is softmax(z) - one_hot(label). "
           "The mean over N examples divides by N, read from the logits' shape: "
           "(ops.softmax(logits) - ops.one_hot(labels, classes, 1.0, 0.0)) / n.")

EXERCISES = (TRUE_BPROP, CE_GRAD)
