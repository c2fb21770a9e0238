"""Python functions staged into graphs for the structured primitives, and graphs run under a transform.

A structured primitive (``Cond``, ``While``, ``Scan``) has graphs as parameters.  ``stage(fn, args)``
makes one: it calls ``fn`` once on placeholders (``minims.graph.tracing``) and returns a ``Closed``,
the graph with what ``fn`` reads from outside it listed (``captured``: Parameters, values of an
enclosing ``grad`` or ``jit``).  The primitive then takes those as operands of its own (*closure
conversion*), so every interpreter sees them at ``bind``: a gradient reaches a closed-over weight,
an outer graph records them as its own values.  A ``Branch`` is a staged graph inside a primitive:
the graph and the positions of the primitive's operands that feed its inputs.

The rules of the structured primitives are themselves new graphs, made by staging a function that
runs an old graph under one more interpreter: ``jvp_outputs`` (forward mode), ``batched_outputs``
(``vmap``), ``vjp_outputs`` (reverse mode), ``symbolic_outputs`` (SymPy).  That is the whole trick:
the rule of a primitive whose parameter is a graph is the same primitive over the transformed graph.
"""
from __future__ import annotations

import numpy as np

from ..core.batching import BatchTrace
from ..core.ir import Var, type_text
from ..core.jvp import JVPTrace
from ..core.prims import broadcast_to, move_to_front, zeros_like
from ..core.stack import MinimsError, pop_trace, push_trace
from ..core.staging import interpret
from ..core.tape import vjp
from ..core.tensor import Tensor
from ..graph.executor import Plan
from ..graph.passes import optimize
from ..graph.tracing import is_explicit_input, trace_to_graph
from ..interpreters.symbolic import SymbolicTrace, as_sympy_array
from ..primitives.functional import identity

__all__ = ["Closed", "Branch", "SideEffectError", "stage", "flatten", "unflatten", "merge_operands",
           "example", "types_of", "is_float", "run_graph", "jvp_outputs", "batched_outputs", "vjp_outputs",
           "symbolic_outputs", "at_front", "batched_or_shared"]


class SideEffectError(MinimsError, RuntimeError):
    """A branch or loop body writes a Parameter or a Cell attribute (it would happen once, at staging)."""


# ----- structures ---------------------------------------------------------------------------------------
def flatten(tree) -> tuple:
    """``(leaves, definition)`` of a value made of tuples, lists and dicts (anything else is a leaf)."""
    leaves = []

    def walk(x):
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, [walk(v) for v in x])
        if isinstance(x, dict):
            return ("dict", [(k, walk(v)) for k, v in x.items()])
        leaves.append(x)
        return ("leaf", None)
    return leaves, walk(tree)


def unflatten(definition, leaves):
    """Inverse of ``flatten``: the structure rebuilt around ``leaves`` (consumed in order)."""
    it = iter(leaves)

    def build(d):
        kind, body = d
        if kind == "leaf":
            return next(it)
        if kind == "dict":
            return {k: build(v) for k, v in body}
        items = [build(v) for v in body]
        return tuple(items) if kind == "tuple" else items
    return build(definition)


# ----- types --------------------------------------------------------------------------------------------
def is_float(value) -> bool:
    return isinstance(value, Tensor) and value.dtype.is_float


def example(shape, dtype) -> Tensor:
    """A Tensor of zeros of the given type: what stands for a value when only its type matters."""
    return Tensor._make(np.zeros(tuple(shape), dtype.np_dtype))


def _type_of(x) -> tuple:
    """``(shape, dtype)`` of a graph output (a Var, or a Literal holding a Tensor)."""
    if isinstance(x, Var):
        return x.shape, x.dtype
    return tuple(x.value.shape), x.value.dtype


def types_of(outputs) -> list:
    return [_type_of(o) for o in outputs]


# ----- staging ------------------------------------------------------------------------------------------
class Closed:
    """``fn`` staged into ``graph``: its inputs are ``explicit`` (the Tensor leaves of the arguments),
    then ``captured`` (what ``fn`` read from outside); its output is rebuilt by ``rebuild``."""

    def __init__(self, graph, explicit, out_definition, out_kinds):
        self.graph = graph
        self.explicit = list(explicit)
        self.captured = list(graph.implicit)
        self.out_definition = out_definition
        # per output leaf: ("tensor", k) — the graph's output k — or ("static", value)
        self.out_kinds = out_kinds

    @property
    def out_types(self) -> list:
        return types_of(self.graph.outputs)

    def rebuild(self, tensors):
        """The function's output, from the values of the graph's outputs."""
        leaves = [tensors[k] if kind == "tensor" else k for kind, k in self.out_kinds]
        return unflatten(self.out_definition, leaves)


def stage(fn, args: tuple, name: str, convert_out=None) -> Closed:
    """Stage ``fn(*args)`` (see the module docstring).  ``convert_out(leaves)`` may replace the leaves
    of the output (a Python number made a Tensor) before they become the graph's outputs."""
    leaves, definition = flatten(tuple(args))
    positions = [i for i, a in enumerate(leaves) if is_explicit_input(a)]
    found = {}

    def flat_fn(*tensors):
        full = list(leaves)
        for p, t in zip(positions, tensors):
            full[p] = t
        out_leaves, found["definition"] = flatten(fn(*unflatten(definition, full)))
        # a Parameter returned is a value of the graph, not the Parameter itself
        out_leaves = [identity(o) if getattr(o, "_is_parameter", False) else o for o in out_leaves]
        return tuple(convert_out(out_leaves) if convert_out is not None else out_leaves)

    # placeholders of the operands' types only: a branch or body is a graph for any values (and the
    # operands may be tracers of any interpreter, SymPy's included)
    placeholders = [example(leaves[p].shape, leaves[p].dtype) for p in positions]
    graph = trace_to_graph(flat_fn, placeholders, name=name, captures=True)
    if graph.effects or graph.attributes:
        what = (f"writes the Parameter '{graph.effects[0][0].name}'" if graph.effects else
                f"sets the Cell attribute '{graph.attributes[0][1]}'")
        raise SideEffectError(
            f"'{name}' {what}, but a branch or loop body of a graph is run as a graph of its own, where "
            "a write would happen once, when it is staged, not at each run (MindSpore 2.10 fails to "
            "compile such a loop body). Fix: return the new value from the function "
            "and write it after the loop or branch.")
    kinds = [("tensor", body) if kind == "leaf" else ("static", body) for kind, body in graph.out_tree[1]]
    return Closed(optimize(graph), [leaves[p] for p in positions], found["definition"], kinds)


def merge_operands(explicit, closeds) -> tuple:
    """``(operands, positions per closed)``: the explicit operands, then every captured value once
    (by identity), and for each ``Closed`` where its graph's inputs come from."""
    operands, index, positions = list(explicit), {}, []
    for c in closeds:
        pos = list(range(len(explicit)))
        for obj in c.captured:
            k = index.get(id(obj))
            if k is None:
                k = index[id(obj)] = len(operands)
                operands.append(obj)
            pos.append(k)
        positions.append(tuple(pos))
    return operands, positions


class Branch:
    """A graph inside a structured primitive: ``positions[j]`` is the operand fed to its input j."""

    def __init__(self, graph, positions):
        self.graph, self.positions = graph, tuple(positions)
        self._plan = None

    @property
    def name(self) -> str:
        return self.graph.name

    def __repr__(self) -> str:
        return self.name

    @property
    def out_types(self) -> list:
        return types_of(self.graph.outputs)

    @property
    def pure(self) -> bool:
        return all(getattr(eq.prim, "pure", True) for eq in self.graph.equations)

    @property
    def has_effect(self) -> bool:
        return any(getattr(eq.prim, "has_effect", False) for eq in self.graph.equations)

    def pick(self, operands) -> list:
        return [operands[i] for i in self.positions]

    def run(self, operands) -> list:
        """The graph on NumPy arrays (its compiled plan), fed from ``operands``: the output arrays."""
        if self._plan is None:
            self._plan = Plan(self.graph)
        return self._plan.run(self.pick(operands))

    def call(self, operands, effects: bool = True) -> list:
        """The graph's equations bound again on ``operands`` (under whatever interpreters are active)."""
        return run_graph(self.graph, self.pick(operands), effects)

    def zeros(self) -> list:
        """Arrays of zeros of the output types (what abstract evaluation returns)."""
        return [np.zeros(s, d.np_dtype) for s, d in self.out_types]

    def types_text(self) -> str:
        return ", ".join(type_text(s, d) for s, d in self.out_types)


def run_graph(graph, args, effects: bool = True) -> list:
    """``interpret``, always a list of outputs (also for one)."""
    out = interpret(graph, args, effects)
    return [out] if len(graph.outputs) == 1 else list(out)


# ----- a graph run under one more interpreter -----------------------------------------------------------
def jvp_outputs(branch: Branch, operands, tangents: dict) -> tuple:
    """``(outputs, tangents)`` of ``branch`` on ``operands``, with ``tangents[i]`` the tangent of
    operand i (absent: zero); every float output gets a tangent (zeros where it is zero)."""
    trace = push_trace(JVPTrace())
    try:
        boxed = [trace.new_input(v, tangents[i]) if i in tangents else v for i, v in enumerate(operands)]
        outs = branch.call(boxed, effects=False)
    finally:
        pop_trace(trace)
    primals = [trace.primal_of(o) for o in outs]
    tans = []
    for o, p in zip(outs, primals):
        if is_float(p):
            t = trace.tangent_of(o)
            tans.append(zeros_like(p) if t is None else t)
    return primals, tans


def at_front(trace, value, size):
    """A value of the batching level ``trace`` as a whole batch with its batch axis in front (a value
    the same for every example is broadcast along it)."""
    v, d = trace.unbox(value)
    if d is None:
        return broadcast_to(v, (size,) + tuple(v.shape))
    return move_to_front(v, d)


def batched_outputs(branch: Branch, operands, dims, size, effects: bool = True) -> list:
    """``branch`` run on a batch: ``operands`` hold the batch at ``dims`` (None: shared); every output
    comes back with the batch in front."""
    trace = push_trace(BatchTrace(size))
    try:
        boxed = [trace.new_input(v, d) for v, d in zip(operands, dims)]
        outs = branch.call(boxed, effects)
    finally:
        pop_trace(trace)
    return [at_front(trace, o, size) for o in outs]


def batched_or_shared(branch: Branch, operands, dims, size) -> tuple:
    """``(outputs, batched flags)``: as ``batched_outputs``, but an output the same for every example
    stays unbatched (flag False)."""
    trace = push_trace(BatchTrace(size))
    try:
        boxed = [trace.new_input(v, d) for v, d in zip(operands, dims)]
        outs = branch.call(boxed)
    finally:
        pop_trace(trace)
    result, flags = [], []
    for o in outs:
        v, d = trace.unbox(o)
        result.append(v if d is None else move_to_front(v, d))
        flags.append(d is not None)
    return result, flags


def vjp_outputs(branch: Branch, operands, wanted, cotangents) -> dict:
    """The gradients of ``branch``'s outputs (``cotangents``, None where none reached) with respect
    to the operands in ``wanted`` that the branch reads: ``{operand index: gradient}``."""
    mine = [k for k, i in enumerate(branch.positions) if i in wanted]
    if not mine:
        return {}
    inputs = branch.pick(operands)
    _, vjp_fn = vjp(lambda *a: tuple(run_graph(branch.graph, a, effects=False)), inputs, mine)
    grads = vjp_fn(*cotangents)
    return {branch.positions[k]: g for k, g in zip(mine, grads)}


def symbolic_outputs(branch: Branch, operands) -> list:
    """``branch`` run by the symbolic interpreter on SymPy values (object arrays): its outputs."""
    trace = push_trace(SymbolicTrace())
    try:
        outs = branch.call([trace.new_input(v) for v in operands], effects=False)
    finally:
        pop_trace(trace)
    return [o._data if getattr(o, "_trace", None) is trace else as_sympy_array(o) for o in outs]
