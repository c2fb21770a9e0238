"""``ops.Print``: print Tensors and strings when the computation runs, in both modes.

Python's ``print`` inside a compiled function runs once, while tracing; ``ops.Print`` is a primitive
with an effect, so a graph being staged records it (it sees every ``bind``, even one without a
placeholder among its inputs), keeps it, and it prints every time the graph runs.  Inside a graph it
prints a Tensor as MindSpore 2.10's graph-mode ``Print`` does (``value=[ 1.00000000e+00  2.00000000e+00]``,
no commas; a 0-d Tensor as its bare value); in PyNative as ``repr`` does, as MindSpore's does there.
"""
from __future__ import annotations

import copy

import numpy as np

from ..core.stack import bind
from ..core.staging import compiling
from ..core.tensor import Tensor
from ..core.primitive import Primitive
from ..tensors.repr import print_op_text


class Print(Primitive):
    """``ops.Print()(*inputs)``: prints each input (Tensors as MindSpore prints them) on its own line."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    differentiable = False
    has_effect = True
    _in_graph = False       # the copy a graph records prints MindSpore's graph-mode text

    def __call__(self, *inputs):
        for item in inputs:
            if not isinstance(item, (Tensor, str, int, float, bool)):
                raise TypeError(f"Print: inputs must be Tensors, strings or numbers, got {type(item).__name__}.")
        bind(self._graph_copy() if compiling() else self, *inputs)   # a graph being staged records it

    def _graph_copy(self) -> "Print":
        twin = copy.copy(self)
        twin._in_graph = True
        return twin

    def impl(self, *items):
        for item in items:
            if isinstance(item, np.ndarray):
                tensor = Tensor._make(item)
                item = print_op_text(item, tensor.dtype.name) if self._in_graph else repr(tensor)
            print(item)
        return np.zeros((), np.int32)

    def abstract_eval(self, *items):
        return np.zeros((), np.int32)
