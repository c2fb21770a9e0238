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

from .. import ops
from ..core.stack import bind
from ..core.tensor import Tensor
from ..batching.loop import loop
from ..core.batching import move_to_front

__all__ = ["elementwise", "unary", "front", "batch_axis_shifted", "merged_into_first_axis", "loop"]


def front(value, dim, size):
    """``value`` with the batch axis in front; an unbatched value is broadcast to the batch."""
    if dim is None:
        return ops.broadcast_to(value, (size,) + tuple(value.shape))
    return move_to_front(value, dim)


def elementwise(prim, args, dims, size, any_axis=True):
    """Operands that broadcast against each other (arithmetic, comparisons, select; with
    ``any_axis=False`` the batched matrix product, whose last two axes are the matrices).

    The example parts of the operands are aligned from the right, as broadcasting does; a batched
    operand gets its batch axis in front and singleton axes after it up to the largest example rank,
    so that its batch axis lines up with the others' and never with an example axis.
    """
    ranks = [a.ndim - (d is not None) if isinstance(a, Tensor) else 0 for a, d in zip(args, dims)]
    batched = [(d, r) for d, r in zip(dims, ranks) if d is not None]
    rank = max(ranks)
    if (any_axis or batched[0][0] == 0) and all(d == batched[0][0] and r == rank for d, r in batched) and all(
            d is not None or not isinstance(a, Tensor) for a, d in zip(args, dims)):
        return bind(prim, *args), batched[0][0]         # every operand batched alike: as it is
    new = []
    for a, d, r in zip(args, dims, ranks):
        if d is not None:
            a = move_to_front(a, d)
            if r < rank:
                a = ops.reshape(a, (a.shape[0],) + (1,) * (rank - r) + tuple(a.shape[1:]))
        new.append(a)
    return bind(prim, *new), 0


def unary(prim, args, dims, size):
    """A primitive elementwise in its one Tensor input (the other arguments are static)."""
    return bind(prim, *args), dims[0]


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
