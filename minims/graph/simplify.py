"""Algebraic simplification: equations that give back one of their inputs unchanged are dropped.

Source transformation writes the backward rules literally, so a staged gradient is full of identities:
``Mul([1., 1.], %0)`` for the ones-like sensitivity of a sum, ``Add(%5, 0.0)``, ``Neg(Neg(%3))`` from a
subtraction's rule applied twice, ``Reshape`` to the shape a value already has, a ``Transpose``
undone by another.  Each rewrite below replaces the equation's result by the input it equals —
exactly, bit for bit (x * 1, x / 1, x - 0 and -(-x) are exact in IEEE arithmetic; x + 0 is too,
except that -0.0 + 0.0 is +0.0, a zero of the other sign that compares equal) — and only when the
result has the same shape and dtype as that input, so broadcasting and type promotion are never
skipped: ``Mul(x_int32, 1.0)`` is a Float32 and stays.

The pass counts its rewrites in ``graph.removed["algebraic simplification"]``; dead-code elimination
then drops whatever fed only the removed equations (the ones-like constant, the inner Neg).
"""
from __future__ import annotations

import numpy as np

from ..common.tensor import Tensor
from .ir import Graph, Literal, Var

__all__ = ["simplify_algebra"]


def _constant(x):
    """The value of a literal operand as an array, or None for a Var / a non-numeric static value."""
    if not isinstance(x, Literal):
        return None
    v = x.value
    if isinstance(v, Tensor):
        return v._data
    if isinstance(v, (bool, int, float, np.number)) and not isinstance(v, bool):
        return np.asarray(v)
    return None


def _is(x, number) -> bool:
    c = _constant(x)
    return c is not None and c.size > 0 and bool(np.all(c == number))


def _same_type(a, out: Var) -> bool:
    return isinstance(a, Var) and a.shape == out.shape and a.dtype == out.dtype


def _static(x):
    return x.value if isinstance(x, Literal) else None


def _identity_of(eq, producer) -> Var | None:
    """The input that ``eq``'s single result equals, or None."""
    name, ins, out = eq.prim.name, eq.ins, eq.outs[0]
    candidate = None
    if name == "Mul":
        candidate = ins[1] if _is(ins[0], 1) else ins[0] if _is(ins[1], 1) else None
    elif name == "Div":
        candidate = ins[0] if _is(ins[1], 1) else None
    elif name == "Add":
        candidate = ins[1] if _is(ins[0], 0) else ins[0] if _is(ins[1], 0) else None
    elif name == "Sub":
        candidate = ins[0] if _is(ins[1], 0) else None
    elif name == "Neg":
        inner = producer.get(ins[0].index) if isinstance(ins[0], Var) else None
        candidate = inner.ins[0] if inner is not None and inner.prim.name == "Neg" else None
    elif name in ("Reshape", "BroadcastTo", "Cast", "Identity"):
        candidate = ins[0]               # kept below only if shape and dtype are unchanged
    elif name == "Transpose":
        perm = _static(ins[1]) if len(ins) > 1 else None
        if isinstance(perm, tuple) and perm == tuple(range(len(perm))):
            candidate = ins[0]
        else:
            inner = producer.get(ins[0].index) if isinstance(ins[0], Var) else None
            inner_perm = _static(inner.ins[1]) if inner is not None and inner.prim.name == "Transpose" else None
            if isinstance(perm, tuple) and isinstance(inner_perm, tuple) and len(perm) == len(inner_perm):
                if tuple(inner_perm[p] for p in perm) == tuple(range(len(perm))):
                    candidate = inner.ins[0]
    return candidate if candidate is not None and _same_type(candidate, out) else None


def simplify_algebra(graph: Graph) -> Graph:
    """Replace every equation that is an identity on one of its inputs by that input."""
    mapping, kept, producer, rewritten = {}, [], {}, 0

    def sub(x):
        while isinstance(x, Var) and x.index in mapping:
            x = mapping[x.index]
        return x
    for eq in graph.equations:
        eq_ins = [sub(a) for a in eq.ins]
        current = type(eq)(eq.prim, eq_ins, eq.outs, eq.multiple)
        same = None if eq.multiple or getattr(eq.prim, "has_effect", False) else _identity_of(current, producer)
        if same is not None:
            mapping[eq.outs[0].index] = same
            rewritten += 1
            continue
        kept.append(current)
        for v in eq.outs:
            producer[v.index] = current
    return graph.rewritten(kept, mapping, "algebraic simplification", rewritten)
