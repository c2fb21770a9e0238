"""``ops.depend(value, expr)``: ``value``, with an edge to ``expr`` that a graph keeps.

In PyNative every line runs when it is reached, so ``depend`` returns ``value`` itself.  In a graph
being compiled, an equation whose result nothing reads is dead code and is removed
(``minims.graph.passes``); ``Depend`` reads ``expr`` and returns ``value``, so ``expr`` (and what it
depends on) stays in the graph and runs before whatever reads ``value``.  No gradient flows to
``expr``: it is an ordering edge, not part of the value (MindSpore 2.10's gradient of ``expr`` is zero).
"""
from __future__ import annotations

from ..core.primitive import Primitive
from ..core.stack import bind, contexts
from ..core.tensor import Tensor

__all__ = ["Depend", "depend"]


def _tensors(expr) -> list:
    """The Tensors in ``expr`` (a Tensor, or tuples and lists of them; other values hold none)."""
    if isinstance(expr, Tensor):
        return [expr]
    if isinstance(expr, (tuple, list)):
        return [t for e in expr for t in _tensors(e)]
    return []


class Depend(Primitive):
    """``ops.Depend()(value, expr)``: ``value``; a graph keeps ``expr`` and runs it first."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def __call__(self, value, expr):
        exprs = _tensors(expr)
        if not isinstance(value, Tensor) or not exprs or not contexts():
            return value                # nothing to keep, or nothing removes it: no equation needed
        return bind(self, value, *exprs)

    def impl(self, value, *exprs):
        return value

    def bprop(self, value, *args):
        return (args[-1],) + (None,) * (len(args) - 2)

    def jvp(self, primals, tangents):
        return bind(self, *primals), tangents[0]

    def batch(self, args, dims, size):
        return bind(self, *args), dims[0]

    def sympy(self, value, *exprs):
        return value


def depend(value, expr):
    """``ops.depend(value, expr)``: ``value``; in a graph, ``expr`` is kept and runs before its uses."""
    return Depend()(value, expr)
