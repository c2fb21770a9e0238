"""MindSpore 2.10's loop operators: ``ops.WhileLoop``, ``ops.ForiLoop``, ``ops.Scan``.

In PyNative they are Python loops, as in MindSpore 2.10 (each iteration runs, and a gradient level
records it like any code).  While a graph is compiled (``jit``, a GRAPH_MODE Cell) a Python loop
would be unrolled on the first call's values — wrong for a condition on a Tensor — so they become
the structured primitives: ``WhileLoop`` a ``While``; ``ForiLoop`` with a Tensor bound or
``unroll=False`` a ``While`` over ``(i, value)``; ``Scan`` with ``unroll=False`` a ``Scan`` over its
``xs`` stacked.  ``ForiLoop`` with Python bounds and ``Scan`` with ``unroll=True`` stay unrolled,
which MindSpore does too.  Errors raised by the loop's function in the Python loop are MindSpore's
``ValueError("Invalid loop_func ...")``.
"""
from __future__ import annotations

import types

from .. import dtype as mstype
from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..graph.tracing import is_compiling
from ..primitives.functional import stack as stack_op
from .staged import flatten, unflatten
from .staging_loops import scan, while_loop

__all__ = ["WhileLoop", "ForiLoop", "Scan"]


def _check_type(op: str, name: str, value, allowed: tuple, names: str) -> None:
    """MindSpore's argument check, in its words (a TypeError)."""
    if not isinstance(value, allowed):
        raise TypeError(
            f"For '{op}', the type of '{name}' should be one of '{names}', but got type "
            f"'{type(value).__name__}'. Fix: pass {names.strip('[]')}.")


_FUNCTIONS = (types.FunctionType, types.MethodType)


def _python_loop(run):
    """Run a Python loop; a failure of the user's function becomes MindSpore 2.10's ValueError
    (its message kept after "error info:", the original chained)."""
    try:
        return run()
    except Exception as exc:
        raise ValueError("Invalid loop_func, please check input arguments and return value, "
                         f"error info: {exc}") from exc


class WhileLoop(Primitive):
    """``ops.WhileLoop()(cond_func, loop_func, init_val)``: ``val = loop_func(val)`` while
    ``cond_func(val)``; the last ``val``."""

    def __call__(self, cond_func, loop_func, init_val):
        _check_type("WhileLoop", "cond_func", cond_func, _FUNCTIONS, "['function', 'method']")
        _check_type("WhileLoop", "loop_func", loop_func, _FUNCTIONS, "['function', 'method']")
        if is_compiling():
            return while_loop(cond_func, loop_func, init_val)

        def run():
            val = init_val
            while cond_func(val):
                val = loop_func(val)
            return val
        return _python_loop(run)


class ForiLoop(Primitive):
    """``ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: ``val = loop_func(i, val)``
    for ``i`` in ``range(lower, upper)``; the last ``val``."""

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        _check_type("ForiLoop", "lower", lower, (int, Tensor), "['int', 'Tensor']")
        _check_type("ForiLoop", "upper", upper, (int, Tensor), "['int', 'Tensor']")
        _check_type("ForiLoop", "loop_func", loop_func, _FUNCTIONS, "['function', 'method']")
        static = not isinstance(lower, Tensor) and not isinstance(upper, Tensor)
        if is_compiling() and not (static and unroll):
            start = lower if isinstance(lower, Tensor) else Tensor(lower, mstype.int64)
            _, val = while_loop(lambda c: c[0] < upper, lambda c: (c[0] + 1, loop_func(c[0], c[1])),
                                (start, init_val))
            return val

        def run():
            val = init_val
            for i in range(int(lower), int(upper)):
                val = loop_func(i, val)
            return val
        return _python_loop(run)


class Scan(Primitive):
    """``ops.Scan()(loop_func, init, xs, length=None, unroll=True)``: ``carry, y = loop_func(carry, x)``
    for each ``x`` of the list ``xs`` (None: ``length`` steps of ``x = None``); ``(carry, [y, ...])``."""

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        _check_type("Scan", "loop_func", loop_func, _FUNCTIONS, "['function', 'method']")
        _check_type("Scan", "xs", xs, (list, tuple, type(None)), "['list', 'tuple', 'None']")
        if xs is None:
            _check_type("Scan", "length", length, (int,), "['int']")
            xs = [None] * length
        if not xs:
            return init, []
        if is_compiling() and not unroll:
            return _staged_scan(loop_func, init, list(xs))

        def run():
            carry, ys = init, []
            for x in xs:
                carry, y = loop_func(carry, x)
                ys.append(y)
            return carry, ys
        return _python_loop(run)


def _staged_scan(loop_func, init, xs: list):
    """One ``Scan`` over ``xs`` stacked leaf by leaf (every element of one structure); the ``y``
    given back as a list, one per step, as MindSpore's ``Scan`` returns them."""
    if all(x is None for x in xs):
        return _unstacked(*scan(loop_func, init, None, length=len(xs)), len(xs))
    flat = [flatten(x) for x in xs]
    definition = flat[0][1]
    if any(d != definition for _, d in flat):
        raise ValueError(
            "Scan: with unroll=False the elements of xs are stacked, so they need one structure, but they "
            "differ. Fix: give xs elements of one structure, or unroll=True.")
    columns = [stack_op([leaves[j] for leaves, _ in flat]) for j in range(len(flat[0][0]))]
    stacked = unflatten(definition, columns) if columns else None
    return _unstacked(*scan(loop_func, init, stacked, length=len(xs)), len(xs))


def _unstacked(carry, ys, n: int):
    y_leaves, y_definition = flatten(ys)
    return carry, [unflatten(y_definition, [y[t] if isinstance(y, Tensor) else y for y in y_leaves])
                   for t in range(n)]

