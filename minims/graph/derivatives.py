"""Passes for the graphs of higher derivatives: one derivative factor shared across derivative levels.

Differentiating ``tanh`` three times writes its rule into the graph once per level and once per
product-rule term: W4's jitted ``grad(grad(grad(f)))`` of ``f = sum(tanh(x))`` calls
``TanhGrad(x, d)`` three times, with three different sensitivities ``d`` (ones, ``-2 tanh x`` and
``-2 sech²x``), and each call recomputes ``sech²x`` — a float64 ``cosh`` per element, the most
expensive step of the graph.  XLA shares such values across levels; plain CSE cannot, because the
three equations differ in ``d``.

``share_input_grads`` uses what ``minims/primitives/input_grads.py`` states of ``TanhGrad``,
``SigmoidGrad`` and ``SqrtGrad``: each is linear in its sensitivity, ``G(x, d) = d * G(x, 1)``.  Where
two or more equations apply the same one to the same ``x``, it computes ``G(x, 1)`` once (reusing an
equation that already seeds with ones) and turns each of them into ``Mul(d, G(x, 1))``.  The graph
keeps its equation count (one ``Mul`` for each ``G`` replaced; ``graph.removed["shared derivative
factors"]`` counts the expensive equations removed), and the cost moves from transcendental to
elementwise products.

Exact in real arithmetic, not bit for bit: ``G(x, d)`` rounds ``d * G(x, 1)`` once from float64,
the shared form rounds ``G(x, 1)`` to the working precision and then the product — at most one unit
in the last place more (issue 28's tests compare both forms with SymPy's closed form).  Only
equations whose sensitivity and ``x`` have the result's shape and dtype are rewritten: broadcasting
and type promotion stay with the primitive.  ``optimize`` runs the pass (``passes.py``;
``optimize(graph, share_derivatives=False)`` leaves it out, to compare).
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Equation, Graph, Literal, Var
from ..core.tensor import Tensor
from ..primitives.math import Mul
from .rewriting import rewritten

__all__ = ["share_input_grads", "LINEAR_IN_SENSITIVITY"]

#: primitives ``G(x, d)`` linear in their second input, ``d`` (minims/primitives/input_grads.py)
LINEAR_IN_SENSITIVITY = frozenset({"TanhGrad", "SigmoidGrad", "SqrtGrad"})
PASS_NAME = "shared derivative factors"


def _is_ones(a) -> bool:
    return isinstance(a, Literal) and a.is_tensor and a.value.size > 0 and bool(np.all(a.value._data == 1))


def _shareable(eq) -> bool:
    """``G(x, d)`` whose ``x`` and ``d`` have the result's shape and dtype."""
    if eq.multiple or eq.prim.name not in LINEAR_IN_SENSITIVITY or len(eq.ins) != 2:
        return False
    out = eq.outs[0]
    x, d = eq.ins
    d_type = (d.shape, d.dtype) if isinstance(d, Var) else (
        (tuple(d.value.shape), d.value.dtype) if isinstance(d, Literal) and d.is_tensor else None)
    return isinstance(x, Var) and (x.shape, x.dtype) == (out.shape, out.dtype) == d_type


def _fresh_index(graph: Graph) -> int:
    indices = [v.index for v in graph.inputs]
    indices += [v.index for eq in graph.equations for v in eq.outs]
    return max(indices, default=-1) + 1


def share_input_grads(graph: Graph) -> Graph:
    """Compute ``G(x, 1)`` once per primitive and ``x`` used two or more times; ``G(x, d)`` becomes
    ``Mul(d, G(x, 1))``."""
    groups: dict = {}
    for i, eq in enumerate(graph.equations):
        if _shareable(eq):
            groups.setdefault((eq.prim.name, eq.ins[0].index), []).append(i)
    groups = {k: v for k, v in groups.items() if len(v) >= 2}
    if not groups:
        return graph
    before: dict = {}          # equation position -> equations to insert before it
    replaced: dict = {}        # equation position -> its replacement (None: moved earlier)
    next_index, removed = _fresh_index(graph), 0
    for positions in groups.values():
        seeded = next((i for i in positions if _is_ones(graph.equations[i].ins[1])), None)
        first = positions[0]
        if seeded is not None:        # reuse it, moved to the first use
            base = graph.equations[seeded]
            if seeded != first:
                replaced[seeded] = None
        else:
            eq0 = graph.equations[first]
            out = eq0.outs[0]
            ones = Literal(Tensor._make(np.ones(out.shape, out.dtype.np_dtype)))
            base = Equation(eq0.prim, [eq0.ins[0], ones], [Var(next_index, out.shape, out.dtype)], False)
            next_index += 1
        before.setdefault(first, []).append(base)
        factor = base.outs[0]
        for i in positions:
            if i == seeded:
                continue
            eq = graph.equations[i]
            replaced[i] = Equation(Mul(), [eq.ins[1], factor], eq.outs, False)
            removed += 1
        if seeded is None:
            removed -= 1              # the new G(x, 1) is one of them
    kept = []
    for i, eq in enumerate(graph.equations):
        kept.extend(before.get(i, ()))
        if i in replaced:
            if replaced[i] is not None:
                kept.append(replaced[i])
        elif not any(b is eq for b in before.get(i, ())):
            kept.append(eq)
    return rewritten(graph, kept, {}, PASS_NAME, removed)
