"""The Cells whose call is running, innermost last.

A Cell call (``minims.nn.cell_call.call_cell``) pushes its Cell on entry and pops it on the way out,
whatever happens inside.  Whoever needs to say *where* something happened reads it: the errors of
``set_context(check_nan=True)`` name the Cell path of the first NaN (``Net.block.conv``).
"""
from __future__ import annotations

import threading

__all__ = ["push", "pop", "stack", "innermost", "running"]


class _Running(threading.local):
    def __init__(self):
        self.cells: list = []       # one stack per thread


_state = _Running()


def push(cell) -> None:
    _state.cells.append(cell)


def pop() -> None:
    _state.cells.pop()


def stack() -> list:
    """This thread's list itself, innermost last: a Cell call appends and pops on it directly (no
    call per step), and reads it where almost no Python stack is left (a RecursionError)."""
    return _state.cells


def innermost():
    """The Cell whose ``construct`` (or bprop) is running right now, or None outside any Cell."""
    cells = _state.cells
    return cells[-1] if cells else None


def running() -> tuple:
    """Every Cell whose call is running (in this thread), outermost first."""
    return tuple(_state.cells)
