"""Loss scaling for functional training loops: ``amp.StaticLossScaler`` and ``amp.DynamicLossScaler``.

Float16 gradients underflow: a gradient below 2^-24 is zero in Float16.  Loss scaling multiplies the
loss by ``scale_value`` before differentiating; by the chain rule every gradient is multiplied by the
same factor (``d(s*L)/dw = s * dL/dw``), which lifts the small ones into Float16's range, and
``unscale`` divides them back (in the gradients' own dtype, as MindSpore: ``g * cast(1/s)``).

* ``scale(inputs)`` / ``unscale(inputs)``: a Tensor, or a tuple/list of them (a tuple comes back);
* ``adjust(grads_finite)``: ``StaticLossScaler`` keeps its value (returns False);
  ``DynamicLossScaler`` multiplies it by ``scale_factor`` after ``scale_window`` finite steps in a row
  (if the product is finite) and divides it by ``scale_factor`` (not below 1) after a step whose
  gradients were not all finite, restarting the count (returns True).

``scale_value`` (Float32, shape ``[]``) and the dynamic scaler's ``counter`` (Int32) are Parameters,
updated with ``ops.assign``, so a ``jit``-compiled training step updates them too.  Checked against
MindSpore 2.10's documentation examples and its ``adjust`` sequence on the oracle.
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..core.tensor import Tensor
from ..primitives import functional as F
from ..tensors.convert import _describe
from ..tensors.parameter import Parameter

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler"]


def _check_scale_value(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"The type of 'scale_value' should be one of ['float', 'int'], but got {_describe(value)}.")
    if value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be >= 1, but got {value}. Fix: a power of two such "
                         "as 2**16.")
    return value


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"The '{name}' must be int, but got {_describe(value)}.")
    if value <= 0:
        raise ValueError(f"The '{name}' must be int and must be > 0, but got {value}.")
    return int(value)


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return tuple(fn(x) for x in inputs)
    return fn(inputs)


def _scale(scale_value, inputs):
    return _map(lambda g: F.mul(g, F.cast(scale_value, g.dtype)), inputs)


def _unscale(scale_value, inputs):
    return _map(lambda g: F.mul(g, F.cast(F.reciprocal(scale_value), g.dtype)), inputs)


class LossScaler:
    """``amp.LossScaler``: the interface — ``scale``, ``unscale``, ``adjust``."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """``amp.StaticLossScaler(scale_value)``: scales and unscales by a fixed value."""

    def __init__(self, scale_value):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, mstype.float32), name="scale_value")

    def scale(self, inputs):
        """``inputs`` times ``scale_value`` (each in its own dtype)."""
        return _scale(self.scale_value, inputs)

    def unscale(self, inputs):
        """``inputs`` times ``1 / scale_value`` (the reciprocal cast to each input's dtype)."""
        return _unscale(self.scale_value, inputs)

    def adjust(self, grads_finite):
        """The value is fixed: returns False."""
        return False


class DynamicLossScaler(LossScaler):
    """``amp.DynamicLossScaler(scale_value, scale_factor, scale_window)``: the largest scale that keeps
    the gradients finite (module docstring)."""

    def __init__(self, scale_value, scale_factor, scale_window):
        _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(scale_value, mstype.float32), name="scale_value")
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        self.scale_factor = _check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter")

    def scale(self, inputs):
        return _scale(self.scale_value, inputs)

    def unscale(self, inputs):
        return _unscale(self.scale_value, inputs)

    def adjust(self, grads_finite):
        """Update ``scale_value`` and ``counter`` from ``grads_finite`` (a Bool Tensor); returns True."""
        one = F.ones((), self.scale_value.dtype)
        grown = F.mul(self.scale_value, self.scale_factor)
        at_window = F.equal(self.counter, self.scale_window - 1)
        on_finite = F.select(at_window, F.select(F.lt(F.abs(grown), float("inf")), grown, self.scale_value),
                             self.scale_value)
        shrunk = F.maximum(one, F.div(self.scale_value, self.scale_factor))
        F.assign(self.scale_value, F.select(grads_finite, on_finite, shrunk))
        counter = F.mul(F.floor_mod(F.add(self.counter, 1), self.scale_window), F.cast(grads_finite, mstype.int32))
        F.assign(self.counter, counter)
        return True
