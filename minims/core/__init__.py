"""The teaching core: one primitive table, several interpreters.

Every operation is ``bind(primitive, *args)``; which interpreter runs it depends on the arguments
(or, for a graph being staged, on the context).  Read in this order:

1. ``tensor.py`` — the value: an array and its dtype (``dtype.py``);
2. ``stack.py`` — the interpreter stack, ``bind``, and the eval interpreter at its bottom;
3. ``primitive.py`` — a row of the table: ``impl``, ``bprop``, ``jvp``, ``batch``, ``sympy``;
4. ``prims.py`` — the rows the core's own rules need (``Add``, ``Mul``, ``Sin``, ``sum_to`` ...);
5. ``tape.py`` — reverse mode: a gradient level records, its backward pass runs the rules;
6. ``jvp.py`` — forward mode: a tracer carries a tangent;
7. ``batching.py`` — ``vmap``: a tracer carries a whole batch;
8. ``ir.py`` and ``staging.py`` — a function staged into a graph of equations, and the graph
   interpreter that runs one again;
9. ``seams.py`` — how everything else reaches in (``errors.py``: the one error base).

What the core leaves out, and where it lives: MindSpore's API surface and messages
(``minims.tensors``, ``minims.primitives``, ``minims.ops``); the rest of the table
(``minims.primitives``); MindSpore's gradient API (``minims.autodiff``) and transforms
(``minims.transforms``); Parameters lent to gradient levels (``minims.tensors.lending``); compiling
with Parameters, graph passes, residual splitting and fusion (``minims.graph``); ``check_nan`` and
the symbolic interpreter (``minims.interpreters``); Numba kernels (``minims.fast``); Cells (``minims.nn``).
"""
from .dtype import DType
from .primitive import Primitive
from .stack import bind
from .tape import grad, vjp
from .tensor import Tensor

__all__ = ["Tensor", "DType", "Primitive", "bind", "grad", "vjp"]
