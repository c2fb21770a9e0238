"""The batching interpreter: a tracer carries a whole batch of values and where its batch axis is.

Inside ``vmap(fn)`` a batched value looks like *one* example (its ``shape`` is the example's, as in
JAX), so ``fn`` is written for one example; underneath, the tracer holds the batch, its batch axis at
``_bdim``.  Each primitive applied to one runs its batching rule: one call (or a few) on the whole
batch, and where the result's batch axis is.  Rules are written in minims ops, so batching composes
with the other interpreters (``vmap(grad(f))``, ``grad(vmap(f))``, ``jit(vmap(f))``).  A primitive
without a rule runs through ``BatchTrace.fallback`` (once per example: right, only slower).  Values
that do not carry the batch stay plain Tensors, broadcast by the rules, never copied per example.
"""
from __future__ import annotations

import numpy as np

from .prims import move_to_front
from .stack import MinimsError
from .stack import Trace, Tracer
from .tensor import Tensor

__all__ = ["BatchTrace", "BatchTracer", "BatchedValueError", "move_to_front", "example_zeros"]


class BatchedValueError(MinimsError, RuntimeError):
    """A batched value was asked for one value (``float(x)``, ``if x > 0:``, printing) inside ``vmap``."""


class BatchTracer(Tracer):
    """A batch of values seen as one example: ``_value`` holds the batch, with the batch at ``_bdim``."""

    __slots__ = ("_value", "_bdim")

    def _primal_value(self):
        raise BatchedValueError(
            f"inside vmap a Tensor of shape {list(self.shape)} stands for a batch of "
            f"{self._trace.size} of them, so it has no single value (float(), .asnumpy(), `if` on a "
            "Tensor, printing). Fix: return the value from the function, or use ops.select for "
            "choices that depend on values.")

    @property
    def dtype(self):
        return self._value.dtype

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<a batch of {self._trace.size} inside vmap>)"

    __str__ = __repr__


def _box(trace, value, bdim):
    t = object.__new__(BatchTracer)
    # the first example, a view: what shape and dtype checks inside the primitives see
    t._data = example_zeros(value, bdim) if trace.size == 0 else value._data[(slice(None),) * bdim + (0,)]
    t._value = value
    t._bdim = bdim
    t._trace = trace
    return t


def example_zeros(value, dim):
    """Zeros shaped like one example of a batched value: what stands for an example of an empty
    batch, which has none."""
    shape = value._data.shape
    return np.zeros(shape[:dim] + shape[dim + 1:], value._data.dtype)


class BatchTrace(Trace):
    """One ``vmap`` level: ``size`` examples at once."""

    #: ``fallback(prim, values, dims, size)``: what runs a primitive without a batching rule, or on an
    #: empty batch — installed by ``minims.primitives.batch_rules`` (once per example, the results
    #: stacked; for no example, empty results of the right types); without it, an error.
    fallback = None

    def __init__(self, size: int):
        self.size = size

    def new_input(self, value: Tensor, dim: int | None):
        return value if dim is None else _box(self, value, dim)

    def owns(self, value) -> bool:
        return isinstance(value, BatchTracer) and value._trace is self

    def unbox(self, value):
        """``(value holding the batch, its batch axis)``; ``(value, None)`` if not batched here."""
        return (value._value, value._bdim) if self.owns(value) else (value, None)

    def process(self, prim, args):
        if prim.inline is not None:
            return prim.inline(args)        # a compiled graph: its equations are batched one by one
        values, dims = [], []
        for a in args:
            v, d = self.unbox(a)
            values.append(v)
            dims.append(d)
        rule = prim.batch
        if rule is not None and self.size:
            out, out_dims = rule(values, dims, self.size)
        elif self.fallback is not None:
            out, out_dims = self.fallback(prim, values, dims, self.size)
        else:
            raise BatchedValueError(f"{prim.name} has no batching rule. Fix: give it a batch rule.")
        if isinstance(out, tuple):
            return tuple(self._wrap(o, d) for o, d in zip(out, out_dims))
        return self._wrap(out, out_dims)

    def _wrap(self, value, dim):
        return value if dim is None or not isinstance(value, Tensor) else _box(self, value, dim)

