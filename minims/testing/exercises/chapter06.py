"""Exercises of chapter 06 (hooks).

6.1  a ``HookBackward`` function that clips the gradient passing through it to [-1, 1];
6.2  a Cell backward hook that halves the gradient leaving a Cell through its input.
"""
from __future__ import annotations

import numpy as np
import sympy

from ... import nn, ops
from ...core.tensor import Tensor
from ...interpreters.symbolic import symbols_like
from . import Exercise
from .declare import Box, drawn, points_of
from .feedback import Quantity
from .measure import derived, diff, dot, measured, numbers, sensitivity, symbols_of, values_of, where

# ----- 6.1: clipping with HookBackward -----------------------------------------------------------------
_W = np.array([-2.0, 0.25, 2.0, 2.0])            # f(x) = sum(dout * W * hook(x * x))
_CLIP_POINTS = points_of({"x": [0.5, -1.0, 1.5, 2.0]}, {"x": [-0.75, 0.5, 2.5, -1.25]},
                         *drawn("6.1", 2, x=Box((4,), -2.5, 2.5)))


def _clip_run(clip_hook):
    hook, w = ops.HookBackward(clip_hook), Tensor(_W)
    found = []
    for seed, point in enumerate(_CLIP_POINTS):
        found += measured(lambda x: hook(x * x) * w, point, orders=(0, 1), seed=seed)
    return found


def _clip_expect():
    found = []
    for seed, point in enumerate(_CLIP_POINTS):
        syms = symbols_of(point)
        x, subs = syms["x"], values_of(point, syms)
        h = x * x
        dout = sensitivity(h.shape, seed)
        hs = symbols_like("h", h.shape)
        arriving = numbers(diff(dot(dout, _W * hs), hs), {})       # d<dout, W h>/dh: what the hook sees
        local = numbers([sympy.diff(e, s) for e, s in zip(h, x)], subs)     # dh/dx = 2x
        at = where(point)
        q = Quantity("gradient", "x", 1, at, np.clip(arriving, -1.0, 1.0) * local, sens=dout)
        q.alternatives["unchanged"] = arriving * local
        found += [Quantity("value", "", 0, at, numbers(_W * h, subs)), q]
    return found


CLIP = Exercise(
    "6.1", "a hook that clips gradients",
    "the hook receives a tuple (g,) and returns a tuple; clipping is a maximum with -1 "
    "followed by a minimum with 1.",
    run=_clip_run, expect=_clip_expect,
    reference="SymPy, then clipped to [-1, 1]",
    solved="Gradients outside [-1, 1] arrive clipped; the others pass unchanged.")


# ----- 6.2: a Cell backward hook ---------------------------------------------------------------------
class _Net(nn.Cell):
    """tanh(3 x), the tanh in a sub-Cell that gets the learner's backward hook."""

    def __init__(self):
        super().__init__()
        self.act = nn.Tanh()

    def construct(self, x):
        return self.act(3 * x)


_HALF_POINTS = points_of({"x": [0.2, -0.5, 1.0]}, {"x": [[0.1, 0.3], [-0.2, 0.6]]},
                         *drawn("6.2", 2, x=Box((3,), -1.0, 1.0)))


def _half_run(halve):
    net = _Net()
    net.act.register_backward_hook(halve)
    found = []
    for seed, point in enumerate(_HALF_POINTS):
        found += measured(net, point, orders=(0, 1), seed=seed)
    return found


def _half_expect():
    found = []
    for seed, point in enumerate(_HALF_POINTS):
        value, grad = derived(lambda x: ops.tanh(3 * x), point, orders=(0, 1), seed=seed)
        full = grad.value
        grad.value = 0.5 * full
        grad.alternatives = {"unchanged": full}
        found += [value, grad]
    return found


HALVE = Exercise(
    "6.2", "a backward hook that halves a gradient",
    "of the hook's two tuples, grad_output holds the gradients for the Cell's inputs; a "
    "returned tuple replaces them.",
    run=_half_run, expect=_half_expect,
    reference="SymPy, halved at the tanh",
    solved="The gradient below the tanh is half of SymPy's.")

EXERCISES = (CLIP, HALVE)
