"""``jit`` (and its old name ``ms_function``): compile a function or a Cell's ``construct``.

The first call with a new *signature* — the shapes and dtypes of the Tensor arguments, the values of
the other arguments (for a Parameter, which one: the function reads and writes it as itself) and,
for a Cell, its training flag — traces the function into a graph,
optimises it and keeps it; later calls with the same signature reuse it.  (A graph that indexes by a
Bool mask also holds how many entries the mask selected; a call whose mask selects another number
compiles the function again.)  ``traces`` counts
compilations, so retracing can be observed (and tested) without timing anything.

A Python number argument is a constant of the graph, as in MindSpore: ``f(x, 0.1)`` and ``f(x, 0.2)``
are two graphs.  A loop passing a new value each time (a learning rate, a step count) compiles on
every call, and each graph is kept: the cache holds the :data:`MAX_GRAPHS` signatures used most
recently (least recently used first out), and after :data:`RETRACE_WARNING_AFTER` calls in a row
that each compiled because the same non-Tensor arguments changed, a :class:`RetraceWarning` (once
per function) names them and says the fix: pass a Tensor, which is an input of the graph
(MindSpore's ``mindspore.mutable(value)`` does this for a number there; minims has no ``mutable``).

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
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ..core.stack import active_traces, bind
from ..primitives.index_operands import CompiledShapeChanged
from ..core.tensor import Tensor
from .call import GraphCall, backward_graph, interpret
from .passes import optimize
from .residuals import ResidualSplit
from .jit_options import check_jit_options
from . import conversion, fast_call
from .guards import GuardFailed, describe_guards, guard_plan, guards_hold, known_array
from .tracing import StaticGraphError, is_explicit_input, rebuild, trace_to_graph, user_stacklevel
from ..tensors.lending import current_value

__all__ = ["jit", "ms_function", "JitFunction", "RetraceWarning", "MAX_GRAPHS", "RETRACE_WARNING_AFTER",
           "MAX_VARIANTS"]

#: Graphs one compiled function keeps (per instance for a method): the most recently used signatures.
MAX_GRAPHS = 64

#: Calls in a row that each compile because the same non-Tensor arguments changed, before the warning;
#: also the variants of one signature (a Python ``if`` on a Tensor going other ways) before it.
RETRACE_WARNING_AFTER = 8

#: Variants one signature keeps (``guards.py``): the most recently used first.
MAX_VARIANTS = 16


class RetraceWarning(UserWarning):
    """A compiled function compiles again on every call because a Python value argument changes."""


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
    __slots__ = ("raw", "graph", "call", "random", "guards", "fast")

    def __init__(self, raw, graph):
        self.raw, self.graph, self.call = raw, graph, GraphCall(graph)
        self.fast = None                    # its fast_call.FastCall, made on the first plain call
        # a random draw (Dropout) inside: its gradient must see this run's draw, not a new one
        self.random = any(not getattr(eq.prim, "pure", True) for eq in graph.equations)
        self.guards = guard_plan(graph)     # None, or how to check the values it was traced for


class JitFunction:
    """A function compiled per signature (see the module docstring)."""

    def __init__(self, fn, instance=None, name=None, fullgraph: bool = False, capture_mode: str = "ast"):
        self.fn = fn
        self.fullgraph = fullgraph      # True: no guarded variants; a value read is a StaticGraphError
        self.capture_mode = capture_mode    # "ast": if/while on Tensors converted (``conversion.py``)
        # weakly: the instance keeps its bound JitFunction in its __dict__ (see __get__), and a
        # strong reference back would make the pair a cycle only the cyclic GC can free
        try:
            self._instance = weakref.ref(instance) if instance is not None else None
        except TypeError:                   # an object without weakref support: held strongly
            self._instance = (lambda obj: lambda: obj)(instance)
        self.name = name or getattr(fn, "__name__", "graph")
        # signature -> its variants (_Compiled, most recently used first); least recently used first
        self._cache: OrderedDict = OrderedDict()
        self.traces = 0
        self._last_traced = None        # the signature of the latest compilation ...
        self._changing = ()             # ... the argument positions that changed on every call since
        self._streak = 0                # ... and how many calls in a row compiled
        self._warned_retrace = False
        self._warned_variants = False
        self._key_extra = None          # e.g. a Cell's training flag, for compiled Cell calls
        self._with_keywords = {}        # (number of positional arguments, keywords) -> its JitFunction
        self._fast = None               # the _Compiled of the last plain signature (fast_call.py)
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
            bound = JitFunction(self.fn, instance, name=f"{type(instance).__name__}.{self.fn.__name__}",
                                fullgraph=self.fullgraph, capture_mode=self.capture_mode)
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

    def _compiled(self, args, called: bool = False) -> _Compiled:
        """The compiled graph for ``args``: the variant of their signature whose guards hold, traced
        when there is none; ``called``: for a call of the function (it counts towards the retrace
        warning), not a look at its graph."""
        key = self._signature(args)
        variants = self._cache.get(key)
        if variants is not None:
            try:
                self._cache.move_to_end(key)
            except KeyError:                # another thread dropped it meanwhile: the entry still works
                pass
            entry = self._choose(variants, args)
            if entry is not None:
                if called:
                    self._streak = 0
                return entry
        try:
            with conversion.capturing(self.capture_mode, self.fullgraph):
                raw = trace_to_graph(conversion.converted(self.fn), self._full_args(args), name=self.name,
                                     guarded=not self.fullgraph)
        except StaticGraphError as exc:
            if self.fullgraph and str(exc).startswith("Graph mode cannot read the value"):
                raise StaticGraphError(
                    f"{exc} (jit(fullgraph=True) refuses this; without it, minims compiles one guarded "
                    "variant per way the branch goes.)") from None
            raise
        self.traces += 1
        entry = _Compiled(raw, optimize(raw))
        if variants is None:
            variants = self._cache[key] = []
            if len(self._cache) > MAX_GRAPHS:
                self._cache.popitem(last=False)
        variants.insert(0, entry)
        del variants[MAX_VARIANTS:]
        if called:
            self._note_retrace(key, args)
            if len(variants) >= RETRACE_WARNING_AFTER and not self._warned_variants:
                self._warned_variants = True
                warnings.warn(self._variants_message(entry, len(variants)), RetraceWarning,
                              stacklevel=user_stacklevel())
        return entry

    def _choose(self, variants, args):
        """The first of ``variants`` whose guards hold for ``args`` (moved to the front), or None."""
        if len(variants) == 1 and variants[0].guards is None:
            return variants[0]
        explicit = [known_array(a, self.name) for a in args if is_explicit_input(a)]
        for i, entry in enumerate(variants):
            if entry.guards is not None:
                implicit = [known_array(current_value(obj), self.name) for obj in entry.graph.implicit]
                if not guards_hold(entry.graph, entry.guards, explicit + implicit):
                    continue
            if i:
                variants.insert(0, variants.pop(i))
            return entry
        return None

    def _drop(self, args, entry) -> None:
        """Forget ``entry`` (a variant a run found wrong for these arguments)."""
        variants = self._cache.get(self._signature(args), [])
        if entry in variants:
            variants.remove(entry)
        if self._fast is entry:
            self._fast = None

    def _variants_message(self, entry, count: int) -> str:
        where = "; ".join(sorted({w for w, _ in describe_guards(entry.graph)}))
        return (f"jit: '{self.name}' has compiled {count} variants for arguments of the same types, because "
                f"Python reads a Tensor's value ({where}) and other values take other branches or trip "
                f"counts; each variant is a graph of its own ({self.name}.traces counts them, minims keeps "
                f"{MAX_VARIANTS} per signature). Fix: write the choice with ops.select(cond, a, b), or the "
                "loop with a fixed number of steps, so that one graph serves every value.")

    def _note_retrace(self, key, args) -> None:
        """Count calls in a row that compiled because the same non-Tensor arguments changed; warn
        once when there have been RETRACE_WARNING_AFTER of them."""
        last, self._last_traced = self._last_traced, key
        changed = () if last is None or len(last) != len(key) else tuple(
            i for i in range(len(args)) if key[i] != last[i])
        if not changed or any(isinstance(args[i], Tensor) for i in changed) or (
                self._streak and changed != self._changing):
            self._streak, self._changing = (1 if changed else 0), changed
            return
        self._streak, self._changing = self._streak + 1, changed
        if self._streak >= RETRACE_WARNING_AFTER and not self._warned_retrace:
            self._warned_retrace = True
            warnings.warn(self._retrace_message(changed, args), RetraceWarning, stacklevel=user_stacklevel())

    def _retrace_message(self, changed, args) -> str:
        try:
            params = []
            for p in inspect.signature(self.fn).parameters.values():
                if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    break                   # *args: its items have no names of their own
                params.append(p.name)
        except (TypeError, ValueError):
            params = []
        params = params[1:] if self.instance is not None else params      # not self
        names = [f"'{params[i]}' (argument {i})" if i < len(params) else f"argument {i}" for i in changed]
        kinds = ", ".join(f"a {type(args[i]).__name__} ({args[i]!r} this time)" for i in changed)
        example = next((f"Tensor({args[i]!r}, mindspore.float32)" for i in changed
                        if isinstance(args[i], (int, float)) and not isinstance(args[i], bool)), "a Tensor")
        return (f"jit: '{self.name}' compiled a new graph on each of its last {self._streak} calls, because "
                f"{' and '.join(names)} changed every time: {kinds}. A Python value is a constant of the "
                f"graph (as in MindSpore), so each value compiles its own graph (minims keeps the "
                f"{MAX_GRAPHS} most recent). Fix: pass it as a Tensor, {example}, which is an input of "
                f"one graph; in MindSpore, mindspore.mutable(value) does that for a number (minims has "
                f"no mutable).")

    def __call__(self, *args, **kwargs):
        if kwargs:
            return self._keywords_call(args, kwargs)
        if self._fast is not None:
            out = fast_call.call(self, args)
            if out is not fast_call.MISS:
                return out
        entry = self._compiled(args, called=True)
        try:
            out = self._run(entry, args)
        except (CompiledShapeChanged, GuardFailed):
            # the graph holds the number of entries a Bool mask selected when it was compiled, or a
            # value a guard checks, and this call differs: compile for this one (it replaces the old)
            self._drop(args, entry)
            entry = self._compiled(args)
            out = self._run(entry, args)
        fast_call.remember(self, args, entry)
        graph = entry.graph
        flat = out if len(graph.outputs) != 1 else (out,)
        n = start = graph.n_outputs
        for ref, name, tree, count in graph.attributes:
            cell = ref()
            if cell is not None:                # a Cell attribute the function set: this run's value
                setattr(cell, name, rebuild(tree, list(flat[start:start + count])))
            start += count
        return rebuild(graph.out_tree, list(flat[:n]))

    def _keywords_call(self, args, kwargs):
        """A call with keyword arguments (MindSpore's jit takes them): compiled as a function of the
        positional arguments followed by the keywords' values, one per number of positional arguments
        and set of keywords (their values are inputs like the others: a Tensor is a graph input)."""
        keys = tuple(kwargs)
        variant = self._with_keywords.get((len(args), keys))
        if variant is None:
            parent, count = weakref.ref(self), len(args)     # weakly: the parent holds the variant

            def with_keywords(*flat):
                jitted = parent()
                return jitted.fn(*jitted._full_args(flat[:count]), **dict(zip(keys, flat[count:])))

            variant = JitFunction(with_keywords, name=self.name, fullgraph=self.fullgraph)
            variant._key_extra = lambda: (getattr(parent().instance, "training", None),
                                          parent()._key_extra() if parent()._key_extra else None)
            self._with_keywords[(len(args), keys)] = variant
        return variant(*args, *kwargs.values())

    @staticmethod
    def _run(entry, args):
        tensors = [a for a in args if is_explicit_input(a)] + entry.graph.implicit
        if entry.random and active_traces():
            # Under a gradient level, one GraphCall node would get its gradient from the backward
            # graph, which replays the forward pass and so draws the random masks anew.  Run the
            # equations one by one instead: the level records this run's draws.
            return interpret(entry.graph, tensors)
        return bind(entry.call, *tensors)

    def fast_value_and_grad(self, args, position: int):
        """``(value, gradient of argument position)`` without the tape, or None (``fast_call.py``)."""
        return fast_call.value_and_grad(self, args, position)

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

    def guards(self, *args) -> list:
        """``[(where, value)]``: the values the graph for these arguments was compiled for (each read
        by Python at ``where``: an ``if``/``while`` on a Tensor), checked at every call; [] for a
        graph that serves every value of its signature."""
        return describe_guards(self._compiled(args).graph)

    def converted_source(self) -> str:
        """The function as ``capture_mode="ast"`` rewrites it: its ``if``/``while`` on Tensors as
        ``ms_cond``/``ms_while`` over small functions per branch (``minims/conversion/``); or a
        comment saying why it is not converted."""
        if self.capture_mode != "ast":
            return (f"# {self.name}: jit(capture_mode={self.capture_mode!r}) compiles the function as it is "
                    "(a Python `if` on a Tensor gives guarded variants); capture_mode='ast' converts it.")
        return conversion.converted_source(self.fn)

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


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=0, fullgraph=False, backend="",
        mode="PSJit", input_signature=None, hash_args=None, jit_config=None, **options):
    """``mindspore.jit``: use as ``@jit``, ``@jit(...)`` or ``jit(fn)``; also on a Cell's ``construct``.

    The options are checked as MindSpore 2.10 checks them (``jit_options.py``); ``fullgraph=True``
    refuses guarded variants (``guards.py``).  ``mode``, ``input_signature``, ``hash_args`` and
    ``jit_config`` are MindSpore's older spellings, accepted and ignored."""
    check_jit_options(capture_mode, jit_level, dynamic, fullgraph, backend, options)
    if function is None:            # @jit(...): the options are checked once, here
        return lambda f: _compile(f, fullgraph, capture_mode)
    return _compile(function, fullgraph, capture_mode)


def _compile(function, fullgraph: bool, capture_mode: str = "ast") -> JitFunction:
    if isinstance(function, JitFunction):
        return function
    if not callable(function):
        raise TypeError(f"jit: expected a function or method to compile, got {type(function).__name__}. "
                        "Fix: decorate the function itself (@jit above def), or pass it: jit(f), not jit(f(x)).")
    return JitFunction(function, fullgraph=fullgraph, capture_mode=capture_mode)


ms_function = jit
