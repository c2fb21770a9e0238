"""Learning-rate schedules as lists, one rate per step (MindSpore's ``nn.piecewise_constant_lr``).

An optimizer given a list (or a 1-D Tensor) uses entry ``global_step`` at each step; minims keeps
using the last entry once the list is used up.
"""
from __future__ import annotations

__all__ = ["piecewise_constant_lr"]


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
