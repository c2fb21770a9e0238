"""The interpreter stack: ``bind(prim, *args)`` and the eval interpreter at the bottom.

Every operation is ``bind(primitive, *args)``.  If an argument is a *tracer* of an active interpreter
(a gradient level, a forward-mode level, a batch), the highest one processes the call: it unwraps its
tracers, calls ``dispatch`` again for the interpreters below, and wraps the result; with no tracer
left, eval runs the NumPy ``impl``.  An inner ``grad`` is pushed later, has a higher level and sees
its own tracers first: nested derivatives never confuse their perturbations.  A graph being staged
is found by *context* (Autodidax, part 2): it sees every ``bind`` no higher level claims, and hands
back down what it need not record.  Two seams are defined here: ``set_evaluator`` (``check_nan``:
swapping, not a flag, keeps the plain path free) and ``add_rewriter`` (Parameters lent to levels).
The stack, the rewriters and the gradient mask belong to one thread each.
"""
from __future__ import annotations

import threading

import numpy as np

from .tensor import Tensor

__all__ = ["MinimsError", "bind", "dispatch", "Trace", "Tracer", "push_trace", "pop_trace", "active_traces", "contexts",
           "context_level", "add_rewriter", "remove_rewriter", "rewriters", "set_evaluator", "evaluator",
           "evaluate", "wrap", "wants_grad", "gradient_mask", "array_of"]

_new = object.__new__        # a Tensor around an array the engine made: no conversion, no copy


class MinimsError(Exception):
    """The base of every error minims raises on purpose, already worded for the learner (what was
    expected, what came, where, and a ``Fix:``): the eval interpreter never re-wraps one."""


class _ThreadState(threading.local):
    def __init__(self):
        self.stack: list = []        # active traces; index = level
        self.contexts: list = []     # the active traces that see every bind (graphs being staged)
        self.rewriters: list = []    # functions shown every bind's arguments first


_state = _ThreadState()
# Traces active in all threads together: with none, ``bind`` goes straight to the evaluator (one
# global read instead of a look at every argument).  Changed under a lock, at push and pop only.
_active_traces = 0
_count_lock = threading.Lock()


class Trace:
    """An interpreter on the stack (a gradient level, a graph being staged ...)."""

    level: int = -1
    active: bool = False
    #: True for an interpreter found by context (a graph being staged): it sees every ``bind``
    #: that no higher level claims, not only those with its tracers among the arguments.
    sees_every_bind = False

    def process(self, prim, args):  # pragma: no cover - abstract
        raise NotImplementedError


class Tracer(Tensor):
    """A Tensor that belongs to a trace.  Reading its value (``asnumpy``, ``bool``, printing) reads
    the value it stands for (a graph's placeholder has none and says so).  Its ``_data`` is what shape
    and dtype checks read: a primal's array, a placeholder's zeros, or SymPy expressions."""

    __slots__ = ("_trace",)

    def _primal_value(self):  # pragma: no cover - every tracer kind defines it
        raise NotImplementedError

    def _concrete(self) -> Tensor:
        value = self._primal_value()
        return value._concrete() if isinstance(value, Tracer) else value

    def _value_array(self):
        return self._concrete()._data

    def __format__(self, spec):
        return str(self) if not spec else self._concrete().__format__(spec)

    def __repr__(self):
        return repr(self._primal_value())

    def __str__(self):
        return str(self._primal_value())


def _of_value(name):
    return lambda self, *args: getattr(self._concrete(), name)(*args)


# what reads a tracer's value reads the value it stands for
for _name in ("tolist", "item", "__array__", "__bool__", "__float__", "__int__", "__index__"):
    setattr(Tracer, _name, _of_value(_name))


def active_traces() -> tuple:
    return tuple(_state.stack)


def contexts() -> tuple:
    """The active traces found by context (graphs being staged), innermost last."""
    return tuple(_state.contexts)


def context_level() -> int:
    """The level of the innermost graph being staged (-1: none)."""
    return _state.contexts[-1].level if _state.contexts else -1


def _count(change: int) -> None:
    global _active_traces
    with _count_lock:
        _active_traces += change


def push_trace(trace: Trace) -> Trace:
    s = _state
    trace.level, trace.active = len(s.stack), True
    s.stack.append(trace)
    if trace.sees_every_bind:
        s.contexts.append(trace)
    _count(1)
    return trace


def pop_trace(trace: Trace) -> None:
    """Deactivate ``trace`` and everything above it (an exception may have left those behind)."""
    s = _state
    while trace in s.stack:
        top = s.stack.pop()
        top.active = False
        if top.sees_every_bind:
            s.contexts.remove(top)
        _count(-1)
    trace.active = False


# ----- the gradient mask ---------------------------------------------------------------------------------
# While a backward pass runs a rule: which of the primitive's inputs need a gradient (entry i falsy:
# none, e.g. the tape node's parents, None for a constant input), or None for all.  A rule may skip
# the work for an input nobody reads (for a convolution over the data, a transposed convolution).
class _Needed(threading.local):
    mask: tuple | None = None


gradient_mask = _Needed()


def wants_grad(index: int) -> bool:
    """True unless the running ``bprop``'s input ``index`` is known to need no gradient."""
    mask = gradient_mask.mask
    return mask is None or bool(mask[index])


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


# With no trace active and nothing rewriting, ``bind`` evaluates at once: what ``dispatch`` would
# do, one frame sooner (every eager op).
def bind(prim, *args):
    """Run ``prim`` on ``args`` under the interpreter the arguments (or the context) belong to."""
    s = _state
    if s.rewriters:
        for rewrite in tuple(s.rewriters):
            args = rewrite(prim, args) or args
    elif not _active_traces:
        return _evaluate(prim, args)
    return dispatch(prim, args)


# A tracer whose trace has finished (it escaped from a ``grad``, ``jit`` or ``vmap`` in a variable)
# stands for its value if it has one, and raises if it has none (a graph's placeholder): that is
# checked even with no trace active, so a placeholder's zeros never become a value.
def dispatch(prim, args, below=None):
    """Run the primitive under the highest active trace among ``args`` — or the innermost graph
    being staged (below level ``below``, if given), when that is higher — or evaluate it."""
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
    out = []
    for a in args:
        while isinstance(a, Tracer) and not a._trace.active:
            a = a._primal_value()
        out.append(a)
    return tuple(out)


# ----- the eval interpreter -----------------------------------------------------------------------------
def array_of(a):
    """What ``impl`` receives for a Tensor argument: its array (a finished tracer's value, never a
    placeholder's zeros: those raise)."""
    while isinstance(a, Tracer):
        if a._trace.active:         # a live tracer of another thread's level: its value
            return a._concrete()._data
        a = a._primal_value()
    return a._data


#: What NumPy raises from inside an ``impl``: turned into the primitive's own error.
NUMPY_FAILURES = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, MemoryError,
                  np.exceptions.AxisError)


# The hot path of every eager op: a loop rather than a list comprehension, which costs a frame of
# its own in Python 3.11.
def evaluate(prim, args):
    """The eval interpreter: run ``prim.impl`` on NumPy arrays and wrap the result in Tensors."""
    arrays = []
    for a in args:
        arrays.append(a._data if type(a) is Tensor else array_of(a) if isinstance(a, Tensor) else a)
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


_evaluate = evaluate        # what ``dispatch`` runs at the bottom; ``set_evaluator`` replaces it


def set_evaluator(fn) -> None:
    """Seam: run ``fn(prim, args)`` instead of ``evaluate`` at the bottom (None: ``evaluate``)."""
    global _evaluate
    _evaluate = evaluate if fn is None else fn


def evaluator():
    return _evaluate


def wrap(out):
    """``impl``'s result as Tensors: an array, or a (nested) tuple of them."""
    if isinstance(out, (np.ndarray, np.generic)):
        t = _new(Tensor)
        t._data = out if type(out) is np.ndarray else np.asarray(out)
        return t
    if isinstance(out, tuple):          # a compiled graph's outputs and residuals
        return tuple([Tensor._make(o) if type(o) is np.ndarray else wrap(o) for o in out])
    return out
