"""How a gradient level records a structured primitive whose choices it can read now.

Under ``grad`` in PyNative (no graph being staged, no ``vmap``), the predicate of a ``Cond`` and the
condition of a ``While`` have values when the primitive is bound.  The level then records what
actually runs, the way it records a compiled call (``graph/call.py``, the tape's ``record_node``
seam): the chosen branch, or each iteration's body, as a ``GraphCall`` of its graph.  Each of those
nodes goes through the residual split of ``graph/residuals.py``: its forward graph runs once and
returns the residuals, its rule runs only the backward graph on them.  For a loop the tape then holds
one node per iteration, each with its residuals — the stack of per-iteration values — and the
backward pass walks them in reverse.

Where the values are not known (a graph being staged, a batching level, a SymPy run), the level
records the primitive as one node, whose ``bprop`` is the primitive's own staged rule.
"""
from __future__ import annotations

from ..core.jvp import JVPTrace
from ..core.stack import Tracer, active_traces, contexts, dispatch
from ..core.tape import TapeTrace
from ..core.tensor import Tensor
from ..graph.call import GraphCall

__all__ = ["values_known", "record_as_one_node", "graph_call"]


def values_known() -> bool:
    """True when every active interpreter holds concrete values (gradient levels, forward mode)."""
    return not contexts() and all(type(t) in (TapeTrace, JVPTrace) for t in active_traces())


def record_as_one_node(prim, trace, args):
    """What a gradient level does with a primitive that has no ``record_node``: one node."""
    primals, parents = [], []
    for a in args:
        own = trace.owns(a)
        if not own and isinstance(a, Tensor) and not isinstance(a, Tracer):
            a = Tensor._make(a._data)           # kept as it is now, as the tape does
        primals.append(a._primal if own else a)
        parents.append((a._node, a._index) if own else None)
    if all(p is None for p in parents):
        return dispatch(prim, primals)
    return trace.add_node(prim, primals, parents, dispatch(prim, primals))


def graph_call(cache: dict, branch) -> GraphCall:
    """The ``GraphCall`` of a branch's graph, made once (it caches its residual splits)."""
    call = cache.get(id(branch))
    if call is None:
        call = cache[id(branch)] = GraphCall(branch.graph)
    return call
