"""``GraphCall``: a compiled graph used as one primitive, and its backward graph.

Calling a compiled function binds ``GraphCall(graph)`` to its Tensor arguments and implicit inputs,
so every interpreter handles it like any primitive:

* eval runs the graph's flat plan;
* a gradient level records one node (``record_node``, the tape's custom-node seam): the forward graph
  of the residual split runs, and the node's rule (``ResidualRule``) runs the backward graph on the
  residuals it kept (``residuals.py``).  Both come from the *joint graph*, made by replaying the
  graph's equations under a gradient level while staging — the primitives' own ``bprop`` rules
  written into a new graph (source transformation).  The backward graph is itself a ``GraphCall``,
  so differentiating it again gives second order.  That node is the one way a compiled graph is
  differentiated; where the graph cannot be split (it writes Parameters) or a cotangent did not
  reach every output, its rule runs the joint graph's backward part on the inputs instead of on
  residuals (``ResidualRule.replay``);
* the interpreters that transform programs — a graph being staged (``jit`` inside ``jit``), forward
  mode, batching, the symbolic interpreter — replay the equations (``inline``), so ``jvp(jit(f))``
  and ``vmap(jit(f))`` work equation by equation, and ``jit(jvp(f))`` compiles the whole of it.
"""
from __future__ import annotations

import numpy as np

from ..core.stack import NUMPY_FAILURES, Tracer, array_of, bind, dispatch, evaluate, evaluator, rewriters, wrap
from ..core.tensor import Tensor
from ..core.stack import MinimsError
from ..core.primitive import Primitive, wants_grad
from .executor import Plan
from ..core.ir import Graph, Var
from .passes import optimize
from .replay import interpret, stage_vjp
from .residuals import split_for_gradient

__all__ = ["GraphCall", "interpret", "backward_graph"]


class GraphCall(Primitive):
    """One compiled graph as a primitive (see the module docstring)."""

    skips_unneeded_grads = True      # bprop differentiates only the inputs that need a gradient
    takes_missing_cotangents = True  # ... from only the outputs a cotangent reached

    def __init__(self, graph: Graph):
        self.graph = graph
        self._plan = None
        self._backward = {}         # the inputs whose gradients are needed -> their backward graph
        self._splits = {}           # the inputs being differentiated -> (forward call, ResidualSplit) or None

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

    def _split_entry(self, positions: tuple):
        """``(forward graph as a GraphCall, ResidualSplit)`` for the inputs at ``positions``, made
        once; None where the graph cannot be split (``residuals.py``)."""
        if positions not in self._splits:
            split = split_for_gradient(self.graph, positions)
            self._splits[positions] = None if split is None else (GraphCall(split.forward), split)
        return self._splits[positions]

    def residual_split(self, positions: tuple):
        """The ``ResidualSplit`` for the gradients of the inputs at ``positions``; None where the
        graph cannot be split."""
        entry = self._split_entry(positions)
        return None if entry is None else entry[1]

    def record_node(self, trace, args):
        """How a gradient level records a call of this graph (the tape's custom-node seam): it runs
        the forward graph that also returns the residuals, and the node's rule runs only the backward
        equations on them (``residuals.py``).  Where the graph cannot be split, the graph itself
        runs and the rule replays it."""
        primals, parents = _unbox(trace, args)
        positions = tuple(i for i, p in enumerate(parents) if p is not None)
        if not positions:
            return dispatch(self, primals)          # nothing of this level flows in: nothing to record
        entry = self._split_entry(positions)
        if entry is None:
            return trace.add_node(ResidualRule(self, None, None), primals, parents, dispatch(self, primals))
        forward, split = entry
        k = split.n_outputs
        if _evaluates_directly(primals):
            # evaluated at the bottom of the stack: only the rule reads the residuals, so they stay
            # arrays (a chain of 200 ops keeps ~80 of them: wrapping each costs more than the kernel)
            flat = _evaluate_arrays(forward, primals)
            flat = flat if isinstance(flat, tuple) else (flat,)
            outs, residuals = wrap(tuple(flat[:k])), _Arrays(flat[k:])
        else:
            flat = dispatch(forward, primals)
            flat = flat if isinstance(flat, tuple) else (flat,)
            outs, residuals = flat[:k], flat[k:]
        return trace.add_node(ResidualRule(self, split, residuals), primals, parents,
                              outs[0] if k == 1 else tuple(outs))


def backward_graph(graph: Graph, positions: tuple | None = None, reached: tuple | None = None) -> Graph:
    """The graph of ``(inputs, output cotangents) -> the gradients of the inputs at ``positions``
    (all by default)``, optimised.  ``reached`` flags the outputs that have a cotangent (all by
    default); the others get none, so rules fed only by them do not run."""
    positions = tuple(range(len(graph.inputs))) if positions is None else positions
    return optimize(stage_vjp(graph, positions, reached))


class ResidualRule(Primitive):
    """The tape's rule for one compiled-graph application recorded by ``GraphCall.record_node``: the
    backward graph applied to the residuals that its forward returned.  A primitive that is never
    bound: it only differentiates the node it was made for."""

    skips_unneeded_grads = True
    takes_missing_cotangents = True
    checks_rule_results = True          # one check per compiled call: cheap, and a graph may hold user rules

    def __init__(self, call: GraphCall, split, residuals):
        self.call, self.split, self.residuals = call, split, residuals

    def _attrs(self) -> dict:
        return {}

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def graph(self):                    # what check_nan names: the compiled graph being differentiated
        return self.call.graph

    def bprop(self, *args):
        n = len(self.call.graph.inputs)
        dout = args[-1]
        douts = dout if isinstance(dout, tuple) else (dout,)
        if self.split is None or any(d is None for d in douts):
            # the split assumed every output gets a cotangent; for fewer, a custom bprop that ignores
            # its dout must not run: the replaying backward graph leaves those outputs out
            return self.replay(*args)
        wanted = tuple(i for i in self.split.positions if wants_grad(i))
        if not wanted:
            return (None,) * n
        key = ("residuals", self.split.positions, wanted)
        if key not in self.call._backward:
            self.call._backward[key] = GraphCall(self.split.backward_for(wanted))
        backward, residuals = self.call._backward[key], self.residuals
        if type(residuals) is _Arrays:
            if _evaluates_directly(douts):
                return _at_positions(n, wanted, wrap(_evaluate_arrays(backward, (*residuals, *douts))))
            residuals = wrap(tuple(residuals))      # a higher-order level differentiates this rule
        return _at_positions(n, wanted, bind(backward, *residuals, *douts))


    def replay(self, *args):
        """The gradients from the inputs instead of residuals: the backward part of the joint graph
        (``replay.stage_vjp``) for the inputs that want a gradient and the outputs a cotangent reached."""
        graph = self.call.graph
        n = len(graph.inputs)
        ins, dout = args[:n], args[-1]
        douts = dout if isinstance(dout, tuple) else (dout,)
        # only the gradients asked for: the others are never computed (nor, for an integer input,
        # cast back into its dtype), and each choice of inputs has its own backward graph
        wanted = tuple(i for i in range(n) if wants_grad(i))
        if not wanted:
            return (None,) * n
        reached = tuple(d is not None for d in douts)
        key = (wanted, reached)
        if key not in self.call._backward:
            self.call._backward[key] = GraphCall(backward_graph(graph, wanted, reached))
        backward = self.call._backward[key]
        # the backward graph may read Parameters of its own (a custom bprop Cell's construct, re-run
        # while it is staged, reads self.w directly): they are its implicit inputs, fed as jit does
        grads = bind(backward, *ins, *(d for d in douts if d is not None), *backward.graph.implicit)
        return _at_positions(n, wanted, grads)


class _Arrays(tuple):
    """Residuals kept as the NumPy arrays the forward graph returned (see ``GraphCall.record_node``)."""


def _at_positions(n: int, wanted: tuple, grads) -> tuple:
    """One gradient per input of a call with ``n`` inputs: ``grads`` (one or a tuple) at ``wanted``."""
    grads = grads if isinstance(grads, tuple) else (grads,)
    out = [None] * n
    for i, g in zip(wanted, grads):
        out[i] = g
    return tuple(out)


def _evaluates_directly(args) -> bool:
    """True when ``bind(prim, *args)`` would go straight to the plain evaluator: nothing rewrites or
    observes the call, no argument is a tracer and no other evaluator is set.  The residuals may
    then stay arrays that only the rule reads."""
    if rewriters() or evaluator() is not evaluate:
        return False
    return not any(isinstance(a, Tracer) for a in args)


def _evaluate_arrays(prim, args):
    """``prim.impl`` on the arguments' arrays, its result as NumPy returned it (not wrapped)."""
    try:
        return prim.impl(*[a._data if type(a) is Tensor else array_of(a) if isinstance(a, Tensor) else a
                           for a in args])
    except MinimsError:
        raise
    except NUMPY_FAILURES as exc:
        raise prim.failure(exc, args) from None


def _unbox(trace, args):
    """``(primals, parents)`` of ``args`` on the gradient level ``trace`` (as its ``process`` finds
    them: a constant Tensor kept as it is now)."""
    primals, parents = [], []
    for a in args:
        own = trace.owns(a)
        if not own and isinstance(a, Tensor) and not isinstance(a, Tracer):
            a = Tensor._make(a._data)
        primals.append(a._primal if own else a)
        parents.append((a._node, a._index) if own else None)
    return primals, parents
