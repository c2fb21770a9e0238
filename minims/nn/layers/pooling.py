"""Pooling layers: ``nn.MaxPool2d`` and ``nn.AvgPool2d`` (NCHW).

``pad_mode`` ``'valid'`` or ``'same'`` uses the primitives ``ops.MaxPool``/``ops.AvgPool``; ``'pad'``
(explicit ``padding``, ``ceil_mode``, ...) uses the functional ``ops.max_pool2d``/``ops.avg_pool2d``,
as MindSpore 2.x's layers do.
"""
from __future__ import annotations

from ... import ops
from ...primitives import nn as _nn
from ..cell import Cell

__all__ = ["MaxPool2d", "AvgPool2d"]


def _mode(cls_name, pad_mode):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"{cls_name}: pad_mode must be 'valid', 'same' or 'pad', but got {pad_mode!r}.")
    return pad_mode.lower()


def _check_no_padding(cls_name, pad_mode, padding):
    if pad_mode != "pad" and padding not in (0, (0, 0), (0, 0, 0, 0)):
        raise ValueError(f"{cls_name}: padding must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}. "
                         "Fix: use pad_mode='pad' for explicit padding.")


class MaxPool2d(Cell):
    """``nn.MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False, data_format='NCHW')``: the maximum of each window."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__()
        self.pad_mode = _mode("MaxPool2d", pad_mode)
        _check_no_padding("MaxPool2d", self.pad_mode, padding)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode
        self.use_functional = self.pad_mode == "pad" or return_indices or ceil_mode or dilation != 1
        if self.use_functional:
            if self.pad_mode == "same":
                raise ValueError("MaxPool2d: dilation, return_indices and ceil_mode need pad_mode 'valid' "
                                 "or 'pad', not 'same'.")
        else:
            self.max_pool = _nn.MaxPool(kernel_size, stride, self.pad_mode, data_format)

    def construct(self, x):
        if self.use_functional:
            return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                 self.return_indices, self.ceil_mode)
        return self.max_pool(x)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"


class AvgPool2d(Cell):
    """``nn.AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None, data_format='NCHW')``: the mean of each window."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__()
        self.pad_mode = _mode("AvgPool2d", pad_mode)
        _check_no_padding("AvgPool2d", self.pad_mode, padding)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override
        self.use_functional = self.pad_mode == "pad" or ceil_mode or divisor_override
        if self.use_functional:
            if self.pad_mode == "same":
                raise ValueError("AvgPool2d: ceil_mode and divisor_override need pad_mode 'valid' or 'pad', "
                                 "not 'same'.")
        else:
            self.avg_pool = _nn.AvgPool(kernel_size, stride, self.pad_mode, data_format)

    def construct(self, x):
        if self.use_functional:
            return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                 self.count_include_pad, self.divisor_override or 0)
        return self.avg_pool(x)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"
