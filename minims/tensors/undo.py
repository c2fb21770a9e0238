"""Writing a Parameter in place, and the undo log that puts it back when a call fails.

``write(param, array)`` is the one way minims writes a Parameter's (or a Tensor's) value in place —
``ops.assign``, ``Parameter.set_data``, a compiled graph's effects, BatchNorm's statistics.  It
records the old value in the open undo log, replaces the array, and tells whoever listens
(``on_write``: the views that share the Tensor's entries, ``minims.primitives.views``).

A Cell call or a gradient call that raises leaves every Parameter as it found it.

A training step writes Parameters as it goes: BatchNorm's moving statistics in the forward pass, then
the optimizer one parameter (and one moment) at a time.  An error half-way — a bad hook, a custom
bprop, a NaN caught by ``check_nan`` in the second parameter's update — would otherwise leave some
Parameters updated and others not.  So every in-place write (``write``) first calls ``record(param)``, which keeps the old array in
the open log; writes replace a Parameter's array and never modify it, so keeping a reference is enough.  Only
the first write of each Parameter is logged: that is the value to go back to, and it bounds the log
by the number of Parameters however many writes a call makes (a training loop inside one call).

Every Cell call (``minims.nn.cell_call.call_cell``) and gradient call
(``minims.autodiff.grad_api.vjp_call``) runs inside ``atomic``.  The outermost one opens the log;
calls inside it share that log (opening one per call would cost every Cell call), so the unit that
is undone is the whole outermost call — a training step.  If it raises, the old arrays are put back.
Outside any Cell or gradient call nothing is logged.  Each thread has its own log: an outermost
call is outermost in its thread.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

__all__ = ["atomic", "record", "is_logging", "write", "on_write", "discarding_writes"]


class _Log(threading.local):
    open: dict | None = None    # the open log {id(Parameter): (Parameter, old array)}, or None


_state = _Log()


def record(param) -> None:
    """Called just before ``param._data`` is replaced."""
    log = _state.open
    if log is not None and id(param) not in log:
        log[id(param)] = (param, param._data)


_listeners: list = []          # called with a Tensor whose value was just written in place


def on_write(fn) -> None:
    """Call ``fn(tensor)`` after every in-place write (``write``, and an undo putting a value back)."""
    _listeners.append(fn)


def write(tensor, array, logged: bool = True) -> None:
    """Write ``array`` into ``tensor`` in place: the one Parameter write (module docstring).  Not
    ``logged``: a plain Tensor, which no undo puts back."""
    if logged:
        record(tensor)
    tensor._data = array
    for fn in _listeners:
        fn(tensor)


def is_logging() -> bool:
    """True inside an outermost Cell or gradient call (for tests and debugging)."""
    return _state.open is not None


def atomic(fn, *args):
    """``fn(*args)``; if it raises, every Parameter it wrote gets its old array back (inside another
    ``atomic`` call just ``fn(*args)``: the outermost call's log records the writes and undoes them)."""
    state = _state
    if state.open is not None:
        return fn(*args)
    state.open = log = {}
    try:
        return fn(*args)
    except BaseException:
        _put_back(log)
        raise
    finally:
        state.open = None


def _put_back(log) -> None:
    for param, data in log.values():
        param._data = data
    for param, _ in log.values():       # views of it taken before the call follow it back
        for fn in _listeners:
            fn(param)


@contextmanager
def discarding_writes():
    """Inside the block, Parameter writes happen and are then undone when it ends: a recomputed
    forward pass (``Cell.recompute``) computes its values again without writing BatchNorm's
    statistics a second time.  The writes are logged apart, so the outer call's log is untouched."""
    outer, _state.open = _state.open, {}
    log = _state.open
    try:
        yield
    finally:
        _put_back(log)
        _state.open = outer
