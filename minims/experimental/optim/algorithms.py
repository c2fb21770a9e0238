"""``experimental.optim.SGD``, ``Adam`` and ``AdamW``: PyTorch's signatures, MindSpore 2.10's updates.

With ``t`` the step (1, 2, ...), ``g`` the gradient (negated with ``maximize=True``), and
``weight_decay`` added to it as ``g + wd * p`` except in AdamW:

* ``SGD``: the rule of ``nn.SGD`` (PyTorch's): ``buf = g`` on the first step, then
  ``momentum * buf + (1 - dampening) * g``; ``p -= lr * (g + momentum * buf if nesterov else buf)``;
* ``Adam``: the rule of ``nn.Adam`` (MindSpore's ``Adam`` kernel) with ``beta ** t`` computed by
  ``pow``: ``p -= lr * sqrt(1 - b2**t) / (1 - b1**t) * m / (sqrt(v) + eps)``.  With
  ``amsgrad=True`` minims divides by ``sqrt(max(v))`` as ``nn.Adam(use_amsgrad=True)`` does —
  MindSpore 2.10's experimental Adam accepts ``amsgrad`` but never applies it;
* ``AdamW`` (Loshchilov and Hutter): decoupled decay ``p *= 1 - lr * wd``, then
  ``p -= lr / (1 - b1**t) * m / (sqrt(v) / sqrt(1 - b2**t) + eps)`` (``max(v)`` with ``amsgrad``).

Updates are written in minims ops and stored with ``ops.assign``, as ``nn`` optimizers do.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import dtype as mstype
from ... import ops
from ... import Parameter, Tensor
from .optimizer import Optimizer

__all__ = ["SGD", "Adam", "AdamW"]


def _check_betas(where, betas, eps, weight_decay):
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"{where}: betas must be a pair (beta1, beta2), but got {betas!r}.")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not isinstance(weight_decay, numbers.Real) or isinstance(weight_decay, bool):
        raise TypeError(f"{where}: weight_decay must be int or float, but got {type(weight_decay).__name__}.")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _gradient(group, grad, param):
    """The gradient a rule uses: negated to maximize, plus weight decay."""
    g = ops.neg(grad) if group["maximize"] else grad
    if group["weight_decay"]:
        g = ops.add(g, ops.mul(param, group["weight_decay"]))
    return g


class SGD(Optimizer):
    """``SGD(params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False)``."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False):
        if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
            raise TypeError(f"SGD: momentum must be int or float, but got {type(momentum).__name__}.")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        for name, v in (("nesterov", nesterov), ("maximize", maximize)):
            if not isinstance(v, bool):
                raise TypeError(f"SGD: {name} must be a bool, but got {v!r}.")
        defaults = dict(lr=lr, momentum=float(momentum), dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, grad_centralization=False)
        super().__init__(params, defaults)
        for group in self.param_groups:
            group["dampening"] = float(group["dampening"])
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must "
                             f"equal to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}.")
        self._grow_state()

    def _grow_state(self):
        self.accum = self._state("accum")
        self.stat = self._state("stat", 1.0)          # 1 until a parameter's first step

    def construct(self, gradients):
        for group, indexes, lr in self._groups(gradients):
            for i in indexes:
                p = self.parameters[i]
                g = _gradient(group, gradients[i], p)
                momentum = group["momentum"]
                if momentum:
                    later = ops.add(ops.mul(self.accum[i], momentum), ops.mul(g, 1 - group["dampening"]))
                    buf = ops.select(ops.gt(self.stat[i], 0), g, later)
                    ops.assign(self.accum[i], buf)
                    ops.assign(self.stat[i], ops.zeros_like(self.stat[i]))
                    g = ops.add(g, ops.mul(buf, momentum)) if group["nesterov"] else buf
                ops.assign(p, ops.sub(p, ops.mul(g, ops.cast(lr, p.dtype))))
        return True


class _AdamBase(Optimizer):
    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad, maximize):
        _check_betas(type(self).__name__, betas, eps, weight_decay)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize}
        super().__init__(params, defaults)
        self.state_step = Parameter(Tensor(np.int32(0)), name="state_step", requires_grad=False)
        self._grow_state()

    def _grow_state(self):
        self.exp_avg = self._state("exp_avg")
        self.exp_avg_sq = self._state("exp_avg_sq")
        self.max_exp_avg_sq = self._state("max_exp_avg_sq")

    def _moments(self, i, g, beta1, beta2, amsgrad):
        """Update the moments of parameter ``i``; returns ``(m, v or max v)``."""
        m = ops.add(ops.mul(self.exp_avg[i], beta1), ops.mul(g, float(np.float32(1) - np.float32(beta1))))
        v = ops.add(ops.mul(self.exp_avg_sq[i], beta2), ops.mul(ops.square(g), float(np.float32(1) - np.float32(beta2))))
        ops.assign(self.exp_avg[i], m)
        ops.assign(self.exp_avg_sq[i], v)
        if amsgrad:
            v = ops.maximum(self.max_exp_avg_sq[i], v)
            ops.assign(self.max_exp_avg_sq[i], v)
        return m, v

    def construct(self, gradients):
        ops.assign(self.state_step, ops.add(self.state_step, 1))
        step = ops.cast(self.state_step, mstype.float32)
        for group, indexes, lr in self._groups(gradients):
            beta1, beta2 = group["betas"]
            power1, power2 = ops.pow(float(beta1), step), ops.pow(float(beta2), step)
            for i in indexes:
                self._update(group, i, gradients[i], lr, beta1, beta2, power1, power2)
        return True


class Adam(_AdamBase):
    """``Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *, maximize=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def _update(self, group, i, grad, lr, beta1, beta2, power1, power2):
        p = self.parameters[i]
        m, v = self._moments(i, _gradient(group, grad, p), beta1, beta2, group["amsgrad"])
        lr_t = ops.div(ops.mul(lr, ops.sqrt(ops.sub(1.0, power2))), ops.sub(1.0, power1))
        step = ops.div(m, ops.add(ops.sqrt(v), group["eps"]))
        ops.assign(p, ops.sub(p, ops.mul(step, ops.cast(lr_t, p.dtype))))


class AdamW(_AdamBase):
    """``AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, amsgrad=False, *, maximize=False)``."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def _update(self, group, i, grad, lr, beta1, beta2, power1, power2):
        p = self.parameters[i]
        g = ops.neg(grad) if group["maximize"] else grad
        decayed = ops.mul(p, ops.sub(1.0, ops.mul(lr, group["weight_decay"])))
        m, v = self._moments(i, g, beta1, beta2, group["amsgrad"])
        step_size = ops.div(lr, ops.sub(1.0, power1))
        denom = ops.add(ops.div(ops.sqrt(v), ops.sqrt(ops.sub(1.0, power2))), group["eps"])
        ops.assign(p, ops.sub(decayed, ops.mul(ops.div(m, denom), ops.cast(step_size, p.dtype))))
