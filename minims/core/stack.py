"""The interpreter stack: ``bind(prim, *args)`` and the eval interpreter at the bottom.

Every operation in minims is ``bind(primitive, *args)``.  Which interpreter runs it depends on the
arguments: if one of them is a *tracer* of an active interpreter (a gradient level, a forward-mode
level, a batch), the highest such interpreter processes the call; it unwraps its own tracers, calls
``dispatch`` again for the interpreters below it, and wraps the result.  When no tracer is left, the
eval interpreter runs the primitive's NumPy ``impl``.

Levels nest: an interpreter pushed later has a higher level, so the inner ``grad`` of
``grad(grad(f))`` always sees its own tracers first and the outer one only sees what the inner one
hands down.  That ordering is what keeps nested derivatives free of perturbation confusion.

A graph being staged is found by *context* rather than by data (Autodidax, part 2): while it is
active it sees every ``bind`` that no higher level claims, so a primitive with no traced input — a
random draw, a print, a write — is recorded too.  It hands back down what it does not need to
record (``dispatch(..., below=its level)``).

The layers above reach in through two seams, defined here:

* ``set_evaluator(fn)`` puts another evaluator at the bottom (``set_context(check_nan=True)``
  swaps in one that checks every output; swapping rather than testing a flag keeps the plain path
  free of any cost);
* ``add_rewriter(fn)`` shows every ``bind`` to ``fn(prim, args)`` first, which returns the
  arguments to use: a gradient level lending a Parameter a stand-in, the check that a ``bprop``
  reads no Parameter.

The stack and the rewriters belong to one thread each (``threading.local``): two threads
differentiating at once each see only their own levels.
"""
from __future__ import annotations

import threading

import numpy as np

from .errors import MinimsError
from .tensor import Tensor

__all__ = ["bind", "dispatch", "Trace", "Tracer", "push_trace", "pop_trace", "active_traces", "contexts",
           "context_level",
           "add_rewriter", "remove_rewriter", "rewriters", "set_evaluator", "evaluator", "evaluate",
           "wrap"]

_new = object.__new__        # a Tensor around an array the engine made: no conversion, no copy


class _ThreadState(threading.local):
    """This module's state, one copy per thread."""

    def __init__(self):
        self.stack: list = []        # active traces; index = level
        self.contexts: list = []     # the active traces that see every bind (graphs being staged)
        self.rewriters: list = []    # functions shown every bind's arguments first (``add_rewriter``)


_state = _ThreadState()
# Traces active in all threads together: with none, ``bind`` goes straight to the evaluator (one
# global read instead of a look at every argument).  Changed under a lock, at push and pop only.
_active_traces = 0
_count_lock = threading.Lock()


class Trace:
    """Base class of an interpreter that sits on the stack (a gradient level, a staging trace)."""

    level: int = -1
    active: bool = False
    #: True for an interpreter found by context (a graph being staged): it sees every ``bind``
    #: that no higher level claims, not only those with its tracers among the arguments.
    sees_every_bind = False

    def process(self, prim, args):  # pragma: no cover - abstract
        raise NotImplementedError


class Tracer(Tensor):
    """A Tensor that belongs to a trace.  Subclasses decide what else they carry.

    Reading a tracer's *value* (printing it, ``asnumpy``, ``bool``) reads the value it stands for:
    a gradient level's tracer asks its primal, down to a concrete Tensor; a graph's tracer has no
    value and says so (see ``minims.core.staging``).

    ``_data``, the array every Tensor holds, means something different for each kind of tracer,
    because shape and dtype checks read it and must see the right shape and dtype: a gradient
    level's tracer holds its primal's array (its value); a graph's placeholder an array of zeros of
    its type, for shape checks only, never a value; the symbolic interpreter's an object array of
    SymPy expressions.
    """

    __slots__ = ("_trace",)

    def _primal_value(self):  # pragma: no cover - every tracer kind defines it
        raise NotImplementedError

    def _concrete(self) -> Tensor:
        value = self._primal_value()
        return value._concrete() if isinstance(value, Tracer) else value

    def _value_array(self):
        return self._concrete()._data

    def tolist(self):
        return self._concrete().tolist()

    def item(self, index=None):
        return self._concrete().item(index)

    def __array__(self, dtype=None, copy=None):
        return self._concrete().__array__(dtype)

    def __bool__(self):
        return bool(self._concrete())

    def __float__(self):
        return float(self._concrete())

    def __int__(self):
        return int(self._concrete())

    def __index__(self):
        return self._concrete().__index__()

    def __format__(self, spec):
        return str(self) if not spec else self._concrete().__format__(spec)

    def __repr__(self):
        return repr(self._primal_value())

    def __str__(self):
        return str(self._primal_value())

    def _has_no_value(self) -> bool:
        try:
            self._concrete()
        except MinimsError:
            return True
        return False

    def _is_input(self) -> bool:
        """True for an input of the function a level differentiates (a leaf of a gradient level)."""
        return False

    def _become(self, other) -> None:
        """Take ``other``'s place in place (``t[i] = v`` on a traced value: ``t`` is now the result).
        ``other`` is the result of a primitive applied to ``self``: a tracer of the same trace."""
        if type(other) is not type(self) or other._trace is not self._trace:
            raise MinimsError(
                f"In-place write: the new value ({type(other).__name__}) does not belong to the same "
                f"interpreter level as the Tensor written into ({type(self).__name__}). Fix: build the "
                "result as a new Tensor (ops.select, ops.concat) instead of writing into one from "
                "another level.")
        for cls in type(self).__mro__:
            for name in cls.__dict__.get("__slots__", ()):
                if name not in ("__weakref__", "__dict__"):
                    setattr(self, name, getattr(other, name))


# ----- the stack ----------------------------------------------------------------------------------------
def active_traces() -> tuple:
    return tuple(_state.stack)


def contexts() -> tuple:
    """The active traces found by context (graphs being staged), innermost last."""
    return tuple(_state.contexts)


def context_level() -> int:
    """The level of the innermost graph being staged, or -1 when there is none."""
    c = _state.contexts
    return c[-1].level if c else -1


def _count(change: int) -> None:
    global _active_traces
    with _count_lock:
        _active_traces += change


def push_trace(trace: Trace) -> Trace:
    s = _state
    trace.level = len(s.stack)
    trace.active = True
    s.stack.append(trace)
    if trace.sees_every_bind:
        s.contexts.append(trace)
    _count(1)
    return trace


def pop_trace(trace: Trace) -> None:
    """Deactivate ``trace`` and everything above it (an exception may have left those behind)."""
    s = _state
    if trace in s.stack:
        while s.stack:
            top = s.stack.pop()
            top.active = False
            if top.sees_every_bind:
                s.contexts.remove(top)
            _count(-1)
            if top is trace:
                break
    trace.active = False


# ----- seam: rewriters ----------------------------------------------------------------------------------
def add_rewriter(fn) -> None:
    """Show every ``bind`` to ``fn(prim, args)`` first; it returns the arguments to use (None: the
    arguments as they are — an observer, such as the check that a bprop reads no Parameter)."""
    _state.rewriters.append(fn)


def remove_rewriter(fn) -> None:
    if fn in _state.rewriters:
        _state.rewriters.remove(fn)


def rewriters() -> tuple:
    return tuple(_state.rewriters)


# ----- bind -----------------------------------------------------------------------------------------------
def bind(prim, *args):
    """Run ``prim`` on ``args`` under the interpreter the arguments (or the context) belong to."""
    s = _state
    if s.rewriters:
        for rewrite in tuple(s.rewriters):
            new = rewrite(prim, args)
            if new is not None:         # None: the arguments as they are (an observer)
                args = new
    elif not _active_traces:
        return _evaluate(prim, args)        # what dispatch would do, one frame sooner (every eager op)
    return dispatch(prim, args)


def dispatch(prim, args, below=None):
    """Run the primitive under the highest active trace among ``args`` — or the innermost graph
    being staged (below level ``below``, if given), when that is higher — or evaluate it.

    A tracer whose trace has finished (it escaped from a ``grad``, ``jit`` or ``vmap`` in a
    variable) stands for its value if it has one, and raises if it has none (a graph's placeholder):
    that is checked even with no trace active, so a placeholder's zeros never become a value.
    """
    if _active_traces:
        top = None
        for a in args:
            if isinstance(a, Tracer):
                t = a._trace
                if not t.active:
                    return dispatch(prim, _drop_dead_tracers(args), below)
                if top is None or t.level > top.level:
                    top = t
        for ctx in reversed(_state.contexts):
            if below is None or ctx.level < below:
                if top is None or ctx.level > top.level:
                    top = ctx
                break
        if top is not None:
            return top.process(prim, args)
    return _evaluate(prim, args)


def _drop_dead_tracers(args):
    """A tracer that escaped its (finished) trace is just its value: unwrap it."""
    out = []
    for a in args:
        while isinstance(a, Tracer) and not a._trace.active:
            a = a._primal_value()
        out.append(a)
    return tuple(out)


# ----- the eval interpreter ---------------------------------------------------------------------------
def _array(a):
    """What ``impl`` receives for one argument: a Tensor's array (a finished tracer's value, and
    never a graph placeholder's zeros: those raise), anything else as it is."""
    if type(a) is Tensor:
        return a._data
    while isinstance(a, Tracer):
        if a._trace.active:         # a live tracer of another thread's level: its value
            return a._concrete()._data
        a = a._primal_value()
    return a._data if isinstance(a, Tensor) else a


#: What NumPy raises from inside an ``impl``: turned into the primitive's own error.
NUMPY_FAILURES = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, MemoryError,
                  np.exceptions.AxisError)


def evaluate(prim, args):
    """The eval interpreter: run ``prim.impl`` on NumPy arrays and wrap the result in Tensors.
    (The hot path of every eager op: a loop rather than a list comprehension, which costs a frame
    of its own in Python 3.11.)"""
    arrays = []
    for a in args:
        arrays.append(a._data if type(a) is Tensor else _array(a) if isinstance(a, Tensor) else a)
    try:
        out = prim.impl(*arrays)
    except MinimsError:
        raise
    except NUMPY_FAILURES as exc:
        raise prim.failure(exc, args) from None
    if type(out) is np.ndarray:
        t = _new(Tensor)
        t._data = out
        return t
    return wrap(out)


def arrays_of(args) -> list:
    """What ``impl`` receives for ``args`` (see ``_array``)."""
    return [a._data if type(a) is Tensor else _array(a) if isinstance(a, Tensor) else a for a in args]


_evaluate = evaluate        # what ``dispatch`` runs at the bottom; ``set_evaluator`` replaces it


def set_evaluator(fn) -> None:
    """Seam: run ``fn(prim, args)`` instead of ``evaluate`` at the bottom of the stack (None:
    ``evaluate``)."""
    global _evaluate
    _evaluate = evaluate if fn is None else fn


def evaluator():
    """What ``dispatch`` runs at the bottom of the stack: ``evaluate``, or its replacement."""
    return _evaluate


def wrap(out):
    """``impl``'s result as Tensors: an array, or a (nested) tuple of them (a compiled graph's
    outputs and residuals: the common case is tested first, without a call per element)."""
    if type(out) is np.ndarray:
        t = _new(Tensor)
        t._data = out
        return t
    if isinstance(out, tuple):
        return tuple([_wrap_array(o) if type(o) is np.ndarray else wrap(o) for o in out])
    if isinstance(out, (np.ndarray, np.generic)):
        t = _new(Tensor)
        t._data = np.asarray(out)
        return t
    return out


def _wrap_array(a):
    t = _new(Tensor)
    t._data = a
    return t
