"""The teaching core: one primitive table, several interpreters.

Every operation is ``bind(primitive, *args)``; which interpreter runs it depends on the arguments
(or, for a graph being staged, on the context).  Read in this order: ``tensor.py`` and ``dtype.py``
(the value), ``stack.py`` (the interpreter stack, ``bind``, eval at its bottom), ``primitive.py`` (a
row of the table), ``prims.py`` (the rows the core's own rules need), ``tape.py`` (reverse mode),
``jvp.py`` (forward mode), ``batching.py`` (``vmap``), ``ir.py`` and ``staging.py`` (a function
staged into a graph, and the graph interpreter).  The core imports nothing of minims outside itself;
the rest reaches in through five seams, each defined where it acts: (1) ``stack.set_evaluator``, an
evaluator swap (``check_nan``); (2) ``stack.add_rewriter`` (Parameters lent to gradient levels); (3)
``tape.set_rule_runner`` (a user's rule has its result checked); (4) a primitive's ``record_node``,
a custom node (a compiled graph keeps its residuals); (5) ``install`` below: MindSpore's API on the
core's classes.  What it leaves out lives in ``minims.tensors`` (Tensor, Parameter, lending),
``minims.primitives`` (the rest of the table), ``minims.autodiff`` and ``minims.transforms`` (the
gradient API and transforms), ``minims.graph`` (``jit``, passes, residuals, fusion),
``minims.interpreters`` (symbolic, ``check_nan``), ``minims.fast`` (Numba) and ``minims.nn``.
"""
import sys

_installed: list = []       # (class name, attribute, module that installed it)


def install(cls, **attributes) -> None:
    """Seam 5: set ``attributes`` on the core class ``cls``, recording who installed them."""
    caller = sys._getframe(1).f_globals.get("__name__", "?")
    for name, value in attributes.items():
        setattr(cls, name, value)
        _installed.append((cls.__name__, name, caller))


def installed() -> list:
    """``(class, attribute, installing module)`` for everything the layers above installed."""
    return list(_installed)


from .dtype import DType  # noqa: E402 - after install: the modules below may be installed onto
from .primitive import Primitive  # noqa: E402
from .stack import bind  # noqa: E402
from .tape import grad, vjp  # noqa: E402
from .tensor import Tensor  # noqa: E402

__all__ = ["Tensor", "DType", "Primitive", "bind", "grad", "vjp", "install", "installed"]
