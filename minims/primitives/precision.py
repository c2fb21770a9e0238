"""The float type operations compute in while a mixed-precision Cell runs (``Cell.to_float``).

While a Cell marked with ``to_float(dtype)`` runs (``minims.nn.precision``), every ``bind`` casts its
float Tensor inputs of another type to ``dtype`` first: a rewriter (``minims.core.stack.add_rewriter``)
installed by :func:`enter` and removed by the matching :func:`leave`, so nothing changes for a
program without mixed precision.  ``Cast`` itself and operations with an effect (``Assign``,
``Print``) are left as they are.  The casts are ``Cast`` operations, recorded by the gradient levels
like any other: the gradients flow back through them in each input's own type.

The checks some primitives make before ``bind`` (``MatMul``'s and the convolutions' "x and w must have
the same dtype") ask :func:`running_type`: two float operands of different types are fine while a
type is running, since ``bind`` casts both to it — as MindSpore casts an operation's inputs before
it checks them.
"""
from __future__ import annotations

import threading

from ..core import stack
from ..core.prims import Cast
from ..core.tensor import Tensor

__all__ = ["enter", "leave", "running_type", "cast_floats", "cast_by_bind"]


class _Running(threading.local):
    def __init__(self):
        self.types: list = []       # the float types of the mixed-precision Cells running, innermost last


_running = _Running()
_cast = Cast()


def running_type():
    """The float type operations compute in now (None: their inputs' own types)."""
    types = _running.types
    return types[-1] if types else None


def enter(dtype) -> None:
    """From now on (until :func:`leave`), operations cast their float inputs to ``dtype``."""
    types = _running.types
    types.append(dtype)
    if len(types) == 1:
        stack.add_rewriter(_cast_inputs)


def leave() -> None:
    """Undo the latest :func:`enter`."""
    types = _running.types
    types.pop()
    if not types:
        stack.remove_rewriter(_cast_inputs)


def _cast_inputs(prim, args):
    """The rewriter: ``args`` with every float Tensor of another type cast to the running type."""
    if type(prim) is Cast or prim.has_effect:
        return None
    target = _running.types[-1]
    changed = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.dtype.is_float and a.dtype is not target:
            if changed is None:
                changed = list(args)
            changed[i] = stack.bind(_cast, a, target)
    return tuple(changed) if changed is not None else None


def cast_floats(value, dtype):
    """``value`` with every float Tensor in it (in tuples and lists too) cast to ``dtype``."""
    if isinstance(value, (tuple, list)):
        return type(value)(cast_floats(v, dtype) for v in value)
    if isinstance(value, Tensor) and value.dtype.is_float and value.dtype is not dtype:
        return stack.bind(_cast, value, dtype)
    return value


def cast_by_bind(*tensors) -> bool:
    """True when ``bind`` will cast all of ``tensors`` to one type (a type is running and they are
    floats): a check of their dtypes before ``bind`` lets them pass."""
    return bool(_running.types) and all(t.dtype.is_float for t in tensors)
