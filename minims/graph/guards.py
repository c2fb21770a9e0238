"""Guards: a compiled graph that read a Tensor's value while it was traced, and the check that it still may.

``if x.sum() > 0:`` inside ``jit`` asks a placeholder for its value.  A tracer cannot know it in
general, but ``jit`` traces on a call's own arguments, so the value *this call* gives is computable
(``GraphTrace.value_of``).  The trace then takes the branch that value chooses and records a
``Guard`` equation: "this graph holds only while that value is what it was".  The graph is one
*variant* of the function; ``jit`` keeps the variants of each signature and, before a call, checks
their guards on the call's inputs (``guards_hold``: the equations that compute the guarded values,
run on their own) to choose the variant that applies, tracing a new one when none does.  A ``while``
on a Tensor becomes a variant per trip count, each unrolled; ``f.traces`` shows the cost.

This is the fallback for what structured control flow does not express: correct values always,
never the first call's branch for every input (MindSpore's ``capture_mode="trace"`` keeps that
silently).  ``jit(fullgraph=True)`` turns it off: a value read in the graph is then a
``StaticGraphError``, as before.

The ``Guard`` equation is also checked when the graph runs (a kernel that rounds differently from
the check could choose another branch): ``GuardFailed`` then makes ``jit`` trace again rather than
return a number from the wrong branch.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Var
from ..core.primitive import Primitive
from ..core.stack import MinimsError, Tracer
from ..core.staging import StagingTracer, StaticGraphError

__all__ = ["Guard", "GuardFailed", "BatchedBranchError", "GraphTracer", "guard_plan", "guards_hold", "known_array",
           "describe_guards"]


class GuardFailed(MinimsError, RuntimeError):
    """A compiled variant met a call whose guarded value differs from the one it was traced with."""


class BatchedBranchError(StaticGraphError, ValueError):
    """A branch on a value that differs between the examples of a ``vmap`` (MindSpore 2.10 raises a
    ValueError there too: its Switch must not take a batched predicate)."""


class Guard(Primitive):
    """``Guard(expected, where)(value)``: the graph was traced for ``value == expected`` (see module)."""

    differentiable = False
    has_effect = True               # nothing reads it, and dead-code elimination must keep it
    checks_rule_results = False     # no rule to check: it only compares

    def __init__(self, expected, where: str):
        self.expected = np.asarray(expected)
        self.where = where

    def _attrs(self) -> dict:
        shown = self.expected.item() if self.expected.size == 1 else f"<{self.expected.size} values>"
        return {"expects": shown}

    def holds(self, value) -> bool:
        value = np.asarray(value)
        return (value.shape == self.expected.shape and value.dtype == self.expected.dtype
                and np.array_equal(value, self.expected, equal_nan=value.dtype.kind in "fc"))

    def impl(self, value):
        if not self.holds(value):
            raise GuardFailed(
                f"Guard: the graph was compiled for the value {self.expected.tolist()!r} read at {self.where}, "
                f"and this run computed {np.asarray(value).tolist()!r}; jit compiles a variant for it.")
        return np.zeros((), np.bool_)

    def abstract_eval(self, value):
        return np.zeros((), np.bool_)

    def sympy(self, value):
        raise StaticGraphError(
            f"Guard: this compiled function chose a branch by the value read at {self.where}, so no one "
            "formula describes it. Fix: write the choice with ops.select(cond, a, b) (its formula is "
            "a Piecewise), or derive the formula of each branch separately.")


class GraphTracer(StagingTracer):
    """A placeholder of a graph ``jit`` compiles: reading its value asks the trace (``read_value``),
    which computes it from the call being compiled and records a ``Guard``."""

    __slots__ = ()

    def _primal_value(self):
        return self._trace.read_value(self)


def _is_guard(eq) -> bool:
    return isinstance(eq.prim, Guard)


def guard_plan(graph):
    """``(equations, guards)`` to check a graph's guards on its inputs: the equations the guarded
    values depend on, in order, and the ``Guard`` equations; None for a graph without guards."""
    guards = [eq for eq in graph.equations if _is_guard(eq)]
    if not guards:
        return None
    needed = {x.index for eq in guards for x in eq.ins if isinstance(x, Var)}
    plan = []
    for eq in reversed(graph.equations):
        if not _is_guard(eq) and any(v.index in needed for v in eq.outs):
            plan.append(eq)
            needed.update(x.index for x in eq.ins if isinstance(x, Var))
    return list(reversed(plan)), guards


def guards_hold(graph, plan, arrays) -> bool:
    """Do the guards of ``graph`` (``plan = guard_plan(graph)``) hold for inputs of these values?"""
    equations, guards = plan
    env = {v.index: a for v, a in zip(graph.inputs, arrays)}

    def read(x):
        if isinstance(x, Var):
            return env[x.index]
        return x.value._data if x.is_tensor else x.value
    with np.errstate(all="ignore"):
        for eq in equations:
            out = eq.prim.impl(*[read(x) for x in eq.ins])
            for v, o in zip(eq.outs, out if eq.multiple else (out,)):
                env[v.index] = np.asarray(o)
        return all(eq.prim.holds(read(eq.ins[0])) for eq in guards)


def known_array(value, name: str) -> np.ndarray:
    """The array a call's argument has, down through the levels (grad, jvp) and, inside another
    graph being compiled, the value the outer call gives it — to choose a guarded variant."""
    while isinstance(value, Tracer):
        if isinstance(value, StagingTracer):
            trace = value._trace
            if trace.active and hasattr(trace, "value_of"):
                return trace.value_of(value, purpose="guard")
            raise StaticGraphError(
                f"jit: '{name}' has variants compiled for particular values (guards), and this call's "
                "arguments are placeholders of another graph with no values. Fix: call it with Tensors, "
                "or write the value-dependent choice with ops.select.")
        try:
            value = value._primal_value()
        except MinimsError:
            raise BatchedBranchError(
                f"jit: '{name}' chooses a compiled variant by the values of its inputs (it has a Python "
                "`if` or `while` on a Tensor), and under vmap those differ between the examples. Fix: "
                "write the choice with ops.select(cond, a, b), which vmap batches.") from None
    return value._data


def describe_guards(graph) -> list:
    """``[(where, expected value)]`` of a graph's guards, in the order the trace read them."""
    return [(eq.prim.where, eq.prim.expected.tolist()) for eq in graph.equations if _is_guard(eq)]
