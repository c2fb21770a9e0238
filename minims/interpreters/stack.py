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
Parameter for its stand-in on the way in, and the Parameter itself is never modified.

``set_context(check_nan=True)`` swaps the eval interpreter for one that also checks each output for
NaN/Inf (``minims.interpreters.nan_check``); swapping rather than testing a flag keeps the unchecked
path free of any cost.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..tensor import Tensor, _describe

__all__ = ["bind", "dispatch", "Trace", "Tracer", "push_trace", "pop_trace", "lend", "unlend",
           "parameters_as_themselves", "resolving", "current_value", "active_traces", "snapshot",
           "MinimsError"]


class MinimsError(Exception):
    """Marker base for errors minims raised itself (never re-wrapped by the eval interpreter)."""


_stack: list = []        # active traces; index = level
_lent: dict = {}         # id(Parameter) -> stand-in tracer of the top-most level that lends it
_resolver = None         # set while a graph is staged: maps Parameters to graph inputs
_observers: list = []    # callables shown every bind (e.g. the check that a bprop uses no Parameter)


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
    value and says so (see ``minims.graph.staging``).

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

    def asnumpy(self):
        return self._concrete().asnumpy()

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


def active_traces() -> tuple:
    return tuple(_stack)


def push_trace(trace: Trace) -> Trace:
    trace.level = len(_stack)
    trace.active = True
    _stack.append(trace)
    return trace


def pop_trace(trace: Trace) -> None:
    """Deactivate ``trace`` and everything above it (an exception may have left those behind)."""
    if trace in _stack:
        while _stack:
            top = _stack.pop()
            top.active = False
            if top is trace:
                break
    trace.active = False


def snapshot() -> dict:
    """This module's state, for tests and debugging: the active traces, the lent Parameters, the
    staging resolver and the observers (the evaluator: :func:`evaluator`)."""
    return {"traces": tuple(_stack), "lent": dict(_lent), "resolver": _resolver,
            "observers": tuple(_observers)}


def lend(param, standin) -> object:
    """Make ``bind`` see ``standin`` wherever ``param`` is used; returns the token for ``unlend``."""
    key = id(param)
    previous = _lent.get(key)
    _lent[key] = standin
    return (key, previous)


def unlend(token) -> None:
    key, previous = token
    if previous is None:
        _lent.pop(key, None)
    else:
        _lent[key] = previous


def current_value(param):
    """What ``bind`` would see for ``param`` right now: its innermost stand-in, or while a graph is
    being staged its graph input, or the Parameter itself."""
    value = _lent.get(id(param), param)
    if value is param and _resolver is not None:
        value = _resolver(param)
    return value


@contextmanager
def parameters_as_themselves():
    """Inside the block ``bind`` sees every Parameter as itself, whatever the gradient levels lent.

    A Cell with a custom ``bprop`` runs its forward this way (its weights are constants inside the
    node); a graph being staged too, so that its Parameters become graph inputs.
    """
    saved = dict(_lent)
    _lent.clear()
    try:
        yield
    finally:
        _lent.clear()
        _lent.update(saved)


@contextmanager
def resolving(fn):
    """Inside the block ``fn`` sees (and may replace) every Tensor argument of ``bind``, and
    Parameters reach it as themselves: how a graph being staged turns the Parameters a function
    reads into graph inputs."""
    global _resolver
    with parameters_as_themselves():
        saved, _resolver = _resolver, fn
        try:
            yield
        finally:
            _resolver = saved


def add_observer(fn) -> None:
    _observers.append(fn)


def remove_observer(fn) -> None:
    if fn in _observers:
        _observers.remove(fn)


def bind(prim, *args):
    """Run ``prim`` on ``args`` under the interpreter the arguments belong to."""
    if _observers:
        for observe in tuple(_observers):
            observe(prim, args)
    if _lent:
        args = tuple(_lent.get(id(a), a) if isinstance(a, Tensor) else a for a in args)
    if _resolver is not None:
        args = tuple(_resolver(a) if isinstance(a, Tensor) else a for a in args)
    return dispatch(prim, args)


def dispatch(prim, args):
    """Find the highest active trace among ``args``; run the primitive there or evaluate it."""
    if _stack:
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


def evaluate(prim, args):
    """The eval interpreter: run ``prim.impl`` on NumPy arrays and wrap the result in Tensors."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:
        out = prim.impl(*arrays)
    except MinimsError:
        raise
    except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError,
            np.exceptions.AxisError) as exc:
        raise prim.explain_failure(exc, args) from None
    return wrap(out)


_evaluate = evaluate        # what ``dispatch`` runs at the bottom; ``set_evaluator`` replaces it


def set_evaluator(fn) -> None:
    """Run ``fn(prim, args)`` instead of ``evaluate`` at the bottom of the stack (None: ``evaluate``)."""
    global _evaluate
    _evaluate = evaluate if fn is None else fn


def evaluator():
    """What ``dispatch`` runs at the bottom of the stack: ``evaluate``, or its replacement."""
    return _evaluate


def wrap(out):
    if isinstance(out, np.ndarray):
        t = object.__new__(Tensor)
        t._data = out
        return t
    if isinstance(out, tuple):
        return tuple(wrap(o) for o in out)
    if isinstance(out, np.generic):
        t = object.__new__(Tensor)
        t._data = np.asarray(out)
        return t
    return out


def describe_args(args) -> str:
    return ", ".join(_describe(a) for a in args)
