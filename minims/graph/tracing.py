"""Compiling a MindSpore function: the core's staging trace, with what ``jit`` needs on top.

``GraphTrace`` extends ``minims.core.staging.StagingTrace`` with

* **Parameters as inputs.** Parameters read by the function become *implicit inputs* of the graph,
  so a compiled function always sees their current values (and gradients with respect to them
  work); a Parameter passed as an argument is read the same way, and one returned is returned as
  itself.  (``linearize`` takes them as constants instead: ``parameters_as_inputs=False``.)
* **Writes.** After ``ops.assign(p, v)`` in the graph (written when the graph runs,
  ``record_effect``), reads of ``p`` are ``ReadAfterAssign(p, v)``: the value written, the gradient
  going to the Parameter.  A Cell attribute set to a computed value (``self.last = x * 2``) is an
  extra output, set after every run (``record_attribute``).
* **Values read while compiling.** ``if x.sum() > 0:`` asks a placeholder for its value; under
  ``jit`` (``guarded``) the trace computes it from the call being compiled (``value_of``), records a
  ``Guard`` and goes on with the branch it chooses (``guards.py``); elsewhere it is a
  ``StaticGraphError``.
* **Shapes that depend on values.** ``x[mask]`` with a Bool mask Tensor has as many entries as the
  mask has True values.  The trace keeps what each input stands for in the call being compiled
  (``sources``), computes the mask's value from them (``value_of``) and lets the primitive fix its
  shape (``Primitive.fix_shape``); the graph checks that shape at every run, and ``jit`` compiles
  again for a call whose mask selects another count.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..core import stack
from ..core.stack import MinimsError
from ..core.staging import user_location  # noqa: F401 - re-exported
from ..tracebacks import user_stacklevel  # noqa: F401 - re-exported
from ..core.ir import Graph, Var
from ..core.stack import Tracer
from ..core.staging import StagingTrace, StagingTracer, StaticGraphError, compiling, rebuild, structure
from ..core.staging import trace_to_graph as _stage
from ..core.tensor import Tensor
from ..tensors.lending import current_value, relend
from .guards import BatchedBranchError, Guard, GraphTracer

__all__ = ["GraphTrace", "StagingTracer", "StaticGraphError", "trace_to_graph", "is_staging", "is_compiling",
           "current_trace", "user_location", "user_stacklevel", "rebuild", "is_explicit_input"]


def _is_parameter(value) -> bool:
    return getattr(value, "_is_parameter", False)


def is_explicit_input(arg) -> bool:
    """True for an argument that becomes an explicit input of the graph: a Tensor, not a Parameter."""
    return isinstance(arg, Tensor) and not _is_parameter(arg)


def is_staging() -> bool:
    """True while a graph is being traced (inside ``jit``, a Graph-mode Cell's first call, ``linearize``)."""
    return bool(stack.contexts())


def is_compiling() -> bool:
    """True while a function's own computation is being traced into a graph (``jit``, Graph mode);
    False under ``linearize`` alone, which stages only the tangent computation while the values
    themselves are computed at once."""
    return compiling()


def current_trace():
    """The innermost graph being traced, or None: where effects (``ops.assign``, ``ops.Print``)
    are recorded instead of happening."""
    contexts = stack.contexts()
    return contexts[-1] if contexts else None


class GraphTrace(StagingTrace):
    """Records the graph of a MindSpore function (module docstring)."""

    def __init__(self, name: str, parameters_as_inputs: bool = True, tangents_only: bool = False,
                 examples_only: bool = False, guarded: bool = False, captures: bool = False):
        super().__init__(name)
        self.guarded = guarded and not examples_only   # a value read becomes a Guard (guards.py)
        # a branch or loop body (``control_flow.stage``): what it computes from values of outer levels
        # is recorded in it too (they become implicit inputs), never computed outside it — outside,
        # a branch not taken would still run, and its gradient (0 * inf) could poison the taken one's
        self.captures = captures
        self._purpose = "mask"
        self.parameters_as_inputs = parameters_as_inputs
        self.tangents_only = tangents_only      # linearize's graph: see is_compiling
        self.compiles = not tangents_only
        self.examples_only = examples_only      # the arguments give types only, not a call's values
        self.sources: dict = {}     # input Var index -> the Tensor whose value it has in this call
        self._written: dict = {}    # id(Parameter) -> how it reads after an ops.assign in the graph
        self._attributes: dict = {}     # (id(Cell), name) -> (weak ref, name, value) set in the graph
        self.effects: list = []

    def _tracer(self, var: Var, abstract: np.ndarray) -> GraphTracer:
        t = object.__new__(GraphTracer)
        t._data, t._trace, t._var = abstract, self, var
        return t

    def read_value(self, tracer) -> Tensor:
        """``bool(x)``, ``float(x)``, ``x.asnumpy()`` on a placeholder: under ``jit``, its value in the
        call being compiled, with a ``Guard`` recorded on it; else the StaticGraphError of a placeholder."""
        if not (self.active and self.guarded):
            return StagingTracer._primal_value(tracer)      # raises, saying why
        inner = stack.contexts()[-1]
        if inner is not self:
            # a branch or loop body staged inside this graph reads it: a guard would land in that
            # body's graph and hold for it, not choose this graph's variant (the converted if/while
            # then runs as Python, where the read is guarded here)
            raise StaticGraphError(
                f"Graph mode cannot read the value of a Tensor of '{self.name}' while '{inner.name}' is "
                f"staged inside it ({user_location()}). Fix: compute the value outside that branch or loop "
                "body, or write the computation with Tensor operations.")
        value = self.value_of(tracer, purpose="branch")
        stack.bind(Guard(value, user_location()), tracer)
        return Tensor._make(np.array(value))

    # ----- inputs -----------------------------------------------------------------------------
    def takes_input(self, arg) -> bool:
        # a Parameter argument is passed as itself: read like any Parameter (an implicit input),
        # written by ops.assign, returned as itself
        return is_explicit_input(arg)

    def new_input(self, like: Tensor) -> StagingTracer:
        t = super().new_input(like)
        if not self.examples_only:
            self.sources[t._var.index] = like
        return t

    def implicit(self, obj: Tensor) -> StagingTracer:
        known = id(obj) in self._implicit_by_id
        t = super().implicit(obj)
        if not known:
            self.sources[t._var.index] = obj    # a Parameter's value now, an outer level's value
        return t

    def parameter(self, param):
        """What reading ``param`` gives in this graph now: the value last assigned to it in the graph
        (``record_effect``), else its implicit input (or, if Parameters are constants, itself)."""
        written = self._written.get(id(param))
        if type(written) is tuple:      # the first read since an assign: make the read now
            del self._written[id(param)]
            reader, value = written
            written = self._written[id(param)] = self.process(reader, [param, value])
        if written is not None:
            return written
        return self.implicit(param) if self.parameters_as_inputs else param

    def lift(self, value):
        return self.parameter(value) if _is_parameter(value) else super().lift(value)

    def needs(self, a) -> bool:
        return self.owns(a) or (_is_parameter(a) and (self.parameters_as_inputs or id(a) in self._written)) or (
            self.captures and isinstance(a, Tracer))

    def operand(self, a):
        if _is_parameter(a):
            a = self.parameter(a)
            if not self.owns(a):        # a constant Parameter: its value now
                return super().operand(Tensor._make(a._data))
        return super().operand(a)

    # ----- effects ----------------------------------------------------------------------------
    def record_effect(self, param, value, read=None, reader=None) -> None:
        """``ops.assign(param, value)`` inside the graph: written after each run.  How the reads that
        follow see ``param`` (``ReadAfterAssign``): ``read``, made by the levels above (a gradient
        level inside the graph that lent the Parameter a stand-in); else ``reader``, the primitive
        and the value from which the first such read makes it — a graph that writes a Parameter
        without reading it does not take it as an input."""
        self.effects.append((param, self._own(value)))
        if read is None:
            self._written[id(param)] = (reader[0], self._own(reader[1]))
        else:
            self._written[id(param)] = self._own(read)
            relend(param, read)

    def record_attribute(self, cell, name, value) -> None:
        """``cell.name = value`` inside the graph: a computed value (or a tuple, list or dict holding
        some) is a placeholder now, so the compiled function sets the attribute to that value's
        result after every run."""
        self._attributes.pop((id(cell), name), None)
        if _holds_placeholder(value, self):
            self._attributes[(id(cell), name)] = (weakref.ref(cell), name, value)

    def _own(self, value):
        """``value`` as this trace holds it: the primal under the levels above it (a ``grad`` inside
        the compiled function)."""
        while isinstance(value, Tracer) and value._trace is not self and value._trace.level > self.level:
            value = value._primal_value()
        return value

    # ----- equations whose shape depends on values --------------------------------------------
    def process(self, prim, args):
        if prim.fix_shape is not None and any(self.needs(a) for a in args):
            prim = prim.fix_shape(args, self.value_of)
        return super().process(prim, args)

    def value_of(self, a, required: bool = True, purpose: str = "mask"):
        """The value ``a`` has in the call being compiled, computed from what the graph's inputs
        stand for (``sources``) by running the equations it depends on: for a primitive whose output
        shape depends on values (``purpose`` "mask": ``Primitive.fix_shape``, a Bool mask's True
        count), a value Python reads (``read_value``, "branch") or one a guarded variant of a
        function compiled inside this one is chosen by ("guard").  Where it cannot be known: a
        StaticGraphError, or None if not ``required``."""
        if not isinstance(a, Tracer):
            return a._data
        saved, self._purpose = self._purpose, purpose
        try:
            return self._value_of(a)
        except StaticGraphError:
            if required:
                raise
            return None
        finally:
            self._purpose = saved

    def _value_of(self, a) -> np.ndarray:
        var = self.operand(a)[0]
        needed, plan = {var.index}, []
        for eq in reversed(self.equations):
            if any(v.index in needed for v in eq.outs):
                plan.append(eq)
                needed.update(x.index for x in eq.ins if isinstance(x, Var))
        env = {v.index: self._input_value(v) for v in self.inputs + self.implicit_vars if v.index in needed}
        for eq in reversed(plan):
            if not eq.prim.pure or eq.prim.has_effect:
                raise self._values_unknown(f"they come from {eq.prim.name}, which gives other values each run")
            ins = [env[x.index] if isinstance(x, Var) else x.value._data if x.is_tensor else x.value
                   for x in eq.ins]
            with np.errstate(all="ignore"):
                out = eq.prim.impl(*ins)
            for v, o in zip(eq.outs, out if eq.multiple else (out,)):
                env[v.index] = np.asarray(o)
        return env[var.index]

    def _input_value(self, var) -> np.ndarray:
        source = self.sources.get(var.index)
        if source is None:
            raise self._values_unknown("the graph is traced on example values, not a call's")
        value = source
        while isinstance(value, Tracer):        # down through the levels (grad, jvp) to a value
            if isinstance(value, StagingTracer):
                if value._trace.active:         # jit inside jit: the outer call's value
                    return value._trace.value_of(value, purpose=self._purpose)
                raise self._values_unknown("they come from a graph compiled earlier")
            try:
                value = value._primal_value()
            except MinimsError:                 # a batch inside vmap: one value per example
                raise self._values_unknown("they differ between the examples of a vmap", batched=True) from None
        return value._data

    def _values_unknown(self, why: str, batched: bool = False) -> StaticGraphError:
        if self._purpose != "mask":
            return (BatchedBranchError if batched else StaticGraphError)(
                f"Graph mode: Python reads the value of a Tensor (`if`, `while`, `float()`, `.asnumpy()`) "
                f"while compiling '{self.name}', at {user_location()}. jit compiles such a function once for "
                f"each way its branches go, checking the value at every call, but here it is not known "
                f"({why}). Fix: write the value-dependent choice with ops.select(cond, a, b) (a loop: "
                "ops.WhileLoop or a Python loop of fixed length), or run in PyNative mode.")
        return StaticGraphError(
            f"Graph mode: indexing by a Bool mask selects as many entries as the mask has True values, "
            f"so the shape of the result depends on the mask's values, and while compiling '{self.name}' "
            f"those are not known ({why}), at {user_location()}. Fix: keep the shape fixed, e.g. "
            "ops.select(mask, x, ops.zeros_like(x)) and then a reduction, or index outside the compiled "
            "function.")

    # ----- result -----------------------------------------------------------------------------
    def is_leaf(self, o) -> bool:
        return isinstance(o, Tensor) and not _is_parameter(o)   # a Parameter returned stays itself

    def finish(self, out, n_explicit: int) -> Graph:
        graph = super().finish(out, n_explicit)
        flat = graph.outputs
        for cell, name, value in self._attributes.values():
            leaves = []                 # numbered from 0 for each attribute: rebuilt from its own outputs
            tree = structure(value, self, leaves)
            flat.extend(leaves)
            graph.attributes.append((cell, name, tree, len(leaves)))
        graph.effects = [(p, self.operand(v)[0]) for p, v in self.effects]
        return graph

    def close(self) -> None:
        super().close()
        self._written.clear()
        self._attributes.clear()
        self.effects.clear()
        self.sources.clear()


def _holds_placeholder(value, trace) -> bool:
    """True when ``value`` (or a tuple, list or dict it holds) has a value computed in ``trace``."""
    if isinstance(value, (tuple, list)):
        return any(_holds_placeholder(v, trace) for v in value)
    if isinstance(value, dict):
        return any(_holds_placeholder(v, trace) for v in value.values())
    own = trace._own(value) if isinstance(value, Tracer) else None
    return isinstance(own, StagingTracer) and own._trace is trace


def trace_to_graph(fn, args, name: str | None = None, parameters_as_inputs: bool = True,
                   examples_only: bool = False, tangents_only: bool = False, guarded: bool = False,
                   captures: bool = False) -> Graph:
    """Stage ``fn(*args)``: Tensor arguments become graph inputs, other arguments are baked in.

    The Parameters ``fn`` reads become implicit inputs (a compiled function sees their current
    values), unless ``parameters_as_inputs`` is False: then their values now are constants of the
    graph (``linearize``: the linearisation is taken at these values).  ``examples_only``: the
    Tensor arguments give types only (zeros), not the values of a call (see ``value_of``).
    ``tangents_only``: the arguments are tangents and ``fn`` computes its values at once
    (``linearize``), so this is no compilation of ``fn`` (``is_compiling``).  ``guarded``: a value
    Python reads from a placeholder is computed and guarded (``jit``; ``guards.py``).  ``captures``:
    a branch or loop body — what it computes from values of outer levels is recorded in it.
    """
    trace = GraphTrace(name or getattr(fn, "__name__", "graph"), parameters_as_inputs, tangents_only,
                       examples_only, guarded, captures)
    stack.add_rewriter(_read_parameters)
    try:
        return _stage(fn, args, trace=trace)
    finally:
        stack.remove_rewriter(_read_parameters)


def _read_parameters(prim, args):
    """While a graph is staged, each Parameter reaching ``bind`` is what the graph reads for it (its
    input, or the value last assigned to it in the graph), or the stand-in a gradient level inside
    the graph lent it — before any level above the graph sees it (the rewriter seam)."""
    if not any(_is_parameter(a) for a in args):
        return None
    return tuple(current_value(a) if _is_parameter(a) else a for a in args)
