"""``jit`` (and its old name ``ms_function``): compile a function or a Cell's ``construct``.

The first call with a new *signature* — the shapes and dtypes of the Tensor arguments, the values of
the other arguments (for a Parameter, which one: the function reads and writes it as itself) and,
for a Cell, its training flag — traces the function into a graph,
optimises it and keeps it; later calls with the same signature reuse it.  (A graph that indexes by a
Bool mask also holds how many entries the mask selected; a call whose mask selects another number
compiles the function again.)  ``traces`` counts
compilations, so retracing can be observed (and tested) without timing anything.

``f.graph(*args)`` returns the optimised graph for those arguments (print it, or show it in Jupyter
as a picture); ``f.graph(*args, optimized=False)`` the graph as traced; ``f.graph(*args, fused=True)``
the graph the fast path runs (elementwise chains fused into single kernels); ``f.graph(*args,
simplify=False)`` the optimised graph without algebraic simplification; ``f.grad_graph(*args)`` the
backward graph that replays the forward equations; ``f.residual_graphs(*args)`` the forward graph
that also returns the residuals and the backward graph that reads them, as a gradient of ``f``
runs them; ``f.source(*args)`` the straight-line Python the executor runs.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import weakref

import numpy as np

from ..interpreters.stack import active_traces, bind
from ..primitives.index_operands import CompiledShapeChanged
from ..common.tensor import Tensor
from .call import GraphCall, backward_graph, interpret
from .passes import optimize
from .residuals import ResidualSplit
from .staging import is_explicit_input, rebuild, trace_to_graph

__all__ = ["jit", "ms_function", "JitFunction"]


def _static_key(value):
    """The part of the cache key for an argument that is not a Tensor (it is baked into the graph)."""
    if isinstance(value, np.ndarray):
        # by content: repr elides large arrays, and two arrays that differ anywhere are two graphs
        return ("ndarray", value.shape, value.dtype.str, hashlib.sha1(np.ascontiguousarray(value)).hexdigest())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_static_key(v) for v in value))
    if isinstance(value, Tensor):
        # a Parameter argument, passed to the function as itself (``staging.is_explicit_input``): the
        # graph reads and writes that very Parameter (it holds it, so its id is not reused)
        return ("Parameter", id(value), value.shape, value.dtype.name)
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return (type(value).__name__, repr(value))


class _Compiled:
    __slots__ = ("raw", "graph", "call", "random")

    def __init__(self, raw, graph):
        self.raw, self.graph, self.call = raw, graph, GraphCall(graph)
        # a random draw (Dropout) inside: its gradient must see this run's draw, not a new one
        self.random = any(not getattr(eq.prim, "pure", True) for eq in graph.equations)


class JitFunction:
    """A function compiled per signature (see the module docstring)."""

    def __init__(self, fn, instance=None, name=None):
        self.fn = fn
        # weakly: the instance keeps its bound JitFunction in its __dict__ (see __get__), and a
        # strong reference back would make the pair a cycle only the cyclic GC can free
        try:
            self._instance = weakref.ref(instance) if instance is not None else None
        except TypeError:                   # an object without weakref support: held strongly
            self._instance = (lambda obj: lambda: obj)(instance)
        self.name = name or getattr(fn, "__name__", "graph")
        self._cache: dict = {}
        self.traces = 0
        self._key_extra = None          # e.g. a Cell's training flag, for compiled Cell calls
        # name and docstring only: copying __dict__ too would pour a Cell's attributes into this object
        functools.update_wrapper(self, fn, updated=())
        if instance is not None:
            # bound to an instance (``@jit`` on ``construct``): the signature a caller sees has no
            # ``self`` (``inspect.signature`` would otherwise follow ``__wrapped__`` to the function)
            self.__signature__ = _bound_signature(fn)

    @property
    def instance(self):
        """The object a ``@jit`` method is bound to (None for a plain function)."""
        return self._instance() if self._instance is not None else None

    def __get__(self, instance, owner=None):
        """``@jit`` on a method (``construct``): one compiled function per instance."""
        if instance is None:
            return self
        bound = instance.__dict__.get(("_jit", id(self))) if hasattr(instance, "__dict__") else None
        if bound is None:
            bound = JitFunction(self.fn, instance, name=f"{type(instance).__name__}.{self.fn.__name__}")
            if hasattr(instance, "__dict__"):
                instance.__dict__[("_jit", id(self))] = bound
        return bound

    def _full_args(self, args):
        return (self.instance, *args) if self.instance is not None else args

    def _signature(self, args):
        key = [_static_key(a) if not is_explicit_input(a) else ("T", a.shape, a.dtype.name) for a in args]
        if self.instance is not None:
            key.append(("training", getattr(self.instance, "training", None)))
        if self._key_extra is not None:
            key.append(("extra", self._key_extra()))
        return tuple(key)

    def _compiled(self, args) -> _Compiled:
        key = self._signature(args)
        entry = self._cache.get(key)
        if entry is None:
            raw = trace_to_graph(self.fn, self._full_args(args), name=self.name)
            self.traces += 1
            entry = self._cache[key] = _Compiled(raw, optimize(raw))
        return entry

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"jit: compiled function '{self.name}' takes positional arguments only, "
                            f"got keywords {sorted(kwargs)}. Fix: pass them by position, "
                            f"{self.name}(x, y) rather than {self.name}(x=x, y=y).")
        entry = self._compiled(args)
        try:
            out = self._run(entry, args)
        except CompiledShapeChanged:
            # the graph holds the number of entries a Bool mask selected when it was compiled, and
            # this call's mask selects another number: compile for this one (it replaces the old)
            del self._cache[self._signature(args)]
            entry = self._compiled(args)
            out = self._run(entry, args)
        graph = entry.graph
        flat = out if len(graph.outputs) != 1 else (out,)
        n = start = graph.n_outputs
        for ref, name, tree, count in graph.attributes:
            cell = ref()
            if cell is not None:                # a Cell attribute the function set: this run's value
                setattr(cell, name, rebuild(tree, list(flat[start:start + count])))
            start += count
        return rebuild(graph.out_tree, list(flat[:n]))

    @staticmethod
    def _run(entry, args):
        tensors = [a for a in args if is_explicit_input(a)] + entry.graph.implicit
        if entry.random and active_traces():
            # Under a gradient level, one GraphCall node would get its gradient from the backward
            # graph, which replays the forward pass and so draws the random masks anew.  Run the
            # equations one by one instead: the level records this run's draws.
            return interpret(entry.graph, tensors)
        return bind(entry.call, *tensors)

    # ----- looking at the graphs ----------------------------------------------------------------
    def graph(self, *args, optimized=True, simplify=True, fused=False):
        """The optimised graph for these arguments; ``optimized=False``: as traced;
        ``simplify=False``: optimised without algebraic simplification (``simplify.py``), to see
        what it removes; ``fused=True``: as the fast path runs it, chains of elementwise equations
        fused (``fuse.py``)."""
        entry = self._compiled(args)
        if fused:
            return entry.call.plan.fused_plan.graph
        if not optimized:
            return entry.raw
        return entry.graph if simplify else optimize(entry.raw, simplify=False)

    def source(self, *args) -> str:
        """The Python code the executor runs for these arguments (one line per equation)."""
        return self._compiled(args).call.plan.source

    def grad_graph(self, *args):
        """The backward graph (inputs and output cotangents to input gradients) for these arguments."""
        return backward_graph(self._compiled(args).graph)

    def residual_graphs(self, *args, positions=None) -> ResidualSplit:
        """The forward and backward graphs a gradient of this compiled function runs (``residuals.py``).

        ``split.forward`` maps the inputs to the outputs followed by the *residuals*
        (``split.residuals``: the values the backward needs); ``split.backward`` maps the residuals
        and the output cotangents to the gradients of the inputs at ``positions`` (indices into the
        graph's inputs: the Tensor arguments, then implicit ones such as Parameters; all by default).
        """
        call = self._compiled(args).call
        graph = call.graph
        positions = tuple(range(len(graph.inputs))) if positions is None else tuple(positions)
        split = call.residual_split(positions)
        if split is None:
            raise ValueError(
                f"jit: graph '{graph.name}' is not split into forward and backward graphs: it writes "
                "Parameters (ops.assign) or holds a custom bprop that reads Parameters of its own, so "
                "its gradient replays the forward equations instead. Fix: look at that backward graph "
                f"with {self.name}.grad_graph(...).")
        return split


def _bound_signature(fn):
    """``fn``'s signature without its first parameter (a method's ``self``); None if unknown."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return sig.replace(parameters=list(sig.parameters.values())[1:])


def jit(function=None, *, mode="PSJit", input_signature=None, hash_args=None, jit_config=None,
        **options):
    """``mindspore.jit``: use as ``@jit`` or ``jit(fn)``; also on a Cell's ``construct``."""
    if function is None:
        return lambda f: jit(f, mode=mode, input_signature=input_signature)
    if isinstance(function, JitFunction):
        return function
    if not callable(function):
        raise TypeError(f"jit: expected a function or method to compile, got {type(function).__name__}. "
                        "Fix: decorate the function itself (@jit above def), or pass it: jit(f), not jit(f(x)).")
    return JitFunction(function)


ms_function = jit
