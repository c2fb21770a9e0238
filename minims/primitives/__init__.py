"""The primitive table: every operation minims can run, one small class each.

Everything a minims program computes is a *primitive* applied with ``bind``: ``ops.mul(x, y)`` binds
``Mul``, a ``Dense`` layer binds ``MatMul`` and ``Add``, a Cell with a custom ``bprop`` binds one
``CellBprop``, a compiled function one ``GraphCall``.  Each primitive is a row of rules (see
``base.py``): ``impl`` computes on NumPy arrays, ``bprop`` is the backward rule written in minims
ops, ``sympy`` the same computation on SymPy expressions, and a few primitives have a Numba kernel.
The interpreters read those rows: eval runs ``impl``, a gradient level records the application and
later runs ``bprop``, the staging interpreter writes an equation, the symbolic one runs ``sympy``.

Where the rows live:

* ``base.py`` — ``Primitive``, its optional flags, ``wants_grad``;
* ``operands.py`` — operand checks, dtype promotion, ``sum_to`` (un-broadcasting gradients);
* ``math.py`` (arithmetic, transcendental), ``activation.py``, ``compare.py``, ``reduce.py``,
  ``input_grads.py`` (the derivatives of tanh, sigmoid and sqrt, taken from the input, on the
  accurate NumPy kernels of ``accurate.py``),
  ``linalg.py`` (MatMul), ``array.py`` (shapes, indexing, casts; ``index_operands.py``: how index
  Tensors reach the indexing primitives as operands), ``state.py`` (Assign),
  ``debug.py`` (Print), ``dataset.py`` (GetNext, which always refuses: there is no device queue);
* ``nn/`` — convolution, pooling, batch norm, dropout and the softmax losses;
* elsewhere, primitives made per call: hooks (``minims.autodiff.hooks``), a Cell's custom bprop
  (``minims.autodiff.custom_bprop``) and a compiled graph (``minims.graph.call``).

``table()`` lists all of them with the rules each has; ``print(minims.primitives.table())``.
"""
from . import functional  # noqa: F401 - first: it imports every row, in the order they build on each other
from ..core.primitive import NoGradientRule, Primitive, has_rule, wants_grad
from .base import PrimitiveWithInfer
from .table import RULES, Row, Table, table

__all__ = ["Primitive", "PrimitiveWithInfer", "NoGradientRule", "has_rule", "wants_grad", "table",
           "Table", "Row", "RULES"]
