"""Fast convolution: Numba "im2col"/"col2im" around a BLAS matrix product.

A convolution is a matrix product in disguise.  Copy every window of the (padded) input into a
column — ``cols[n, (c, a, b), (i, j)] = xp[n, c, i*sh + a*dh, j*sw + b*dw]`` (im2col) — and then

* ``Conv2D``:              ``y[n] = W @ cols[n]``           with ``W`` the weight as ``(O, C*kh*kw)``;
* ``Conv2DBackpropFilter``: ``dW = sum_n dy[n] @ cols[n].T``;
* ``Conv2DBackpropInput``:  ``dcols[n] = W.T @ dy[n]``, then add every column back to the window
  it came from (col2im, the adjoint of im2col).

The matrix products go to NumPy's BLAS (``np.matmul``), which is far faster than any loop we could
write; the copies around them are what Numba is for.  The NumPy path does the same thing with a
strided view, but its copy of that 6-d view is slow, and its col2im is a Python loop over taps.

Layout: ``cols`` keeps the batch first, ``(N, C*kh*kw, Ho*Wo)``, so ``W @ cols`` (a batched
``matmul``) lands directly in NCHW order and ``dy`` needs no transpose.  The geometry (padding,
output size) comes from the primitive itself, so the two paths cannot disagree about it.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from . import residuals
from ._common import c_array, kernel, pad, same_float

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"]


# ================================================================================================
# kernels
# ================================================================================================
@kernel(parallel=True)
def _im2col(xp, kh, kw, sh, sw, dh, dw, ho, wo):
    """``cols[n, (c, a, b), (i, j)] = xp[n, c, i*sh + a*dh, j*sw + b*dw]`` for a padded ``xp``.

    Kernel tap (a, b) of channel c sees a strided ``(ho, wo)`` grid of the input plane; one slice
    assignment copies that grid into row ``(c, a, b)`` of ``cols``.  With ``minims.fast.parallel``
    the (n, c) planes are split over the threads: each pair fills its own rows, so no two threads
    write to the same place.
    """
    n_, c_ = xp.shape[0], xp.shape[1]
    cols = np.empty((n_, c_ * kh * kw, ho, wo), dtype=xp.dtype)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for a in range(kh):
            for b in range(kw):
                cols[n, (c * kh + a) * kw + b] = xp[n, c, a * dh:a * dh + (ho - 1) * sh + 1:sh,
                                                    b * dw:b * dw + (wo - 1) * sw + 1:sw]
    return cols.reshape(n_, c_ * kh * kw, ho * wo)


@kernel(parallel=True)
def _col2im(cols, xp, kh, kw, sh, sw, dh, dw, ho, wo):
    """The adjoint of ``_im2col``: add every entry of ``cols`` back at the input position it was
    copied from, into ``xp`` (a zero ``(N, C, Hp, Wp)`` array from the caller, see ``_common.pad``).

    Windows overlap, so one input position receives several additions — but all of them come from
    the same (n, c), and (when split over threads) each thread owns whole (n, c) planes: no two
    threads add to one place.
    The adds are written as a loop over one output row (not ``view += view`` on 2-D slices,
    which Numba evaluates through a temporary and runs 3x slower).
    """
    n_, c_ = xp.shape[0], xp.shape[1]
    cols4 = cols.reshape(n_, cols.shape[1], ho, wo)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for a in range(kh):
            for b in range(kw):
                tap = cols4[n, (c * kh + a) * kw + b]                  # (ho, wo)
                for i in range(ho):
                    dst = xp[n, c, i * sh + a * dh, b * dw:b * dw + (wo - 1) * sw + 1:sw]
                    src = tap[i]
                    for j in range(wo):
                        dst[j] += src[j]
    return xp


# ================================================================================================
# wrappers: the primitive's geometry in, a NumPy array (or None: "use the NumPy path") out
# ================================================================================================
#: How many bytes of ``cols`` to build at a time.  The batch is processed in slices of this size:
#: a few MB stay in the cache between im2col and the matmul, and the allocator hands back the same
#: block for every slice.  One im2col of a whole 32x32x32x32 batch (38 MB) instead spent most of its
#: time faulting in fresh memory pages: 2.3x slower (measured); LeNet's fit in one slice anyway.
CHUNK_BYTES = 4 << 20


def _slices(n, rows, hw, itemsize):
    """Batch slices ``[s, e)`` whose ``cols`` (``rows x hw`` per sample) fit in ``CHUNK_BYTES``."""
    step = max(1, CHUNK_BYTES // (rows * hw * itemsize))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def _columns(prim, x, out_hw):
    """im2col of ``x`` for ``prim``'s geometry, restricted to ``out_hw`` output positions."""
    xp = pad(x, prim._pads(x.shape[2:]))
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.stride, prim.dilation
    return _im2col(xp, kh, kw, sh, sw, dh, dw, out_hw[0], out_hw[1])


def _columns_tag(prim, x_shape, out_hw):
    """The geometry an im2col of an input of ``x_shape`` depends on (the residuals' key)."""
    return ("im2col", prim.kernel_size, prim.stride, prim.dilation, prim._pads(x_shape[2:]), tuple(out_hw))


def conv2d(prim, x, w):
    """``Conv2D``: ``y[n] = W @ cols[n]`` (a batched matmul), per group and per batch slice.

    When the whole batch fits in one slice, its columns are kept as a residual for
    ``conv2d_backprop_filter`` (see ``minims.fast.residuals``)."""
    if not same_float(x, w):
        return None
    given = x
    x, w = c_array(x), c_array(w)
    n, o = x.shape[0], w.shape[0]
    ho, wo = prim._out_hw(x.shape[2:])
    g = prim.group
    w2 = w.reshape(o, -1)                                  # (O, C/g*kh*kw)
    og, rows = o // g, w2.shape[1]
    y = np.empty((n, o, ho * wo), dtype=x.dtype)
    slices = _slices(n, rows * g, ho * wo, x.itemsize)
    for s, e in slices:
        cols = _columns(prim, x[s:e], (ho, wo))            # (e-s, C*kh*kw, Ho*Wo)
        if len(slices) == 1:
            residuals.keep(given, _columns_tag(prim, x.shape, (ho, wo)), cols, cols.nbytes)
        for i in range(g):  # group i: its own output channels times its own input channels' rows
            np.matmul(w2[i * og:(i + 1) * og], cols[:, i * rows:(i + 1) * rows], out=y[s:e, i * og:(i + 1) * og])
    return y.reshape(n, o, ho, wo)


def conv2d_backprop_input(prim, dy, w, input_size):
    """``Conv2DBackpropInput``: ``dcols[n] = W.T @ dy[n]``, then col2im and crop the padding."""
    if not same_float(dy, w):
        return None
    dy, w = c_array(dy), c_array(w)
    n, c, h, wd = input_size
    o, ho, wo = w.shape[0], dy.shape[2], dy.shape[3]
    g = prim.group
    w2 = w.reshape(o, -1)
    og, rows = o // g, w2.shape[1]
    dy3 = dy.reshape(n, o, ho * wo)
    pt, pb, pl, pr = prim._pads((h, wd))
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.stride, prim.dilation
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=dy.dtype)
    for s, e in _slices(n, rows * g, ho * wo, dy.itemsize):
        dcols = np.empty((e - s, g * rows, ho * wo), dtype=dy.dtype)
        for i in range(g):
            np.matmul(w2[i * og:(i + 1) * og].T, dy3[s:e, i * og:(i + 1) * og], out=dcols[:, i * rows:(i + 1) * rows])
        _col2im(dcols, dxp[s:e], kh, kw, sh, sw, dh, dw, ho, wo)
    if pt or pb or pl or pr:
        return np.ascontiguousarray(dxp[:, :, pt:pt + h, pl:pl + wd])
    return dxp


def conv2d_backprop_filter(prim, dy, x, filter_size):
    """``Conv2DBackpropFilter``: ``dW = sum_n dy[n] @ cols[n].T`` (per group, summed over slices)."""
    if not same_float(dy, x):
        return None
    given = x
    dy, x = c_array(dy), c_array(x)
    n, o, ho, wo = dy.shape
    g = prim.group
    og, rows = o // g, filter_size[1] * filter_size[2] * filter_size[3]
    dy3 = dy.reshape(n, o, ho * wo)
    dw = np.zeros((o, rows), dtype=x.dtype)
    slices = _slices(n, rows * g, ho * wo, x.itemsize)
    kept = residuals.take(given, _columns_tag(prim, x.shape, (ho, wo))) if len(slices) == 1 else None
    for s, e in slices:
        cols = kept if kept is not None else _columns(prim, x[s:e], (ho, wo))
        for i in range(g):
            # per sample cols[n] @ dy[n].T, i.e. dW[n].T: with the long matrix on the left this
            # batched matmul ran 1.8x faster than dy[n] @ cols[n].T (measured on LeNet's conv2);
            # then the sum over the slice, (e-s, rows, Og) -> (rows, Og), transposed back
            part = np.matmul(cols[:, i * rows:(i + 1) * rows], dy3[s:e, i * og:(i + 1) * og].transpose(0, 2, 1))
            dw[i * og:(i + 1) * og] += part.sum(axis=0).T
    return dw.reshape(filter_size)


# ================================================================================================
# warm-up: one tiny call per kernel (compiles it, or loads it from the disk cache)
# ================================================================================================
def _examples():
    def im2col(dtype):
        _im2col(np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 1, 1, 2, 2)

    def col2im(dtype):
        _col2im(np.zeros((1, 4, 4), dtype), np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 1, 1, 2, 2)

    return [("conv.im2col", _im2col, im2col), ("conv.col2im", _col2im, col2im)]
