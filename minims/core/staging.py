"""The staging interpreter: run a function once on placeholders and record a graph.

``trace_to_graph(fn, args)`` calls ``fn`` with placeholders (``StagingTracer``); each primitive
applied to one becomes an equation, typed by running ``impl`` (or ``abstract_eval``) on zeros, so
the same checks and shape errors as in PyNative happen while tracing.  The trace is found by context
(``Trace.sees_every_bind``): it sees every ``bind`` no higher level claims, hands back down what
needs no equation — a pure primitive of known values is computed now, once (partial evaluation) —
and records an effect or a random draw even without a placeholder among its inputs.  Values of
outer levels the function closes over become *implicit inputs*.  Python control flow on Python
values simply runs; asking a placeholder for its value (``if x > 0:``) is a ``StaticGraphError``.
``minims.graph.tracing`` adds what compiling a MindSpore function needs (Parameters as inputs,
their writes, Cell attributes, Bool masks).
"""
from __future__ import annotations

import linecache
import os
import re
import sys

import numpy as np

from . import dtype as mstype
from .ir import Equation, Graph, Literal, Var
from .stack import MinimsError, Trace, Tracer, bind, contexts, dispatch, pop_trace, push_trace
from .tensor import Tensor

__all__ = ["StagingTrace", "StagingTracer", "StaticGraphError", "trace_to_graph", "rebuild", "interpret",
           "compiling", "user_location", "file_label"]


_MINIMS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# The files IPython compiles a notebook cell into (ipykernel: /tmp/ipykernel_<pid>/<hash of the code>.py;
# plain IPython: <ipython-input-<n>-<hash>>): their names change with the cell's text and the process.
_NOTEBOOK_CELL = re.compile(r"(^|[\\/])ipykernel_\d+[\\/]\d+\.py$|^<ipython-input-")


def file_label(filename: str) -> str:
    """How an error names a file: its base name, or "a notebook cell" for a cell's code."""
    return "a notebook cell" if _NOTEBOOK_CELL.search(filename) else os.path.basename(filename)


def user_location() -> str:
    """``file, line N, in function: source`` of the innermost frame outside minims (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_MINIMS_DIR):
            source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            return f"{file_label(frame.f_code.co_filename)}, line {frame.f_lineno}, in {frame.f_code.co_name}: {source}"
        frame = frame.f_back
    return "(unknown location)"


class StaticGraphError(MinimsError, RuntimeError):
    """Something a static graph cannot express (a branch on a Tensor's value ...)."""


class StagingTracer(Tracer):
    """A placeholder for a value computed inside a graph: it has a type but no value."""

    __slots__ = ("_var",)

    def _primal_value(self):
        if not self._trace.active:
            raise StaticGraphError(
                f"A placeholder of the finished graph '{self._trace.name}' ({self._var!r}) was used after "
                "compilation: it has no value. Fix: return it from the compiled function instead.")
        raise StaticGraphError(
            f"Graph mode cannot read the value of a Tensor while compiling '{self._trace.name}' "
            f"({self._var!r}: {self._var.type}), at {user_location()}. minims compiles by running the "
            "function once on placeholders, which have no values, so Python `if`/`while`/`float()`/"
            "`.asnumpy()` on a Tensor is not possible here (MindSpore's compiler parses the source and "
            "turns such an `if` into control flow in the graph). Fix: use ops.select(cond, a, b) for "
            "value-dependent choices, pass the value as a Python number (it then becomes part of the "
            "compiled signature), or run in PyNative mode.")

    def __repr__(self) -> str:
        return (f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, "
                f"value=<{self._var!r} in graph '{self._trace.name}'>)")

    __str__ = __repr__


class StagingTrace(Trace):
    """Records equations for one graph."""

    sees_every_bind = True
    #: False for a trace that stages only part of a computation, computing the rest at once
    #: (``linearize``'s tangents): hooks then act as they do outside a graph.
    compiles = True

    def __init__(self, name: str):
        self.name, self.counter = name, 0
        self.inputs, self.equations = [], []            # Vars; Equations
        self.implicit_objs, self.implicit_vars, self._implicit_by_id = [], [], {}

    def _new_var(self, shape, dtype) -> Var:
        v = Var(self.counter, shape, dtype)
        self.counter += 1
        return v

    def _tracer(self, var: Var, abstract: np.ndarray) -> StagingTracer:
        t = object.__new__(StagingTracer)
        t._data, t._trace, t._var = abstract, self, var
        return t

    def new_input(self, like: Tensor) -> StagingTracer:
        """A graph input typed like ``like``."""
        var = self._new_var(like.shape, like.dtype)
        self.inputs.append(var)
        return self._tracer(var, np.zeros(like.shape, like.dtype.np_dtype))

    def implicit(self, obj: Tensor) -> StagingTracer:
        """The placeholder for a value the function reads without receiving it (an outer level's)."""
        hit = self._implicit_by_id.get(id(obj))
        if hit is None:
            var = self._new_var(obj.shape, obj.dtype)
            hit = self._implicit_by_id[id(obj)] = self._tracer(var, np.zeros(obj.shape, obj.dtype.np_dtype))
            self.implicit_objs.append(obj)
            self.implicit_vars.append(var)
        return hit

    def owns(self, a) -> bool:
        return isinstance(a, StagingTracer) and a._trace is self

    def lift(self, value):
        """What the graph reads for ``value``, a value from outside it: its implicit input."""
        return self.implicit(value)

    def takes_input(self, arg) -> bool:
        """Is argument ``arg`` of the staged function an input of the graph (else it is baked in)?"""
        return isinstance(arg, Tensor)

    def needs(self, a) -> bool:
        """Does argument ``a`` make an equation necessary (rather than a value computed now)?"""
        return self.owns(a)

    # ----- equations --------------------------------------------------------------------------
    def operand(self, a):
        """``(Var or Literal, array of its type)`` for one argument of an equation."""
        if self.owns(a):
            return a._var, a._data
        if isinstance(a, Tracer):
            t = self.implicit(a)
            return t._var, t._data
        if isinstance(a, Tensor):
            return Literal(a), a._data
        return Literal(a), a

    def process(self, prim, args):
        if prim.inline is not None:
            return prim.inline(args)
        if prim.pure and not prim.has_effect and not any(self.needs(a) for a in args):
            return dispatch(prim, args, below=self.level)       # known: computed now, not staged
        ins, abstract = [], []
        for a in args:
            v, x = self.operand(a)
            ins.append(v)
            abstract.append(x)
        out = prim.output_types(abstract, args)
        multiple = isinstance(out, tuple)
        outs = out if multiple else (out,)
        out_vars = [self._new_var(o.shape, mstype.from_numpy(o.dtype)) for o in outs]
        self.equations.append(Equation(prim, ins, out_vars, multiple))
        tracers = tuple(self._tracer(v, np.asarray(o)) for v, o in zip(out_vars, outs))
        return tracers if multiple else tracers[0]

    def finish(self, out, n_explicit: int) -> Graph:
        flat = []
        tree = structure(out, self, flat)
        return Graph(self.name, self.inputs + self.implicit_vars, self.equations, flat, tree,
                     self.implicit_objs, [], n_explicit)

    def is_leaf(self, o) -> bool:
        """Is ``o`` (in the function's output) a graph output rather than a static value?"""
        return isinstance(o, Tensor)

    def close(self) -> None:
        """Empty the tables that hold the trace's tracers, which point back at it (no cycle left)."""
        self._implicit_by_id.clear()


def structure(out, trace, flat):
    """``out``'s structure (tuples, lists, dicts), its leaves replaced by their positions in
    ``flat``, to which their Vars are appended (a static value stays in the structure)."""
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, [structure(o, trace, flat) for o in out])
    if isinstance(out, dict):
        return ("dict", [(k, structure(v, trace, flat)) for k, v in out.items()])
    if trace.is_leaf(out):
        flat.append(trace.operand(out)[0])
        return ("leaf", len(flat) - 1)
    return ("static", out)


def rebuild(tree, leaves):
    """Inverse of ``structure``: put the flat output values back into the function's structure."""
    kind, body = tree
    if kind == "leaf":
        return leaves[body]
    if kind == "static":
        return body
    if kind == "dict":
        return {k: rebuild(t, leaves) for k, t in body}
    items = [rebuild(t, leaves) for t in body]
    return tuple(items) if kind == "tuple" else items


def trace_to_graph(fn, args, name: str | None = None, trace: StagingTrace | None = None) -> Graph:
    """Stage ``fn(*args)``: the arguments the trace takes as inputs (``trace.takes_input``: every
    Tensor, by default) become graph inputs, the others are baked in.  ``trace``: a (subclass of)
    ``StagingTrace`` to record with, a new one by default."""
    trace = push_trace(trace if trace is not None else StagingTrace(name or getattr(fn, "__name__", "graph")))
    try:
        staged = [trace.new_input(a) if trace.takes_input(a) else a for a in args]
        out = fn(*staged)
    finally:
        pop_trace(trace)
    try:
        return trace.finish(out, sum(trace.takes_input(a) for a in args))
    finally:
        trace.close()


def interpret(graph: Graph, args, effects: bool = True, env: dict | None = None):
    """The graph interpreter: ``graph``'s equations run again with ``bind`` on ``args``, under whatever
    interpreters are active.  Not ``effects``: an equation with an effect passes its inputs through
    (a backward graph replays the computation, not its prints).  ``env`` keeps every value."""
    env = {} if env is None else env
    for v, a in zip(graph.inputs, args):
        env[v.index] = a

    def read(x):
        return env[x.index] if isinstance(x, Var) else x.value
    for eq in graph.equations:
        ins = [read(a) for a in eq.ins]
        if eq.prim.has_effect and not effects:
            result = tuple(ins[:len(eq.outs)]) if eq.multiple else (ins[0] if ins else None)
        else:
            result = bind(eq.prim, *ins)
        for v, r in zip(eq.outs, result if eq.multiple else (result,)):
            env[v.index] = r
    outs = [read(o) for o in graph.outputs]
    return outs[0] if len(outs) == 1 else tuple(outs)


def compiling() -> bool:
    """True while a function's own computation is being staged into a graph (``jit``, Graph mode):
    not under ``linearize`` alone, whose trace stages only the tangents (``compiles`` False)."""
    return any(t.compiles for t in contexts())
