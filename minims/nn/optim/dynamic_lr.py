"""Learning-rate schedules as lists, one rate per step (MindSpore's dynamic LR functions:
``nn.piecewise_constant_lr``, ``nn.exponential_decay_lr`` ...).

An optimizer given a list (or a 1-D Tensor) uses entry ``global_step`` at each step; minims keeps
using the last entry once the list is used up (MindSpore 2.10 stops with an out-of-range Gather).

The decay functions count in epochs: step ``i`` is in epoch ``e = floor(i / step_per_epoch)``, and
with ``p = e / decay_epoch`` (``floor``-ed with ``is_stair``):

* ``exponential_decay_lr``: ``lr * decay_rate ** p``;
* ``natural_exp_decay_lr``: ``lr * exp(-decay_rate * e)`` (``floor(e / decay_epoch) * decay_epoch``
  with ``is_stair``), as MindSpore computes it;
* ``inverse_decay_lr``: ``lr / (1 + decay_rate * p)``;
* ``cosine_decay_lr``: ``min_lr + (max_lr - min_lr) * (1 + cos(pi * min(e, decay_epoch) / decay_epoch)) / 2``;
* ``polynomial_decay_lr``: ``(lr - end) * (1 - min(e, decay_epoch) / decay_epoch) ** power + end``;
  with ``update_decay_epoch`` the horizon is the next multiple of ``decay_epoch`` at or after ``e``;
* ``warmup_lr``: ``lr * min(e, warmup_epoch) / warmup_epoch``.

They return Python floats, computed in float64.
"""
from __future__ import annotations

import math

from ..learning_rate_schedule import check_float, check_int

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    """``learning_rates[i]`` for the steps before ``milestone[i]`` (and after ``milestone[i - 1]``).

    ``piecewise_constant_lr([2, 5], [0.1, 0.05])`` is ``[0.1, 0.1, 0.05, 0.05, 0.05]``.
    """
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError("piecewise_constant_lr: milestone and learning_rates must be lists.")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"piecewise_constant_lr: milestone ({len(milestone)}) and learning_rates "
                         f"({len(learning_rates)}) must have the same length.")
    rates, last = [], 0
    for m, lr in zip(milestone, learning_rates):
        if isinstance(m, bool) or not isinstance(m, int) or m <= last:
            raise ValueError(f"piecewise_constant_lr: milestone must be increasing positive ints, got {milestone}.")
        rates += [float(lr)] * (m - last)
        last = m
    return rates


def _epochs(where, total_step, step_per_epoch, decay_epoch, decay_name="decay_epoch"):
    """The epoch of every step, after checking the three counts."""
    total_step = check_int(where, "total_step", total_step)
    step_per_epoch = check_int(where, "step_per_epoch", step_per_epoch)
    check_int(where, decay_name, decay_epoch)
    return [i // step_per_epoch for i in range(total_step)]


def _stair(where, is_stair):
    if not isinstance(is_stair, bool):
        raise TypeError(f"For '{where}', the 'is_stair' must be bool, but got '{type(is_stair).__name__}'.")
    return is_stair


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``[learning_rate * decay_rate ** p for each step]`` (see the module docstring)."""
    where = "exponential_decay_lr"
    check_float(where, "learning_rate", learning_rate)
    check_float(where, "decay_rate", decay_rate)
    stair = _stair(where, is_stair)
    return [learning_rate * decay_rate ** (e // decay_epoch if stair else e / decay_epoch)
            for e in _epochs(where, total_step, step_per_epoch, decay_epoch)]


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``[learning_rate * e ** (-decay_rate * epoch) for each step]`` (see the module docstring)."""
    where = "natural_exp_decay_lr"
    check_float(where, "learning_rate", learning_rate)
    check_float(where, "decay_rate", decay_rate)
    stair = _stair(where, is_stair)
    return [learning_rate * math.e ** (-decay_rate * (e // decay_epoch * decay_epoch if stair else e))
            for e in _epochs(where, total_step, step_per_epoch, decay_epoch)]


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """``[learning_rate / (1 + decay_rate * p) for each step]`` (see the module docstring)."""
    where = "inverse_decay_lr"
    check_float(where, "learning_rate", learning_rate)
    check_float(where, "decay_rate", decay_rate)
    stair = _stair(where, is_stair)
    return [learning_rate / (1 + decay_rate * (e // decay_epoch if stair else e / decay_epoch))
            for e in _epochs(where, total_step, step_per_epoch, decay_epoch)]


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """Cosine annealing from ``max_lr`` to ``min_lr`` over ``decay_epoch`` epochs."""
    where = "cosine_decay_lr"
    check_float(where, "min_lr", min_lr, strict=False)
    check_float(where, "max_lr", max_lr)
    if min_lr >= max_lr:
        raise ValueError(f"For '{where}', the 'max_lr' must be greater than the 'min_lr', but got "
                         f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
    half = 0.5 * (max_lr - min_lr)
    return [min_lr + half * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in _epochs(where, total_step, step_per_epoch, decay_epoch)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """Polynomial decay from ``learning_rate`` to ``end_learning_rate`` (see the module docstring)."""
    where = "polynomial_decay_lr"
    check_float(where, "learning_rate", learning_rate)
    check_float(where, "end_learning_rate", end_learning_rate, strict=False)
    check_float(where, "power", power)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"For '{where}', the 'update_decay_epoch' must be bool.")
    rates = []
    for e in _epochs(where, total_step, step_per_epoch, decay_epoch):
        if update_decay_epoch:
            horizon = decay_epoch * max(math.ceil(e / decay_epoch), 1)
        else:
            horizon, e = decay_epoch, min(e, decay_epoch)
        rates.append((learning_rate - end_learning_rate) * (1 - e / horizon) ** power + end_learning_rate)
    return rates


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """A linear rise from 0 to ``learning_rate`` over ``warmup_epoch`` epochs."""
    where = "warmup_lr"
    check_float(where, "learning_rate", learning_rate)
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch
            for e in _epochs(where, total_step, step_per_epoch, warmup_epoch, "warmup_epoch")]
