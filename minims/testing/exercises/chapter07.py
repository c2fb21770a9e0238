"""Exercises of chapter 07 (Graph mode): rewrite Python control flow so that ``jit`` can compile it.

The checks compile with ``jit(fullgraph=True)``: one graph for every input, which a Python ``if`` on a
Tensor cannot give (without it, ``jit`` would compile a guarded variant per branch: ``graph/guards.py``).

7.1  a piecewise function written with ``if``/``elif`` on a Tensor, rewritten with ``ops.select``;
7.2  Newton's square root with a ``while`` loop on a Tensor's value, rewritten as a fixed loop.
"""
from __future__ import annotations

from collections import Counter

import sympy

from ...core.tensor import Tensor
from ...graph.jit import jit
from .declare import Box, derivative_exercise, drawn, points_of
from .measure import elementwise

_THRESHOLD_X = [-2.5, -0.5, 0.75, 1.5]

SOFT_THRESHOLD = derivative_exercise(
    "7.1", "soft thresholding, compiled by jit",
    "compute every candidate and pick element by element with ops.select; two conditions need "
    "two selects, one inside the other.",
    build=lambda soft_threshold, point: jit(soft_threshold, fullgraph=True),   # one graph, no guarded variants
    formula=elementwise(lambda s: sympy.Piecewise((s - 1, s > 1), (s + 1, s < -1), (0, True))),
    symbolic=False,
    points=[{"x": _THRESHOLD_X}, {"x": [[3.0, -1.25], [0.0, 1.01]]},
            *drawn("7.1", 3, x=Box((5,), -3.0, 3.0, away=(-1.0, 1.0)))],
    orders=(0, 1, 2), wants="function soft_threshold",
    solved=lambda fn: _compiled(fn, _THRESHOLD_X, "SymPy's Piecewise"),
    worked="Compute the three candidates (x - 1, x + 1, zeros) and let select pick per entry: "
           "ops.select(x > 1, x - 1, ops.select(x < -1, x + 1, ops.zeros_like(x))). No Python if on a "
           "Tensor, so jit can trace it.")


#: a = 9 is the hardest point the hint promises; the others are random in [0.25, 9]
_SQRT_POINTS = points_of({"a": [0.25, 2.0, 9.0]}, *drawn("7.2", 2, a=Box((4,), 0.25, 9.0)))


def _compiled(fn, x, agrees: str) -> str:
    """What jit made of the answer, measured from its graph: how many equations, of which primitives."""
    graph = jit(fn, fullgraph=True).graph(Tensor(x))
    counts = Counter(eq.prim.name for eq in graph.equations)
    made = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    size = graph.num_equations
    return (f"jit compiled your function into one graph of {size} equation{'s' if size != 1 else ''} "
            f"({made}), and its value and its first and second derivatives agree with {agrees} at every point.")


def _compiled_graph(newton_sqrt) -> str:
    return _compiled(newton_sqrt, _SQRT_POINTS[0]["a"], "those of sqrt(a)")


NEWTON_SQRT = derivative_exercise(
    "7.2", "Newton's square root, compiled by jit",
    "the number of steps must not depend on a Tensor's value: a loop over a Python int is "
    "unrolled while tracing. Newton converges fast; take enough steps for 9.",
    build=lambda newton_sqrt, point: jit(newton_sqrt, fullgraph=True),
    formula=elementwise(sympy.sqrt),
    symbolic=False,
    points=_SQRT_POINTS,
    orders=(0, 1, 2), wants="function newton_sqrt",
    solved=_compiled_graph,
    worked="x = a, then a fixed number of steps x = (x + a / x) / 2 in a loop over range(30): a Python int "
           "decides how many, so jit unrolls them while tracing (Newton doubles the correct digits each step, "
           "and 30 is plenty for a = 9).")

EXERCISES = (SOFT_THRESHOLD, NEWTON_SQRT)
