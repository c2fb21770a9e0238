"""Replaying a graph: its equations run again with ``bind``, under whatever interpreters are active.

``interpret`` is what every transforming interpreter does with a compiled call (``inline``), and
``stage_vjp`` stages the replay under a gradient level: the graph of ``(inputs, output cotangents)
-> gradients`` (and, for ``residuals.py``, the outputs too) — the backward rules written into a
new graph (source transformation).  ``call.py``'s replaying backward graph and ``residuals.py``'s
joint graph are both this one staging.
"""
from __future__ import annotations

import numpy as np

from ..core import staging
from ..core.ir import Graph, Var
from ..core.tape import vjp
from ..core.tensor import Tensor
from ..primitives.state import Assign
from .tracing import trace_to_graph

__all__ = ["interpret", "stage_vjp"]

_ASSIGN = Assign()


def interpret(graph: Graph, args, effects: bool = True):
    """Re-run ``graph``'s equations with ``bind`` on ``args`` (under whatever interpreters are active;
    the core's ``staging.interpret``), then its Parameter writes (unless not ``effects``)."""
    env = {}
    outs = staging.interpret(graph, args, effects, env)
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
