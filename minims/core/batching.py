"""The batching interpreter: a tracer carries a whole batch of values and says where its batch axis is.

``vmap(fn)`` pushes one ``BatchTrace``.  Inside ``fn`` a batched value looks like *one* example (its
``shape`` is the example's shape, as in JAX), so ``fn`` is written for a single example; underneath,
the tracer holds the whole batch, with the batch axis at ``_bdim``.  Each primitive applied to a
batched value comes to ``process``, which runs the primitive's batching rule: one call of the
primitive (or a few) on the whole batch, and the position of the result's batch axis.  Rules are
written in minims ops, so batching composes with every other interpreter: ``vmap(grad(f))`` (the
backward rules run batched), ``grad(vmap(f))``, ``jit(vmap(f))``, nested ``vmap``.

A primitive without a rule is run by ``BatchTrace.fallback``, which ``minims.batching`` installs:
once per example, the results stacked — always right, only slower.  ``minims.primitives.table()``
says which primitives have a rule.

Values that do not carry the batch (a weight, a constant) stay plain Tensors: an unbatched operand
is broadcast by the rule, never copied per example.

An empty batch (``vmap`` over 0 examples, the Jacobian of an empty input) has no example to
compute: each primitive gives an empty result shaped like its output on one example (``no_examples``).
"""
from __future__ import annotations

import numpy as np

from .prims import move_to_front
from .errors import MinimsError
from .stack import Trace, Tracer, pop_trace, push_trace
from .tensor import Tensor

__all__ = ["BatchTrace", "BatchTracer", "BatchedValueError", "move_to_front", "no_examples", "vmap"]


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
            "choices that depend on values."
        )

    @property
    def dtype(self):
        return self._value.dtype

    def __repr__(self):
        return (f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<a batch of {self._trace.size} "
                f"inside vmap>)")

    __str__ = __repr__


def _box(trace, value, bdim):
    t = object.__new__(BatchTracer)
    # the first example, a view: what shape and dtype checks inside the primitives see
    t._data = _example_array(value, bdim) if trace.size == 0 else value._data[(slice(None),) * bdim + (0,)]
    t._value = value
    t._bdim = bdim
    t._trace = trace
    return t


def _example_array(value, dim):
    """Zeros shaped like one example of a batched value: what stands for an example of an empty
    batch, which has none."""
    shape = value._data.shape
    return np.zeros(shape[:dim] + shape[dim + 1:], value._data.dtype)


def no_examples(prim, values, dims):
    """The primitive on an empty batch: empty results, shaped like its output on one example.  The
    types come from the primitive's output types on zeros standing for an example (as a graph being
    staged finds them): with no example there is nothing to compute, so no rule and no ``impl``
    runs (a rule's arithmetic on an empty batch may not even be defined: a reshape with -1)."""
    arrays = [_example_array(v, d) if d is not None else (v._data if isinstance(v, Tensor) else v)
              for v, d in zip(values, dims)]
    out = prim.output_types(arrays, values)

    def empty(o):
        return Tensor._make(np.zeros((0,) + o.shape, o.dtype))
    if isinstance(out, tuple):
        return tuple(empty(o) for o in out), (0,) * len(out)
    return empty(out), 0


class BatchTrace(Trace):
    """One ``vmap`` level: ``size`` examples at once."""

    #: ``fallback(prim, values, dims, size)``: what runs a primitive without a batching rule —
    #: installed by ``minims.batching`` (once per example, results stacked); without it, an error.
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
        if self.size == 0:
            out, out_dims = no_examples(prim, values, dims)
        elif rule is None:
            if self.fallback is None:
                raise BatchedValueError(f"{prim.name} has no batching rule. Fix: give it a batch rule.")
            out, out_dims = self.fallback(prim, values, dims, self.size)
        else:
            out, out_dims = rule(values, dims, self.size)
        if isinstance(out, tuple):
            return tuple(self._wrap(o, d) for o, d in zip(out, out_dims))
        return self._wrap(out, out_dims)

    def _wrap(self, value, dim):
        return value if dim is None or not isinstance(value, Tensor) else _box(self, value, dim)


def vmap(fn, in_axes=0):
    """``vmap(fn)(*xs)``: ``fn`` applied to every example along axis ``in_axes`` of each input, the
    results stacked along axis 0 (MindSpore's ``vmap``, with its options, is ``minims.batching``)."""
    def batched(*xs):
        trace = push_trace(BatchTrace(xs[0].shape[in_axes]))
        try:
            out = fn(*(trace.new_input(x, in_axes) for x in xs))
        finally:
            pop_trace(trace)
        value, dim = trace.unbox(out)
        return move_to_front(value, dim) if dim is not None else value
    return batched
