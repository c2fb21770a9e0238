"""The Cells whose call is running, innermost last.

A Cell call (``minims.nn.cell_call.run_cell``) pushes its Cell on entry and pops it on the way out,
whatever happens inside.  Whoever needs to say *where* something happened reads it: the errors of
``set_context(check_nan=True)`` name the Cell path of the first NaN (``Net.block.conv``).
"""
from __future__ import annotations

__all__ = ["push", "pop", "innermost", "running"]

_running: list = []


def push(cell) -> None:
    _running.append(cell)


def pop() -> None:
    _running.pop()


def innermost():
    """The Cell whose ``construct`` (or bprop) is running right now, or None outside any Cell."""
    return _running[-1] if _running else None


def running() -> tuple:
    """Every Cell whose call is running, outermost first."""
    return tuple(_running)
