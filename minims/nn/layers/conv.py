"""``nn.Conv2d``: a 2-D convolution layer (cross-correlation, NCHW) over ``ops.Conv2D``, and
``nn.Conv2dTranspose``, its transpose (the gradient of a convolution with respect to its input) over
``ops.Conv2DTranspose``.

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

__all__ = ["Conv2d", "Conv2dTranspose"]


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
        return _conv_repr(self)


def _conv_repr(cell):
    return (f"input_channels={cell.in_channels}, output_channels={cell.out_channels}, "
            f"kernel_size={cell.kernel_size}, stride={cell.stride}, pad_mode={cell.pad_mode}, "
            f"padding={cell.padding}, dilation={cell.dilation}, group={cell.group}, "
            f"has_bias={cell.has_bias}, weight_init={cell.weight_init}, bias_init={cell.bias_init}, "
            f"format={cell.data_format}")


def _transposed_length(pad_mode, size, kernel, stride, dilation, padding):
    """The output length of a transposed convolution along one axis (the input length of the
    convolution it transposes)."""
    if pad_mode == "same":
        return size * stride
    length = (size - 1) * stride + dilation * (kernel - 1) + 1
    return length - padding if pad_mode == "pad" else length


class Conv2dTranspose(Cell):
    """``nn.Conv2dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None)``.

    The weight has shape ``(in_channels, out_channels / group, kh, kw)`` (that of the convolution from
    ``out_channels`` to ``in_channels`` it transposes) and the same defaults as ``nn.Conv2d``.  The
    output is ``H * stride`` high with ``'same'``, ``(H - 1) * stride + dilation * (kh - 1) + 1`` with
    ``'valid'``, that minus the top and bottom padding with ``'pad'``, where ``output_padding`` zeros
    are then added at the bottom and right.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        super().__init__()
        name = "Conv2dTranspose"
        self.in_channels = _positive_int(name, "in_channels", in_channels)
        self.out_channels = _positive_int(name, "out_channels", out_channels)
        self.kernel_size = _twice(name, "kernel_size", kernel_size)
        self.stride = _twice(name, "stride", stride)
        self.dilation = _twice(name, "dilation", dilation)
        self.group = _positive_int(name, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                             f"both be divisible by group ({group}).")
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.pad_mode, self.padding, self.data_format = pad_mode, padding, "NCHW"
        pads = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
        self._pads = (pads[0] + pads[1], pads[2] + pads[3])
        self.output_padding = _output_padding(output_padding, self.stride, self.dilation, pad_mode)
        # the primitive checks pad_mode and padding (and says how to fix them)
        self.conv2d_transpose = _nn.Conv2DTranspose(in_channels, self.kernel_size, pad_mode, padding,
                                                    stride=self.stride, dilation=self.dilation, group=group)
        shape = (in_channels, out_channels // group) + self.kernel_size
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in, _ = _calculate_fan_in_and_fan_out(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")

    def construct(self, x):
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError(f"{self.path}: Conv2dTranspose(in_channels={self.in_channels}, ...) expects a 4-D "
                             f"input (N, {self.in_channels}, H, W), but got {_describe(x)}. Fix: reshape the data "
                             "to (batch, channels, height, width).")
        if x.shape[1] != self.in_channels:       # RuntimeError on MindSpore 2.10 (its kernel fails)
            raise ShapeMismatchError(f"{self.path}: Conv2dTranspose(in_channels={self.in_channels}, ...) got an input "
                                     f"with {x.shape[1]} channels (shape {list(x.shape)}). Fix: build "
                                     f"Conv2dTranspose({x.shape[1]}, ...) or feed {self.in_channels} channels.")
        n, _, h, w = x.shape
        out_h, out_w = (_transposed_length(self.pad_mode, size, k, s, d, p) for size, k, s, d, p in zip(
            (h, w), self.kernel_size, self.stride, self.dilation, self._pads))
        out = self.conv2d_transpose(x, self.weight, (n, self.out_channels, out_h, out_w))
        if self.has_bias:
            out = ops.add(out, ops.reshape(self.bias, (1, self.out_channels, 1, 1)))
        extra_h, extra_w = self.output_padding
        if extra_h or extra_w:
            out = ops.concat((out, ops.zeros((n, self.out_channels, extra_h, out_w), out.dtype)), 2)
            out = ops.concat((out, ops.zeros((n, self.out_channels, out_h + extra_h, extra_w), out.dtype)), 3)
        return out

    def extend_repr(self):
        return _conv_repr(self)


def _output_padding(output_padding, stride, dilation, pad_mode):
    pair = (output_padding,) * 2 if isinstance(output_padding, int) else tuple(output_padding)
    for extra, s, d in zip(pair, stride, dilation):
        if not 0 <= extra < max(s, d):
            raise ValueError(f"Conv2dTranspose: output_padding must be in [0, max(stride, dilation)) = "
                             f"[0, {max(s, d)}), but got {output_padding!r}.")
    if any(pair) and pad_mode != "pad":
        raise ValueError("Conv2dTranspose: output_padding other than 0 needs pad_mode='pad'.")
    return pair
