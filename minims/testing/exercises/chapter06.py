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


def _what_clip_did(clip_hook) -> str:
    """What the answer's hook received and returned, measured on every point."""
    seen = []

    def spy(grad):
        out = clip_hook(grad)
        seen.append((grad[0].asnumpy(), out[0].asnumpy()))
        return out

    _clip_run(spy)
    arrived = np.concatenate([g.ravel() for g, _ in seen])
    returned = np.concatenate([o.ravel() for _, o in seen])
    outside = np.abs(arrived) > 1
    return (f"Your hook received {arrived.size} gradients; the {int(outside.sum())} outside [-1, 1] (the largest "
            f"{np.abs(arrived).max():.4g}) came back as {sorted(set(returned[outside].tolist()))}, the "
            f"{int((~outside).sum())} inside unchanged.")


CLIP = Exercise(
    "6.1", "a hook that clips gradients",
    "the hook receives a tuple (g,) and returns a tuple; clipping is a maximum with -1 "
    "followed by a minimum with 1.",
    run=_clip_run, expect=_clip_expect,
    reference="SymPy, then clipped to [-1, 1]", wants="function clip_hook", solved=_what_clip_did,
    worked="The hook gets a tuple (g,); ops.maximum(g, -1.0) raises what is below -1, ops.minimum(..., 1.0) "
           "lowers what is above 1, and the hook returns the result as a tuple: "
           "(ops.minimum(ops.maximum(grad[0], -1.0), 1.0),).")


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
        # the PyTorch (and MindSpore 2.10) reading: halving grad_input, which is here the gradient at
        # the tanh's output, dout; through 3x: 1.5 dout (chain rule)
        grad.alternatives = {"unchanged": full, "grad_input": 1.5 * grad.sens}
        found += [value, grad]
    return found


def _what_halve_did(halve) -> str:
    """Which tuple the answer's hook returned, measured: half of grad_output, of grad_input, or else."""
    seen = []

    def spy(cell_id, grad_input, grad_output):
        out = halve(cell_id, grad_input, grad_output)
        seen.append((grad_input, grad_output, out))
        return out

    _half_run(spy)
    grad_input, grad_output, out = seen[0]
    half_of = "grad_output" if all(np.allclose(o.asnumpy(), 0.5 * g.asnumpy()) for o, g in zip(out, grad_output)) \
        else "another gradient"
    return (f"Your hook returned a tuple of {len(out)} Tensor{'s' if len(out) != 1 else ''}, half of {half_of} "
            "(the gradient for the Tanh's input), so the gradient for x is half of SymPy's.")


HALVE = Exercise(
    "6.2", "a backward hook that halves a gradient",
    "section 6.4 says which of the hook's two tuples holds the gradients for the Cell's inputs (minims "
    "follows the documentation page, whose names differ from PyTorch's); a returned tuple replaces them.",
    run=_half_run, expect=_half_expect,
    reference="SymPy, halved at the tanh", wants="function halve", solved=_what_halve_did,
    worked="In minims (and on the page chapter 06 follows) grad_output holds the gradients for the Cell's "
           "inputs, and a returned tuple replaces them: return tuple(g * 0.5 for g in grad_output). "
           "(In PyTorch and MindSpore 2.10 the same tuple is called grad_input.)")

EXERCISES = (CLIP, HALVE)
