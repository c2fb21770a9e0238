"""Sorting: the primitive ``Argsort`` and, built on it, ``ops.sort`` and ``ops.topk`` (MindSpore 2.10).

Where the entries go is not differentiable (as ``Argmax``), so ``Argsort`` has no backward rule:
it returns the positions, a stable sort (equal entries keep their order, in both directions, as
MindSpore's CPU kernel gives them).  The sorted values are then the input *gathered* at those
positions — an ordinary indexing primitive whose gradient scatters each value's gradient back to
where it came from.  So ``sort`` and ``topk`` are differentiable to any order, and inside a compiled
graph both the positions and the gather are equations, recomputed on each call's input.
"""
from __future__ import annotations

import numpy as np

from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import batch_rules
from . import functional as ops
from .operands import normalize_axis

__all__ = ["Argsort", "sort", "topk", "take_along_axis"]


class Argsort(Primitive):
    """``Argsort(axis, descending)(x)``: the Int32 positions that sort ``x`` along ``axis``, stably."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests
    differentiable = False

    def __init__(self, axis=-1, descending=False):
        self.axis = axis
        self.descending = descending

    def impl(self, x):
        if not self.descending:
            return np.argsort(x, axis=self.axis, kind="stable").astype(np.int32)
        # a stable descending order: sort the reversed entries ascending, read the result backwards
        n = x.shape[self.axis]
        flipped = np.argsort(np.flip(x, self.axis), axis=self.axis, kind="stable")
        return (n - 1 - np.flip(flipped, self.axis)).astype(np.int32)

    def batch(self, args, dims, size):
        (x,), (d,) = args, dims
        x = batch_rules.front(x, d, size)
        return type(self)(batch_rules.batch_axis_shifted(self.axis, x.ndim - 1), self.descending)(x), 0


def take_along_axis(x: Tensor, indices: Tensor, axis: int) -> Tensor:
    """``x`` read at ``indices`` along ``axis`` (NumPy's ``take_along_axis``): one indexing primitive,
    differentiable in ``x``; ``indices`` has ``x``'s rank and broadcasts over the other axes."""
    grid = np.ogrid[tuple(slice(0, n) for n in indices.shape)]
    index = tuple(indices if a == axis else grid[a] for a in range(x.ndim))
    return ops.getitem(x, index)


def _axis(op: str, axis, ndim: int) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: the axis must be an int, but got {describe(axis)}.")
    return normalize_axis(op, int(axis), ndim)[0]


def sort(input_x, axis=-1, descending=False):
    """``ops.sort(input_x, axis=-1, descending=False)`` -> ``(values, indices)``: the entries along
    ``axis`` in order, and their Int32 positions in ``input_x`` (equal entries keep their order)."""
    if not isinstance(input_x, Tensor):
        raise TypeError(f"sort: input_x must be a Tensor, but got {describe(input_x)}.")
    if input_x.ndim == 0:
        return input_x, Tensor._make(np.zeros((), np.int32))
    axis = _axis("sort", axis, input_x.ndim)
    order = Argsort(axis, bool(descending))(input_x)
    return take_along_axis(input_x, order, axis), order


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """``ops.topk(input, k, dim=None, largest=True, sorted=True)`` -> ``(values, indices)``: the ``k``
    largest entries along ``dim`` (the last axis by default; the smallest with ``largest=False``),
    in order, with their Int32 positions; of equal entries the first comes first."""
    if not isinstance(input, Tensor):
        raise TypeError(f"topk: input must be a Tensor, but got {describe(input)}.")
    axis = _axis("topk", -1 if dim is None else dim, max(input.ndim, 1))
    n = input.shape[axis] if input.ndim else 1
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k <= n:
        raise ValueError(f"topk: k must be an int in [1, {n}] (the size of axis {axis} of {describe(input)}), "
                         f"but got {k!r}. Fix: k <= {n}.")
    values, order = sort(input, axis, descending=bool(largest))
    first = (slice(None),) * axis + (slice(0, int(k)),)
    return ops.getitem(values, first), ops.getitem(order, first)
