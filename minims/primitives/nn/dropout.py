"""Dropout primitives: ``Dropout`` and the channel-wise ``Dropout2D``, each returning ``(output, mask)``.
"""
from __future__ import annotations

import numpy as np
from .. import functional as ops
from ... import context
from ...core.stack import bind
from ...tensors.convert import _describe
from ...core.primitive import Primitive
from ..batch_rules import merged_into_first_axis
from ._geometry import _is_int, _require_tensor


def _keep_prob(op: str, keep_prob) -> float:
    if not isinstance(keep_prob, (float, int)) or isinstance(keep_prob, bool):
        raise TypeError(f"{op}: keep_prob must be a float, but got {_describe(keep_prob)}.")
    if not 0 < keep_prob <= 1:
        raise ValueError(f"{op}: keep_prob must be in (0, 1], but got {keep_prob}. It is the probability "
                         "of KEEPING an element (1 - the drop rate); e.g. keep_prob=0.9 drops 10%.")
    return float(keep_prob)


class _DropoutBase(Primitive):

    checks_rule_results = False       # built-in rule: checked over the table by the tests
    pure = False          # a fresh draw every run: never folded or shared by a graph pass

    def abstract_eval(self, x):
        """Output types for the graph tracer, without drawing from the random stream."""
        mask_dtype = x.dtype if isinstance(self, Dropout) else np.bool_
        return np.zeros_like(x), np.zeros(x.shape, mask_dtype)

    def _rng(self):
        return self.__dict__.get("_generator") or context.global_rng()

    def _check(self, x):
        _require_tensor(self.name, "x", x)

    def _draw(self, shape):
        return self._rng().random(shape) < self.keep_prob

    def jvp(self, primals, tangents):
        out = bind(self, *primals)                  # one draw: the mask scales the tangent too
        mask = ops.cast(out[1], tangents[0].dtype)
        return out, (ops.div(ops.mul(tangents[0], mask), self.keep_prob), None)

    def bprop(self, x, out, dout):
        # the mask is a constant of this draw: stop_gradient keeps it off every gradient tape
        mask = ops.cast(ops.stop_gradient(out[1]), x.dtype)
        return (ops.div(ops.mul(dout[0], mask), self.keep_prob),)


class Dropout(_DropoutBase):
    """``ops.Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)`` -> ``(output, mask)``.

    Each element is kept with probability ``keep_prob``; ``output = x * mask / keep_prob``.  As on
    MindSpore's CPU and GPU, ``mask`` has ``x``'s shape and dtype (1.0 kept, 0.0 dropped).  The
    random stream is ``mindspore.set_seed``'s, unless ``Seed0``/``Seed1`` give this op its own.
    """

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):  # noqa: N803 - MindSpore's names
        self.keep_prob = _keep_prob("Dropout", keep_prob)
        for name, v in (("Seed0", Seed0), ("Seed1", Seed1)):
            if not _is_int(v) or v < 0:
                raise ValueError(f"Dropout: {name} must be a non-negative int, but got {v!r}.")
        self.Seed0, self.Seed1 = int(Seed0), int(Seed1)
        if Seed0 or Seed1:
            self._generator = np.random.default_rng([int(Seed0), int(Seed1)])

    def __call__(self, x):
        self._check(x)
        return bind(self, x)

    def impl(self, x):
        mask = self._draw(x.shape).astype(x.dtype)
        return (x * mask / np.asarray(self.keep_prob, x.dtype)).astype(x.dtype, copy=False), mask

    def batch(self, args, dims, size):
        out = bind(self, *args)                     # one draw for the whole batch: each example its own mask
        return out, (dims[0], dims[0])


class Dropout2D(_DropoutBase):
    """``ops.Dropout2D(keep_prob=0.5)(x)`` -> ``(output, mask)`` for ``(N, C, H, W)`` input.

    Whole channels are kept or dropped: one draw per ``(n, c)``, broadcast over ``H, W``.  As in
    MindSpore, ``mask`` is a Bool tensor of ``x``'s shape.
    """

    def __init__(self, keep_prob=0.5):
        self.keep_prob = _keep_prob("Dropout2D", keep_prob)

    def __call__(self, x):
        self._check(x)
        if x.ndim != 4:
            raise ValueError(f"Dropout2D: input 'x' must be 4-D (N, C, H, W), but got shape {list(x.shape)}.")
        return bind(self, x)

    def impl(self, x):
        mask = np.broadcast_to(self._draw(x.shape[:2] + (1, 1)), x.shape).copy()
        return (x * mask / np.asarray(self.keep_prob, x.dtype)).astype(x.dtype, copy=False), mask

    def batch(self, args, dims, size):
        return merged_into_first_axis(self, args, dims, size)
