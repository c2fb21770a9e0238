"""``mindspore.experimental.optim.lr_scheduler``: change an experimental optimizer's learning rates
between steps (PyTorch's ``torch.optim.lr_scheduler``).

``scheduler.step()`` counts one step (or epoch: whatever the caller counts) and writes the new rate
of every group into the optimizer's ``'lr'`` Parameters; ``get_last_lr()`` returns them as Tensors.
With ``n`` the count and ``lr0`` a group's initial rate:

* ``StepLR(optimizer, step_size, gamma=0.1)``: ``lr0 * gamma ** (n // step_size)``;
* ``MultiStepLR(optimizer, milestones, gamma=0.1)``: ``lr0 * gamma ** (milestones passed)``;
* ``ExponentialLR(optimizer, gamma)``: ``lr0 * gamma ** n``.
"""
from __future__ import annotations

import bisect
import numbers

import numpy as np

from ... import ops
from ... import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR"]


class LRScheduler:
    """``LRScheduler(optimizer, last_epoch=-1)``: subclasses define ``_rate(lr0, n)``."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(self).__name__}: optimizer must be a mindspore.experimental.optim optimizer, "
                            f"but got {type(optimizer).__name__}. Fix: the nn optimizers take a schedule as "
                            "learning_rate= instead (nn.ExponentialDecayLR, a list of rates ...).")
        if isinstance(last_epoch, bool) or not isinstance(last_epoch, int) or last_epoch < -1:
            raise ValueError(f"{type(self).__name__}: last_epoch must be an int >= -1, but got {last_epoch!r}.")
        self.optimizer = optimizer
        self.base_lrs = [float(lr.asnumpy()) for lr in optimizer.lrs]
        self.last_epoch = last_epoch
        self.step()

    def get_last_lr(self):
        """The current rate of every group, as float32 Tensors."""
        return [Tensor(lr.asnumpy().copy()) for lr in self.optimizer.lrs]

    def step(self):
        self.last_epoch += 1
        for lr0, parameter in zip(self.base_lrs, self.optimizer.lrs):
            ops.assign(parameter, Tensor(np.float32(self._rate(lr0, self.last_epoch))))

    def _rate(self, lr0, n):
        raise NotImplementedError(f"{type(self).__name__} must define _rate(lr0, n).")


def _gamma(where, gamma):
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise TypeError(f"{where}: gamma must be a float, but got {type(gamma).__name__}.")
    return float(gamma)


class StepLR(LRScheduler):
    """``StepLR(optimizer, step_size, gamma=0.1, last_epoch=-1)``."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"StepLR: step_size must be a positive int, but got {step_size!r}.")
        self.step_size, self.gamma = step_size, _gamma("StepLR", gamma)
        super().__init__(optimizer, last_epoch)

    def _rate(self, lr0, n):
        return lr0 * self.gamma ** (n // self.step_size)


class MultiStepLR(LRScheduler):
    """``MultiStepLR(optimizer, milestones, gamma=0.1, last_epoch=-1)``."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        if not isinstance(milestones, (list, tuple)) or not all(isinstance(m, int) for m in milestones):
            raise TypeError(f"MultiStepLR: milestones must be a list of ints, but got {milestones!r}.")
        self.milestones, self.gamma = sorted(milestones), _gamma("MultiStepLR", gamma)
        super().__init__(optimizer, last_epoch)

    def _rate(self, lr0, n):
        return lr0 * self.gamma ** bisect.bisect_right(self.milestones, n)


class ExponentialLR(LRScheduler):
    """``ExponentialLR(optimizer, gamma, last_epoch=-1)``."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = _gamma("ExponentialLR", gamma)
        super().__init__(optimizer, last_epoch)

    def _rate(self, lr0, n):
        return lr0 * self.gamma ** n
