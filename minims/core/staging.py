"""The staging interpreter: run a function once on placeholders and record a graph.

``trace_to_graph(fn, args)`` pushes a ``StagingTrace`` and calls ``fn`` with ``StagingTracer``
placeholders.  Each primitive applied to a placeholder becomes an equation; its output type is
found by running the primitive's NumPy ``impl`` on zeros of the right shapes (or the primitive's
``abstract_eval`` where running it would have side effects), so the same argument checks and shape
errors as in PyNative happen while tracing.

Parameters read by the function become *implicit inputs* of the graph, so a compiled function always
sees their current values (and gradients with respect to them work); a Parameter passed as an
argument is read the same way, and one returned is returned as itself.  After ``ops.assign(p, v)``
in the graph (written when the graph runs, ``record_effect``), reads of ``p`` are
``ReadAfterAssign(p, v)``: the value written, the gradient going to the Parameter.  A Cell attribute
set to a computed value (``self.last = x * 2``) is an extra output, set after every run
(``record_attribute``).  Values of outer gradient levels that the function closes over are implicit
inputs too.  Python control flow on Python values
is simply run (specialised at trace time); asking a placeholder for its value (``if x > 0:``) is a
``StaticGraphError`` that names the line and says how to write it instead.

One kind of result has a shape that depends on values: ``x[mask]`` with a Bool mask Tensor has as
many entries as the mask has True values.  The trace keeps what each input stands for in the call
being compiled (``sources``), computes the mask's value from them (``value_of``) and lets the
primitive fix its shape (``Primitive.fix_shape``); the graph checks that shape at every run, and
``jit`` compiles again for a call whose mask selects another count.
"""
from __future__ import annotations

import linecache
import re
import os
import sys
import threading
import weakref

import numpy as np

from . import dtype as mstype
from . import stack
from .stack import MinimsError, Trace, Tracer, pop_trace, push_trace
from .tensor import Tensor
from .ir import Equation, Graph, Literal, Var

__all__ = ["StagingTrace", "StagingTracer", "StaticGraphError", "trace_to_graph", "is_staging",
           "is_compiling", "current_trace", "user_location"]

_MINIMS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class StaticGraphError(MinimsError, RuntimeError):
    """Something a static graph cannot express (a branch on a Tensor's value ...)."""


# The files IPython compiles a notebook cell into (ipykernel: /tmp/ipykernel_<pid>/<hash of the code>.py;
# plain IPython: <ipython-input-<n>-<hash>>): their names change with the cell's text and the process.
_NOTEBOOK_CELL = re.compile(r"(^|[\\/])ipykernel_\d+[\\/]\d+\.py$|^<ipython-input-")


def _file_label(filename: str) -> str:
    """How an error names a file: its base name, or "a notebook cell" for a cell's code."""
    return "a notebook cell" if _NOTEBOOK_CELL.search(filename) else os.path.basename(filename)


def user_location() -> str:
    """``file, line N, in function: source`` of the innermost frame outside minims (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_MINIMS_DIR + os.sep):
            source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            name = _file_label(frame.f_code.co_filename)
            return f"{name}, line {frame.f_lineno}, in {frame.f_code.co_name}: {source}"
        frame = frame.f_back
    return "(unknown location)"


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the innermost frame outside minims."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_MINIMS_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level


class _Tracing(threading.local):
    def __init__(self):
        self.active: list = []      # StagingTraces being recorded in this thread, innermost last


_tracing = _Tracing()


def is_staging() -> bool:
    """True while a graph is being traced (inside ``jit`` or a Graph-mode Cell's first call)."""
    return bool(_tracing.active)


def is_compiling() -> bool:
    """True while a function's own computation is being traced into a graph (``jit``, Graph mode);
    False under ``linearize`` alone, which stages only the tangent computation while the values
    themselves are computed at once."""
    return any(not t.tangents_only for t in _tracing.active)


def current_trace():
    """The innermost graph being traced, or None: where effects (``ops.assign``, ``ops.Print``)
    are recorded instead of happening."""
    active = _tracing.active
    return active[-1] if active else None


class StagingTracer(Tracer):
    """A placeholder for a value computed inside a graph: it has a type but no value."""

    __slots__ = ("_var",)

    def _primal_value(self):
        if not self._trace.active:
            raise StaticGraphError(
                f"A placeholder of the finished graph '{self._trace.name}' ({self._var!r}) was used "
                "after compilation: it has no value. Fix: return it from the compiled function instead "
                "of keeping it in a variable outside."
            )
        raise StaticGraphError(
            f"Graph mode cannot read the value of a Tensor while compiling '{self._trace.name}' "
            f"({self._var!r}: {self._var.type}), at {user_location()}. minims compiles by running the "
            "function once on placeholders, which have no values, so Python `if`/`while`/`float()`/"
            "`.asnumpy()` on a Tensor is not possible here (MindSpore's compiler parses the source and "
            "turns such an `if` into control flow in the graph). Fix: use ops.select(cond, a, b) for "
            "value-dependent choices, pass the value as a Python number (it then becomes part of the "
            "compiled signature), or run in PyNative mode."
        )

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<{self._var!r} in graph '{self._trace.name}'>)"

    def __str__(self) -> str:
        return repr(self)



class StagingTrace(Trace):
    """Records equations for one graph."""

    def __init__(self, name: str, parameters_as_inputs: bool = True, tangents_only: bool = False):
        self.name = name
        self.parameters_as_inputs = parameters_as_inputs
        self.tangents_only = tangents_only      # linearize's graph: see is_compiling
        self.sources: dict = {}     # input Var index -> the Tensor whose value it has in this call
        self.counter = 0
        self.inputs: list[Var] = []
        self.equations: list[Equation] = []
        self.implicit_objs: list = []
        self.implicit_vars: list[Var] = []
        self._implicit_by_id: dict = {}
        self._written: dict = {}    # id(Parameter) -> how it reads after an ops.assign in the graph
        self._attributes: dict = {}     # (id(Cell), name) -> (weak ref, name, value) set in the graph
        self.effects: list = []

    # ----- values -----------------------------------------------------------------------------
    def _new_var(self, shape, dtype) -> Var:
        v = Var(self.counter, shape, dtype)
        self.counter += 1
        return v

    def _tracer(self, var: Var, abstract: np.ndarray) -> StagingTracer:
        t = object.__new__(StagingTracer)
        t._data = abstract
        t._trace = self
        t._var = var
        return t

    def new_input(self, like: Tensor, source=None) -> StagingTracer:
        """A graph input typed like ``like``; ``source``: the Tensor whose value it has in the call
        being compiled (None: not known, e.g. zeros standing for a backward graph's inputs)."""
        var = self._new_var(like.shape, like.dtype)
        self.inputs.append(var)
        if source is not None:
            self.sources[var.index] = source
        return self._tracer(var, np.zeros(like.shape, like._data.dtype))

    def implicit(self, obj: Tensor) -> StagingTracer:
        """The placeholder for a Parameter or outer value the function reads without receiving it."""
        key = id(obj)
        hit = self._implicit_by_id.get(key)
        if hit is None:
            var = self._new_var(obj.shape, obj.dtype)
            hit = self._tracer(var, np.zeros(obj.shape, obj._data.dtype))
            self._implicit_by_id[key] = hit
            self.implicit_objs.append(obj)
            self.implicit_vars.append(var)
            self.sources[var.index] = obj       # a Parameter's value now, an outer level's value
        return hit

    def resolve(self, value):
        """Called by ``bind`` for every Tensor argument while this trace is active."""
        if _is_parameter(value):
            return self.parameter(value)
        return value

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
            stack.relend(param, read)

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

    # ----- equations --------------------------------------------------------------------------
    def _operand(self, a):
        if isinstance(a, StagingTracer) and a._trace is self:
            return a._var, a._data
        if _is_parameter(a):
            a = self.parameter(a)
            if isinstance(a, StagingTracer):
                return a._var, a._data
            return Literal(Tensor._make(a._data)), a._data      # a constant Parameter: its value now
        if isinstance(a, Tracer):
            t = self.implicit(a)
            return t._var, t._data
        if isinstance(a, Tensor):
            return Literal(a), a._data
        return Literal(a), a

    def process(self, prim, args):
        if prim.inline is not None:
            return prim.inline(args)
        fix_shape = getattr(prim, "fix_shape", None)
        if fix_shape is not None:
            prim = fix_shape(args, self.value_of)
        ins, abstract = [], []
        for a in args:
            v, x = self._operand(a)
            ins.append(v)
            abstract.append(x)
        out = prim.output_types(abstract, args)
        multiple = isinstance(out, tuple)
        outs = out if multiple else (out,)
        out_vars = [self._new_var(o.shape, mstype.from_numpy(o.dtype)) for o in outs]
        self.equations.append(Equation(prim, ins, out_vars, multiple))
        tracers = tuple(self._tracer(v, np.asarray(o)) for v, o in zip(out_vars, outs))
        return tracers if multiple else tracers[0]

    # ----- values, for the shapes that depend on them ---------------------------------------
    def value_of(self, a, required: bool = True):
        """The value ``a`` has in the call being compiled, computed from what the graph's inputs
        stand for (``sources``) by running the equations it depends on.  Only for a primitive whose
        output shape depends on values (``Primitive.fix_shape``: a Bool mask's True count).  Where it
        cannot be known: a StaticGraphError, or None if not ``required``."""
        if not isinstance(a, Tracer):
            return a._data
        try:
            return self._value_of(a)
        except StaticGraphError:
            if required:
                raise
            return None

    def _value_of(self, a) -> np.ndarray:
        var = self._operand(a)[0]
        needed, plan = {var.index}, []
        for eq in reversed(self.equations):
            if any(v.index in needed for v in eq.outs):
                plan.append(eq)
                needed.update(x.index for x in eq.ins if isinstance(x, Var))
        env = {v.index: self._input_value(v) for v in self.inputs + self.implicit_vars if v.index in needed}
        for eq in reversed(plan):
            if not getattr(eq.prim, "pure", True) or getattr(eq.prim, "has_effect", False):
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
                    return value._trace.value_of(value)
                raise self._values_unknown("they come from a graph compiled earlier")
            try:
                value = value._primal_value()
            except MinimsError:                 # a batch inside vmap: one value per example
                raise self._values_unknown("they differ between the examples of a vmap") from None
        return value._data

    def _values_unknown(self, why: str) -> StaticGraphError:
        return StaticGraphError(
            f"Graph mode: indexing by a Bool mask selects as many entries as the mask has True values, "
            f"so the shape of the result depends on the mask's values, and while compiling '{self.name}' "
            f"those are not known ({why}), at {user_location()}. Fix: keep the shape fixed, e.g. "
            "ops.select(mask, x, ops.zeros_like(x)) and then a reduction, or index outside the compiled "
            "function.")

    # ----- result -----------------------------------------------------------------------------
    def finish(self, out, n_explicit: int) -> Graph:
        flat, tree = [], _structure(out)
        _collect(out, self, flat)
        attributes = []
        for cell, name, value in self._attributes.values():
            start = len(flat)
            _collect(value, self, flat)
            attributes.append((cell, name, _structure(value), len(flat) - start))
        return Graph(self.name, self.inputs + self.implicit_vars, self.equations, flat, tree,
                     self.implicit_objs, [(p, self._operand(v)[0]) for p, v in self.effects],
                     n_explicit, attributes)


def _structure(out):
    """The output structure, with leaves replaced by their position in the flat output list."""
    return _walk(out, iter(range(1 << 30)))


def _walk(o, counter):
    # module level: a nested recursive function would be a reference cycle (it and its closure cell)
    if isinstance(o, (tuple, list)):
        return (type(o).__name__, [_walk(x, counter) for x in o])
    if isinstance(o, dict):
        return ("dict", [(k, _walk(v, counter)) for k, v in o.items()])
    if isinstance(o, Tensor) and not _is_parameter(o):
        return ("leaf", next(counter))
    return ("static", o)        # a Parameter returned as it is stays that Parameter, as in PyNative


def _collect(out, trace, flat):
    if isinstance(out, (tuple, list)):
        for o in out:
            _collect(o, trace, flat)
    elif isinstance(out, dict):
        for o in out.values():
            _collect(o, trace, flat)
    elif isinstance(out, Tensor) and not _is_parameter(out):
        flat.append(trace._operand(out)[0])


def _holds_placeholder(value, trace) -> bool:
    """True when ``value`` (or a tuple, list or dict it holds) has a value computed in ``trace``."""
    if isinstance(value, (tuple, list)):
        return any(_holds_placeholder(v, trace) for v in value)
    if isinstance(value, dict):
        return any(_holds_placeholder(v, trace) for v in value.values())
    own = trace._own(value) if isinstance(value, Tracer) else None
    return isinstance(own, StagingTracer) and own._trace is trace


def _is_parameter(value) -> bool:
    return getattr(value, "_is_parameter", False)


def rebuild(tree, leaves):
    """Inverse of ``_structure``: put the flat output values back into the function's structure
    (tuples, lists and dicts of Tensors; other values as they were)."""
    kind, body = tree
    if kind == "leaf":
        return leaves[body]
    if kind == "static":
        return body
    if kind == "dict":
        return {k: rebuild(t, leaves) for k, t in body}
    items = [rebuild(t, leaves) for t in body]
    return tuple(items) if kind == "tuple" else items


def is_explicit_input(arg) -> bool:
    """True for an argument that becomes an explicit input of the graph: a Tensor, not a Parameter."""
    return isinstance(arg, Tensor) and not _is_parameter(arg)


def trace_to_graph(fn, args, name: str | None = None, parameters_as_inputs: bool = True,
                   examples_only: bool = False, tangents_only: bool = False) -> Graph:
    """Stage ``fn(*args)``: Tensor arguments become graph inputs, other arguments are baked in.

    The Parameters ``fn`` reads become implicit inputs (a compiled function sees their current
    values), unless ``parameters_as_inputs`` is False: then their values now are constants of the
    graph (``linearize``: the linearisation is taken at these values).  ``examples_only``: the
    Tensor arguments give types only (zeros), not the values of a call (see ``value_of``).
    ``tangents_only``: the arguments are tangents and ``fn`` computes its values at once
    (``linearize``), so this is no compilation of ``fn`` (``is_compiling``).
    """
    trace = push_trace(StagingTrace(name or getattr(fn, "__name__", "graph"), parameters_as_inputs,
                                    tangents_only))
    _tracing.active.append(trace)
    try:
        with stack.resolving(trace.resolve):        # Parameters become graph inputs
            # a Parameter argument is passed as itself: read like any Parameter (an implicit input),
            # written by ops.assign, returned as itself
            staged = [trace.new_input(a, None if examples_only else a) if is_explicit_input(a) else a
                      for a in args]
            out = fn(*staged)
    finally:
        _tracing.active.remove(trace)
        pop_trace(trace)
    n_explicit = sum(is_explicit_input(a) for a in args)
    try:
        return trace.finish(out, n_explicit)
    finally:
        # these tables hold the trace's own tracers, which point back at it: emptied, the finished
        # trace is freed by reference counting instead of waiting for the cyclic GC
        trace._implicit_by_id.clear()
        trace._written.clear()
        trace._attributes.clear()
        trace.effects.clear()
        trace.sources.clear()
