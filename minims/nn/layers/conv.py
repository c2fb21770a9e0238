"""``nn.Conv2d``: a 2-D convolution layer (cross-correlation, NCHW) over ``ops.Conv2D``.

The weight has shape ``(out_channels, in_channels / group, kh, kw)``.  Defaults are MindSpore 2.x's:
``pad_mode='same'``, no bias, weight ``HeUniform(sqrt(5))`` (``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``
with ``fan_in = in_channels / group * kh * kw``) and, when ``has_bias=True``, bias
``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``.  ``weight_init``/``bias_init`` may be names (``'ones'``),
Initializers (``TruncatedNormal(0.02)``) or Tensors of the right shape.
"""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...tensors.initializer import HeUniform, Uniform, _calculate_fan_in_and_fan_out, initializer
from ...tensors.parameter import Parameter
from ... import ops
from ...primitives import nn as _nn
from ...primitives.operands import ShapeMismatchError
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ..cell import Cell
from .basic import _check_bool, _positive_int

__all__ = ["Conv2d"]


def _twice(cls_name, name, value):
    """An int or a pair of ints as ``(h, w)``."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    if not (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
        raise ValueError(f"{cls_name}: {name} must be a positive int or a tuple of 2 positive ints, "
                         f"but got {value!r}.")
    return tuple(value)


class Conv2d(Cell):
    """``nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCHW')``.

    ``pad_mode``: ``'same'`` (output ``ceil(H / stride)``), ``'valid'`` (no padding) or ``'pad'``
    (``padding``: an int or ``(top, bottom, left, right)``; must be 0 in the other modes).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        self.in_channels = _positive_int("Conv2d", "in_channels", in_channels)
        self.out_channels = _positive_int("Conv2d", "out_channels", out_channels)
        self.kernel_size = _twice("Conv2d", "kernel_size", kernel_size)
        self.stride = _twice("Conv2d", "stride", stride)
        self.dilation = _twice("Conv2d", "dilation", dilation)
        self.group = _positive_int("Conv2d", "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                             f"both be divisible by group ({group}).")
        self.has_bias = _check_bool("Conv2d", "has_bias", has_bias)
        self.pad_mode = pad_mode
        self.padding = padding
        self.data_format = data_format
        # the primitive checks pad_mode, padding and data_format (and says how to fix them)
        self.conv2d = _nn.Conv2D(out_channels, self.kernel_size, 1, pad_mode, padding, self.stride,
                                 self.dilation, group, data_format)
        shape = (out_channels, in_channels // group) + self.kernel_size
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != shape:
            raise ValueError(f"Conv2d: weight_init must have shape {list(shape)} (out_channels, "
                             f"in_channels/group, kh, kw), but got {list(weight_init.shape)}.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight_init = weight_init
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in, _ = _calculate_fan_in_and_fan_out(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")

    def construct(self, x):
        if not isinstance(x, Tensor):           # TypeError, as MindSpore
            raise TypeError(f"{self.path}: Conv2d expects a Tensor input, but got {_describe(x)}. "
                            "Fix: wrap the data first, e.g. Tensor(x) (ms.dataset.batches yields Tensors).")
        if x.ndim != 4:
            got = f"shape {list(x.shape)}" if isinstance(x, Tensor) else _describe(x)
            fix = (" Fix: add the batch dimension, e.g. x.reshape((1,) + x.shape) for one image."
                   if isinstance(x, Tensor) and x.ndim == 3 else
                   " Fix: reshape the data to (batch, channels, height, width).")
            raise ValueError(f"{self.path}: Conv2d expects a 4-D input (N, C, H, W), but got {got}.{fix}")
        if x.shape[1] != self.in_channels:
            raise ShapeMismatchError(f"{self.path}: Conv2d(in_channels={self.in_channels}, ...) got an input with "
                             f"{x.shape[1]} channels (shape {list(x.shape)}). Fix: build "
                             f"Conv2d({x.shape[1]}, ...) or feed {self.in_channels} channels (axis 1 of NCHW).")
        out = self.conv2d(x, self.weight)
        if self.has_bias:
            out = ops.add(out, ops.reshape(self.bias, (1, self.out_channels, 1, 1)))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}, weight_init={self.weight_init}, bias_init={self.bias_init}, "
                f"format={self.data_format}")
