"""``nn.SGD``: stochastic gradient descent with optional momentum, dampening and Nesterov.

MindSpore's rule (its SGD kernel, the same as PyTorch's)::

    first step:  accum = g
    later:       accum = momentum * accum + (1 - dampening) * g
    p = p - lr * (g + momentum * accum)     (nesterov)
    p = p - lr * accum                      (otherwise; with momentum = 0: p - lr * g)
"""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, _check_float

__all__ = ["SGD"]


class SGD(Optimizer):
    """``nn.SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0)``."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.dynamic_weight_decay:
            raise TypeError("SGD: dynamic weight decay is not supported (as in MindSpore 2.10): "
                            "'weight_decay', also in grouped 'params', must be a float or int. Fix: a "
                            "float, or nn.Momentum / nn.Adam, which take a weight-decay Cell.")
        self.momentum = _check_float("SGD", "momentum", momentum)
        self.dampening = _check_float("SGD", "dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"SGD: nesterov must be a bool, but got {nesterov!r}.")
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError(f"SGD: nesterov=True needs momentum > 0 and dampening = 0, but got momentum "
                             f"{momentum}, dampening {dampening}.")
        self.nesterov = nesterov
        self.accum = self._state(self.parameters, "accum")
        self.stat = self._state(self.parameters, "stat", 1.0)   # 1 until a parameter's first step

    def _update(self, i, param, grad, lr):
        if self.momentum > 0:
            accum, stat = self.accum[i], self.stat[i]
            later = ops.add(ops.mul(accum, self.momentum), ops.mul(grad, 1 - self.dampening))
            # stat is 1 until the parameter's first step: then the accumulator starts at g
            new_accum = ops.select(ops.gt(stat, 0), grad, later)
            ops.assign(accum, new_accum)
            ops.assign(stat, ops.zeros_like(stat))
            grad = ops.add(grad, ops.mul(new_accum, self.momentum)) if self.nesterov else new_accum
        return ops.sub(param, ops.mul(grad, lr))
