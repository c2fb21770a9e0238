"""``mindspore.mutable``: mark a Cell input that is not a Tensor as a variable of the graph (issue 25).

MindSpore compiles a scalar, tuple, list or dict input as a constant (a new value recompiles, and it
has no gradient); ``mutable(x)`` makes it a variable input. minims' ``jit`` already takes the
Tensors inside tuples, lists and dicts as graph inputs (new values of the same shapes reuse the
graph), so for those ``mutable`` returns its input as it is. A Python scalar stays a constant of the
trace in minims (a new value traces again; the results are the same), and gradients are taken with
respect to Tensors only. What ``mutable`` accepts and refuses is MindSpore 2.10's (checked on it).
"""
from ..core.tensor import Tensor

__all__ = ["mutable"]

_ACCEPTED = "(bool, int, float, Tensor, tuple, list, dict)"


def _accepted(value, seen=()):
    """Whether ``value`` is a Tensor, a number or a bool, or a tuple/list/dict nesting only those."""
    if isinstance(value, (Tensor, bool, int, float)):
        return True
    if id(value) in seen or not isinstance(value, (tuple, list, dict)):
        return False        # a self-referencing structure is refused, as by MindSpore
    items = value.values() if isinstance(value, dict) else value
    return all(_accepted(item, seen + (id(value),)) for item in items)


def mutable(input_data, dynamic_len=False):
    """``mindspore.mutable(input_data, dynamic_len=False)``: ``input_data``, marked as a variable input."""
    if not _accepted(input_data):
        raise TypeError(f"For 'mutable', the 'input_data' should be one of {_ACCEPTED} or their nested "
                        f"structures with no self-reference, but got {type(input_data).__name__}: {input_data}. "
                        "Fix: pass Tensors, numbers, or tuples, lists and dicts of them.")
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when 'dynamic_len' is True, the 'input_data' should be a tuple or "
                        f"list, but got {type(input_data).__name__}. Fix: drop dynamic_len=True, or pass a "
                        "tuple or list.")
    return input_data
