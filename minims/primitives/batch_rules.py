"""Shapes of batching rules that many primitives share (``vmap``; see ``minims.batching``).

A rule receives the primitive's arguments as the batching interpreter holds them — a batched value
with its batch axis somewhere (``dims[i]``), an unbatched one with ``dims[i] = None`` — and the batch
size; it returns the result for the whole batch and the position of the result's batch axis.
Everything is written in minims ops and ``bind``, so a rule runs under whatever interpreters are
below (a gradient level, a graph being staged).

The convention most rules use: move the batch axis to the front, then treat it as one more leading
axis, which NumPy-style broadcasting and the primitives' own batch dimensions already handle.
"""
from __future__ import annotations

from . import functional as ops
import numpy as np

from ..core.batching import BatchTrace, BatchTracer, example_zeros
from ..core.stack import MinimsError
from ..core.prims import batch_elementwise as elementwise, batch_unary as unary, front, move_to_front  # noqa: F401
from ..core import install
from ..core.stack import Tracer, bind
from ..core.staging import StagingTracer
from ..core.tensor import Tensor

__all__ = ["elementwise", "unary", "front", "batch_axis_shifted", "merged_into_first_axis", "loop", "example",
           "every_example", "known_examples", "no_examples", "move_to_front"]


def example(value, dim, i):
    """Example ``i`` of a batched value (or the value itself when it is not batched)."""
    return value if dim is None else ops.getitem(value, (slice(None),) * dim + (i,))


def loop(prim, values, dims, size):
    """The rule of a primitive without one: the primitive once per example, the results stacked along
    a new axis 0 — always right, only slower.  ``BatchTrace.fallback``, installed below."""
    results = [bind(prim, *(example(v, d, i) for v, d in zip(values, dims))) for i in range(size)]
    if isinstance(results[0], tuple):
        outs = tuple(ops.stack([r[k] for r in results], 0) if isinstance(results[0][k], Tensor) else results[0][k]
                     for k in range(len(results[0])))
        return outs, tuple(0 if isinstance(o, Tensor) else None for o in outs)
    if not isinstance(results[0], Tensor):
        return results[0], None
    return ops.stack(results, 0), 0


def every_example(value):
    """The array of ``value`` for a check that must see every example's values (labels in range):
    a batched value gives its whole batch (its ``_data`` is the first example only), a value being
    differentiated its primal's.  A graph's placeholder has no values: a ``MinimsError`` (not read
    through a guard: a check is no branch, and ``jit`` would compile a variant per value)."""
    while isinstance(value, Tracer):
        if isinstance(value, StagingTracer):
            StagingTracer._primal_value(value)      # raises
        value = value._value if isinstance(value, BatchTracer) else value._primal_value()
    return value._data


def known_examples(value):
    """``every_example(value)``, or None where the value has none yet (a placeholder of a graph being
    staged: a check of the values then happens when the graph runs)."""
    try:
        return every_example(value)
    except MinimsError:
        return None


def no_examples(prim, values, dims):
    """The primitive on an empty batch: empty results, shaped like its output on one example.  The
    types come from the primitive's output types on zeros standing for an example (as a graph being
    staged finds them): with no example there is nothing to compute, so no rule and no ``impl``
    runs (a rule's arithmetic on an empty batch may not even be defined: a reshape with -1)."""
    arrays = [example_zeros(v, d) if d is not None else (v._data if isinstance(v, Tensor) else v)
              for v, d in zip(values, dims)]
    out = prim.output_types(arrays, values)

    def empty(o):
        return Tensor._make(np.zeros((0,) + o.shape, o.dtype))
    if isinstance(out, tuple):
        return tuple(empty(o) for o in out), (0,) * len(out)
    return empty(out), 0



def _fallback(prim, values, dims, size):
    return no_examples(prim, values, dims) if size == 0 else loop(prim, values, dims, size)


install(BatchTrace, fallback=staticmethod(_fallback))


def batch_axis_shifted(axis, rank):
    """An example's axis (possibly negative) as the axis of the batch with its batch axis in front."""
    return axis % rank + 1 if rank else 1


def merged_into_first_axis(prim, args, dims, size, tensor_positions=None):
    """For primitives with a batch axis of their own (NCHW images, rows of logits): the vmap batch is
    folded into it, ``(B, N, ...) -> (B * N, ...)``, and unfolded from the result.  Only for
    primitives that treat every row independently (not batch statistics)."""
    positions = tensor_positions or [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    new = list(args)
    n = None
    for i in positions:
        v = front(args[i], dims[i], size)
        n = v.shape[1]
        new[i] = ops.reshape(v, (size * n,) + tuple(v.shape[2:]))
    out = bind(prim, *new)

    def unfold(o):
        return ops.reshape(o, (size, n) + tuple(o.shape[1:])) if isinstance(o, Tensor) else o
    if isinstance(out, tuple):
        outs = tuple(unfold(o) for o in out)
        return outs, tuple(0 if isinstance(o, Tensor) else None for o in outs)
    return unfold(out), 0
