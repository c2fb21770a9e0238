"""``amp.FixedLossScaleManager`` and ``amp.DynamicLossScaleManager`` (also MindSpore's
``mindspore.train.loss_scale_manager``): the loss scale as host-side Python numbers, and the update
Cell a ``nn.TrainOneStepWithLossScaleCell`` runs (``get_update_cell``).  MindSpore 2.10's rules."""
from __future__ import annotations

from .. import nn
from .loss_scaler import _check_positive_int

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


class LossScaleManager:
    """``amp.LossScaleManager``: the interface."""

    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)``: a fixed scale; with
    ``drop_overflow_update`` an overflowing step skips its update (``nn.FixedLossScaleUpdateCell``)."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}.")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to update."""

    def get_update_cell(self):
        return nn.FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager(LossScaleManager):
    """``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)``: the scale
    divided by ``scale_factor`` (not below 1) on an overflow, multiplied by it after ``scale_window``
    steps without one."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be >= 1, but got {init_loss_scale}.")
        self.loss_scale = init_loss_scale
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}.")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """One step's update (host side, on Python numbers)."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale: {self.bad_step} overflows in a row, more than the maximum "
                               f"{self.bad_step_max}. Fix: look for an inf or NaN that is not an overflow (a "
                               "log of 0, a division by 0) with amp.all_finite on the gradients.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
