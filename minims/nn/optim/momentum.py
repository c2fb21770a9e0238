"""``nn.Momentum``: gradient descent with momentum (MindSpore's ``ApplyMomentum``)::

    accum = momentum * accum + g
    p = p - lr * accum                        (use_nesterov=False)
    p = p - lr * (g + momentum * accum)       (use_nesterov=True)

Unlike SGD, the first step also goes through the formula (``accum`` starts at zero, so it is ``g``).
"""
from __future__ import annotations

import numpy as np

from ... import ops
from ...tensors import undo
from .eager_update import plain_eager, same_float_arrays
from .optimizer import Optimizer, _check_float

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``nn.Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = _check_float("Momentum", "momentum", momentum)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"Momentum: use_nesterov must be a bool, but got {use_nesterov!r}.")
        self.use_nesterov = use_nesterov
        self.moments = self._state(self.parameters, "moments")

    def _update(self, i, param, grad, lr):
        accum = ops.add(ops.mul(self.moments[i], self.momentum), grad)
        ops.assign(self.moments[i], accum)
        step = ops.add(grad, ops.mul(accum, self.momentum)) if self.use_nesterov else accum
        return ops.sub(param, ops.mul(step, lr))

    def _update_arrays(self, grads, lrs) -> bool:
        # _update's four ops on the arrays, each rounded as the op rounds it (eager_update.py)
        if self.use_nesterov or type(self.momentum) is not float or not plain_eager():
            return False
        params, moments = self.parameters, self.moments
        if not all(same_float_arrays(p, m, g, lr) for p, m, g, lr in zip(params, moments, grads, lrs)):
            return False
        for p, m, g, lr in zip(params, moments, grads, lrs):
            accum = np.multiply(m._data, self.momentum)     # a Python float: weak, as ops.mul takes it
            np.add(accum, g._data, out=accum)
            undo.write(m, accum)
            new = np.multiply(accum, lr._data)
            np.subtract(p._data, new, out=new)
            undo.write(p, new)
        return True
