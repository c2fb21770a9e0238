"""Fast pooling: Numba loops over the windows instead of a copy of all of them.

The NumPy path copies every window (``(N, C, Ho, Wo, kh*kw)``) to take ``argmax`` or ``sum`` over
its last axis, and scatters gradients back with a loop over kernel taps.  Here the input is padded
once (with the lowest finite value for max, 0 for average, exactly as the NumPy path pads) and the windows are read
in place, one *output row* at a time: for each kernel tap (a, b), the values that tap sees across
the row are one strided row of the padded input, and a loop over that row updates a running
maximum (or sum) for every window of the row at once.  Looping tap-by-tap over a whole row, rather
than window-by-window over a few taps, gives the compiler long branch-free loops to vectorise —
2x faster than the window-by-window loop on LeNet's 2x2 pools.

Conventions kept from the NumPy path (``minims.primitives.nn.pooling``):

* geometry (padding, the extra rows of ``ceil_mode``, output size, the divisor of each average)
  is asked from the primitive, so both paths agree on it by construction;
* max pooling takes the *first* maximum in row-major tap order, exactly ``np.argmax`` over the
  padded window: a later tap wins only if strictly greater — or if it is the first NaN
  (``argmax`` returns the first NaN; nothing is ever greater than NaN, so it then stays);
* gradients that land in the padding are dropped (the padded result is cropped).

Every kernel loops over the (n, c) planes with ``prange`` (split over threads when
``minims.fast.parallel`` is on): a plane's windows read and write only that plane, so no two
threads ever touch the same element, even where windows overlap.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from . import residuals
from ._common import c_array, helper, kernel, pad, same_float

__all__ = ["max_pool", "max_pool_grad", "max_pool_grad_grad", "avg_pool", "avg_pool_grad"]


# ================================================================================================
# kernels
# ================================================================================================
@helper()
def _row_argmax(xp, n, c, i, kh, kw, sh, sw, dh, dw, best, dr, dc):
    """Output row ``i`` of plane (n, c): ``best[j]`` = the maximum of window (i, j) of the padded
    ``xp``, and ``(dr[j], dc[j])`` = where its first maximum is, as an offset from the window's
    top-left corner ``(i*sh, j*sw)``.

    ``dr``/``dc`` are int32, not int64: with float32 values the compare-and-select then works on
    vectors of equally wide lanes, which made this loop 3x faster (measured on LeNet's pools).
    Offsets rather than the tap number ``a*kw + b`` spare the callers a division per window.
    """
    wo = best.shape[0]
    for a in range(kh):
        for b in range(kw):
            seen = xp[n, c, i * sh + a * dh, b * dw:b * dw + (wo - 1) * sw + 1:sw]   # tap (a, b), every j
            if a == 0 and b == 0:
                for j in range(wo):
                    best[j] = seen[j]
                    dr[j] = 0
                    dc[j] = 0
            else:
                for j in range(wo):
                    v, m = seen[j], best[j]
                    take = (v > m) | ((v != v) & (m == m))      # greater, or the first NaN
                    best[j] = v if take else m
                    dr[j] = a * dh if take else dr[j]
                    dc[j] = b * dw if take else dc[j]


@kernel(parallel=True)
def _max_pool_where(xp, kh, kw, sh, sw, dh, dw, ho, wo):
    """``out[n, c, i, j]`` = the maximum of window (i, j) of the padded plane (n, c), and
    where it is: the flat index into the padded plane, ``(i*sh + dr) * Wp + (j*sw + dc)``, as int32
    ``(N, C, Ho, Wo)`` (kept as a residual for the gradient)."""
    n_, c_, wp = xp.shape[0], xp.shape[1], xp.shape[3]
    out = np.empty((n_, c_, ho, wo), dtype=xp.dtype)
    at = np.empty((n_, c_, ho, wo), dtype=np.int32)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        dr, dc = np.empty(wo, dtype=np.int32), np.empty(wo, dtype=np.int32)
        for i in range(ho):
            _row_argmax(xp, n, c, i, kh, kw, sh, sw, dh, dw, out[n, c, i], dr, dc)
            for j in range(wo):
                at[n, c, i, j] = (i * sh + dr[j]) * wp + j * sw + dc[j]
    return out, at


@kernel(parallel=True)
def _max_pool_2x2(xp, ho, wo):
    """``_max_pool_where`` for the most common window — 2x2, stride 2, no dilation — without
    branches: ``(out, at, clean)``; ``clean`` is False when the input had a NaN (or +inf and -inf in
    one window), and then the caller must use ``_max_pool_where`` instead.

    The general kernel picks the maximum with a compare-and-select chain that also handles NaN;
    for scalar code (LeNet's rows are 14 and 5 windows wide, too short to vectorise) the compiler
    turns those selects into branches, and on random data about every other one is mispredicted:
    ~15 ns a window.  Here the maximum comes from ``max`` (a branch-free instruction), the first tap
    that equals it from integer arithmetic (``k = n0 * (1 + n1 * (1 + n2))`` with ``n_t = 1`` when
    tap t differs from the maximum: the first equal tap in row-major order, as ``np.argmax``), and
    the value is read back at that position (so -0.0 and 0.0 stay what they were): 4-6x faster
    (measured on LeNet's pools).  ``max`` and ``==`` say nothing reliable about NaN, so NaN is only
    detected — ``(a0 + a1) + (a2 + a3)`` is NaN when any tap is — and left to the general kernel.
    """
    n_, c_, wp = xp.shape[0], xp.shape[1], xp.shape[3]
    out = np.empty((n_, c_, ho, wo), dtype=xp.dtype)
    at = np.empty((n_, c_, ho, wo), dtype=np.int32)
    bad = np.zeros(n_ * c_, dtype=np.int32)
    one = np.int32(1)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        seen = np.int32(0)
        for i in range(ho):
            for j in range(wo):
                a0, a1 = xp[n, c, 2 * i, 2 * j], xp[n, c, 2 * i, 2 * j + 1]
                a2, a3 = xp[n, c, 2 * i + 1, 2 * j], xp[n, c, 2 * i + 1, 2 * j + 1]
                total = (a0 + a1) + (a2 + a3)
                seen |= np.int32(total != total)
                m = max(max(a0, a1), max(a2, a3))
                k = np.int32(a0 != m) * (one + np.int32(a1 != m) * (one + np.int32(a2 != m)))
                row, col = 2 * i + (k >> 1), 2 * j + (k & 1)
                out[n, c, i, j] = xp[n, c, row, col]
                at[n, c, i, j] = row * wp + col
        bad[nc] = seen
    return out, at, not bad.any()


@kernel(parallel=True)
def _scatter_at(at, g, dxp):
    """Add ``g[n, c, i, j]`` at flat position ``at[n, c, i, j]`` of plane (n, c) of ``dxp``."""
    n_, c_, ho, wo = g.shape
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        plane = dxp[n, c].reshape(-1)
        for i in range(ho):
            for j in range(wo):
                plane[at[n, c, i, j]] += g[n, c, i, j]
    return dxp


@kernel(parallel=True)
def _max_pool_grad(xp, g, dxp, kh, kw, sh, sw, dh, dw):
    """``MaxPoolGrad`` on the padded grid: add ``g[n, c, i, j]`` at the first maximum of window
    (i, j) of ``xp`` (a scatter) into ``dxp`` (zeros, shaped like ``xp``, from the caller — see
    ``_common.pad``); the caller crops the padding away."""
    n_, c_ = xp.shape[0], xp.shape[1]
    ho, wo = g.shape[2], g.shape[3]
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        best = np.empty(wo, dtype=xp.dtype)
        dr, dc = np.empty(wo, dtype=np.int32), np.empty(wo, dtype=np.int32)
        for i in range(ho):
            _row_argmax(xp, n, c, i, kh, kw, sh, sw, dh, dw, best, dr, dc)
            for j in range(wo):
                dxp[n, c, i * sh + dr[j], j * sw + dc[j]] += g[n, c, i, j]
    return dxp


@kernel(parallel=True)
def _max_pool_grad_grad(xp, gp, kh, kw, sh, sw, dh, dw, ho, wo):
    """``MaxPoolGradGrad``: read the (zero padded) ``gp`` at the first maximum of each window of
    ``xp`` (a gather) — the adjoint of the scatter above."""
    n_, c_ = xp.shape[0], xp.shape[1]
    out = np.empty((n_, c_, ho, wo), dtype=xp.dtype)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        best = np.empty(wo, dtype=xp.dtype)
        dr, dc = np.empty(wo, dtype=np.int32), np.empty(wo, dtype=np.int32)
        for i in range(ho):
            _row_argmax(xp, n, c, i, kh, kw, sh, sw, dh, dw, best, dr, dc)
            for j in range(wo):
                out[n, c, i, j] = gp[n, c, i * sh + dr[j], j * sw + dc[j]]
    return out


@kernel(parallel=True)
def _avg_pool(xp, divisor, kh, kw, sh, sw, dh, dw):
    """``out[n, c, i, j]`` = (sum of window (i, j) of the zero padded ``xp``) / ``divisor[i, j]``."""
    n_, c_ = xp.shape[0], xp.shape[1]
    ho, wo = divisor.shape
    out = np.empty((n_, c_, ho, wo), dtype=xp.dtype)
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        total = np.empty(wo, dtype=np.float64)          # float64 sums: free here, never less exact
        for i in range(ho):
            total[:] = 0.0
            for a in range(kh):
                for b in range(kw):
                    seen = xp[n, c, i * sh + a * dh, b * dw:b * dw + (wo - 1) * sw + 1:sw]
                    for j in range(wo):
                        total[j] += seen[j]
            for j in range(wo):
                out[n, c, i, j] = total[j] / divisor[i, j]
    return out


@kernel(parallel=True)
def _avg_pool_grad(g, divisor, dxp, kh, kw, sh, sw, dh, dw):
    """``AvgPoolGrad`` on the padded grid: spread ``g[n, c, i, j] / divisor[i, j]`` over window
    (i, j) (the transpose of ``_avg_pool``) into ``dxp`` (zeros from the caller); the caller crops
    the padding away."""
    n_, c_, ho, wo = g.shape
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        share = np.empty(wo, dtype=g.dtype)   # rounded to g's dtype before adding, as the NumPy path
        for i in range(ho):
            for j in range(wo):
                share[j] = g[n, c, i, j] / divisor[i, j]
            for a in range(kh):
                for b in range(kw):
                    dst = dxp[n, c, i * sh + a * dh, b * dw:b * dw + (wo - 1) * sw + 1:sw]
                    for j in range(wo):
                        dst[j] += share[j]
    return dxp


# ================================================================================================
# wrappers: the primitive's geometry in, a NumPy array (or None: "use the NumPy path") out
# ================================================================================================
def _window(prim, hw):
    """``(pads incl. the ceil_mode rows, (kh, kw, sh, sw, dh, dw), (ho, wo))`` for input size ``hw``."""
    (pt, pb, pl, pr), extra, out_hw = prim._geometry(hw)
    (kh, kw), (sh, sw), (dh, dw) = prim.kernel_size, prim.strides, prim._dilation
    return (pt, pb + extra[0], pl, pr + extra[1]), (kh, kw, sh, sw, dh, dw), out_hw


def _crop(xp, pads, hw):
    """The input region of a padded array (a contiguous copy only when there is padding)."""
    pt, _, pl, _ = pads
    if xp.shape[2:] == tuple(hw):
        return xp
    return np.ascontiguousarray(xp[:, :, pt:pt + hw[0], pl:pl + hw[1]])


def _lowest(x):
    """What max pooling pads with: the dtype's lowest finite value (as the NumPy path, and MindSpore)."""
    return np.finfo(x.dtype).min


def max_pool(prim, x):
    """The forward pass; where each maximum is stays behind as a residual for ``max_pool_grad``."""
    if not same_float(x):
        return None
    pads, geo, (ho, wo) = _window(prim, x.shape[2:])
    xp = pad(c_array(x), pads, _lowest(x))
    clean = False
    if geo == (2, 2, 2, 2, 1, 1):
        out, at, clean = _max_pool_2x2(xp, ho, wo)
    if not clean:
        out, at = _max_pool_where(xp, *geo, ho, wo)
    residuals.keep(x, ("maxpool", pads, geo), at, at.nbytes)
    return out


def max_pool_grad(prim, x, grad):
    if not same_float(x, grad):
        return None
    pads, geo, _ = _window(prim, x.shape[2:])
    padded = tuple(x.shape[:2]) + (x.shape[2] + pads[0] + pads[1], x.shape[3] + pads[2] + pads[3])
    at = residuals.take(x, ("maxpool", pads, geo))
    if at is not None and at.shape == grad.shape:
        dxp = _scatter_at(at, c_array(grad), np.zeros(padded, dtype=x.dtype))
    else:
        xp = pad(c_array(x), pads, _lowest(x))
        dxp = _max_pool_grad(xp, c_array(grad), np.zeros(xp.shape, dtype=xp.dtype), *geo)
    return _crop(dxp, pads, x.shape[2:])


def max_pool_grad_grad(prim, x, grad):
    if not same_float(x, grad):
        return None
    pads, geo, (ho, wo) = _window(prim, x.shape[2:])
    return _max_pool_grad_grad(pad(c_array(x), pads, _lowest(x)), pad(c_array(grad), pads, 0.0), *geo, ho, wo)


def _divisor(prim, hw, out_hw):
    """What each window divides by, as the primitive decides it, as a float64 ``(Ho, Wo)`` array."""
    return np.ascontiguousarray(np.broadcast_to(prim._divisor(hw), out_hw), dtype=np.float64)


def avg_pool(prim, x):
    if not same_float(x):
        return None
    pads, geo, out_hw = _window(prim, x.shape[2:])
    return _avg_pool(pad(c_array(x), pads, 0.0), _divisor(prim, x.shape[2:], out_hw), *geo)


def avg_pool_grad(prim, x_shape, grad):
    if not same_float(grad):
        return None
    hw = tuple(x_shape[2:])
    pads, geo, out_hw = _window(prim, hw)
    padded = tuple(grad.shape[:2]) + (hw[0] + pads[0] + pads[1], hw[1] + pads[2] + pads[3])
    dxp = _avg_pool_grad(c_array(grad), _divisor(prim, hw, out_hw), np.zeros(padded, dtype=grad.dtype), *geo)
    return _crop(dxp, pads, hw)


# ================================================================================================
# warm-up: one tiny call per kernel (compiles it, or loads it from the disk cache)
# ================================================================================================
def _examples():
    geo = (2, 2, 2, 2, 1, 1)
    div = np.ones((1, 1))

    def z(dtype, *shape):
        return np.zeros(shape, dtype)

    return [
        ("pooling.max_pool_where", _max_pool_where, lambda d: _max_pool_where(z(d, 1, 1, 2, 2), *geo, 1, 1)),
        ("pooling.max_pool_2x2", _max_pool_2x2, lambda d: _max_pool_2x2(z(d, 1, 1, 2, 2), 1, 1)),
        ("pooling.scatter_at", _scatter_at,
         lambda d: _scatter_at(np.zeros((1, 1, 1, 1), np.int32), z(d, 1, 1, 1, 1), z(d, 1, 1, 2, 2))),
        ("pooling.max_pool_grad", _max_pool_grad,
         lambda d: _max_pool_grad(z(d, 1, 1, 2, 2), z(d, 1, 1, 1, 1), z(d, 1, 1, 2, 2), *geo)),
        ("pooling.max_pool_grad_grad", _max_pool_grad_grad,
         lambda d: _max_pool_grad_grad(z(d, 1, 1, 2, 2), z(d, 1, 1, 2, 2), *geo, 1, 1)),
        ("pooling.avg_pool", _avg_pool, lambda d: _avg_pool(z(d, 1, 1, 2, 2), div, *geo)),
        ("pooling.avg_pool_grad", _avg_pool_grad,
         lambda d: _avg_pool_grad(z(d, 1, 1, 1, 1), div, z(d, 1, 1, 2, 2), *geo)),
    ]
