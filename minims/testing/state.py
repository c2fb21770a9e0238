"""Everything minims keeps between calls, in one place: for tests that an error left nothing behind.

Each piece of state has one owner module, which exposes it read-only; ``global_state()`` gathers
them and ``leftover_state()`` names the pieces that are not as they are between two top-level
calls (no interpreter on the stack, no lent Parameter, no graph being traced, no undo log open, no
Cell running, no rule's mask or name set)::

    >>> assert not leftover_state(), leftover_state()
"""
from __future__ import annotations

from ..interpreters import running_cells
from ..tensors import undo
from ..core import stack
from ..primitives.base import needed_mask
from ..tensors import lending
from ..interpreters import nan_check

__all__ = ["global_state", "leftover_state"]


def global_state() -> dict:
    """A snapshot of every piece of state the interpreters, the tape and the Cell call keep."""
    state = {"stack: traces": stack.active_traces(), "stack: contexts": stack.contexts(),
             "stack: rewriters": stack.rewriters(), "stack: lent": lending.lent()}
    state.update({
        "rules: needed-gradient mask": needed_mask(),
        "undo: log open": undo.is_logging(),
        "Cells running": running_cells.running(),
        "check_nan: rule running": nan_check.current_rule(),
        "check_nan: evaluator matches the option": stack.evaluator() is (
            nan_check.checked_evaluate if nan_check.enabled else stack.evaluate),
    })
    return state


_IDLE = {
    "stack: traces": (),
    "stack: contexts": (),
    "stack: rewriters": (),
    "stack: lent": {},
    "rules: needed-gradient mask": None,
    "undo: log open": False,
    "Cells running": (),
    "check_nan: rule running": None,
    "check_nan: evaluator matches the option": True,
}


def leftover_state() -> dict:
    """The pieces of :func:`global_state` that differ from their value between top-level calls."""
    return {k: v for k, v in global_state().items() if v != _IDLE[k]}
