"""``GraphCall``: a compiled graph used as one primitive, and its backward graph.

Calling a compiled function binds ``GraphCall(graph)`` to its Tensor arguments and implicit inputs,
so every interpreter handles it like any primitive:

* eval runs the graph's flat plan;
* a gradient level records one node; its ``bprop`` runs the *backward graph*, made by replaying the
  graph's equations under a gradient level while staging — the primitives' own ``bprop`` rules
  written into a new graph (source transformation).  That backward graph is itself a ``GraphCall``,
  so differentiating it again gives second order;
* the interpreters that transform programs — a graph being staged (``jit`` inside ``jit``), forward
  mode, batching, the symbolic interpreter — replay the equations (``inline``), so ``jvp(jit(f))``
  and ``vmap(jit(f))`` work equation by equation, and ``jit(jvp(f))`` compiles the whole of it.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.grad_api import vjp_call
from ..common import undo
from ..interpreters.stack import bind
from ..primitives.base import Primitive, wants_grad
from ..common.tensor import Tensor
from .executor import Plan
from .ir import Graph, Var
from .passes import optimize
from .staging import current_trace, trace_to_graph

__all__ = ["GraphCall", "interpret", "backward_graph"]


def interpret(graph: Graph, args, effects: bool = True):
    """Re-run ``graph``'s equations with ``bind`` on ``args`` (under whatever interpreters are active)."""
    env = {}
    for v, a in zip(graph.inputs, args):
        env[v.index] = a

    def read(x):
        return env[x.index] if isinstance(x, Var) else x.value
    for eq in graph.equations:
        ins = [read(a) for a in eq.ins]
        if getattr(eq.prim, "has_effect", False) and not effects:
            result = tuple(ins[:len(eq.outs)]) if eq.multiple else (ins[0] if ins else None)
        else:
            result = bind(eq.prim, *ins)
        if eq.multiple:
            for v, r in zip(eq.outs, result):
                env[v.index] = r
        else:
            env[eq.outs[0].index] = result
    if effects and graph.effects:
        staging = current_trace()
        for param, value in graph.effects:
            if staging is not None:
                staging.record_effect(param, read(value))
            else:
                undo.record(param)          # a failing outer call puts the old array back
                param._data = np.array(read(value)._data, dtype=param._data.dtype)
    outs = [read(o) for o in graph.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)


class GraphCall(Primitive):
    """One compiled graph as a primitive (see the module docstring)."""

    skips_unneeded_grads = True      # bprop differentiates only the inputs that need a gradient

    def __init__(self, graph: Graph):
        self.graph = graph
        self._plan = None
        self._backward = {}         # the inputs whose gradients are needed -> their backward graph

    @property
    def name(self) -> str:
        return f"call {self.graph.name}"

    def _attrs(self) -> dict:
        return {}

    @property
    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = Plan(self.graph)
        return self._plan

    def impl(self, *arrays):
        outs = self.plan.run(arrays)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def abstract_eval(self, *arrays):
        outs = [np.zeros(v.shape, v.dtype.np_dtype) if isinstance(v, Var) else np.asarray(v.value._data)
                if hasattr(v.value, "_data") else np.asarray(v.value) for v in self.graph.outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def inline(self, args):
        return interpret(self.graph, args)

    def bprop(self, *args):
        n = len(self.graph.inputs)
        ins, dout = args[:n], args[-1]
        douts = dout if isinstance(dout, tuple) else (dout,)
        # only the gradients asked for: the others are never computed (nor, for an integer input,
        # cast back into its dtype), and each choice of inputs has its own backward graph
        wanted = tuple(i for i in range(n) if wants_grad(i))
        if not wanted:
            return (None,) * n
        if wanted not in self._backward:
            self._backward[wanted] = GraphCall(backward_graph(self.graph, wanted))
        grads = bind(self._backward[wanted], *ins, *douts)
        grads = grads if isinstance(grads, tuple) else (grads,)
        out = [None] * n
        for i, g in zip(wanted, grads):
            out[i] = g
        return tuple(out)


def backward_graph(graph: Graph, positions: tuple | None = None) -> Graph:
    """The graph of ``(inputs, output cotangents) -> the gradients of the inputs at ``positions``
    (all by default)``, optimised."""
    n = len(graph.inputs)
    positions = tuple(range(n)) if positions is None else positions

    def grad_of_graph(*flat):
        ins, douts = flat[:n], flat[n:]
        _, grads, _ = vjp_call(lambda *a: interpret(graph, a, effects=False), ins, positions, (),
                               sens=list(douts), where=f"grad of graph '{graph.name}'")
        return tuple(grads)

    examples = [Tensor._make(np.zeros(v.shape, v.dtype.np_dtype)) for v in graph.inputs]
    examples += [Tensor._make(np.zeros(o.shape, o.dtype.np_dtype)) if isinstance(o, Var)
                 else Tensor._make(np.zeros_like(o.value._data)) for o in graph.outputs]
    # zeros stand for the inputs: a mask's count is fixed by the replayed equations, not read here
    raw = trace_to_graph(grad_of_graph, examples, name=f"{graph.name}_grad", examples_only=True)
    return optimize(raw)
