"""Primitives with side effects on Parameters: ``Assign``, and ``ReadAfterAssign`` for graphs.

``ops.assign(param, value)`` writes ``value`` into ``param`` and returns the parameter.  The write
is not differentiable (MindSpore's gradient does not flow through an assignment): every read of a
Parameter is the Parameter, whatever was assigned to it — its current value, with the read's
gradient going to the Parameter.  The primitive itself only computes the value to store (checked
and cast to the parameter's dtype); the write is done by ``__call__`` on the Parameter object the
user passed, so it also happens while a gradient level has lent that parameter a stand-in.

The reads that follow an ``ops.assign`` are ``ReadAfterAssign(param, value)`` wherever the Parameter
is not simply the object just written: the value assigned, with the gradient going to the Parameter
and none to the value.  A graph being compiled cannot write yet (the write happens each time the
graph runs), so its later reads are recorded that way; a gradient level that lent the Parameter a
stand-in is relent that read (``stack.relend``), its stand-in keeping the value earlier rules read.
"""
from __future__ import annotations

from . import functional as ops
from . import views
from ..tensors import undo
from ..tensors.parameter import Parameter
from ..core import stack
from ..core.stack import bind, dispatch
from ..tensors.lending import is_lent, relend
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from . import batch_rules
from ..core.primitive import Primitive


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
        staging = _graph_being_compiled()
        if staging is not None:               # compiling: the write happens when the graph runs
            # later reads see the value written, their gradient still going to the Parameter
            reader, written = ReadAfterAssign(variable.name), ops.cast(value, variable.dtype)
            if is_lent(variable):       # bind sees the stand-in of the gradient level that lent it
                staging.record_effect(variable, value, read=bind(reader, variable, written))
            else:
                staging.record_effect(variable, value, reader=(reader, written))
            views.written(variable)         # views of it taken inside the graph read the new value
            return variable
        new = dispatch(self, (variable, value))
        undo.write(variable, new._data)     # undone if the Cell or grad call fails; views follow
        if is_lent(variable):           # a gradient level differentiates it: reads now see new
            relend(variable, bind(ReadAfterAssign(variable.name), variable, new))
        return variable

    def batch(self, args, dims, size):
        raise _batched_write(args[0].name)

    def impl(self, variable, value):
        return value.astype(variable.dtype, copy=True)


def _graph_being_compiled():
    """The innermost graph being staged, which records the write to make when the graph runs
    (``record_effect`` of ``minims.graph.tracing.GraphTrace``); None outside one."""
    contexts = stack.contexts()
    return contexts[-1] if contexts else None


def _batched_write(name: str) -> RuntimeError:
    return RuntimeError(f"Assign: cannot write a batched value (inside vmap, one per example) into "
                        f"Parameter '{name}': a Parameter holds one value. Fix: compute the value "
                        "outside vmap, or return it from the vmapped function.")


class ReadAfterAssign(Primitive):
    """``ReadAfterAssign(name)(param, value)``: how a graph reads Parameter ``param`` (named
    ``name``) after ``ops.assign(param, value)`` in it (module docstring): ``value``, its gradient
    going to ``param``."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def __init__(self, parameter: str = "Parameter"):
        super().__init__()
        self.parameter = parameter      # an attribute: the graph's text names the Parameter read

    def impl(self, param, value):
        return value

    def bprop(self, param, value, out, dout):
        return (dout, None)

    def jvp(self, primals, tangents):
        return bind(self, *primals), tangents[0]

    def batch(self, args, dims, size):
        if dims[1] is not None:
            raise _batched_write(self.parameter)
        param, value = args
        return bind(self, batch_rules.front(param, dims[0], size), batch_rules.front(value, None, size)), 0

    # no ``sympy`` rule: the value is ``value`` but the derivative is ``param``'s, which no SymPy
    # expression of the two gives (a symbolic reference would be wrong, so there is none)

