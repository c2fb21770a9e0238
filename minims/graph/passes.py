"""Graph optimisation passes: constant folding, common-subexpression elimination, algebraic
simplification (``simplify.py``), dead-code elimination.

Each pass returns a new graph and counts what it removed in ``graph.removed``; ``graph.reports``
says it in words, so a learner can see what each pass did.  ``optimize`` runs them until nothing changes.

A primitive opts out of folding and CSE with ``pure = False`` (random ones, side effects); one
with ``has_effect = True`` (``Print``, ``Assign``) is never removed as dead code.
"""
from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from .rewriting import rewritten
from ..core.ir import Equation, Graph, Literal, Var
from .simplify import simplify_algebra
from .derivatives import share_input_grads

__all__ = ["fold_constants", "eliminate_common_subexpressions", "simplify_algebra", "eliminate_dead_code",
           "optimize"]

_SHAPE_ONLY = {"ZerosLike", "OnesLike"}     # their value depends on the input's type alone


def _is_pure(prim) -> bool:
    return getattr(prim, "pure", True) and not getattr(prim, "has_effect", False)


def fold_constants(graph: Graph) -> Graph:
    """Evaluate equations whose inputs are all constants; ``zeros_like(x)`` needs only x's type."""
    mapping, kept, folded = {}, [], 0

    def sub(x):
        return mapping.get(x.index, x) if isinstance(x, Var) else x
    for eq in graph.equations:
        ins = [sub(a) for a in eq.ins]
        prim = eq.prim
        if _is_pure(prim) and (all(isinstance(a, Literal) for a in ins) or prim.name in _SHAPE_ONLY):
            if prim.name in _SHAPE_ONLY and isinstance(ins[0], Var):
                args = [np.zeros(ins[0].shape, ins[0].dtype.np_dtype)]
            else:
                args = [a.value._data if a.is_tensor else a.value for a in ins]
            with np.errstate(all="ignore"):
                out = prim.impl(*args)
            outs = out if eq.multiple else (out,)
            for v, o in zip(eq.outs, outs):
                mapping[v.index] = Literal(Tensor._make(np.asarray(o)))
            folded += 1
        else:
            kept.append(Equation(prim, ins, eq.outs, eq.multiple))
    return rewritten(graph, kept, mapping, "constant folding", folded)


def _literal_key(lit: Literal):
    v = lit.value
    if isinstance(v, Tensor):
        return ("tensor", v._data.dtype.str, v._data.shape, v._data.tobytes()) if v.size <= 64 else ("id", id(v))
    try:
        hash(v)
        return ("static", type(v).__name__, v)
    except TypeError:
        return ("static", type(v).__name__, repr(v))


def _prim_key(prim):
    attrs = prim._attrs() if hasattr(prim, "_attrs") else {}
    try:
        items = tuple(sorted((k, v if isinstance(v, (int, float, str, bool, tuple, type(None))) else repr(v))
                             for k, v in attrs.items()))
    except TypeError:
        return ("id", id(prim))
    return (type(prim), items)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Reuse the result of an equation already computed with the same primitive and inputs."""
    mapping, kept, seen, removed = {}, [], {}, 0

    def sub(x):
        return mapping.get(x.index, x) if isinstance(x, Var) else x
    for eq in graph.equations:
        ins = [sub(a) for a in eq.ins]
        if _is_pure(eq.prim):
            key = (_prim_key(eq.prim), tuple(("var", a.index) if isinstance(a, Var) else _literal_key(a) for a in ins))
            try:
                first = seen.get(key)
            except TypeError:
                first, key = None, None
            if first is not None:
                for v, w in zip(eq.outs, first.outs):
                    mapping[v.index] = w
                removed += 1
                continue
            if key is not None:
                seen[key] = eq
        kept.append(Equation(eq.prim, ins, eq.outs, eq.multiple))
    return rewritten(graph, kept, mapping, "common subexpressions", removed)


def eliminate_dead_code(graph: Graph) -> Graph:
    """Drop equations whose results are never used (side effects are always kept)."""
    live = {o.index for o in graph.outputs if isinstance(o, Var)}
    live |= {v.index for _, v in graph.effects if isinstance(v, Var)}
    kept = []
    for eq in reversed(graph.equations):
        if getattr(eq.prim, "has_effect", False) or any(v.index in live for v in eq.outs):
            kept.append(eq)
            live |= {a.index for a in eq.ins if isinstance(a, Var)}
    kept.reverse()
    removed = len(graph.equations) - len(kept)
    return rewritten(graph, kept, {}, "dead code", removed)


def optimize(graph: Graph, max_rounds: int = 5, simplify: bool = True, share_derivatives: bool = True) -> Graph:
    """Run the passes until the graph stops shrinking; the result is what executes.

    ``simplify=False`` leaves algebraic simplification out (to see what it removes: ``jit``'s
    ``f.graph(*args, simplify=False)``); what executes is always simplified.  Then, once, the
    derivative factors of higher-order graphs are shared (``derivatives.py``; ``share_derivatives=False``
    leaves that out, to compare) and the passes tidy what that left.
    """
    g = graph
    for _ in range(max_rounds):
        before = len(g.equations)
        g = eliminate_common_subexpressions(fold_constants(g))
        g = eliminate_dead_code(simplify_algebra(g) if simplify else g)
        if len(g.equations) == before:
            break
    if share_derivatives:
        shared = share_input_grads(g)
        if shared is not g:
            g = eliminate_dead_code(eliminate_common_subexpressions(shared))
    return g
