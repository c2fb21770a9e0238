"""``ops.Print``: print Tensors and strings when the computation runs, in both modes.

Python's ``print`` inside a compiled function runs once, while tracing; ``ops.Print`` is a primitive
with an effect, so a graph being staged records it (it sees every ``bind``, even one without a
placeholder among its inputs), keeps it, and it prints every time the graph runs.
"""
from __future__ import annotations

import numpy as np

from ..core.stack import bind
from ..core.tensor import Tensor
from ..core.primitive import Primitive


class Print(Primitive):
    """``ops.Print()(*inputs)``: prints each input (Tensors as MindSpore prints them) on its own line."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    differentiable = False
    has_effect = True

    def __call__(self, *inputs):
        for item in inputs:
            if not isinstance(item, (Tensor, str, int, float, bool)):
                raise TypeError(f"Print: inputs must be Tensors, strings or numbers, got {type(item).__name__}.")
        bind(self, *inputs)         # a graph being staged records it, Tensor inputs or not

    def impl(self, *items):
        for item in items:
            print(repr(Tensor._make(np.asarray(item))) if isinstance(item, np.ndarray) else item)
        return np.zeros((), np.int32)

    def abstract_eval(self, *items):
        return np.zeros((), np.int32)
