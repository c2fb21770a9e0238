"""Convolution: ``Conv2D`` and its two gradient primitives, one closed family.

A convolution is linear in each argument, so the derivative of any member with respect to either
argument is another member with the same geometry (see the table in ``minims.primitives.nn``).
"""
from __future__ import annotations

import numpy as np
from ... import fast as _fast          # the fast-path switch: _fast.enabled
from ...core.stack import bind
from ...core.tensor import Tensor
from .. import functional as ops
from .. import tangents as T
from ..batch_rules import front, loop, merged_into_first_axis
from ...core.primitive import Primitive, wants_grad
from ..operands import DtypeMismatchError, ShapeMismatchError
from ..precision import cast_by_bind as _cast_by_bind
from ._geometry import (_data_format, _four, _is_int, _pad4, _pad_mode, _pair, _require_tensor,
                        _same_pads, _sibling)


def _shape4(op: str, arg: str, value, meaning: str) -> tuple:
    """A static 4-d shape argument of the gradient primitives, checked."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if not (isinstance(value, (tuple, list)) and len(value) == 4 and all(_is_int(v) and v > 0 for v in value)):
        raise ValueError(f"{op}: {arg} must be {meaning}: 4 positive ints, but got {value!r}.")
    return tuple(int(v) for v in value)


class _ConvBase(Primitive):
    """Configuration shared by Conv2D and its two gradient primitives."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    skips_unneeded_grads = True      # e.g. no transposed convolution for a batch of data

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
            raise ShapeMismatchError(
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
    # All three work channel-first, on (C, N, H, W) views: then one kernel tap's slice of every
    # image, ``xt[:, :, rows, cols]``, is a block that reshapes to a (C, N*Ho*Wo) matrix, and
    # each product is one BLAS call over the whole batch.  (Gathering windows in the natural
    # (N, Ho, Wo, C, kh, kw) order instead costs two to five times more in copies.)
    def _taps(self, out_hw):
        """Per kernel tap: ``(i, j, row slice, column slice)`` into the padded input."""
        (kh, kw), (sh, sw), (dh, dw) = self.kernel_size, self.stride, self.dilation
        ho, wo = out_hw
        for i in range(kh):
            for j in range(kw):
                yield (i, j, slice(i * dh, i * dh + (ho - 1) * sh + 1, sh),
                       slice(j * dw, j * dw + (wo - 1) * sw + 1, sw))

    def _conv(self, x, w):
        xt = _pad4(x, self._pads(x.shape[2:])).transpose(1, 0, 2, 3)       # (C, N, Hp, Wp) view
        n, (ho, wo) = x.shape[0], self._out_hw(x.shape[2:])
        c, o, g = x.shape[1], w.shape[0], self.group
        kh, kw = self.kernel_size
        cols = np.empty((c, kh, kw, n, ho, wo), dtype=np.result_type(x, w))   # im2col, tap-major
        for i, j, rows, columns in self._taps((ho, wo)):
            cols[:, i, j] = xt[:, :, rows, columns]
        cg, og = c // g, o // g
        out = np.empty((o, n, ho, wo), dtype=cols.dtype)
        for k in range(g):      # a loop over groups (1 for ordinary conv), not over pixels
            out[k * og:(k + 1) * og] = (w[k * og:(k + 1) * og].reshape(og, -1)
                                        @ cols[k * cg:(k + 1) * cg].reshape(cg * kh * kw, -1)
                                        ).reshape(og, n, ho, wo)
        return out.transpose(1, 0, 2, 3)

    def _backprop_input(self, dy, w, x_shape):
        pt, pb, pl, pr = self._pads(x_shape[2:])
        n, c, h, wd = x_shape
        o, g = w.shape[0], self.group
        cg, og = c // g, o // g
        ho, wo = dy.shape[2:]
        dy2 = np.ascontiguousarray(dy.transpose(1, 0, 2, 3)).reshape(o, -1)  # (O, N*Ho*Wo)
        dxt = np.zeros((c, n, h + pt + pb, wd + pl + pr), dtype=np.result_type(dy, w))
        for i, j, rows, columns in self._taps((ho, wo)):   # col2im one tap at a time: no overlaps
            for k in range(g):
                part = w[k * og:(k + 1) * og, :, i, j].T @ dy2[k * og:(k + 1) * og]   # (Cg, N*Ho*Wo)
                dxt[k * cg:(k + 1) * cg, :, rows, columns] += part.reshape(cg, n, ho, wo)
        return np.ascontiguousarray(dxt[:, :, pt:pt + h, pl:pl + wd].transpose(1, 0, 2, 3))

    def _backprop_filter(self, dy, x, w_shape):
        xt = np.ascontiguousarray(_pad4(x, self._pads(x.shape[2:])).transpose(1, 0, 2, 3))
        o, cg = w_shape[0], w_shape[1]
        g = self.group
        og = o // g
        ho, wo = dy.shape[2:]
        dy2 = np.ascontiguousarray(dy.transpose(1, 0, 2, 3)).reshape(o, -1)  # (O, N*Ho*Wo)
        dw = np.empty(w_shape, dtype=np.result_type(dy, x))
        for i, j, rows, columns in self._taps((ho, wo)):
            for k in range(g):
                tap = xt[k * cg:(k + 1) * cg, :, rows, columns].reshape(cg, -1)   # (Cg, N*Ho*Wo)
                dw[k * og:(k + 1) * og, :, i, j] = dy2[k * og:(k + 1) * og] @ tap.T
        return dw

    def jvp(self, primals, tangents):
        """Every member of the family is bilinear in its two Tensor inputs (the third, a shape, is
        static): the tangent is the same primitive applied to one tangent and the other primal."""
        a, b, *static = primals
        ta, tb = tangents[:2]
        out = bind(self, *primals)
        da = bind(self, ta, b, *static) if ta is not None else None
        db = bind(self, a, tb, *static) if tb is not None else None
        return out, T.add(da, db)

    def _check_pair(self, a, b, names):
        for name, v in zip(names, (a, b)):
            _require_tensor(self.name, name, v)
        if a.dtype is not b.dtype and not _cast_by_bind(a, b):
            raise DtypeMismatchError(self.name, names, (a.dtype, b.dtype), quoted=True)

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

    fast_kernel = "conv.conv2d"

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
        if _fast.enabled:                        # Numba kernel; None = not its configuration
            out = _fast.conv.conv2d(self, x, w)
            if out is not None:
                return out
        return self._conv(x, w)

    def batch(self, args, dims, size):
        if dims[1] is not None:                     # a weight per example: one convolution each
            return loop(self, args, dims, size)
        return merged_into_first_axis(self, args, dims, size, tensor_positions=[0])

    def bprop(self, x, w, out, dout):
        o = w.shape[0]
        dx = _sibling(self, Conv2DBackpropInput, out_channel=o)(dout, w, x.shape) if wants_grad(0) else None
        dw = _sibling(self, Conv2DBackpropFilter, out_channel=o)(dout, x, w.shape) if wants_grad(1) else None
        return dx, dw


class Conv2DBackpropInput(_ConvBase):
    """``ops.Conv2DBackpropInput(out_channel, kernel_size, ...)(dout, weight, input_size)``.

    The gradient of Conv2D with respect to its input (a "transposed convolution"); ``input_size`` is
    the shape ``(N, C, H, W)`` of that input.  Linear in ``dout`` and in ``weight``.
    """

    fast_kernel = "conv.conv2d_backprop_input"

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        self._configure(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format, pad_list)

    def __call__(self, dout, weight, input_size):
        self._check_pair(dout, weight, ("dout", "weight"))
        input_size = _shape4(self.name, "input_size", input_size, "the input's shape, (N, C, H, W)")
        self._check_geometry(input_size, weight.shape, "input_size")
        self._check_dout(dout, input_size, weight.shape[0])
        return bind(self, dout, weight, input_size)

    def impl(self, dout, w, input_size):
        if _fast.enabled:
            out = _fast.conv.conv2d_backprop_input(self, dout, w, input_size)
            if out is not None:
                return out
        return self._backprop_input(dout, w, input_size)

    def batch(self, args, dims, size):
        (dout, w, input_size), (dd, dw, _) = args, dims
        if dw is not None:
            return loop(self, args, dims, size)
        n = input_size[0]
        dout = front(dout, dd, size)
        dout = ops.reshape(dout, (size * n,) + tuple(dout.shape[2:]))
        out = bind(self, dout, w, (size * n,) + tuple(input_size[1:]))
        return ops.reshape(out, (size, n) + tuple(out.shape[1:])), 0

    def bprop(self, dout, w, input_size, out, g):
        o = w.shape[0]
        d_dout = _sibling(self, Conv2D, out_channel=o)(g, w) if wants_grad(0) else None
        d_w = _sibling(self, Conv2DBackpropFilter, out_channel=o)(dout, g, w.shape) if wants_grad(1) else None
        return d_dout, d_w, None


class Conv2DTranspose(Conv2DBackpropInput):
    """``ops.Conv2DTranspose``: MindSpore's public name for ``Conv2DBackpropInput``."""


class Conv2DBackpropFilter(_ConvBase):
    """``ops.Conv2DBackpropFilter(out_channel, kernel_size, ...)(dout, x, filter_size)``.

    The gradient of Conv2D with respect to its weight; ``filter_size`` is the weight's shape.
    Linear in ``dout`` and in ``x``.
    """

    fast_kernel = "conv.conv2d_backprop_filter"

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        self._configure(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
                        data_format, pad_list)

    def __call__(self, dout, x, filter_size):
        self._check_pair(dout, x, ("dout", "x"))
        filter_size = _shape4(self.name, "filter_size", filter_size,
                              "the weight's shape, (out_channel, in_channel/group, kh, kw)")
        self._check_geometry(x.shape, filter_size, "x")
        self._check_dout(dout, x.shape, filter_size[0])
        return bind(self, dout, x, filter_size)

    def impl(self, dout, x, filter_size):
        if _fast.enabled:
            out = _fast.conv.conv2d_backprop_filter(self, dout, x, filter_size)
            if out is not None:
                return out
        return self._backprop_filter(dout, x, filter_size)

    def bprop(self, dout, x, filter_size, out, g):
        o = filter_size[0]
        d_dout = _sibling(self, Conv2D, out_channel=o)(x, g) if wants_grad(0) else None
        d_x = _sibling(self, Conv2DBackpropInput, out_channel=o)(dout, g, x.shape) if wants_grad(1) else None
        return d_dout, d_x, None
