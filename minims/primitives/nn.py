"""Neural-network primitives: convolution, pooling, batch normalisation, dropout, softmax losses.

Layout is NCHW throughout, as MindSpore's default.  Every primitive here has a NumPy ``impl`` and a
``bprop`` written in minims ops, and the gradient primitives have ``bprop``s of their own, so every
op can be differentiated twice (and more):

* ``Conv2D``, ``Conv2DBackpropInput`` and ``Conv2DBackpropFilter`` are one *closed family*.  A
  convolution is linear in each of its two arguments, so the derivative of any member with respect
  to either argument is another member (with the same geometry):

  ====================  ========================  ==================================
  primitive             grad w.r.t. 1st input     grad w.r.t. 2nd input
  ====================  ========================  ==================================
  Conv2D(x, w)          BackpropInput(dy, w)      BackpropFilter(dy, x)
  BackpropInput(dy, w)  Conv2D(g, w)              BackpropFilter(dy, g)
  BackpropFilter(dy,x)  Conv2D(x, g)              BackpropInput(dy, g)
  ====================  ========================  ==================================

* ``MaxPool`` -> ``MaxPoolGrad`` (scatter ``dout`` to the first maximum of each window) ->
  ``MaxPoolGradGrad`` (gather from the same positions) -> ``MaxPoolGrad`` ...: scatter and gather
  through a fixed set of positions are each other's adjoint.  The positions depend on ``x`` only
  piecewise-constantly, so the gradient with respect to ``x`` of the two gradient primitives is 0.
* ``AvgPool`` <-> ``AvgPoolGrad``: a fixed linear map and its transpose.
* ``BatchNorm``, ``Dropout``/``Dropout2D`` and the softmax losses write their backward rules as
  compositions of minims ops, which are differentiable already.

Implementation: the windows of a (padded) input are a strided *view*
(``np.lib.stride_tricks.sliding_window_view``), so convolution is one ``tensordot`` over that view
(im2col) and pooling one reduction; the adjoint ("col2im") adds each kernel tap's slice back, a loop
over the kh*kw taps, never over pixels.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import context
from ..interpreters.stack import bind
from ..tensor import Tensor, _describe
from .base import Primitive
from .math import F

__all__ = ["Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv2DBackpropFilter", "MaxPool",
           "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolArgmax", "AvgPool", "AvgPoolGrad", "BatchNorm",
           "Dropout", "Dropout2D", "SoftmaxCrossEntropyWithLogits",
           "SparseSoftmaxCrossEntropyWithLogits"]


# ================================================================================================
# argument parsing shared by convolution and pooling
# ================================================================================================
def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _pair(op: str, arg: str, value, allow4: bool = True, minimum: int = 1) -> tuple:
    """An int or a tuple of 2 (or MindSpore's NCHW 4-tuple ``(1, 1, h, w)``) as ``(h, w)``."""
    if _is_int(value):
        items = (int(value), int(value))
    elif isinstance(value, (tuple, list)) and all(_is_int(v) for v in value) and (
            len(value) == 2 or (allow4 and len(value) == 4)):
        items = tuple(int(v) for v in value[-2:])
    else:
        shapes = "an int or a tuple of 2 ints" + (" (or 4 ints (1, 1, h, w))" if allow4 else "")
        raise TypeError(f"{op}: '{arg}' must be {shapes}, but got {_describe(value)}.")
    if any(v < minimum for v in items):
        raise ValueError(f"{op}: every entry of '{arg}' must be >= {minimum}, but got {value!r}.")
    return items


def _four(op: str, arg: str, value) -> tuple:
    """Padding: an int (all sides) or ``(top, bottom, left, right)``."""
    if _is_int(value):
        pads = (int(value),) * 4
    elif isinstance(value, (tuple, list)) and len(value) == 4 and all(_is_int(v) for v in value):
        pads = tuple(int(v) for v in value)
    else:
        raise ValueError(f"{op}: '{arg}' must be an int or a tuple of 4 ints (top, bottom, left, "
                         f"right), but got {_describe(value)}.")
    if any(p < 0 for p in pads):
        raise ValueError(f"{op}: '{arg}' must not be negative, but got {value!r}.")
    return pads


def _pad_mode(op: str, value, allowed=("valid", "same", "pad")) -> str:
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{op}: pad_mode must be one of {list(allowed)} (any case), but got {value!r}.")
    return value.lower()


def _data_format(op: str, value) -> str:
    if value != "NCHW":
        raise ValueError(f"{op}: minims supports data_format='NCHW' only, but got {value!r}. "
                         "Fix: transpose NHWC data with ops.transpose(x, (0, 3, 1, 2)).")
    return value


def _same_pads(size: int, k: int, s: int, d: int) -> tuple:
    """TF-style SAME: output ceil(size / s); odd total padding puts the extra row at the bottom/right."""
    span = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + span - size, 0)
    return total // 2, total - total // 2


def _require_tensor(op: str, name: str, v, float_only: bool = True):
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}: input '{name}' must be a Tensor, but got {_describe(v)}.")
    if float_only and not v.dtype.is_float:
        raise TypeError(f"{op}: input '{name}' must have a float dtype (float16/float32/float64), "
                        f"but got {v.dtype}. Fix: cast it, e.g. {name}.astype(mindspore.float32).")


def _require_rank(op: str, name: str, v, ranks, layout: str):
    if v.ndim not in ranks:
        raise ValueError(f"{op}: input '{name}' must be {layout}, but got shape {list(v.shape)}.")


def _sibling(prim, cls, **changes):
    """A primitive of class ``cls`` with ``prim``'s configuration (same geometry, other role)."""
    p = object.__new__(cls)
    p.__dict__.update({k: v for k, v in prim.__dict__.items() if k not in ("_name",)})
    p.__dict__.update(changes)
    return p


# ================================================================================================
# windows: the strided view (im2col) and its adjoint (col2im)
# ================================================================================================
def _windows(xp: np.ndarray, k: tuple, s: tuple, d: tuple, out_hw=None) -> np.ndarray:
    """View ``(N, C, Ho, Wo, kh, kw)`` of the windows of a padded ``(N, C, Hp, Wp)`` array."""
    span = ((k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1)
    v = sliding_window_view(xp, span, axis=(2, 3))[:, :, ::s[0], ::s[1], ::d[0], ::d[1]]
    if out_hw is not None:
        v = v[:, :, :out_hw[0], :out_hw[1]]
    return v


def _unwindow(cols: np.ndarray, padded_shape: tuple, s: tuple, d: tuple) -> np.ndarray:
    """Adjoint of ``_windows``: add every window's entries back into a zero ``padded_shape`` array.

    One vectorised slice-add per kernel tap; inside one tap the target positions are distinct,
    so plain ``+=`` is exact (no ``np.add.at`` needed).
    """
    out = np.zeros(padded_shape, dtype=cols.dtype)
    ho, wo, kh, kw = cols.shape[2:]
    for i in range(kh):
        r0 = i * d[0]
        for j in range(kw):
            c0 = j * d[1]
            out[:, :, r0:r0 + (ho - 1) * s[0] + 1:s[0], c0:c0 + (wo - 1) * s[1] + 1:s[1]] += cols[..., i, j]
    return out


def _pad4(x: np.ndarray, pads: tuple, value=0) -> np.ndarray:
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


# ================================================================================================
# convolution
# ================================================================================================
class _ConvBase(Primitive):
    """Configuration shared by Conv2D and its two gradient primitives."""

    def _configure(self, out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                   data_format, pad_list=None):
        op = self.name
        if not _is_int(out_channel) or out_channel < 1:
            raise ValueError(f"{op}: out_channel must be a positive int, but got {out_channel!r}.")
        self.out_channel = int(out_channel)
        self.kernel_size = _pair(op, "kernel_size", kernel_size, allow4=False)
        if mode != 1:
            raise ValueError(f"{op}: only mode=1 (cross-correlation, as MindSpore) is supported, got {mode!r}.")
        self.mode = 1
        self.pad_mode = _pad_mode(op, pad_mode)
        pads = _four(op, "pad", pad) if pad_list is None else _four(op, "pad_list", pad_list)
        if self.pad_mode != "pad" and any(pads):
            raise ValueError(f"{op}: 'pad' must be 0 when pad_mode is not 'pad', but got pad={pad!r} "
                             f"with pad_mode={pad_mode!r}. Fix: use pad_mode='pad' for explicit padding.")
        self.pad = pads
        self.stride = _pair(op, "stride", stride)
        self.dilation = _pair(op, "dilation", dilation)
        if not _is_int(group) or group < 1:
            raise ValueError(f"{op}: group must be a positive int, but got {group!r}.")
        self.group = int(group)
        self.data_format = _data_format(op, data_format)

    def _pads(self, hw: tuple) -> tuple:
        """(top, bottom, left, right) for an input of spatial size ``hw``."""
        if self.pad_mode == "pad":
            return self.pad
        if self.pad_mode == "valid":
            return (0, 0, 0, 0)
        kh, kw = self.kernel_size
        return (_same_pads(hw[0], kh, self.stride[0], self.dilation[0])
                + _same_pads(hw[1], kw, self.stride[1], self.dilation[1]))

    def _out_hw(self, hw: tuple) -> tuple:
        pt, pb, pl, pr = self._pads(hw)
        out = []
        for size, p, k, s, d in ((hw[0], pt + pb, self.kernel_size[0], self.stride[0], self.dilation[0]),
                                 (hw[1], pl + pr, self.kernel_size[1], self.stride[1], self.dilation[1])):
            out.append((size + p - ((k - 1) * d + 1)) // s + 1)
        return tuple(out)

    def _check_geometry(self, x_shape: tuple, w_shape: tuple, where: str):
        """Shared shape checks; ``x_shape``/``w_shape`` are the forward input and weight shapes."""
        op = self.name
        if len(w_shape) != 4:
            raise ValueError(f"{op}: weight must be 4-D (out_channel, in_channel/group, kh, kw), "
                             f"but got shape {list(w_shape)}.")
        if len(x_shape) != 4:
            raise ValueError(f"{op}: {where} must be 4-D (N, C, H, W), but got shape {list(x_shape)}.")
        if tuple(w_shape[2:]) != self.kernel_size:
            raise ValueError(f"{op}: the weight's kernel {list(w_shape[2:])} (weight shape {list(w_shape)}) "
                             f"does not match kernel_size={self.kernel_size}.")
        g = self.group
        if x_shape[1] != w_shape[1] * g:
            raise ValueError(
                f"{op}: channel mismatch: the input has {x_shape[1]} channels (shape {list(x_shape)}) but "
                f"the weight of shape {list(w_shape)} expects in_channel/group * group = "
                f"{w_shape[1]} * {g} = {w_shape[1] * g}. Fix: give the input {w_shape[1] * g} channels, or "
                f"use a weight of shape (out_channel, "
                f"{x_shape[1] // g if x_shape[1] % g == 0 else 'C/group'}, kh, kw).")
        if w_shape[0] % g:
            raise ValueError(f"{op}: out_channel {w_shape[0]} is not divisible by group={g}.")
        pt, pb, pl, pr = self._pads(x_shape[2:])
        span = tuple((k - 1) * d + 1 for k, d in zip(self.kernel_size, self.dilation))
        padded = (x_shape[2] + pt + pb, x_shape[3] + pl + pr)
        if padded[0] < span[0] or padded[1] < span[1]:
            raise ValueError(
                f"{op}: the (dilated) kernel {list(span)} is bigger than the padded input {list(padded)} "
                f"(input shape {list(x_shape)}, pad_mode={self.pad_mode!r}, pad={self.pad}). "
                "Fix: use a smaller kernel, more padding, or pad_mode='same'.")

    # ----- NumPy kernels (the three members of the family) -------------------------------------
    def _conv(self, x, w):
        pads = self._pads(x.shape[2:])
        win = _windows(_pad4(x, pads), self.kernel_size, self.stride, self.dilation)
        n, c, ho, wo = win.shape[:4]
        g, o = self.group, w.shape[0]
        cg, og = c // g, o // g
        out = np.empty((n, o, ho, wo), dtype=np.result_type(x, w))
        for i in range(g):      # a loop over groups (1 for ordinary conv), not over pixels
            part = np.tensordot(win[:, i * cg:(i + 1) * cg], w[i * og:(i + 1) * og],
                                axes=([1, 4, 5], [1, 2, 3]))          # (N, Ho, Wo, Og)
            out[:, i * og:(i + 1) * og] = part.transpose(0, 3, 1, 2)
        return out

    def _backprop_input(self, dy, w, x_shape):
        pads = self._pads(x_shape[2:])
        n, c, h, wd = x_shape
        g, o = self.group, w.shape[0]
        cg, og = c // g, o // g
        kh, kw = self.kernel_size
        cols = np.empty((n, c, dy.shape[2], dy.shape[3], kh, kw), dtype=np.result_type(dy, w))
        for i in range(g):
            part = np.tensordot(dy[:, i * og:(i + 1) * og], w[i * og:(i + 1) * og], axes=([1], [0]))
            cols[:, i * cg:(i + 1) * cg] = part.transpose(0, 3, 1, 2, 4, 5)  # (N, Cg, Ho, Wo, kh, kw)
        pt, pb, pl, pr = pads
        xp = _unwindow(cols, (n, c, h + pt + pb, wd + pl + pr), self.stride, self.dilation)
        return np.ascontiguousarray(xp[:, :, pt:pt + h, pl:pl + wd])

    def _backprop_filter(self, dy, x, w_shape):
        pads = self._pads(x.shape[2:])
        win = _windows(_pad4(x, pads), self.kernel_size, self.stride, self.dilation, dy.shape[2:])
        g = self.group
        o, cg = w_shape[0], w_shape[1]
        og = o // g
        dw = np.empty(w_shape, dtype=np.result_type(dy, x))
        for i in range(g):
            dw[i * og:(i + 1) * og] = np.tensordot(dy[:, i * og:(i + 1) * og], win[:, i * cg:(i + 1) * cg],
                                                   axes=([0, 2, 3], [0, 2, 3]))
        return dw

    def _check_pair(self, a, b, names):
        for name, v in zip(names, (a, b)):
            _require_tensor(self.name, name, v)
        if a.dtype is not b.dtype:
            raise TypeError(f"{self.name}: '{names[0]}' and '{names[1]}' must have the same dtype, but got "
                            f"{a.dtype} and {b.dtype}. Fix: cast one of them, e.g. "
                            f"{names[1]}.astype({names[0]}.dtype).")

    def _check_dout(self, dy, x_shape, o):
        want = (x_shape[0], o) + self._out_hw(x_shape[2:])
        if tuple(dy.shape) != want:
            raise ValueError(f"{self.name}: dout has shape {list(dy.shape)}, but a convolution of an input of "
                             f"shape {list(x_shape)} with {o} output channels gives {list(want)}.")


class Conv2D(_ConvBase):
    """``ops.Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
    group=1, data_format="NCHW")(x, weight)``: 2-D cross-correlation of ``(N, C, H, W)`` with
    ``(out_channel, C/group, kh, kw)``.

    ``pad_mode``: "valid" (no padding), "same" (output ``ceil(H/stride)``; an odd total padding puts
    the extra row at the bottom/right, as TensorFlow and MindSpore), "pad" (explicit ``pad``: an int
    or ``(top, bottom, left, right)``).
    """

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        self._configure(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group, data_format)

    def __call__(self, x, weight):
        self._check_pair(x, weight, ("x", "weight"))
        self._check_geometry(x.shape, weight.shape, "x")
        if weight.shape[0] != self.out_channel:
            raise ValueError(f"Conv2D: the weight has {weight.shape[0]} output channels (shape "
                             f"{list(weight.shape)}) but out_channel={self.out_channel}.")
        return bind(self, x, weight)

    def impl(self, x, w):
        return self._conv(x, w)

    def bprop(self, x, w, out, dout):
        o = w.shape[0]
        dx = _sibling(self, Conv2DBackpropInput, out_channel=o)(dout, w, x.shape)
        dw = _sibling(self, Conv2DBackpropFilter, out_channel=o)(dout, x, w.shape)
        return dx, dw


class Conv2DBackpropInput(_ConvBase):
    """``ops.Conv2DBackpropInput(out_channel, kernel_size, ...)(dout, weight, input_size)``.

    The gradient of Conv2D with respect to its input (a "transposed convolution"); ``input_size`` is
    the shape ``(N, C, H, W)`` of that input.  Linear in ``dout`` and in ``weight``.
    """

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        self._configure(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format, pad_list)

    def __call__(self, dout, weight, input_size):
        self._check_pair(dout, weight, ("dout", "weight"))
        if isinstance(input_size, Tensor):
            input_size = input_size.tolist()
        if not (isinstance(input_size, (tuple, list)) and len(input_size) == 4
                and all(_is_int(v) and v > 0 for v in input_size)):
            raise ValueError(f"{self.name}: input_size must be the input's shape, 4 positive ints (N, C, H, W), "
                             f"but got {input_size!r}.")
        input_size = tuple(int(v) for v in input_size)
        self._check_geometry(input_size, weight.shape, "input_size")
        self._check_dout(dout, input_size, weight.shape[0])
        return bind(self, dout, weight, input_size)

    def impl(self, dout, w, input_size):
        return self._backprop_input(dout, w, input_size)

    def bprop(self, dout, w, input_size, out, g):
        o = w.shape[0]
        d_dout = _sibling(self, Conv2D, out_channel=o)(g, w)
        d_w = _sibling(self, Conv2DBackpropFilter, out_channel=o)(dout, g, w.shape)
        return d_dout, d_w, None


class Conv2DTranspose(Conv2DBackpropInput):
    """``ops.Conv2DTranspose``: MindSpore's public name for ``Conv2DBackpropInput``."""


class Conv2DBackpropFilter(_ConvBase):
    """``ops.Conv2DBackpropFilter(out_channel, kernel_size, ...)(dout, x, filter_size)``.

    The gradient of Conv2D with respect to its weight; ``filter_size`` is the weight's shape.
    Linear in ``dout`` and in ``x``.
    """

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        self._configure(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format, pad_list)

    def __call__(self, dout, x, filter_size):
        self._check_pair(dout, x, ("dout", "x"))
        if isinstance(filter_size, Tensor):
            filter_size = filter_size.tolist()
        if not (isinstance(filter_size, (tuple, list)) and len(filter_size) == 4
                and all(_is_int(v) and v > 0 for v in filter_size)):
            raise ValueError(f"{self.name}: filter_size must be the weight's shape, 4 positive ints "
                             f"(out_channel, in_channel/group, kh, kw), but got {filter_size!r}.")
        filter_size = tuple(int(v) for v in filter_size)
        self._check_geometry(x.shape, filter_size, "x")
        self._check_dout(dout, x.shape, filter_size[0])
        return bind(self, dout, x, filter_size)

    def impl(self, dout, x, filter_size):
        return self._backprop_filter(dout, x, filter_size)

    def bprop(self, dout, x, filter_size, out, g):
        o = filter_size[0]
        d_dout = _sibling(self, Conv2D, out_channel=o)(x, g)
        d_x = _sibling(self, Conv2DBackpropInput, out_channel=o)(dout, g, x.shape)
        return d_dout, d_x, None


# ================================================================================================
# pooling
# ================================================================================================
class _PoolBase(Primitive):
    """Window geometry shared by the pooling primitives.

    MindSpore's ``MaxPool``/``AvgPool`` know "valid" and "same"; the functional ``max_pool2d`` and
    ``avg_pool2d`` add explicit padding, dilation (max only), ``ceil_mode`` and the divisor options.
    Those live in underscore attributes set by ``_configured`` so that the public constructors keep
    MindSpore's signature.
    """

    _pads4 = (0, 0, 0, 0)
    _dilation = (1, 1)
    _ceil_mode = False
    _count_include_pad = True
    _divisor_override = 0

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        op = self.name
        self.kernel_size = _pair(op, "kernel_size", kernel_size)
        self.strides = _pair(op, "strides", strides)
        self.pad_mode = _pad_mode(op, pad_mode, ("valid", "same")).upper()
        self.data_format = _data_format(op, data_format)

    @classmethod
    def _configured(cls, kernel_size, strides, pads, dilation=(1, 1), ceil_mode=False,
                    count_include_pad=True, divisor_override=0):
        """A pool with explicit padding (the functional API); arguments already validated."""
        p = cls(kernel_size, strides)
        p.pad_mode = "PAD"
        p._pads4, p._dilation, p._ceil_mode = tuple(pads), tuple(dilation), bool(ceil_mode)
        p._count_include_pad, p._divisor_override = bool(count_include_pad), int(divisor_override)
        return p

    def _geometry(self, hw: tuple):
        """``(pads, extra, out_hw)``: padding (t, b, l, r), the bottom/right rows ``ceil_mode`` adds
        beyond it, and the output size."""
        k, s, d = self.kernel_size, self.strides, self._dilation
        if self.pad_mode == "SAME":
            pads = _same_pads(hw[0], k[0], s[0], 1) + _same_pads(hw[1], k[1], s[1], 1)
        elif self.pad_mode == "VALID":
            pads = (0, 0, 0, 0)
        else:
            pads = self._pads4
        out, extra = [], []
        for size, before, after, kk, ss, dd in ((hw[0], pads[0], pads[1], k[0], s[0], d[0]),
                                                (hw[1], pads[2], pads[3], k[1], s[1], d[1])):
            span = (kk - 1) * dd + 1
            room = size + before + after - span
            if room < 0:
                out.append(0)
                extra.append(0)
                continue
            n = (-(-room // ss) if self._ceil_mode else room // ss) + 1
            if self._ceil_mode and (n - 1) * ss >= size + before:
                n -= 1      # PyTorch/MindSpore rule: the last window must start inside the input or left pad
            out.append(n)
            extra.append(max((n - 1) * ss + span - (size + before + after), 0))
        return pads, tuple(extra), tuple(out)

    def _check_input(self, x):
        op = self.name
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}: input 'x' must be a Tensor, but got {_describe(x)}.")
        if x.dtype.kind == "bool":
            raise TypeError(f"{op}: input 'x' must be a number Tensor, but got {x.dtype}.")
        if x.ndim != 4:
            raise ValueError(f"{op}: input 'x' must be 4-D (N, C, H, W), but got shape {list(x.shape)}.")
        pads, _, out = self._geometry(x.shape[2:])
        if min(out) <= 0:
            raise ValueError(
                f"{op}: the window {list(self.kernel_size)} (strides {list(self.strides)}) does not fit in "
                f"the input of shape {list(x.shape)} (padding {list(pads)}): the output would have "
                f"spatial size {list(out)}. Fix: use a smaller kernel_size or pad_mode='same'.")

    def _padded(self, x, value):
        pads, extra, _ = self._geometry(x.shape[2:])
        pt, pb, pl, pr = pads
        return _pad4(x, (pt, pb + extra[0], pl, pr + extra[1]), value), pads

    def _win(self, xp, out_hw):
        return _windows(xp, self.kernel_size, self.strides, self._dilation, out_hw)

    # ----- max pooling: where is the maximum of each window? -------------------------------------
    def _argmax(self, x):
        """Flat kernel index (0 .. kh*kw-1) of the first maximum of every window, ``(N, C, Ho, Wo)``."""
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp, _ = self._padded(x, low)
        _, _, out = self._geometry(x.shape[2:])
        win = self._win(xp, out)
        flat = win.reshape(win.shape[:4] + (-1,))           # copies: kh*kw values per output
        return np.argmax(flat, axis=-1), flat               # argmax: the first maximum on ties

    def _scatter(self, x_shape, idx, values):
        """Put ``values[n, c, ho, wo]`` at the argmax position of each window, summing overlaps."""
        n, c, h, w = x_shape
        pads, extra, out = self._geometry((h, w))
        kh, kw = self.kernel_size
        cols = np.zeros(values.shape + (kh * kw,), dtype=values.dtype)
        np.put_along_axis(cols, idx[..., None], values[..., None], axis=-1)
        pt, pb, pl, pr = pads
        padded = (n, c, h + pt + pb + extra[0], w + pl + pr + extra[1])
        xp = _unwindow(cols.reshape(values.shape + (kh, kw)), padded, self.strides, self._dilation)
        return np.ascontiguousarray(xp[:, :, pt:pt + h, pl:pl + w])

    def _gather(self, x, g):
        """``g`` at the argmax position of each window of ``x``: shape ``(N, C, Ho, Wo)``."""
        idx, _ = self._argmax(x)
        gp, _ = self._padded(g, 0)
        _, _, out = self._geometry(x.shape[2:])
        flat = self._win(gp, out).reshape(idx.shape + (-1,))
        return np.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]

    # ----- average pooling: what does each window divide by? ---------------------------------------
    def _divisor(self, hw):
        pads, extra, out = self._geometry(hw)
        if self._divisor_override:
            return np.asarray(float(self._divisor_override))
        pt, pb, pl, pr = pads
        ones = np.zeros((1, 1, hw[0] + pt + pb + extra[0], hw[1] + pl + pr + extra[1]))
        if self.pad_mode == "PAD" and self._count_include_pad:
            ones[:, :, :hw[0] + pt + pb, :hw[1] + pl + pr] = 1     # explicit padding counts, ceil rows do not
        else:
            ones[:, :, pt:pt + hw[0], pl:pl + hw[1]] = 1           # MindSpore's SAME excludes the padding
        counts = self._win(ones, out).sum(axis=(-1, -2))[0, 0]
        return np.maximum(counts, 1)

    def _avg(self, x):
        xp, _ = self._padded(x, 0)
        _, _, out = self._geometry(x.shape[2:])
        sums = self._win(xp, out).sum(axis=(-1, -2))
        return (sums / self._divisor(x.shape[2:])).astype(x.dtype, copy=False)

    def _avg_adjoint(self, x_shape, dout):
        n, c, h, w = x_shape
        pads, extra, out = self._geometry((h, w))
        kh, kw = self.kernel_size
        share = (dout / self._divisor((h, w))).astype(dout.dtype, copy=False)
        cols = np.broadcast_to(share[..., None, None], share.shape + (kh, kw))
        pt, pb, pl, pr = pads
        padded = (n, c, h + pt + pb + extra[0], w + pl + pr + extra[1])
        xp = _unwindow(cols, padded, self.strides, self._dilation)
        return np.ascontiguousarray(xp[:, :, pt:pt + h, pl:pl + w])

    def _check_grad_args(self, x, out, dout):
        self._check_input(x)
        _, _, hw = self._geometry(x.shape[2:])
        want = tuple(x.shape[:2]) + hw
        for name, v in (("origin_output", out), ("grad", dout)):
            if not isinstance(v, Tensor):
                raise TypeError(f"{self.name}: '{name}' must be a Tensor, but got {_describe(v)}.")
            if tuple(v.shape) != want:
                raise ValueError(f"{self.name}: '{name}' has shape {list(v.shape)}, but pooling an input of "
                                 f"shape {list(x.shape)} gives {list(want)}.")


class MaxPool(_PoolBase):
    """``ops.MaxPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")(x)``.

    "same" pads with -inf (padding never wins).  The gradient goes to the *first* maximum of each
    window in row-major order, as MindSpore and PyTorch do on ties.
    """

    def __call__(self, x):
        self._check_input(x)
        return bind(self, x)

    def impl(self, x):
        idx, flat = self._argmax(x)
        return np.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]

    def bprop(self, x, out, dout):
        return (_sibling(self, MaxPoolGrad)(x, out, dout),)


class MaxPoolGrad(_PoolBase):
    """``MaxPoolGrad(...)(x, origin_output, grad)``: each window's ``grad`` added at its first maximum.

    Linear in ``grad``; its derivative in ``grad`` is ``MaxPoolGradGrad`` (gather from the same
    positions).  Its derivative in ``x`` is zero wherever it exists (the positions are piecewise
    constant in ``x``), so ``x`` and ``origin_output`` get no gradient.
    """

    def __call__(self, x, origin_output, grad):
        self._check_grad_args(x, origin_output, grad)
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        idx, _ = self._argmax(x)
        return self._scatter(x.shape, idx, grad.astype(np.result_type(x, grad), copy=False))

    def bprop(self, x, origin_output, grad, out, g):
        return None, None, _sibling(self, MaxPoolGradGrad)(x, origin_output, g)


class MaxPoolGradGrad(_PoolBase):
    """``MaxPoolGradGrad(...)(x, origin_output, grad)``: ``grad`` (shaped like ``x``) read at the first
    maximum of every window of ``x``; the adjoint of ``MaxPoolGrad``."""

    def __call__(self, x, origin_output, grad):
        self._check_input(x)
        if not isinstance(grad, Tensor) or tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"{self.name}: 'grad' must be a Tensor shaped like x {list(x.shape)}, but got "
                             f"{_describe(grad)}.")
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        return self._gather(x, grad)

    def bprop(self, x, origin_output, grad, out, g):
        return None, None, _sibling(self, MaxPoolGrad)(x, origin_output, g)


class MaxPoolArgmax(_PoolBase):
    """The flat ``h * W + w`` input index of each window's first maximum (int64; not differentiable).

    Used by ``max_pool2d(..., return_indices=True)``, which takes the values from ``MaxPool`` (so
    they keep their gradient) and the indices from here.
    """

    differentiable = False

    def __call__(self, x):
        self._check_input(x)
        return bind(self, x)

    def impl(self, x):
        idx, _ = self._argmax(x)
        pads, _, (ho, wo) = self._geometry(x.shape[2:])
        kw = self.kernel_size[1]
        i, j = np.divmod(idx, kw)
        rows = np.arange(ho)[:, None] * self.strides[0] + i * self._dilation[0] - pads[0]
        cols = np.arange(wo)[None, :] * self.strides[1] + j * self._dilation[1] - pads[2]
        return (rows * x.shape[3] + cols).astype(np.int64)


class AvgPool(_PoolBase):
    """``ops.AvgPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW")(x)``.

    With "same", padded positions are not counted in the mean (MindSpore's behaviour).
    """

    def __call__(self, x):
        self._check_input(x)
        if not x.dtype.is_float:
            raise TypeError(f"AvgPool: input 'x' must be a float Tensor, but got {x.dtype}. "
                            "Fix: cast it, e.g. x.astype(mindspore.float32).")
        return bind(self, x)

    def impl(self, x):
        return self._avg(x)

    def bprop(self, x, out, dout):
        return (_sibling(self, AvgPoolGrad)(x, out, dout),)


class AvgPoolGrad(_PoolBase):
    """``AvgPoolGrad(...)(x, origin_output, grad)``: each window's ``grad / count`` spread over the
    window (the transpose of AvgPool; only ``x``'s shape is used).  Its gradient is AvgPool."""

    def __call__(self, x, origin_output, grad):
        self._check_grad_args(x, origin_output, grad)
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        return self._avg_adjoint(x.shape, grad)

    def bprop(self, x, origin_output, grad, out, g):
        return None, None, _sibling(self, AvgPool)(g)


# ================================================================================================
# batch normalisation
# ================================================================================================
class BatchNorm(Primitive):
    """``ops.BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW")
    (x, scale, bias, mean, variance)`` -> ``(y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2)``.

    * training: ``y`` is normalised with the batch statistics (biased variance);
      ``batch_mean``/``batch_variance`` are the batch mean and the *unbiased* batch variance (what
      the moving average uses: MindSpore's ``new = (1 - momentum) * old + momentum * batch``), and
      the reserve spaces hold the batch mean and the biased variance used for ``y``.
    * inference: ``y`` uses the given ``mean``/``variance``; the other four outputs are
      ``mean, variance, mean, variance`` (the documented values of the reserve spaces).

    Unlike MindSpore's kernel, this primitive never writes into ``mean``/``variance``; updating the
    moving statistics is the caller's job (``ops.batch_norm``, ``nn.BatchNorm2d``).
    Gradients flow to ``x``, ``scale`` and ``bias`` (and through every output that depends on
    them); ``mean`` and ``variance`` get none.
    """

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        if not isinstance(is_training, bool):
            raise TypeError(f"BatchNorm: is_training must be a bool, but got {_describe(is_training)}.")
        for name, v, lo_open in (("epsilon", epsilon, True), ("momentum", momentum, False)):
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise TypeError(f"BatchNorm: {name} must be a float, but got {_describe(v)}.")
            if not ((0 < v <= 1) if lo_open else (0 <= v <= 1)):
                rng = "(0, 1]" if lo_open else "[0, 1]"
                raise ValueError(f"BatchNorm: {name} must be in {rng}, but got {v}.")
        self.is_training = is_training
        self.epsilon = float(epsilon)
        self.momentum = float(momentum)
        self.data_format = _data_format("BatchNorm", data_format)

    def __call__(self, x, scale, bias, mean, variance):
        names = ("input_x", "scale", "bias", "mean", "variance")
        for name, v in zip(names, (x, scale, bias, mean, variance)):
            _require_tensor("BatchNorm", name, v)
        if x.ndim not in (2, 4):
            raise ValueError(f"BatchNorm: input_x must be 2-D (N, C) or 4-D (N, C, H, W), but got shape "
                             f"{list(x.shape)}.")
        c = x.shape[1]
        for name, v in zip(names[1:], (scale, bias, mean, variance)):
            if tuple(v.shape) != (c,):
                raise ValueError(f"BatchNorm: '{name}' must have shape [{c}] (one entry per channel of "
                                 f"input_x, shape {list(x.shape)}), but got {list(v.shape)}.")
        if self.is_training and x.size // c < 2:
            raise ValueError(f"BatchNorm: training needs more than one value per channel to compute a "
                             f"variance, but input_x has shape {list(x.shape)}. Fix: use a batch of at "
                             "least 2, or is_training=False.")
        return bind(self, x, scale, bias, mean, variance)

    @staticmethod
    def _axes(x):
        return (0,) if x.ndim == 2 else (0, 2, 3)

    @staticmethod
    def _bshape(x):
        return (1, x.shape[1]) + (1,) * (x.ndim - 2)

    def impl(self, x, scale, bias, mean, variance):
        axes, bshape = self._axes(x), self._bshape(x)
        if self.is_training:
            m = x.size // x.shape[1]
            mu = x.mean(axis=axes)
            var = x.var(axis=axes)
            stats = (mu, var * (m / (m - 1)), mu, var)
        else:
            mu, var = mean, variance
            stats = (mean.copy(), variance.copy(), mean.copy(), variance.copy())
        rstd = 1.0 / np.sqrt(var.astype(x.dtype) + np.asarray(self.epsilon, x.dtype))
        y = (x - mu.astype(x.dtype).reshape(bshape)) * (rstd * scale.astype(x.dtype)).reshape(bshape) \
            + bias.astype(x.dtype).reshape(bshape)
        return (y.astype(x.dtype, copy=False),) + tuple(s.astype(scale.dtype, copy=False) for s in stats)

    def bprop(self, x, scale, bias, mean, variance, out, dout):
        f = F()
        dy, d_mean, d_var, d_r1, d_r2 = dout
        axes, bshape = self._axes(x), self._bshape(x)
        s = f.cast(f.reshape(scale, bshape), x.dtype)
        if not self.is_training:
            rstd = f.reciprocal(f.sqrt(f.add(f.cast(f.reshape(variance, bshape), x.dtype), self.epsilon)))
            xhat = f.mul(f.sub(x, f.cast(f.reshape(mean, bshape), x.dtype)), rstd)
            dx = f.mul(dy, f.mul(s, rstd))
            # the four statistics outputs are copies of mean/variance: no gradient to x, scale, bias
        else:
            m = x.size // x.shape[1]
            mu = f.mean(x, axes, keep_dims=True)
            xc = f.sub(x, mu)
            var = f.mean(f.mul(xc, xc), axes, keep_dims=True)
            rstd = f.reciprocal(f.sqrt(f.add(var, self.epsilon)))
            xhat = f.mul(xc, rstd)
            g = f.mul(dy, s)
            # d/dx of (x - mu) * rstd: subtract the mean of g and its projection on xhat
            inner = f.sub(f.sub(g, f.mean(g, axes, keep_dims=True)),
                          f.mul(xhat, f.mean(f.mul(g, xhat), axes, keep_dims=True)))
            dx = f.mul(rstd, inner)
            # the statistics outputs depend on x too: d mean/dx = 1/m, d var/dx = 2 (x - mu) / m
            # (the mean's own derivative cancels), unbiased variance: 2 (x - mu) / (m - 1)
            c_mean = f.div(f.cast(f.reshape(f.add(d_mean, d_r1), bshape), x.dtype), m)
            c_var = f.add(f.mul(f.cast(f.reshape(d_var, bshape), x.dtype), 2.0 / (m - 1)),
                          f.mul(f.cast(f.reshape(d_r2, bshape), x.dtype), 2.0 / m))
            dx = f.add(dx, f.add(c_mean, f.mul(xc, c_var)))
        dscale = f.cast(f.sum(f.mul(dy, xhat), axes), scale.dtype)
        dbias = f.cast(f.sum(dy, axes), bias.dtype)
        return f.cast(dx, x.dtype), dscale, dbias, None, None


# ================================================================================================
# dropout
# ================================================================================================
def _keep_prob(op: str, keep_prob) -> float:
    if not isinstance(keep_prob, (float, int)) or isinstance(keep_prob, bool):
        raise TypeError(f"{op}: keep_prob must be a float, but got {_describe(keep_prob)}.")
    if not 0 < keep_prob <= 1:
        raise ValueError(f"{op}: keep_prob must be in (0, 1], but got {keep_prob}. It is the probability "
                         "of KEEPING an element (1 - the drop rate); e.g. keep_prob=0.9 drops 10%.")
    return float(keep_prob)


class _DropoutBase(Primitive):
    def _rng(self):
        return self.__dict__.get("_generator") or context.global_rng()

    def _check(self, x):
        _require_tensor(self.name, "x", x)

    def _draw(self, shape):
        return self._rng().random(shape) < self.keep_prob

    def bprop(self, x, out, dout):
        f = F()
        # the mask is a constant of this draw: stop_gradient keeps it off every gradient tape
        mask = f.cast(f.stop_gradient(out[1]), x.dtype)
        return (f.div(f.mul(dout[0], mask), self.keep_prob),)


class Dropout(_DropoutBase):
    """``ops.Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x)`` -> ``(output, mask)``.

    Each element is kept with probability ``keep_prob``; ``output = x * mask / keep_prob``.  As on
    MindSpore's CPU and GPU, ``mask`` has ``x``'s shape and dtype (1.0 kept, 0.0 dropped).  The
    random stream is ``mindspore.set_seed``'s, unless ``Seed0``/``Seed1`` give this op its own.
    """

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):  # noqa: N803 - MindSpore's names
        self.keep_prob = _keep_prob("Dropout", keep_prob)
        for name, v in (("Seed0", Seed0), ("Seed1", Seed1)):
            if not _is_int(v) or v < 0:
                raise ValueError(f"Dropout: {name} must be a non-negative int, but got {v!r}.")
        self.Seed0, self.Seed1 = int(Seed0), int(Seed1)
        if Seed0 or Seed1:
            self._generator = np.random.default_rng([int(Seed0), int(Seed1)])

    def __call__(self, x):
        self._check(x)
        return bind(self, x)

    def impl(self, x):
        mask = self._draw(x.shape).astype(x.dtype)
        return (x * mask / np.asarray(self.keep_prob, x.dtype)).astype(x.dtype, copy=False), mask


class Dropout2D(_DropoutBase):
    """``ops.Dropout2D(keep_prob=0.5)(x)`` -> ``(output, mask)`` for ``(N, C, H, W)`` input.

    Whole channels are kept or dropped: one draw per ``(n, c)``, broadcast over ``H, W``.  As in
    MindSpore, ``mask`` is a Bool tensor of ``x``'s shape.
    """

    def __init__(self, keep_prob=0.5):
        self.keep_prob = _keep_prob("Dropout2D", keep_prob)

    def __call__(self, x):
        self._check(x)
        if x.ndim != 4:
            raise ValueError(f"Dropout2D: input 'x' must be 4-D (N, C, H, W), but got shape {list(x.shape)}.")
        return bind(self, x)

    def impl(self, x):
        mask = np.broadcast_to(self._draw(x.shape[:2] + (1, 1)), x.shape).copy()
        return (x * mask / np.asarray(self.keep_prob, x.dtype)).astype(x.dtype, copy=False), mask


# ================================================================================================
# softmax cross-entropy
# ================================================================================================
def _log_softmax(z: np.ndarray) -> np.ndarray:
    """Stable log-softmax over the last axis: shift by the max so exp never overflows."""
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _check_logits(op: str, logits):
    _require_tensor(op, "logits", logits)
    if logits.ndim != 2:
        raise ValueError(f"{op}: logits must be 2-D (batch_size, num_classes), but got shape "
                         f"{list(logits.shape)}.")


class SoftmaxCrossEntropyWithLogits(Primitive):
    """``ops.SoftmaxCrossEntropyWithLogits()(logits, labels)`` -> ``(loss, dlogits)``.

    ``loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]`` and, as MindSpore,
    ``dlogits = softmax(logits) - labels`` (the gradient of ``loss`` when each row of ``labels`` sums
    to 1).  The backward rule is the exact derivative of both outputs for any ``labels`` (MindSpore's
    uses ``dlogits``, which differs when rows do not sum to 1).  ``labels`` get no gradient.
    """

    def __call__(self, logits, labels):
        _check_logits(self.name, logits)
        _require_tensor(self.name, "labels", labels)
        if tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"{self.name}: labels must have the shape of logits {list(logits.shape)}, but "
                             f"got {list(labels.shape)}. Fix: one-hot encode class indices, or use "
                             "SparseSoftmaxCrossEntropyWithLogits.")
        if labels.dtype is not logits.dtype:
            raise TypeError(f"{self.name}: labels ({labels.dtype}) must have the dtype of logits "
                            f"({logits.dtype}). Fix: labels.astype(logits.dtype).")
        return bind(self, logits, labels)

    def impl(self, logits, labels):
        lsm = _log_softmax(logits)
        loss = -(labels * lsm).sum(axis=-1)
        return loss.astype(logits.dtype), (np.exp(lsm) - labels).astype(logits.dtype)

    def bprop(self, logits, labels, out, dout):
        f = F()
        d_loss, d_grad = dout
        p = f.softmax(logits, -1)
        total = f.sum(labels, -1, keepdim=True)
        # loss: d/dlogits = softmax * sum(labels) - labels, scaled by each sample's cotangent
        dl = f.mul(f.expand_dims(d_loss, -1), f.sub(f.mul(p, total), labels))
        # dlogits = softmax - labels: the softmax Jacobian-vector product
        dg = f.mul(p, f.sub(d_grad, f.sum(f.mul(d_grad, p), -1, keepdim=True)))
        return f.add(dl, dg), None


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """``ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)``.

    ``labels`` are class indices ``(N,)``.  Returns the mean loss over the batch (a scalar), or with
    ``is_grad=True`` its gradient ``(softmax(logits) - onehot(labels)) / N``.  ``labels`` get no
    gradient.
    """

    def __init__(self, is_grad=False):
        if not isinstance(is_grad, bool):
            raise TypeError("SparseSoftmaxCrossEntropyWithLogits: is_grad must be a bool, "
                            f"got {_describe(is_grad)}.")
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        op = self.name
        _check_logits(op, logits)
        if not isinstance(labels, Tensor) or labels.dtype.kind != "int":
            raise TypeError(f"{op}: labels must be an int32/int64 Tensor of class indices, but got "
                            f"{_describe(labels)}. Fix: Tensor(indices, mindspore.int32).")
        n, c = logits.shape
        if tuple(labels.shape) != (n,):
            raise ValueError(f"{op}: labels must have shape [{n}] (one class index per row of logits "
                             f"{list(logits.shape)}), but got {list(labels.shape)}.")
        lab = labels._data
        if lab.size and (lab.min() < 0 or lab.max() >= c):
            bad = int(lab.min() if lab.min() < 0 else lab.max())
            raise ValueError(f"{op}: label {bad} is out of range: with {c} classes labels must be in "
                             f"[0, {c - 1}].")
        return bind(self, logits, labels)

    @staticmethod
    def _onehot(labels, c, dtype):
        return np.eye(c, dtype=dtype)[labels]

    def impl(self, logits, labels):
        n, c = logits.shape
        lsm = _log_softmax(logits)
        if self.is_grad:
            return ((np.exp(lsm) - self._onehot(labels, c, logits.dtype)) / n).astype(logits.dtype)
        loss = -np.take_along_axis(lsm, labels[:, None].astype(np.int64), axis=-1).mean()
        return np.asarray(loss, dtype=logits.dtype)

    def bprop(self, logits, labels, out, dout):
        f = F()
        n, c = logits.shape
        p = f.softmax(logits, -1)
        if self.is_grad:
            # out = (softmax - onehot) / n: the softmax Jacobian-vector product of dout / n
            g = f.div(dout, n)
            return f.mul(p, f.sub(g, f.sum(f.mul(g, p), -1, keepdim=True))), None
        onehot = Tensor._make(self._onehot(labels._data, c, logits._data.dtype))
        return f.mul(f.div(f.sub(p, onehot), n), dout), None
