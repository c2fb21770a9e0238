"""Replaying a graph: its equations run again with ``bind``, under whatever interpreters are active.

``interpret`` is what every transforming interpreter does with a compiled call (``inline``), and
``stage_vjp`` stages the replay under a gradient level: the graph of ``(inputs, output cotangents)
-> gradients`` (and, for ``residuals.py``, the outputs too) — the backward rules written into a
new graph (source transformation).  ``call.py``'s replaying backward graph and ``residuals.py``'s
joint graph are both this one staging.

A replay without effects (``effects=False``: a backward graph recomputes values, it does not print
again) lets the core's interpreter pass an effectful equation's inputs through, which is right for
``Print`` and ``Guard`` but not for a primitive whose *parameters* are graphs holding an effect (a
loop whose body prints): its outputs are not its inputs.  ``without_effects`` gives such a
primitive's effect-free form instead (``prim.without_effects()``, the structured primitives of
``minims.control_flow``), which computes the same outputs.  Inside a branch or loop body a ``Guard``
stays (``keep_checks``): nothing outside checks it, and a replay that computes a gradient's forward
values must still fail on a value the variant was not compiled for, so that ``jit`` compiles
another (only the guards of the compiled graph itself are checked before a call).
"""
from __future__ import annotations

import numpy as np

from ..core import staging
from ..core.ir import Equation, Graph, Var
from ..core.tape import vjp
from ..core.tensor import Tensor
from ..primitives.state import Assign
from .guards import Guard
from .rewriting import rewritten
from .tracing import trace_to_graph

__all__ = ["interpret", "stage_vjp", "without_effects"]

_ASSIGN = Assign()


def without_effects(graph: Graph, keep_checks: bool = False) -> Graph:
    """``graph`` with every effectful equation gone: a primitive over graphs replaced by its
    effect-free form, any other (``Print``, ``Guard``) passing its inputs through as the core's
    interpreter passes them — except, with ``keep_checks``, a ``Guard`` (see the module docstring).
    The graph itself when it has none."""
    if not any(getattr(eq.prim, "has_effect", False) for eq in graph.equations):
        return graph
    kept, mapping = [], {}
    for eq in graph.equations:
        if not getattr(eq.prim, "has_effect", False) or (keep_checks and isinstance(eq.prim, Guard)):
            kept.append(eq)
        elif hasattr(eq.prim, "without_effects"):
            kept.append(Equation(eq.prim.without_effects(), eq.ins, eq.outs, eq.multiple))
        else:
            mapping.update((v.index, a) for v, a in zip(eq.outs, eq.ins))
    return rewritten(graph, kept, mapping, "effects", 0)


def interpret(graph: Graph, args, effects: bool = True):
    """Re-run ``graph``'s equations with ``bind`` on ``args`` (under whatever interpreters are active;
    the core's ``staging.interpret``), then its Parameter writes (unless not ``effects``: then the
    graph ``without_effects``)."""
    env = {}
    outs = staging.interpret(graph if effects else without_effects(graph), args, effects, env)
    if effects and graph.effects:
        for param, value in graph.effects:
            # as ops.assign does: written now, or recorded by a graph being staged (jit inside jit)
            _ASSIGN(param, env[value.index] if isinstance(value, Var) else value.value)
    return outs


def stage_vjp(graph: Graph, positions: tuple, reached: tuple | None = None, with_outputs: bool = False,
              name: str | None = None) -> Graph:
    """Stage ``(inputs, cotangents of the reached outputs) -> (outputs if with_outputs, gradients of
    the inputs at positions)`` by replaying ``graph`` under a gradient level (unoptimised).

    ``reached`` flags the outputs that have a cotangent (all by default); the others get none, so
    rules fed only by them do not run.  Zeros stand for the inputs (``examples_only``): a mask's
    count is fixed by the replayed equations, not read from these placeholders.
    """
    n, k = len(graph.inputs), len(graph.outputs)
    reached = (True,) * k if reached is None else reached

    def replay(*flat):
        ins, given = flat[:n], iter(flat[n:])
        douts = [next(given) if r else None for r in reached]
        value, vjp_fn = vjp(lambda *a: interpret(graph, a, effects=False), ins, positions)
        grads = vjp_fn(*douts)
        outs = ((value,) if k == 1 else tuple(value)) if with_outputs else ()
        return outs + tuple(grads)

    examples = [Tensor._make(np.zeros(v.shape, v.dtype.np_dtype)) for v in graph.inputs]
    examples += [Tensor._make(np.zeros(o.shape, o.dtype.np_dtype)) if isinstance(o, Var)
                 else Tensor._make(np.zeros_like(o.value._data)) for o, r in zip(graph.outputs, reached) if r]
    return trace_to_graph(replay, examples, name=name or f"{graph.name}_grad", examples_only=True)
