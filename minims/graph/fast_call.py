"""The short way into a compiled graph: a repeated call with the same Tensor signature (issue 28).

A call of a ``jit`` function normally computes its signature (a key per argument, ``_static_key``),
finds the variant whose guards hold, binds the graph's ``GraphCall`` and rebuilds the output
structure — ~5 µs of Python before the first kernel runs, as much as 200 elementwise ops on four
floats take in the fused kernels.  ``value_and_grad(jit(f))(x)`` adds a gradient level: a tape,
leaf tracers, a node whose rule runs the backward graph, the rule-result check — ~40 µs for a
graph of two equations.

The function keeps the compiled entry of the signature it ran last (its :class:`FastCall` lives
with the entry, so signatures that alternate keep theirs), when that signature is the plain case:
every argument a Tensor (no Parameter, no Python value, no tracer), a plain function (no Cell, so
no training flag in the key), one variant without guards, no Cell attributes written.  A call whose
arguments have those shapes and dtypes, made with no trace active and nothing rewriting ``bind``,
goes straight to the graph's plan (as the evaluator would run its ``GraphCall``): the same plan, the same kernels, the same bits.
Anything else — a new signature, keywords, a graph being staged, a gradient level — takes the
general path, which also refreshes the entry kept.

``value_and_grad`` (``autodiff/grad_api.py``) asks :func:`value_and_grad` first for the one-input,
no-weights, no-``has_aux`` case: with no trace active, no hook on any Tensor and no rule checking
(``check_nan``, ``check_every_rules``), it runs what the tape would run for that call — the forward
graph that returns the residuals (``residuals.py``), then the backward graph on them with a ones
sensitivity — without the tape, as one graph (``_joint_call``): the residuals never leave it.  It
declines (returns None) for a graph that writes Parameters, draws random numbers, returns more
than one Tensor or cannot be split; the tape path then runs.  ``tests/graph/test_i28_fast_call.py``
checks both paths give the same bits.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Graph, Literal, Var
from ..core.stack import NUMPY_FAILURES, MinimsError, active_traces, array_of, evaluate, evaluator, rewriters
from ..core.tensor import Tensor
from ..interpreters.rules import checks_every_rule
from ..primitives.index_operands import CompiledShapeChanged
from .call import GraphCall
from .guards import GuardFailed
from .passes import optimize
from .rewriting import rewritten
from .tracing import rebuild

__all__ = ["FastCall", "remember", "call", "value_and_grad", "MISS"]

MISS = object()         # the fast path does not apply: take the general one


class FastCall:
    """What a repeated call with the same Tensor signature needs (see the module docstring)."""

    __slots__ = ("types", "single", "grads")

    def __init__(self, types: tuple, graph):
        self.types = types              # ((shape, NumPy dtype), ...) of the arguments
        self.single = len(graph.outputs) == 1 and graph.out_tree == ("leaf", 0)
        self.grads = {}                 # argument position -> GraphCall of (value, gradient), or None

    def matches(self, args) -> bool:
        types = self.types
        if len(args) != len(types):
            return False
        for a, (shape, dtype) in zip(args, types):
            # ``is``: NumPy's dtype objects of the built-in types are shared, and comparing them
            # with ``!=`` costs more than the rest of the check (an equal, other object only misses)
            if type(a) is not Tensor or a._data.dtype is not dtype or a._data.shape != shape:
                return False
        return True


def _plain(jitted) -> bool:
    return jitted._instance is None and jitted._key_extra is None


def _quiet() -> bool:
    """No trace active, nothing rewriting ``bind`` and the plain evaluator: a call is evaluated at once."""
    return not active_traces() and not rewriters() and evaluator() is evaluate


def remember(jitted, args, entry) -> None:
    """Keep ``entry`` as the fast path of ``jitted`` for calls with the signature of ``args``, if
    that signature and graph are the plain case (module docstring)."""
    graph = entry.graph
    if (not _plain(jitted) or entry.guards is not None or graph.attributes
            or not all(type(a) is Tensor for a in args)):
        return
    if jitted._fast is entry:
        return
    if entry.fast is None:              # kept with the entry: signatures that alternate keep their graphs
        entry.fast = FastCall(tuple((a._data.shape, a._data.dtype) for a in args), graph)
    jitted._fast = entry


def call(jitted, args):
    """``jitted(*args)`` by the short way, or :data:`MISS`."""
    entry = jitted._fast
    if entry is None or not entry.fast.matches(args) or not _quiet():
        return MISS
    jitted._streak = 0
    try:
        outs = _run(entry.call, args, entry.graph.implicit)
    except (CompiledShapeChanged, GuardFailed):
        return MISS                     # the general path compiles again for these values
    if entry.fast.single:
        return Tensor._make(outs[0])
    return rebuild(entry.graph.out_tree, [Tensor._make(o) for o in outs])


def _run(graph_call, args, implicit) -> list:
    """The plan of ``graph_call`` on the arguments' arrays, as the evaluator runs a primitive
    (``core.stack.evaluate``: a NumPy error becomes the primitive's own), its arrays not wrapped."""
    arrays = [a._data for a in args]
    if implicit:
        arrays += [array_of(p) for p in implicit]
    try:
        return graph_call.plan.run(arrays)
    except MinimsError:
        raise
    except NUMPY_FAILURES as exc:
        raise graph_call.failure(exc, (*args, *implicit)) from None


def value_and_grad(jitted, args, position: int):
    """``(value, gradient of argument position)`` of ``jitted(*args)`` without the tape, or None
    where the tape is needed (module docstring)."""
    if not _quiet() or checks_every_rule() or not _plain(jitted) or not all(type(a) is Tensor for a in args):
        return None
    entry = jitted._fast
    if entry is None or not entry.fast.matches(args):
        remember(jitted, args, jitted._compiled(args, called=True))
        entry = jitted._fast
        if entry is None or not entry.fast.matches(args):
            return None
    grads = entry.fast.grads
    joint = grads.get(position, MISS)
    if joint is MISS:
        joint = grads[position] = _joint_call(entry, args, position)
    if joint is None:
        return None
    try:
        value, grad = _run(joint, args, entry.graph.implicit)
    except (CompiledShapeChanged, GuardFailed):
        return None
    return Tensor._make(value), Tensor._make(grad)


def _joint_call(entry, args, position):
    """A ``GraphCall`` of ``inputs -> (value, gradient of input position)``, or None where the fast
    path declines.

    Made of the two graphs the tape's node would run (``call.GraphCall.record_node`` and
    ``call.ResidualRule.bprop``): the forward graph that returns the residuals, then the backward
    graph with its cotangent the ones the tape would seed.  The residual Vars have one name in both
    (``residuals.py``), so the backward equations follow the forward ones as they are.  The passes
    that are exact (folding the ones, dropping ``x * 1``, CSE, dead code; not the derivative
    sharing, which rounds differently) then tidy it; one graph means one plan, and with the fast
    path on, fused kernels that keep the residuals in registers instead of passing ~80 arrays from
    one graph to the other (W1).
    """
    graph = entry.graph
    x = args[position]
    if (entry.random or graph.effects or not entry.fast.single or not np.issubdtype(x._data.dtype, np.floating)
            or not isinstance(graph.outputs[0], Var)):
        return None
    split_entry = entry.call._split_entry((position,))
    if split_entry is None or split_entry[1].n_outputs != 1:
        return None
    split = split_entry[1]
    forward, backward = split.forward, split.backward_for((position,))
    out = backward.outputs
    # the tape checks the rule's result against the input's shape: a graph that would fail it goes there
    if len(out) != 1 or not isinstance(out[0], Var) or out[0].shape != x.shape or out[0].dtype != x.dtype:
        return None
    value = forward.outputs[0]
    if not isinstance(value, Var):
        return None
    (cotangent,) = backward.inputs[split.n_residuals:]
    ones = Literal(Tensor._make(np.ones(value.shape, value.dtype.np_dtype)))
    joint = Graph(f"{graph.name}_value_and_grad", forward.inputs, forward.equations + backward.equations,
                  [value, out[0]], ("tuple", [("leaf", 0), ("leaf", 1)]), forward.implicit, [],
                  forward.n_explicit)
    joint = rewritten(joint, joint.equations, {cotangent.index: ones}, "", 0)
    return GraphCall(optimize(joint, share_derivatives=False))
