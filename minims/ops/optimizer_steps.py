"""MindSpore's fused optimizer steps as Primitive classes: ``ops.ApplyMomentum`` (issue 25).

A step is ops over the Tensors that writes its results into the state it is given — with
``ops.assign`` into a Parameter (so a compiled graph records the write as any ``ops.assign``), and
in place into a plain Tensor, as MindSpore's kernel does.
"""
from ..core.primitive import Primitive
from ..tensors.parameter import Parameter
from . import functional as F

__all__ = ["ApplyMomentum"]


def _write(state, value):
    if isinstance(state, Parameter):
        F.assign(state, value)
    else:
        state.assign_value(value)


class ApplyMomentum(Primitive):
    """``ops.ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable,
    accumulation, learning_rate, gradient, momentum)``: ``accumulation = accumulation * momentum +
    gradient``, then ``variable -= learning_rate * accumulation`` (Nesterov: ``variable -=
    learning_rate * (gradient + momentum * accumulation)``), with ``gradient`` scaled by
    ``gradient_scale`` first; both written back; returns the new ``variable``.

    These are the formulas of MindSpore's documentation (and of ``nn.Momentum``). MindSpore 2.10's
    CPU kernel ignores ``use_nesterov`` and ``gradient_scale`` (checked on it): with the defaults
    the two agree. ``use_locking`` has no meaning in minims, which runs one step at a time.
    """

    differentiable = False          # MindSpore 2.10: "ApplyMomentum's bprop not defined"

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        self.use_nesterov = bool(use_nesterov)
        self.use_locking = bool(use_locking)
        self.gradient_scale = float(gradient_scale)

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        if self.gradient_scale != 1.0:
            gradient = F.mul(gradient, self.gradient_scale)
        accumulation_now = F.add(F.mul(accumulation, momentum), gradient)
        step = F.add(gradient, F.mul(accumulation_now, momentum)) if self.use_nesterov else accumulation_now
        variable_now = F.sub(variable, F.mul(step, learning_rate))
        _write(accumulation, accumulation_now)
        _write(variable, variable_now)
        return variable_now
