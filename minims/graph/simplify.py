"""Algebraic simplification: equations that give back one of their inputs unchanged are dropped.

Source transformation writes the backward rules literally, so a staged gradient is full of identities:
``Mul([1., 1.], %0)`` for the ones-like sensitivity of a sum, ``Neg(Neg(%3))`` from a subtraction's
rule applied twice, ``Reshape`` to the shape a value already has, a ``Transpose`` undone by another.
Each rewrite below replaces the equation's result by the input it equals — exactly, bit for bit,
for every input including -0.0, infinities and NaN — and only when the result has the same shape
and dtype as that input, so broadcasting and type promotion are never skipped: ``Mul(x_int32, 1.0)``
is a Float32 and stays.

Which identities are exact in IEEE 754 arithmetic (round to nearest): ``x * 1``, ``x / 1``,
``-(-x)``, ``x - (+0.0)`` and ``x + (-0.0)``.  Not ``x + 0.0``: -0.0 + 0.0 is +0.0, a zero of the
other sign (``1 / z`` tells them apart), so it stays, and so does ``x - (-0.0)``; for integers both
are exact.  Not ``x * 0`` (inf * 0 and NaN * 0 are NaN, -1 * 0 is -0.0) nor ``x - x`` (NaN, inf):
no rule here rewrites them.

The pass counts its rewrites in ``graph.removed["algebraic simplification"]``; dead-code elimination
then drops whatever fed only the removed equations (the ones-like constant, the inner Neg).
"""
from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from . import rewriting
from ..core.ir import Graph, Literal, Var

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


def _is_zero_keeping(x, sign: bool, out: Var) -> bool:
    """Is ``x`` a zero that ``v + x`` (``sign`` True: a -0.0) or ``v - x`` (``sign`` False: a +0.0)
    leaves every ``v`` unchanged with?  In floats only the zero of that sign does (module docstring);
    in integers any zero."""
    c = _constant(x)
    if c is None or c.size == 0 or not bool(np.all(c == 0)):
        return False
    kind = np.dtype(out.dtype.np_dtype).kind
    if kind == "f":
        return bool(np.all(np.signbit(c) == sign))
    return kind in "iub"


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
        candidate = (ins[1] if _is_zero_keeping(ins[0], True, out)
                     else ins[0] if _is_zero_keeping(ins[1], True, out) else None)
    elif name == "Sub":
        candidate = ins[0] if _is_zero_keeping(ins[1], False, out) else None
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
    return rewriting.rewritten(graph, kept, mapping, "algebraic simplification", rewritten)
