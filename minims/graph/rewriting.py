"""What every optimisation pass returns: the graph rewritten, with what the pass removed counted.

``graph.removed`` maps a pass's name to the equations it removed so far; ``graph.reports`` (installed
on the core's ``Graph``) says it in words, so a learner can see what each pass did.
"""
from __future__ import annotations

from ..core.ir import Equation, Var, Graph
from ..core import install

__all__ = ["rewritten"]

_WORDS = {"constant folding": "equation(s) computed at compile time",
          "common subexpressions": "duplicate equation(s) removed",
          "dead code": "unused equation(s) removed",
          "algebraic simplification": "identity equation(s) (x * 1, x + 0, -(-x), ...) replaced by their input",
          "shared derivative factors": "derivative rule(s) G(x, d) computed as d * G(x, 1), G(x, 1) once"}


def rewritten(graph: Graph, equations, mapping: dict, pass_name: str, count: int) -> Graph:
    """A copy of ``graph`` with ``equations``, every Var in ``mapping`` replaced (transitively), and
    ``count`` more removals credited to ``pass_name``."""
    def sub(x):
        while isinstance(x, Var) and x.index in mapping:
            x = mapping[x.index]
        return x
    g = graph.copy()
    g.equations = [Equation(eq.prim, [sub(a) for a in eq.ins], eq.outs, eq.multiple) for eq in equations]
    g.outputs = [sub(o) for o in graph.outputs]
    g.effects = [(p, sub(v)) for p, v in graph.effects]
    if count:                           # a pass that found nothing is not reported
        g.removed = dict(getattr(graph, "removed", {}))
        g.removed[pass_name] = g.removed.get(pass_name, 0) + count
    return g


def _reports(graph) -> list:
    """What each optimisation pass did, in words."""
    return [f"{name}: {n} {_WORDS.get(name, 'removed')}" for name, n in getattr(graph, "removed", {}).items()]


install(Graph, reports=property(_reports))
