"""Learning-rate schedules as Cells (MindSpore's ``mindspore.nn.learning_rate_schedule``).

A schedule is called with the optimizer's step counter and returns that step's rate, a float32
Tensor; an optimizer given one as ``learning_rate`` (or as a group's ``'lr'``) calls it on every
step with its ``global_step`` (0 on the first step).  ``construct`` is written in minims ops, so a
compiled training step computes the rate from the counter's current value.

With ``p = step / decay_steps`` (``floor``-ed when ``is_stair=True``):

* ``ExponentialDecayLR``: ``lr * decay_rate ** p``;
* ``NaturalExpDecayLR``: ``lr * exp(-decay_rate * step)`` — MindSpore 2.10 uses the step itself, not
  ``p`` (``floor(step / decay_steps) * decay_steps`` with ``is_stair``), whatever its formula says;
* ``InverseDecayLR``: ``lr / (1 + decay_rate * p)``;
* ``CosineDecayLR``: ``min_lr + (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2``;
* ``PolynomialDecayLR``: ``(lr - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end``;
  with ``update_decay_steps=True`` the horizon grows to the next multiple of ``decay_steps``
  instead of stopping;
* ``WarmUpLR``: ``lr * min(step, warmup_steps) / warmup_steps``.
"""
from __future__ import annotations

import math
import numbers

from .. import dtype as mstype
from .. import ops
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


def check_float(where, name, value, low=0.0, strict=True):
    """A float (not an int: TypeError, as MindSpore) above ``low`` (or at least ``low``)."""
    if not isinstance(value, float):
        example = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else 0.1
        raise TypeError(f"For '{where}', the '{name}' must be float, but got '{type(value).__name__}'. "
                        f"Fix: write it as a float, e.g. {name}={example!r}.")
    if not math.isfinite(value) or value < low or (strict and value == low):
        rel = ">" if strict else ">="
        raise ValueError(f"For '{where}', the '{name}' must be float and must {rel} {low:g}, but got {value}.")
    return value


def check_int(where, name, value, low=1):
    """An int of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{where}', the '{name}' must be int, but got '{type(value).__name__}'.")
    if value < low:
        raise ValueError(f"For '{where}', the '{name}' must be int and must >= {low}, but got {value}.")
    return int(value)


def _check_bool(where, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{where}', the '{name}' must be bool, but got '{type(value).__name__}'.")
    return value


def _steps(global_step):
    """The step counter as float32 (a Tensor, or a Python number in eager use)."""
    if not isinstance(global_step, ops.Tensor):
        global_step = ops.Tensor(global_step, mstype.int32)
    return ops.cast(global_step, mstype.float32)


class LearningRateSchedule(Cell):
    """The base of the schedules: ``construct(global_step)`` returns the rate of that step."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step).")


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        where = type(self).__name__
        self.learning_rate = check_float(where, "learning_rate", learning_rate)
        self.decay_rate = check_float(where, "decay_rate", decay_rate)
        self.decay_steps = check_int(where, "decay_steps", decay_steps)
        self.is_stair = _check_bool(where, "is_stair", is_stair)

    def _p(self, global_step):
        p = ops.div(_steps(global_step), float(self.decay_steps))
        return ops.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    """``ExponentialDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``."""

    def construct(self, global_step):
        return ops.mul(ops.pow(self.decay_rate, self._p(global_step)), self.learning_rate)


class NaturalExpDecayLR(_DecayLR):
    """``NaturalExpDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``."""

    def construct(self, global_step):
        step = _steps(global_step)
        if self.is_stair:
            step = ops.mul(ops.floor(ops.div(step, float(self.decay_steps))), float(self.decay_steps))
        return ops.mul(ops.exp(ops.mul(step, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_DecayLR):
    """``InverseDecayLR(learning_rate, decay_rate, decay_steps, is_stair=False)``."""

    def construct(self, global_step):
        return ops.div(self.learning_rate, ops.add(ops.mul(self._p(global_step), self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """``CosineDecayLR(min_lr, max_lr, decay_steps)``."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        where = "CosineDecayLR"
        self.min_lr = check_float(where, "min_lr", min_lr, strict=False)
        self.max_lr = check_float(where, "max_lr", max_lr)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For '{where}', the 'max_lr' must be greater than the 'min_lr', but got "
                             f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
        self.decay_steps = check_int(where, "decay_steps", decay_steps)

    def construct(self, global_step):
        step = ops.minimum(_steps(global_step), float(self.decay_steps))
        cosine = ops.cos(ops.mul(step, math.pi / self.decay_steps))
        return ops.add(ops.mul(ops.add(cosine, 1.0), 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """``PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False)``."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        where = "PolynomialDecayLR"
        self.learning_rate = check_float(where, "learning_rate", learning_rate)
        self.end_learning_rate = check_float(where, "end_learning_rate", end_learning_rate, strict=False)
        self.decay_steps = check_int(where, "decay_steps", decay_steps)
        self.power = check_float(where, "power", power)
        self.update_decay_steps = _check_bool(where, "update_decay_steps", update_decay_steps)

    def construct(self, global_step):
        step = _steps(global_step)
        if self.update_decay_steps:
            # the next multiple of decay_steps at or after the step (at least one): ceil via -floor(-x)
            periods = ops.maximum(ops.neg(ops.floor(ops.neg(ops.div(step, float(self.decay_steps))))), 1.0)
            horizon = ops.mul(periods, float(self.decay_steps))
        else:
            step = ops.minimum(step, float(self.decay_steps))
            horizon = float(self.decay_steps)
        left = ops.sub(1.0, ops.div(step, horizon))
        delta = self.learning_rate - self.end_learning_rate
        return ops.add(ops.mul(ops.pow(left, self.power), delta), self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """``WarmUpLR(learning_rate, warmup_steps)``."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        where = "WarmUpLR"
        self.learning_rate = check_float(where, "learning_rate", learning_rate)
        self.warmup_steps = check_int(where, "warmup_steps", warmup_steps)

    def construct(self, global_step):
        step = ops.minimum(_steps(global_step), float(self.warmup_steps))
        return ops.mul(ops.div(step, float(self.warmup_steps)), self.learning_rate)
