"""The interpreter stack: ``bind(prim, *args)`` and the eval interpreter at the bottom.

Every operation in minims is ``bind(primitive, *args)``.  Which interpreter runs it depends on the
arguments: if one of them is a *tracer* of an active interpreter (a gradient level, later a graph
being staged), the highest such interpreter processes the call; it unwraps its own tracers, calls
``dispatch`` again for the interpreters below it, and wraps the result.  When no tracer is left, the
eval interpreter runs the primitive's NumPy ``impl``.

Levels nest: an interpreter pushed later has a higher level, so the inner ``grad`` of
``grad(grad(f))`` always sees its own tracers first and the outer one only sees what the inner one
hands down.  That ordering is what keeps nested derivatives free of perturbation confusion.

Parameters are not arguments of the functions being differentiated, yet ``grad(f, weights=...)``
must see them.  A gradient level *lends* each weight a tracer (a stand-in); ``bind`` swaps a lent
Parameter for its stand-in on the way in, and the Parameter itself is never modified.  The
stand-in holds the weight's value when it was lent; after an ``ops.assign`` the weight is *relent*
to the read of the new value (``ReadAfterAssign`` of the stand-in: the gradient still reaches the
weight), and a weight returned as it is counts as its stand-in (``as_lent``).

``set_context(check_nan=True)`` swaps the eval interpreter for one that also checks each output for
NaN/Inf (``minims.interpreters.nan_check``); swapping rather than testing a flag keeps the unchecked
path free of any cost.

The stack, the lent Parameters, the resolver and the observers belong to one thread each
(``threading.local``): two threads differentiating at once each see only their own gradient levels.
"""
from __future__ import annotations

import os
import sysconfig
import threading
import types
from contextlib import contextmanager

import numpy as np

from .tensor import Tensor, _describe

__all__ = ["bind", "dispatch", "Trace", "Tracer", "push_trace", "pop_trace", "lend", "unlend", "relend",
           "is_lent", "as_lent",
           "parameters_as_themselves", "resolving", "current_value", "active_traces", "snapshot",
           "MinimsError", "explained"]

_new = object.__new__        # a Tensor around an array the engine made: no conversion, no copy


class MinimsError(Exception):
    """Marker base for errors minims raised itself (never re-wrapped by the eval interpreter)."""


class _ThreadState(threading.local):
    """This module's state, one copy per thread."""

    def __init__(self):
        self.stack: list = []        # active traces; index = level
        self.lent: dict = {}         # id(Parameter) -> stand-in tracer of the top-most level that lends it
        self.resolver = None         # set while a graph is staged: maps Parameters to graph inputs
        self.observers: list = []    # callables shown every bind (the check that a bprop uses no Parameter)
        self.rewrites = False        # any of the three above: bind's slow path

    def update(self):
        self.rewrites = bool(self.lent or self.resolver is not None or self.observers)


_state = _ThreadState()
# Traces active in all threads together: with none, ``dispatch`` goes straight to the evaluator (one
# global read instead of a look at every argument).  Changed under a lock, at push and pop only.
_active_traces = 0
_count_lock = threading.Lock()


class Trace:
    """Base class of an interpreter that sits on the stack (a gradient level, a staging trace)."""

    level: int = -1
    active: bool = False

    def process(self, prim, args):  # pragma: no cover - abstract
        raise NotImplementedError


class Tracer(Tensor):
    """A Tensor that belongs to a trace.  Subclasses decide what else they carry.

    Reading a tracer's *value* (printing it, ``asnumpy``, ``bool``) reads the value it stands for:
    a gradient level's tracer asks its primal, down to a concrete Tensor; a graph's tracer has no
    value and says so (see ``minims.core.staging``).

    ``_data``, the array every Tensor holds, means something different for each kind of tracer,
    because shape and dtype checks read it and must see the right shape and dtype:

    * a gradient level's ``TapeTracer``: the primal's array (the tracer's value);
    * a graph's ``StagingTracer``: an array of zeros of the placeholder's shape and dtype, for
      shape checks only — never a value (the placeholder raises when asked for one);
    * a ``SymbolicTracer``: an object array of SymPy expressions.
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


def active_traces() -> tuple:
    return tuple(_state.stack)


def _count(change: int) -> None:
    global _active_traces
    with _count_lock:
        _active_traces += change


def push_trace(trace: Trace) -> Trace:
    stack = _state.stack
    trace.level = len(stack)
    trace.active = True
    stack.append(trace)
    _count(1)
    return trace


def pop_trace(trace: Trace) -> None:
    """Deactivate ``trace`` and everything above it (an exception may have left those behind)."""
    stack = _state.stack
    if trace in stack:
        while stack:
            top = stack.pop()
            top.active = False
            _count(-1)
            if top is trace:
                break
    trace.active = False


def snapshot() -> dict:
    """This module's state, for tests and debugging: the active traces, the lent Parameters, the
    staging resolver and the observers (the evaluator: :func:`evaluator`)."""
    s = _state
    return {"traces": tuple(s.stack), "lent": dict(s.lent), "resolver": s.resolver,
            "observers": tuple(s.observers)}


def lend(param, standin) -> object:
    """Make ``bind`` see ``standin`` wherever ``param`` is used; returns the token for ``unlend``."""
    key = id(param)
    s = _state
    previous = s.lent.get(key)
    s.lent[key] = standin
    s.update()
    return (key, previous, standin)


def unlend(token) -> None:
    key, previous, standin = token
    s = _state
    if previous is None:
        s.lent.pop(key, None)
    else:
        current = s.lent.get(key, standin)
        if current is not standin:
            # relent (an ops.assign since the lending): the outer level reads the new value too,
            # as it holds it
            while isinstance(current, Tracer) and current._trace.level > previous._trace.level:
                current = current._primal_value()
            previous = current
        s.lent[key] = previous
    s.update()


def as_lent(out):
    """``out`` (a Tensor, or tuples and lists of them) with each Parameter that a level lent a
    stand-in replaced by what ``bind`` sees for it: a function that returns a weight itself
    (``return self.w``) returns it to the level that differentiates it, which then sees the output."""
    if isinstance(out, (tuple, list)):
        return type(out)(as_lent(o) for o in out)
    if isinstance(out, Tensor):
        return _state.lent.get(id(out), out)
    return out


def is_lent(param) -> bool:
    """True when a level lent ``param`` a stand-in (``bind`` sees the stand-in, not the Parameter)."""
    return id(param) in _state.lent


def relend(param, value) -> None:
    """Make ``bind`` see ``value`` for ``param`` from now on, if a level lent it a stand-in: after an
    ``ops.assign``, reads see the new value (``value``: ``ReadAfterAssign`` of the stand-in), and the
    stand-in keeps the value it had, which the rules recorded before the write read."""
    s = _state
    if id(param) in s.lent:
        s.lent[id(param)] = value


def current_value(param):
    """What ``bind`` would see for ``param`` right now: its innermost stand-in, or while a graph is
    being staged its graph input, or else its value now — a Tensor holding the Parameter's array,
    which a later ``ops.assign`` replaces without changing that Tensor (a level that differentiates
    the Parameter must keep the value it read)."""
    s = _state
    value = s.lent.get(id(param), param)
    if value is param and s.resolver is not None:
        value = s.resolver(param)
    if value is param:
        value = _new(Tensor)
        value._data = param._data
    return value


@contextmanager
def parameters_as_themselves():
    """Inside the block ``bind`` sees every Parameter as itself, whatever the gradient levels lent.

    A Cell with a custom ``bprop`` runs its forward this way (its weights are constants inside the
    node); a graph being staged too, so that its Parameters become graph inputs.
    """
    s = _state
    saved = dict(s.lent)
    s.lent.clear()
    s.update()
    try:
        yield
    finally:
        s.lent.clear()
        s.lent.update(saved)
        s.update()


@contextmanager
def resolving(fn):
    """Inside the block ``fn`` sees (and may replace) every Tensor argument of ``bind``, and
    Parameters reach it as themselves: how a graph being staged turns the Parameters a function
    reads into graph inputs."""
    s = _state
    with parameters_as_themselves():
        saved, s.resolver = s.resolver, fn
        s.update()
        try:
            yield
        finally:
            s.resolver = saved
            s.update()


def add_observer(fn) -> None:
    _state.observers.append(fn)
    _state.update()


def remove_observer(fn) -> None:
    if fn in _state.observers:
        _state.observers.remove(fn)
    _state.update()


def bind(prim, *args):
    """Run ``prim`` on ``args`` under the interpreter the arguments belong to."""
    s = _state
    if s.rewrites:
        for observe in tuple(s.observers):
            observe(prim, args)
        if s.lent:
            lent = s.lent
            args = tuple(lent.get(id(a), a) if isinstance(a, Tensor) else a for a in args)
        if s.resolver is not None:
            resolve = s.resolver
            args = tuple(resolve(a) if isinstance(a, Tensor) else a for a in args)
    elif not _active_traces:
        return _evaluate(prim, args)        # what dispatch would do, one frame sooner (every eager op)
    return dispatch(prim, args)


def dispatch(prim, args):
    """Find the highest active trace among ``args``; run the primitive there or evaluate it.

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
                    return dispatch(prim, _drop_dead_tracers(args))
                if top is None or t.level > top.level:
                    top = t
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
_NUMPY_FAILURES = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError, MemoryError,
                   np.exceptions.AxisError)


def evaluate(prim, args):
    """The eval interpreter: run ``prim.impl`` on NumPy arrays and wrap the result in Tensors.
    (The hot path of every eager op: written out rather than calling ``evaluate_arrays``, and a
    loop rather than a list comprehension, which costs a frame of its own in Python 3.11.)"""
    arrays = []
    for a in args:
        arrays.append(a._data if type(a) is Tensor else _array(a) if isinstance(a, Tensor) else a)
    try:
        out = prim.impl(*arrays)
    except MinimsError:
        raise
    except _NUMPY_FAILURES as exc:
        raise explained(prim, exc, args) from None
    if type(out) is np.ndarray:
        t = _new(Tensor)
        t._data = out
        return t
    return wrap(out)


def evaluate_arrays(prim, args):
    """``prim.impl`` on the arguments' arrays, its result as NumPy returned it (not wrapped); a NumPy
    error becomes the primitive's own."""
    arrays = [a._data if type(a) is Tensor else _array(a) if isinstance(a, Tensor) else a for a in args]
    try:
        return prim.impl(*arrays)
    except MinimsError:
        raise
    except _NUMPY_FAILURES as exc:
        raise explained(prim, exc, args) from None


# Where a traceback frame's code lives: minims' own files, or an installed library (NumPy, the
# standard library) rather than the user's code.
_MINIMS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARY_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[key]) + os.sep
                       for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def _users_own(frame) -> bool:
    path = os.path.abspath(frame.f_code.co_filename)
    return not path.startswith(_MINIMS_DIR) and not path.startswith(_LIBRARY_DIRS)


def explained(prim, exc, args) -> Exception:
    """``prim``'s own error for the NumPy error ``exc`` that its ``impl`` raised (the caller raises
    it ``from None``: NumPy's error is in the message).

    A built-in primitive's error starts where minims raises it.  A user's primitive (an ``impl``
    written outside minims) keeps the frames of its ``impl`` down to the user's failing line, so
    that the traceback — the short one too — ends at that line; the NumPy frames below it are left
    out, as minims' own are."""
    error = prim.explain_failure(exc, args)
    tb = exc.__traceback__.tb_next              # the frame that called impl caught it: impl is next
    frames = []
    while tb is not None and _users_own(tb.tb_frame):
        frames.append(tb)
        tb = tb.tb_next
    chain = None
    for f in reversed(frames):
        chain = types.TracebackType(chain, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return error.with_traceback(chain) if chain is not None else error


def evaluates_directly(args) -> bool:
    """True when ``bind(prim, *args)`` goes straight to ``evaluate``: nothing rewrites or observes
    the call, no argument is a tracer and no other evaluator is set.  A caller may then use
    ``evaluate_arrays`` and keep values only it reads (a compiled graph's residuals) as arrays."""
    if _state.rewrites or _evaluate is not evaluate:
        return False
    for a in args:
        if isinstance(a, Tracer):
            return False
    return True


_evaluate = evaluate        # what ``dispatch`` runs at the bottom; ``set_evaluator`` replaces it


def set_evaluator(fn) -> None:
    """Run ``fn(prim, args)`` instead of ``evaluate`` at the bottom of the stack (None: ``evaluate``)."""
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
    if isinstance(out, np.ndarray):
        t = _new(Tensor)
        t._data = out
        return t
    if isinstance(out, np.generic):
        t = object.__new__(Tensor)
        t._data = np.asarray(out)
        return t
    return out


def _wrap_array(a):
    t = _new(Tensor)
    t._data = a
    return t


def describe_args(args) -> str:
    return ", ".join(_describe(a) for a in args)
