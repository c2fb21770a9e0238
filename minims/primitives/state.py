"""Primitives with side effects on Parameters: ``Assign``.

``ops.assign(param, value)`` writes ``value`` into ``param`` and returns the parameter.  The write
is not differentiable (MindSpore's gradient does not flow through an assignment).  The primitive
itself only computes the value to store (checked and cast to the parameter's dtype); the write is
done by ``__call__`` on the Parameter object the user passed, so it also happens while a gradient
level has lent that parameter a stand-in.
"""
from __future__ import annotations

from ..common import undo
from ..common.parameter import Parameter
from ..graph.staging import current_trace
from ..interpreters.stack import dispatch
from ..common.tensor import Tensor, _describe
from .base import Primitive


class Assign(Primitive):
    """``ops.Assign()(variable, value)``."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    differentiable = False
    has_effect = True

    def __call__(self, variable, value):
        if not isinstance(variable, Parameter):
            raise TypeError(
                f"Assign: 'variable' must be a Parameter, but got {_describe(variable)}. "
                "Fix: assign into a Parameter, e.g. ops.assign(net.b, value)."
            )
        if not isinstance(value, Tensor):
            value = Tensor(value, variable.dtype)
        if value.shape != variable.shape:
            raise ValueError(
                f"Assign: Parameter '{variable.name}' has shape {list(variable.shape)}, but the value "
                f"has shape {list(value.shape)}. Fix: give a value of the same shape."
            )
        staging = current_trace()
        if staging is not None:               # compiling: the write happens when the graph runs
            staging.record_effect(variable, value)
            return variable
        new = dispatch(self, (variable, value))
        undo.record(variable)           # a Cell or grad call that fails puts the old value back
        variable._data = new._data
        return variable

    def batch(self, args, dims, size):
        raise RuntimeError(f"Assign: cannot write a batched value (inside vmap, one per example) into "
                           f"Parameter '{args[0].name}': a Parameter holds one value. Fix: compute the "
                           "value outside vmap, or return it from the vmapped function.")

    def impl(self, variable, value):
        return value.astype(variable.dtype, copy=True)
