"""Exercises of chapter 12 (gradient tools).

12.1  a hook on a Tensor (``Tensor.register_hook``) that clips the gradient arriving there to [-1, 1];
12.2  the bprop of a custom operator (``ops.Custom``): softplus, log(1 + e^x), whose derivative is sigmoid.
"""
from __future__ import annotations

import numpy as np
import sympy

from ... import ops
from ...core.tensor import Tensor
from ...interpreters.symbolic import symbols_like
from . import Exercise
from .chapter01 import softplus
from .declare import Box, derivative_exercise, drawn, points_of
from .feedback import Quantity
from .measure import diff, dot, measured, numbers, sensitivity, symbols_of, values_of, where

# ----- 12.1: clipping with a Tensor hook ---------------------------------------------------------------
_W = np.array([-2.0, 0.25, 2.0, 3.0])            # f(x) = sum(dout * W * z), z = x * x carries the hook
_CLIP_POINTS = points_of({"x": [0.5, -1.0, 1.5, 2.0]}, {"x": [-0.75, 0.5, 2.5, -1.25]},
                         *drawn("12.1", 2, x=Box((4,), -2.5, 2.5)))


def _clip_run(clip_hook):
    w = Tensor(_W)

    def f(x):
        z = x * x
        z.register_hook(clip_hook)
        return z * w

    found = []
    for seed, point in enumerate(_CLIP_POINTS):
        found += measured(f, point, orders=(0, 1), seed=seed)
    return found


def _clip_expect():
    found = []
    for seed, point in enumerate(_CLIP_POINTS):
        syms = symbols_of(point)
        x, subs = syms["x"], values_of(point, syms)
        z = x * x
        dout = sensitivity(z.shape, seed)
        zs = symbols_like("z", z.shape)
        arriving = numbers(diff(dot(dout, _W * zs), zs), {})        # d<dout, W z>/dz: what the hook sees
        local = numbers([sympy.diff(e, s) for e, s in zip(z, x)], subs)      # dz/dx = 2x
        at = where(point)
        # (no "unchanged" alternative: its diagnosis asks for HookBackward's tuple, not a Tensor hook's Tensor)
        q = Quantity("gradient", "x", 1, at, np.clip(arriving, -1.0, 1.0) * local, sens=dout)
        found += [Quantity("value", "", 0, at, numbers(_W * z, subs)), q]
    return found


def _what_clip_did(clip_hook) -> str:
    """What the answer's hook received and returned, measured on every point."""
    seen = []

    def spy(grad):
        out = clip_hook(grad)
        seen.append((grad.asnumpy(), out.asnumpy()))
        return out

    _clip_run(spy)
    arrived = np.concatenate([g.ravel() for g, _ in seen])
    returned = np.concatenate([o.ravel() for _, o in seen])
    outside = np.abs(arrived) > 1
    return (f"Your hook received {arrived.size} gradients; the {int(outside.sum())} outside [-1, 1] (the largest "
            f"{np.abs(arrived).max():.4g}) came back as {sorted(set(returned[outside].tolist()))}, the "
            f"{int((~outside).sum())} inside unchanged.")


CLIP = Exercise(
    "12.1", "a Tensor hook that clips gradients",
    "a Tensor hook receives the gradient itself (a Tensor, not a tuple as HookBackward's) and returns "
    "its replacement; ops.clamp (or a maximum with -1 followed by a minimum with 1) clips it.",
    run=_clip_run, expect=_clip_expect,
    reference="SymPy, then clipped to [-1, 1]", wants="function clip_hook", solved=_what_clip_did,
    worked="The hook gets the gradient arriving at z as one Tensor and returns the Tensor that replaces it: "
           "ops.clamp(grad, -1.0, 1.0) keeps what lies in [-1, 1] and sets the rest to the nearer bound. "
           "The chain rule then goes on from the clipped gradient: dz/dx = 2x multiplies it.")


# ----- 12.2: a custom operator's bprop -------------------------------------------------------------------
def _softplus_np(x):
    """The operator's impl, in NumPy: log(1 + e^x) without overflow for large x."""
    return np.logaddexp(0.0, x)


def _custom_softplus(softplus_bprop, point):
    return ops.Custom(_softplus_np, lambda x: x, lambda x: x, "pyfunc", bprop=softplus_bprop)


SOFTPLUS_BPROP = derivative_exercise(
    "12.2", "the bprop of a custom softplus operator",
    "bprop(x, out, dout) returns one gradient per input, as a tuple: dout times the derivative of "
    "log(1 + e^x), which is a function minims has as an op. Write it in minims ops, so that an outer "
    "grad can differentiate it again.",
    build=_custom_softplus, formula=softplus,
    points=[{"x": [-2.0, 0.3, 1.5]}, {"x": [[0.5, -1.0], [2.5, 0.0]]},
            *drawn("12.2", 3, x=Box((4,), -10.0, 10.0))],
    orders=(0, 1, 2), check_grads_order=2, wants="function softplus_bprop",
    worked="d/dx log(1 + e^x) = e^x / (1 + e^x) = 1 / (1 + e^-x) = sigmoid(x). The bprop multiplies it by "
           "dout and returns a tuple with one gradient: (dout * ops.sigmoid(x),). Written with minims ops it "
           "is recorded by an outer grad, so the custom operator has a second derivative too.")

EXERCISES = (CLIP, SOFTPLUS_BPROP)
