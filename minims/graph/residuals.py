"""Residuals: a compiled graph differentiated from outside runs its forward equations once.

Without this, ``grad(jit(f))`` (and every gradient of a Graph-mode Cell) evaluates the forward graph,
and then a backward graph that replays the forward equations to get the values the backward rules
need — every primal primitive runs twice.  A compiler keeps those values instead: the *residuals*.

The split is partial evaluation of one *joint* graph, ``(inputs, output cotangents) -> (outputs,
input gradients)``, staged once (the forward equations and the rules' equations in one graph, the
way ``jit(grad(f))`` stages them).  An equation is *known* when none of its inputs depends on the
cotangents — the forward computation, and whatever the rules compute from the primal values alone
(``cos(x)`` for the rule of ``sin``) — and *unknown* otherwise, as JAX's ``partial_eval_jaxpr``
splits a jaxpr.  Then

* the **forward graph** runs the known equations and returns the outputs *and the residuals*, the
  known values the unknown equations read;
* the **backward graph** takes the residuals and the cotangents and runs only the unknown
  equations: linear in the cotangents, with no primal primitive in it.

Both are ordinary graphs, so differentiating the backward graph again (second order) splits it the
same way.  A graph with Parameter writes (``ops.assign``) is not split: its forward must run as it
was staged, and the rule of its node (``call.ResidualRule``) replays it from the inputs instead.
"""
from __future__ import annotations

from ..core.ir import Graph, Var
from .passes import eliminate_dead_code, optimize
from .replay import stage_vjp

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


def _partial_evaluate(joint: Graph, n: int, k: int, name: str, positions: tuple) -> ResidualSplit | None:
    ins, cotangents = joint.inputs[:n], joint.inputs[n:]
    unknown = {v.index for v in cotangents}
    known_eqs, unknown_eqs = [], []
    for eq in joint.equations:
        if any(isinstance(a, Var) and a.index in unknown for a in eq.ins):
            unknown_eqs.append(eq)
            unknown.update(v.index for v in eq.outs)
        else:
            known_eqs.append(eq)
    outputs, grads = joint.outputs[:k], joint.outputs[k:]
    if any(isinstance(o, Var) and o.index in unknown for o in outputs):
        return None                              # cannot happen for a vjp; refuse rather than guess
    residuals, seen = [], set()
    for x in [a for eq in unknown_eqs for a in eq.ins] + list(grads):
        if isinstance(x, Var) and x.index not in unknown and x.index not in seen:
            seen.add(x.index)
            residuals.append(x)
    forward = Graph(f"{name}_forward", ins, known_eqs, list(outputs) + residuals,
                    _tuple_tree(k + len(residuals)), [], [], n)
    forward = eliminate_dead_code(forward)
    backward = Graph(f"{name}_grad", residuals + list(cotangents), unknown_eqs, list(grads),
                     _tuple_tree(len(grads)), [], [], len(residuals) + len(cotangents))
    backward = eliminate_dead_code(backward)
    return ResidualSplit(forward, backward, k, positions)
