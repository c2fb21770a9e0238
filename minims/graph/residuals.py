"""Residuals: a compiled graph differentiated from outside runs its forward equations once.

Without this, ``grad(jit(f))`` (and every gradient of a Graph-mode Cell) evaluates the forward graph,
and then a backward graph that replays the forward equations to get the values the backward rules
need — every primal primitive runs twice.  A compiler keeps those values instead: the *residuals*.

The split is partial evaluation of one *joint* graph, ``(inputs, output cotangents) -> (outputs,
input gradients)``, staged once (the forward equations and the rules' equations in one graph, the
way ``jit(grad(f))`` stages them), by the same interpreter that stages every graph: the core's
staging trace, which records what depends on its placeholders and hands everything else down to the
levels below it (as it does for ``linearize``, whose tangents are its only placeholders).  The joint
graph is interpreted under two staging traces at once:

* the **forward graph**'s trace, below, whose placeholders are the inputs: it records every equation
  that does not read a cotangent — the forward computation, and whatever the rules compute from the
  primal values alone (``cos(x)`` for the rule of ``sin``);
* the **backward graph**'s trace, above, whose placeholders are the cotangents: it records only the
  equations that read one (linear in the cotangents, with no primal primitive in it), and the forward
  values those equations read become its inputs from outside — the *residuals*, which the forward
  graph returns after the outputs.

Both are ordinary graphs, so differentiating the backward graph again (second order) splits it the
same way.  A graph with Parameter writes (``ops.assign``) is not split: its forward must run as it
was staged, and the rule of its node (``call.ResidualRule``) replays it from the inputs instead.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Graph, Var
from ..core.stack import dispatch
from ..core.staging import StagingTrace, trace_to_graph
from ..core.tensor import Tensor
from .passes import eliminate_dead_code, optimize
from .replay import interpret, stage_vjp

__all__ = ["ResidualSplit", "split_for_gradient"]


def _tuple_tree(n: int):
    return ("tuple", [("leaf", i) for i in range(n)])


class ResidualSplit:
    """The forward graph (inputs -> outputs + residuals) and backward graph (residuals + cotangents
    -> gradients of the inputs at ``positions``) of one compiled graph."""

    def __init__(self, forward: Graph, backward: Graph, n_outputs: int, positions: tuple):
        self.forward = forward
        self.backward = backward
        self.n_outputs = n_outputs
        self.positions = positions
        self._subsets = {positions: backward}

    @property
    def n_residuals(self) -> int:
        return len(self.forward.outputs) - self.n_outputs

    @property
    def residuals(self) -> list:
        """The residuals, in order: the forward graph's outputs after the first ``n_outputs``, and
        the same Vars are the backward graph's first ``n_residuals`` inputs."""
        return self.forward.outputs[self.n_outputs:]

    def text(self) -> str:
        """Both graphs, then each residual with its type (the Var has one name in both)."""
        listed = ", ".join(f"{v!r}: {v.type}" for v in self.residuals) or "none"
        return f"{self.forward.text()}\n{self.backward.text()}\nresiduals (forward -> backward): {listed}"

    __str__ = text

    def __repr__(self) -> str:
        return (f"<ResidualSplit of {self.forward.name}: {self.n_outputs} output(s), "
                f"{self.n_residuals} residual(s), {len(self.backward.outputs)} gradient(s)>")

    def backward_for(self, wanted: tuple) -> Graph:
        """The backward graph computing only the gradients at ``wanted`` (a subset of positions)."""
        graph = self._subsets.get(wanted)
        if graph is None:
            keep = [self.positions.index(p) for p in wanted]
            graph = self.backward.copy()
            graph.outputs = [self.backward.outputs[i] for i in keep]
            graph.out_tree = _tuple_tree(len(keep))
            graph = eliminate_dead_code(graph)
            self._subsets[wanted] = graph
        return graph


def split_for_gradient(graph: Graph, positions: tuple) -> ResidualSplit | None:
    """Split ``graph`` for the gradients of its inputs at ``positions``; None if it cannot be."""
    if graph.effects:
        return None
    n, k = len(graph.inputs), len(graph.outputs)
    staged = optimize(stage_vjp(graph, positions, with_outputs=True, name=f"{graph.name}_joint"))
    if staged.implicit:
        # it reads Parameters of its own (a bprop Cell re-running construct): keep the replaying path,
        # which feeds them as a compiled call does
        return None
    return _partial_evaluate(staged, n, k, graph.name, positions)


class _UnknownsOnly(StagingTrace):
    """The backward graph's trace: an equation that reads no cotangent goes down to the forward
    graph's trace, whatever the primitive (a random draw or a print of the forward stays there)."""

    def process(self, prim, args):
        if prim.inline is None and not any(self.needs(a) for a in args):
            return dispatch(prim, args, below=self.level)
        return super().process(prim, args)


def _partial_evaluate(joint: Graph, n: int, k: int, name: str, positions: tuple) -> ResidualSplit | None:
    """Split ``joint`` (``n`` inputs, then the cotangents; ``k`` outputs, then the gradients) by
    interpreting it under the forward graph's trace and, inside, the backward graph's (module
    docstring)."""
    staged = {}

    def forward(*ins):
        def backward(*cotangents):
            flat = interpret(joint, (*ins, *cotangents))
            flat = flat if isinstance(flat, tuple) else (flat,)
            staged["outputs"] = flat[:k]
            return flat[k:]
        trace = _UnknownsOnly(f"{name}_grad")
        staged["backward"] = trace_to_graph(backward, _zeros_like(joint.inputs[n:]), trace=trace)
        if any(isinstance(o, Tensor) and getattr(o, "_trace", None) is trace for o in staged["outputs"]):
            raise _NotSplittable                # an output read a cotangent: not a vjp's joint graph
        return (*staged["outputs"], *staged["backward"].implicit)

    try:
        forward_graph = trace_to_graph(forward, _zeros_like(joint.inputs[:n]), name=f"{name}_forward")
    except _NotSplittable:
        return None
    staged_backward = staged["backward"]
    n_cotangents = len(staged_backward.inputs) - len(staged_backward.implicit)
    cotangents, residual_inputs = staged_backward.inputs[:n_cotangents], staged_backward.inputs[n_cotangents:]
    # one name per residual in both graphs, the backward graph's other values numbered after the
    # forward graph's: a residual reads the same in both
    for forward_var, backward_var in zip(forward_graph.outputs[k:], residual_inputs):
        backward_var.index = forward_var.index
    fresh = max(v.index for v in _vars(forward_graph)) + 1
    for v in _vars(staged_backward)[:n_cotangents] + _vars(staged_backward)[len(staged_backward.inputs):]:
        v.index, fresh = fresh, fresh + 1
    backward_graph = Graph(f"{name}_grad", residual_inputs + cotangents, staged_backward.equations,
                           staged_backward.outputs, _tuple_tree(len(staged_backward.outputs)), [], [],
                           len(staged_backward.inputs))
    return ResidualSplit(eliminate_dead_code(forward_graph), eliminate_dead_code(backward_graph), k, positions)


class _NotSplittable(Exception):
    pass


def _zeros_like(variables) -> list:
    return [Tensor._make(np.zeros(v.shape, v.dtype.np_dtype)) for v in variables]


def _vars(graph: Graph) -> list:
    """Every Var of ``graph``, once: its inputs, then each equation's outputs."""
    return list(graph.inputs) + [v for eq in graph.equations for v in eq.outs]
