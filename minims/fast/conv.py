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

Two layouts of ``cols``:

* **wide rows** (stride 1, the common case): row ``(c, a, b)`` of ``cols`` is the input plane
  itself, flattened and shifted by the tap's offset ``a*dh*Wp + b*dw``: ``(Ho-1)*Wp + Wo``
  consecutive values, one plain copy per tap and sample, and ``Wp - Wo`` zeros to make ``Ho*Wp``
  columns.  Output position ``(i, j)`` is column ``i*Wp + j``; the ``Wp - Wo`` columns after each
  output row are windows that wrap around the edge of the plane, computed and thrown away.  The
  rows of every sample sit side by side, ``(C*kh*kw, N, Ho*Wp)``, so each product is one call
  over the whole batch.  Gathering the
  windows row by row instead (the compact layout below) costs 4-6x more than the copy, and
  more than the extra ``Wp/Wo - 1`` of matmul work (measured on LeNet-5's two convolutions).
  ``dy`` enters the gradients in the same layout, with zeros in the thrown-away columns: those
  add exact zeros — unless the other operand is not finite there (``0 * inf``), so an input or
  weight with inf/NaN takes the compact layout.
* **compact** (any stride): ``cols`` keeps the batch first, ``(N, C*kh*kw, Ho*Wo)``, so
  ``W @ cols`` (a batched ``matmul``) lands directly in NCHW order and ``dy`` needs no transpose.

The products go to BLAS, except the weight gradient of a convolution with few channels, whose few
long dot products a small Numba kernel (``_a_bt``) computes faster.

The geometry (padding, output size) comes from the primitive itself, so the two paths cannot
disagree about it.
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


@kernel(parallel=True)
def _im2col_wide(xp, kh, kw, dh, dw, ho):
    """``cols[(c, a, b), n, q] = xp[n, c].flat[a*dh*Wp + b*dw + q]``: the wide rows (see the module
    docstring), ``Ho*Wp`` columns per sample; the last row's ``Wp - Wo`` thrown-away columns would
    read past the plane and are zeros instead.  Each row is one copy written as a loop over ``q``:
    Numba's slice assignment of the same row ran 4x slower (measured).  Split over threads, each
    tap's row of ``cols`` belongs to one iteration."""
    n_, c_, hp, wp = xp.shape
    wo = wp - (kw - 1) * dw
    length, span = (ho - 1) * wp + wo, ho * wp
    xf = xp.reshape(n_, c_, hp * wp)
    cols = np.empty((c_ * kh * kw, n_, span), dtype=xp.dtype)
    for r in prange(c_ * kh * kw):
        c, a, b = r // (kh * kw), (r // kw) % kh, r % kw
        start = a * dh * wp + b * dw
        for n in range(n_):
            src, dst = xf[n, c, start:start + length], cols[r, n]
            for q in range(length):
                dst[q] = src[q]
            for q in range(length, span):
                dst[q] = 0
    return cols


@kernel(parallel=True)
def _col2im_wide(dcols, dxp, kh, kw, dh, dw, ho):
    """The adjoint of ``_im2col_wide``: add row ``(c, a, b)`` of ``dcols`` (``(C*kh*kw, N, Ho*Wp)``)
    into plane (n, c) of ``dxp`` (zeros from the caller) at the tap's offset, tap after tap (the
    order of the NumPy path's col2im); one (n, c) plane per iteration when split over threads."""
    n_, c_, hp, wp = dxp.shape
    length = (ho - 1) * wp + wp - (kw - 1) * dw
    dxf = dxp.reshape(n_, c_, hp * wp)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        for a in range(kh):
            for b in range(kw):
                start = a * dh * wp + b * dw
                src, dst = dcols[(c * kh + a) * kw + b, n], dxf[n, c, start:start + length]
                for q in range(length):
                    dst[q] += src[q]
    return dxp


# The two layout changes below index 4-d arrays with the loop counters themselves: with a flat
# index ``i*Wp + j`` Numba must allow for a negative (wrap-around) index, and the copies ran 2-3x
# slower (measured).
@kernel(parallel=True)
def _unwiden(yw, y):
    """``y[n, o, i, j] = yw[o, n, i*Wp + j]``: a product in wide rows ``(O, N, Ho*Wp)`` to NCHW,
    the thrown-away columns dropped."""
    n_, o_, ho, wo = y.shape
    y4 = yw.reshape(o_, n_, ho, yw.shape[2] // ho)
    for n in prange(n_):
        for o in range(o_):
            for i in range(ho):
                for j in range(wo):
                    y[n, o, i, j] = y4[o, n, i, j]
    return y


@kernel(parallel=True)
def _widen(dy, wp):
    """The transpose of ``_unwiden``: ``dy`` (N, O, Ho, Wo) as wide rows ``(O, N, Ho*Wp)``, zeros in
    the thrown-away columns."""
    n_, o_, ho, wo = dy.shape
    out = np.empty((o_, n_, ho, wp), dtype=dy.dtype)
    for o in prange(o_):
        for n in range(n_):
            for i in range(ho):
                for j in range(wo):
                    out[o, n, i, j] = dy[n, o, i, j]
                for j in range(wo, wp):
                    out[o, n, i, j] = 0
    return out.reshape(o_, n_, ho * wp)


@kernel(reassociate=True, fma=True)
def _a_bt(a, b):
    """``a @ b.T`` for a few rows of very long ``a`` (M, Q) and ``b`` (R, Q): the weight gradient of
    a convolution with few channels (LeNet's first: 6 x 25 sums of 28,672 products).  BLAS spends
    most of such a product packing its operands; here blocks of 2 rows of ``a`` by 4 rows of ``b``
    keep 8 running sums in vector registers, each loaded value used 2-4 times: 2.4x faster than
    BLAS on that shape (measured; BLAS stays for larger outputs, where it wins)."""
    m_, q_ = a.shape
    r_ = b.shape[0]
    out = np.empty((m_, r_), dtype=a.dtype)
    zero = np.float32(0)                # float64 inputs make the sums float64 (Numba unifies the types)
    for m in range(0, m_, 2):
        a0, a1 = a[m], a[min(m + 1, m_ - 1)]            # an odd last row is computed twice
        r = 0
        while r + 4 <= r_:
            b0, b1, b2, b3 = b[r], b[r + 1], b[r + 2], b[r + 3]
            s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = zero
            for q in range(q_):
                x0, x1, y0, y1, y2, y3 = a0[q], a1[q], b0[q], b1[q], b2[q], b3[q]
                s00 += x0 * y0
                s01 += x0 * y1
                s02 += x0 * y2
                s03 += x0 * y3
                s10 += x1 * y0
                s11 += x1 * y1
                s12 += x1 * y2
                s13 += x1 * y3
            out[m, r], out[m, r + 1], out[m, r + 2], out[m, r + 3] = s00, s01, s02, s03
            if m + 1 < m_:
                out[m + 1, r], out[m + 1, r + 1], out[m + 1, r + 2], out[m + 1, r + 3] = s10, s11, s12, s13
            r += 4
        for rest in range(r, r_):
            b0 = b[rest]
            s00 = s10 = zero
            for q in range(q_):
                s00 += a0[q] * b0[q]
                s10 += a1[q] * b0[q]
            out[m, rest] = s00
            if m + 1 < m_:
                out[m + 1, rest] = s10
    return out


@kernel(reassociate=True)
def _finite(a):
    """True when every value of ``a`` (any shape, C-contiguous) is finite: ``v - v`` is 0 for a
    finite ``v`` and NaN for inf or NaN (one vectorised pass, no branch)."""
    flat = a.reshape(a.size)
    total = 0.0
    for i in range(flat.size):
        total += flat[i] - flat[i]
    return total == 0.0


# ================================================================================================
# wrappers: the primitive's geometry in, a NumPy array (or None: "use the NumPy path") out
# ================================================================================================
#: How many bytes of ``cols`` to build at a time.  The batch is processed in slices of this size:
#: a few MB stay in the cache between im2col and the matmul, and the allocator hands back the same
#: block for every slice.  One im2col of a whole 32x32x32x32 batch (38 MB) instead spent most of its
#: time faulting in fresh memory pages: 2.3x slower (measured); LeNet's fit in one slice anyway.
CHUNK_BYTES = 4 << 20


#: Weight gradients with at most this many entries (per group) use ``_a_bt`` rather than BLAS.
#: Measured on LeNet-5: 6 x 25 entries 2.4x faster than BLAS, 16 x 150 entries 1.2x slower.
SMALL_PRODUCT = 512


def _slices(n, rows, hw, itemsize):
    """Batch slices ``[s, e)`` whose ``cols`` (``rows x hw`` per sample) fit in ``CHUNK_BYTES``."""
    step = max(1, CHUNK_BYTES // (rows * hw * itemsize))
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def _wide(prim) -> bool:
    """Does ``prim`` use the wide-row layout (stride 1)?"""
    return prim.stride == (1, 1)


def _padded_width(prim, hw):
    pt, pb, pl, pr = prim._pads(hw)
    return hw[1] + pl + pr


def _length(prim, hw, out_hw):
    """Columns per sample: ``Ho*Wp`` in the wide layout, ``Ho*Wo`` in the compact one."""
    return out_hw[0] * (_padded_width(prim, hw) if _wide(prim) else out_hw[1])


def _widened(dy, wp, keep):
    """``_widen(dy, wp)``, computed once for the two gradients of one convolution: the input
    gradient keeps it as a residual of ``dy`` (``keep``), the weight gradient takes it."""
    dyw = residuals.take(dy, ("widen", wp))
    if dyw is None:
        dyw = _widen(c_array(dy), wp)
        if keep:
            residuals.keep(dy, ("widen", wp), dyw, dyw.nbytes)
    return dyw


def _columns(prim, x, out_hw):
    """im2col of ``x`` for ``prim``'s geometry, restricted to ``out_hw`` output positions: wide rows
    ``(C*kh*kw, N, L)`` for stride 1, else compact ``(N, C*kh*kw, Ho*Wo)``."""
    xp = pad(x, prim._pads(x.shape[2:]))
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.stride, prim.dilation
    if _wide(prim):
        return _im2col_wide(xp, kh, kw, dh, dw, out_hw[0])
    return _im2col(xp, kh, kw, sh, sw, dh, dw, out_hw[0], out_hw[1])


def _columns_tag(prim, x_shape, out_hw):
    """The geometry an im2col of an input of ``x_shape`` depends on (the residuals' key; the stride
    also says which layout)."""
    return ("im2col", prim.kernel_size, prim.stride, prim.dilation, prim._pads(x_shape[2:]), tuple(out_hw))


def conv2d(prim, x, w):
    """``Conv2D``: ``y = W @ cols`` per group and per batch slice (wide rows: one matmul over the
    slice; compact: a batched matmul, ``y[n] = W @ cols[n]``).

    When the whole batch fits in one slice, its columns are kept as a residual for
    ``conv2d_backprop_filter`` (see ``minims.fast.residuals``)."""
    if not same_float(x, w):
        return None
    given = x
    x, w = c_array(x), c_array(w)
    n, o = x.shape[0], w.shape[0]
    ho, wo = prim._out_hw(x.shape[2:])
    g, wide = prim.group, _wide(prim)
    w2 = w.reshape(o, -1)                                  # (O, C/g*kh*kw)
    og, rows = o // g, w2.shape[1]
    length = _length(prim, x.shape[2:], (ho, wo))
    y = np.empty((n, o, ho, wo) if wide else (n, o, ho * wo), dtype=x.dtype)
    slices = _slices(n, rows * g, length, x.itemsize)
    for s, e in slices:
        cols = _columns(prim, x[s:e], (ho, wo))
        if len(slices) == 1:
            residuals.keep(given, _columns_tag(prim, x.shape, (ho, wo)), cols, cols.nbytes)
        if wide:            # (O, e-s, L), then NCHW without the columns between rows
            yw = np.empty((o, e - s, length), dtype=x.dtype)
            for i in range(g):
                np.matmul(w2[i * og:(i + 1) * og], cols[i * rows:(i + 1) * rows].reshape(rows, -1),
                          out=yw[i * og:(i + 1) * og].reshape(og, -1))
            _unwiden(yw, y[s:e])
            continue
        for i in range(g):  # group i: its own output channels times its own input channels' rows
            np.matmul(w2[i * og:(i + 1) * og], cols[:, i * rows:(i + 1) * rows], out=y[s:e, i * og:(i + 1) * og])
    return y.reshape(n, o, ho, wo)


def conv2d_backprop_input(prim, dy, w, input_size):
    """``Conv2DBackpropInput``: ``dcols = W.T @ dy``, then col2im and crop the padding."""
    if not same_float(dy, w):
        return None
    given_dy = dy
    dy, w = c_array(dy), c_array(w)
    n, c, h, wd = input_size
    o, ho, wo = w.shape[0], dy.shape[2], dy.shape[3]
    g = prim.group
    w2 = w.reshape(o, -1)
    og, rows = o // g, w2.shape[1]
    pt, pb, pl, pr = prim._pads((h, wd))
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.stride, prim.dilation
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=dy.dtype)
    wide = _wide(prim) and _finite(w)           # inf * the zero columns would be NaN
    length = _length(prim, (h, wd), (ho, wo)) if wide else ho * wo
    dy3 = dy.reshape(n, o, ho * wo)
    for s, e in _slices(n, rows * g, length, dy.itemsize):
        if wide:
            dyw = _widened(given_dy, dxp.shape[3], True) if (s, e) == (0, n) else _widen(dy[s:e], dxp.shape[3])
            dcols = np.empty((g * rows, e - s, length), dtype=dy.dtype)
            for i in range(g):
                np.matmul(w2[i * og:(i + 1) * og].T, dyw[i * og:(i + 1) * og].reshape(og, -1),
                          out=dcols[i * rows:(i + 1) * rows].reshape(rows, -1))
            _col2im_wide(dcols, dxp[s:e], kh, kw, dh, dw, ho)
            continue
        dcols = np.empty((e - s, g * rows, ho * wo), dtype=dy.dtype)
        for i in range(g):
            np.matmul(w2[i * og:(i + 1) * og].T, dy3[s:e, i * og:(i + 1) * og], out=dcols[:, i * rows:(i + 1) * rows])
        _col2im(dcols, dxp[s:e], kh, kw, sh, sw, dh, dw, ho, wo)
    if pt or pb or pl or pr:
        return np.ascontiguousarray(dxp[:, :, pt:pt + h, pl:pl + wd])
    return dxp


def conv2d_backprop_filter(prim, dy, x, filter_size):
    """``Conv2DBackpropFilter``: ``dW = dy @ cols.T`` (per group, summed over slices)."""
    if not same_float(dy, x):
        return None
    given, given_dy = x, dy
    dy, x = c_array(dy), c_array(x)
    n, o, ho, wo = dy.shape
    g = prim.group
    og, rows = o // g, filter_size[1] * filter_size[2] * filter_size[3]
    dw = np.zeros((o, rows), dtype=x.dtype)
    tag = _columns_tag(prim, x.shape, (ho, wo))
    if _wide(prim) and not _finite(x):          # the zero columns of dy times inf would be NaN
        residuals.take(given, tag)
        return _filter_compact(prim, dy, x, filter_size, dw)
    length = _length(prim, x.shape[2:], (ho, wo))
    slices = _slices(n, rows * g, length, x.itemsize)
    kept = residuals.take(given, tag) if len(slices) == 1 else None
    for s, e in slices:
        cols = kept if kept is not None else _columns(prim, x[s:e], (ho, wo))
        if _wide(prim):
            wp = _padded_width(prim, x.shape[2:])
            dyw = _widened(given_dy, wp, False) if (s, e) == (0, n) else _widen(dy[s:e], wp)      # (O, e-s, Ho*Wp)
            for i in range(g):
                a, b = dyw[i * og:(i + 1) * og].reshape(og, -1), cols[i * rows:(i + 1) * rows].reshape(rows, -1)
                if og * rows <= SMALL_PRODUCT:
                    dw[i * og:(i + 1) * og] += _a_bt(a, b)
                else:               # b @ a.T, transposed: 1.15x faster than a @ b.T (LeNet's conv2)
                    dw[i * og:(i + 1) * og] += (b @ a.T).T
            continue
        _filter_slice(cols, dy[s:e], g, og, rows, dw)
    return dw.reshape(filter_size)


def _filter_slice(cols, dy, g, og, rows, dw):
    """Add one batch slice's ``dW`` from compact columns into ``dw`` (O, rows)."""
    dy3 = dy.reshape(dy.shape[0], dy.shape[1], -1)
    for i in range(g):
        # per sample cols[n] @ dy[n].T, i.e. dW[n].T: with the long matrix on the left this
        # batched matmul ran 1.8x faster than dy[n] @ cols[n].T (measured on LeNet's conv2);
        # then the sum over the slice, (e-s, rows, Og) -> (rows, Og), transposed back
        part = np.matmul(cols[:, i * rows:(i + 1) * rows], dy3[:, i * og:(i + 1) * og].transpose(0, 2, 1))
        dw[i * og:(i + 1) * og] += part.sum(axis=0).T


def _filter_compact(prim, dy, x, filter_size, dw):
    """``conv2d_backprop_filter`` in the compact layout (a stride-1 input that is not finite)."""
    n, ho, wo = dy.shape[0], dy.shape[2], dy.shape[3]
    g, o = prim.group, dy.shape[1]
    og, rows = o // g, dw.shape[1]
    xp = pad(x, prim._pads(x.shape[2:]))
    (kh, kw), (dh, dw_) = prim.kernel_size, prim.dilation
    for s, e in _slices(n, rows * g, ho * wo, x.itemsize):
        _filter_slice(_im2col(xp[s:e], kh, kw, 1, 1, dh, dw_, ho, wo), dy[s:e], g, og, rows, dw)
    return dw.reshape(filter_size)


# ================================================================================================
# warm-up: one tiny call per kernel (compiles it, or loads it from the disk cache)
# ================================================================================================
def _examples():
    def im2col(dtype):
        _im2col(np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 1, 1, 2, 2)

    def col2im(dtype):
        _col2im(np.zeros((1, 4, 4), dtype), np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 1, 1, 2, 2)

    def im2col_wide(dtype):
        _im2col_wide(np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 2)

    def col2im_wide(dtype):
        _col2im_wide(np.zeros((4, 1, 6), dtype), np.zeros((1, 1, 3, 3), dtype), 2, 2, 1, 1, 2)

    return [("conv.im2col", _im2col, im2col), ("conv.col2im", _col2im, col2im),
            ("conv.im2col_wide", _im2col_wide, im2col_wide), ("conv.col2im_wide", _col2im_wide, col2im_wide),
            ("conv.unwiden", _unwiden, lambda d: _unwiden(np.zeros((1, 1, 6), d), np.zeros((1, 1, 2, 2), d))),
            ("conv.widen", _widen, lambda d: _widen(np.zeros((1, 1, 2, 2), d), 3)),
            ("conv.a_bt", _a_bt, lambda d: _a_bt(np.zeros((3, 4), d), np.zeros((5, 4), d))),
            ("conv.finite", _finite, lambda d: _finite(np.zeros((1, 1, 2, 2), d)))]
