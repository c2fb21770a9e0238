"""Pooling: ``MaxPool`` with its scatter/gather gradient pair, and ``AvgPool`` with ``AvgPoolGrad``.

Scatter to and gather from a fixed set of positions are each other's adjoint, so max-pooling can be
differentiated to any order; the positions depend on ``x`` only piecewise-constantly.
"""
from __future__ import annotations

import numpy as np
from ... import fast as _fast          # the fast-path switch: _fast.enabled
from ...core.stack import bind
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ...core.primitive import Primitive
from ..batch_rules import merged_into_first_axis
from ._geometry import (_data_format, _pad4, _pad_mode, _pair, _same_pads, _sibling, _unwindow,
                        _windows)


class _PoolBase(Primitive):
    """Window geometry shared by the pooling primitives.

    MindSpore's ``MaxPool``/``AvgPool`` know "valid" and "same"; the functional ``max_pool2d`` and
    ``avg_pool2d`` add explicit padding, dilation (max only), ``ceil_mode`` and the divisor options.
    Those live in underscore attributes set by ``_configured`` so that the public constructors keep
    MindSpore's signature.
    """

    checks_rule_results = False       # built-in rule: checked over the table by the tests

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
        # the lowest finite value, as MindSpore pads: a window lying wholly in the padding gives
        # -3.4028235e+38 (float32), not -inf
        low = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
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

    def batch(self, args, dims, size):
        """Every window is in one image: the vmap batch joins the images' axis N."""
        return merged_into_first_axis(self, args, dims, size)

    def _linear_in_grad_jvp(self, primals, tangents):
        """The gradient primitives are linear in ``grad``; ``x`` and ``origin_output`` only choose the
        positions, which are piecewise constant (no tangent)."""
        x, origin, grad = primals
        t = tangents[2]
        return bind(self, x, origin, grad), (None if t is None else bind(self, x, origin, t))

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

    "same" pads with the dtype's lowest finite value (padding wins only where a window sees nothing
    greater, e.g. a window wholly in the padding, as in MindSpore).  The gradient goes to the *first* maximum of each
    window in row-major order, as MindSpore and PyTorch do on ties.
    """

    fast_kernel = "pooling.max_pool"

    def __call__(self, x):
        self._check_input(x)
        return bind(self, x)

    def impl(self, x):
        if _fast.enabled:                        # Numba kernel; None = not its configuration
            out = _fast.pooling.max_pool(self, x)
            if out is not None:
                return out
        idx, flat = self._argmax(x)
        return np.take_along_axis(flat, idx[..., None], axis=-1)[..., 0]

    def jvp(self, primals, tangents):
        (x,), (t,) = primals, tangents
        out = bind(self, x)
        return out, _sibling(self, MaxPoolGradGrad)(x, out, t)      # the tangent at each window's maximum

    def bprop(self, x, out, dout):
        return (_sibling(self, MaxPoolGrad)(x, out, dout),)


class MaxPoolGrad(_PoolBase):
    """``MaxPoolGrad(...)(x, origin_output, grad)``: each window's ``grad`` added at its first maximum.

    Linear in ``grad``; its derivative in ``grad`` is ``MaxPoolGradGrad`` (gather from the same
    positions).  Its derivative in ``x`` is zero wherever it exists (the positions are piecewise
    constant in ``x``), so ``x`` and ``origin_output`` get no gradient.
    """

    fast_kernel = "pooling.max_pool_grad"

    def __call__(self, x, origin_output, grad):
        self._check_grad_args(x, origin_output, grad)
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        if _fast.enabled:
            out = _fast.pooling.max_pool_grad(self, x, grad)
            if out is not None:
                return out
        idx, _ = self._argmax(x)
        return self._scatter(x.shape, idx, grad.astype(np.result_type(x, grad), copy=False))

    def jvp(self, primals, tangents):
        return self._linear_in_grad_jvp(primals, tangents)

    def bprop(self, x, origin_output, grad, out, g):
        return None, None, _sibling(self, MaxPoolGradGrad)(x, origin_output, g)


class MaxPoolGradGrad(_PoolBase):
    """``MaxPoolGradGrad(...)(x, origin_output, grad)``: ``grad`` (shaped like ``x``) read at the first
    maximum of every window of ``x``; the adjoint of ``MaxPoolGrad``."""

    fast_kernel = "pooling.max_pool_grad_grad"

    def __call__(self, x, origin_output, grad):
        self._check_input(x)
        if not isinstance(grad, Tensor) or tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"{self.name}: 'grad' must be a Tensor shaped like x {list(x.shape)}, but got "
                             f"{_describe(grad)}.")
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        if _fast.enabled:
            out = _fast.pooling.max_pool_grad_grad(self, x, grad)
            if out is not None:
                return out
        return self._gather(x, grad)

    def jvp(self, primals, tangents):
        return self._linear_in_grad_jvp(primals, tangents)

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

    fast_kernel = "pooling.avg_pool"

    def __call__(self, x):
        self._check_input(x)
        if not x.dtype.is_float:
            raise TypeError(f"AvgPool: input 'x' must be a float Tensor, but got {x.dtype}. "
                            "Fix: cast it, e.g. x.astype(mindspore.float32).")
        return bind(self, x)

    def impl(self, x):
        if _fast.enabled:
            out = _fast.pooling.avg_pool(self, x)
            if out is not None:
                return out
        return self._avg(x)

    def jvp(self, primals, tangents):
        return bind(self, *primals), bind(self, tangents[0])        # linear

    def bprop(self, x, out, dout):
        return (_sibling(self, AvgPoolGrad)(x, out, dout),)


class AvgPoolGrad(_PoolBase):
    """``AvgPoolGrad(...)(x, origin_output, grad)``: each window's ``grad / count`` spread over the
    window (the transpose of AvgPool; only ``x``'s shape is used).  Its gradient is AvgPool."""

    fast_kernel = "pooling.avg_pool_grad"

    def __call__(self, x, origin_output, grad):
        self._check_grad_args(x, origin_output, grad)
        return bind(self, x, origin_output, grad)

    def impl(self, x, origin_output, grad):
        if _fast.enabled:
            out = _fast.pooling.avg_pool_grad(self, x.shape, grad)
            if out is not None:
                return out
        return self._avg_adjoint(x.shape, grad)

    def jvp(self, primals, tangents):
        return self._linear_in_grad_jvp(primals, tangents)

    def bprop(self, x, origin_output, grad, out, g):
        return None, None, _sibling(self, AvgPool)(g)
