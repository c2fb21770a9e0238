"""``nn.Adam``: adaptive moment estimation (Kingma & Ba), as MindSpore's ``ApplyAdam``::

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g**2
    lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)       (bias correction, t = 1, 2, ...)
    p = p - lr_t * m / (sqrt(v) + eps)
    p = p - lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)   (use_nesterov=True)
    vhat = max(vhat, v); p = p - lr_t * m / (sqrt(vhat) + eps)      (use_amsgrad=True)

AMSGrad (Reddi, Kale and Kumar, 2018) divides by the largest second moment seen so far, so a
parameter's step never grows back when its gradients shrink.  With ``use_amsgrad=True`` MindSpore
2.10 ignores ``use_nesterov``; so does minims.

Weight decay is added to the gradient first (L2 regularisation, not AdamW's decoupled decay).
"""
from __future__ import annotations

import numpy as np

from ...tensors.parameter import Parameter
from ... import ops
from ...core.tensor import Tensor
from .optimizer import Optimizer, _check_float

__all__ = ["Adam"]


class Adam(Optimizer):
    """``nn.Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False)``."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, v in (("beta1", beta1), ("beta2", beta2)):
            _check_float("Adam", name, v)
            if not 0 < v < 1:
                raise ValueError(f"Adam: {name} must be in (0, 1), but got {v}.")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        # 1 - beta in float32, as MindSpore's kernels compute it: the moments then agree with the
        # bias correction, which uses the float32 powers of beta (else the first step is off by 1e-5)
        self._rest1, self._rest2 = (float(np.float32(1) - np.float32(b)) for b in (beta1, beta2))
        self.eps = _check_float("Adam", "eps", eps, 0.0, strict=True)
        for name, v in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                        ("use_amsgrad", use_amsgrad)):
            if not isinstance(v, bool):
                raise TypeError(f"Adam: {name} must be a bool, but got {v!r}.")
        self.use_locking, self.use_nesterov, self.use_amsgrad = use_locking, use_nesterov, use_amsgrad
        self.moment1 = self._state(self.parameters, "moment1")
        self.moment2 = self._state(self.parameters, "moment2")
        if use_amsgrad:
            self.vhat = self._state(self.parameters, "vhat")
        # beta1**t and beta2**t, kept as Parameters so that a compiled step advances them too
        self.beta1_power = Parameter(Tensor(np.ones(1, np.float32)), name="beta1_power", requires_grad=False)
        self.beta2_power = Parameter(Tensor(np.ones(1, np.float32)), name="beta2_power", requires_grad=False)

    def _begin_step(self):
        ops.assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        ops.assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))

    def _update(self, i, param, grad, lr):
        b1, b2 = self.beta1, self.beta2
        m = ops.add(ops.mul(self.moment1[i], b1), ops.mul(grad, self._rest1))
        v = ops.add(ops.mul(self.moment2[i], b2), ops.mul(ops.square(grad), self._rest2))
        ops.assign(self.moment1[i], m)
        ops.assign(self.moment2[i], v)
        # bias correction folded into the rate: lr * sqrt(1 - beta2**t) / (1 - beta1**t)
        lr_t = ops.div(ops.mul(lr, ops.sqrt(ops.sub(1.0, self.beta2_power))), ops.sub(1.0, self.beta1_power))
        lr_t = ops.cast(ops.reshape(lr_t, ()), param.dtype)       # a scalar: keeps a 0-d param 0-d
        if self.use_amsgrad:
            vhat = ops.maximum(self.vhat[i], v)
            ops.assign(self.vhat[i], vhat)
            step = ops.div(m, ops.add(ops.sqrt(vhat), self.eps))
            return ops.sub(param, ops.mul(step, lr_t))
        direction = ops.add(ops.mul(m, b1), ops.mul(grad, self._rest1)) if self.use_nesterov else m
        step = ops.div(direction, ops.add(ops.sqrt(v), self.eps))
        return ops.sub(param, ops.mul(step, lr_t))
