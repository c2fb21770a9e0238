"""``mindspore.numpy``'s numerical methods written with the core functions: differences (``diff``,
``ediff1d``), the trapezoidal rule (``trapz``), ``cross``, convolution (``convolve``,
``correlate``), polynomials (``polyval``, ``polyadd``, ``polysub``, ``polymul``, ``polyder``,
``polyint``), statistics of several variables (``cov``, ``corrcoef``), derivatives of samples
(``gradient``), ``unwrap``, ``interp`` and ``pad``.

Each is differentiable through the functions it is built from.  A full convolution is an outer
product whose anti-diagonals are summed: ``out[k] = sum_{i + j = k} a[i] v[j]``, one ``MatMul`` of the
flattened outer product with a constant 0/1 matrix that sends entry ``(i, j)`` to ``i + j``.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from ._utils import as_tensor, axis_arg, cast_to, describe, fail, is_number, static_int, to_dtype
from .array_ops import concatenate, flip, searchsorted
from .reductions import cumsum

__all__ = ["diff", "ediff1d", "trapz", "cross", "convolve", "correlate", "polyval", "polyadd", "polysub",
           "polymul", "polyder", "polyint", "cov", "corrcoef", "gradient", "unwrap", "interp", "pad"]


def _along(x, axis, part):
    return ops.getitem(x, (slice(None),) * axis + (part,))


def _edge(value, like, axis, where, name):
    """``prepend``/``append`` of :func:`diff`: a number is broadcast to one slice along ``axis``."""
    value = as_tensor(value, where, name)
    if value.ndim == 0:
        shape = like.shape[:axis] + (1,) + like.shape[axis + 1:]
        value = ops.broadcast_to(cast_to(value, like.dtype), shape)
    return value


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``mnp.diff(a, n=1, axis=-1, prepend=None, append=None)``: ``a[i + 1] - a[i]`` along ``axis``,
    ``n`` times."""
    a = as_tensor(a, "diff", "a")
    n = static_int(n, "diff", "n")
    if n < 0:
        raise fail(ValueError, "diff", f"n must be >= 0, but got {n}", "the order of the difference, e.g. 1")
    axis = axis_arg(axis, a.ndim, "diff")
    if n == 0:
        return a                         # as NumPy: nothing is joined either
    parts = [a]
    if prepend is not None:
        parts.insert(0, _edge(prepend, a, axis, "diff", "prepend"))
    if append is not None:
        parts.append(_edge(append, a, axis, "diff", "append"))
    a = concatenate(parts, axis) if len(parts) > 1 else a
    for _ in range(n):
        a = ops.sub(_along(a, axis, slice(1, None)), _along(a, axis, slice(None, -1)))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """``mnp.ediff1d(ary, to_end=None, to_begin=None)``: the differences of the flattened input, with
    values put before and after."""
    out = diff(ops.reshape(as_tensor(ary, "ediff1d", "ary"), (-1,)))
    parts = [out]
    if to_begin is not None:
        parts.insert(0, ops.reshape(cast_to(as_tensor(to_begin, "ediff1d", "to_begin"), out.dtype), (-1,)))
    if to_end is not None:
        parts.append(ops.reshape(cast_to(as_tensor(to_end, "ediff1d", "to_end"), out.dtype), (-1,)))
    return concatenate(parts) if len(parts) > 1 else out


def trapz(y, x=None, dx=1.0, axis=-1):
    """``mnp.trapz(y, x=None, dx=1.0, axis=-1)``: the integral by the trapezoidal rule, the sum of
    ``(y[i] + y[i + 1]) / 2 * (x[i + 1] - x[i])``."""
    y = as_tensor(y, "trapz", "y")
    y = y if y.dtype.is_float else ops.cast(y, ms.float32)
    axis = axis_arg(axis, y.ndim, "trapz")
    if x is None:
        d = dx
    else:
        x = as_tensor(x, "trapz", "x")
        d = diff(x, axis=-1 if x.ndim == 1 else axis)
        if x.ndim == 1:
            d = ops.reshape(d, tuple(-1 if k == axis else 1 for k in range(y.ndim)))
    middle = ops.mul(ops.add(_along(y, axis, slice(1, None)), _along(y, axis, slice(None, -1))), 0.5)
    return ops.sum(ops.mul(middle, d), axis)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``mnp.cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None)``: the cross product of vectors of 3
    (or 2, whose product is the z component, as NumPy; MindSpore 2.10 fails on those) along the
    given axes."""
    a, b = as_tensor(a, "cross", "a"), as_tensor(b, "cross", "b")
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _last(a, axis_arg(axisa, a.ndim, "cross"))
    b = _last(b, axis_arg(axisb, b.ndim, "cross"))
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise fail(ValueError, "cross", f"the vectors have {a.shape[-1]} and {b.shape[-1]} components",
                   "vectors of 2 or 3 components")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else None
    b2 = b[..., 2] if b.shape[-1] == 3 else None
    z = ops.sub(ops.mul(a0, b1), ops.mul(a1, b0))
    if a2 is None and b2 is None:
        return z
    a2 = ops.zeros_like(a0) if a2 is None else a2
    b2 = ops.zeros_like(b0) if b2 is None else b2
    x = ops.sub(ops.mul(a1, b2), ops.mul(a2, b1))
    y = ops.sub(ops.mul(a2, b0), ops.mul(a0, b2))
    out = ops.stack((x, y, z), -1)
    return ops.transpose(out, _to_position(out.ndim, axis_arg(axisc, out.ndim, "cross")))


def _last(x, axis):
    order = tuple(d for d in range(x.ndim) if d != axis) + (axis,)
    return ops.transpose(x, order)


def _to_position(ndim, axis):
    order = list(range(ndim - 1))
    order.insert(axis, ndim - 1)
    return tuple(order)


# ----- convolution and polynomials ---------------------------------------------------------------------
def _full_convolution(a, v):
    n, m = a.shape[0], v.shape[0]
    scatter = np.zeros((n * m, n + m - 1), dtype=a.dtype.np_dtype)
    scatter[np.arange(n * m), (np.arange(n)[:, None] + np.arange(m)[None, :]).ravel()] = 1
    products = ops.reshape(ops.mul(ops.reshape(a, (-1, 1)), ops.reshape(v, (1, -1))), (1, -1))
    return ops.reshape(ops.matmul(products, Tensor(scatter)), (-1,))


def _vectors(where, a, v):
    a, v = _at_least_vector(as_tensor(a, where, "a")), _at_least_vector(as_tensor(v, where, "v"))
    if a.ndim != 1 or v.ndim != 1 or not a.shape[0] or not v.shape[0]:
        raise fail(ValueError, where, f"a and v must be non-empty vectors, but got {describe(a)} and "
                   f"{describe(v)}", "1-D Tensors")
    common = ms.dtype.result_type(a.dtype, v.dtype)
    return cast_to(a, common), cast_to(v, common)


def _mode(where, full, n, m, mode):
    if mode == "full":
        return full
    if mode == "same":
        size, start = max(n, m), (min(n, m) - 1) // 2
    elif mode == "valid":
        size, start = max(n, m) - min(n, m) + 1, min(n, m) - 1
    else:
        raise fail(ValueError, where, f"mode must be 'full', 'same' or 'valid', but got {mode!r}", "mode='full'")
    return ops.getitem(full, slice(start, start + size))


def convolve(a, v, mode="full"):
    """``mnp.convolve(a, v, mode='full')``: the discrete linear convolution of two vectors."""
    a, v = _vectors("convolve", a, v)
    return _mode("convolve", _full_convolution(a, v), a.shape[0], v.shape[0], mode)


def correlate(a, v, mode="valid"):
    """``mnp.correlate(a, v, mode='valid')``: the cross-correlation, the convolution with ``v`` reversed."""
    a, v = _vectors("correlate", a, v)
    return _mode("correlate", _full_convolution(a, flip(v)), a.shape[0], v.shape[0], mode)


def _at_least_vector(x):
    return ops.reshape(x, (1,)) if x.ndim == 0 else x


def _coefficients(p, where, name="p"):
    p = _at_least_vector(as_tensor(p, where, name))
    if p.ndim != 1:
        raise fail(ValueError, where, f"{name} must be a 1-D Tensor of coefficients (highest power first), "
                   f"but got {describe(p)}", "a vector")
    return p


def polyval(p, x):
    """``mnp.polyval(p, x)``: the polynomial with coefficients ``p`` (highest power first) at ``x``,
    by Horner's scheme."""
    p = _coefficients(p, "polyval")
    x = as_tensor(x, "polyval", "x")
    out = ops.mul(ops.zeros_like(x), p[0]) if p.shape[0] else ops.zeros_like(x)
    for i in range(p.shape[0]):
        out = ops.add(ops.mul(out, x), p[i])
    return out


def _aligned(where, a1, a2):
    a1, a2 = _coefficients(a1, where, "a1"), _coefficients(a2, where, "a2")
    common = ms.dtype.result_type(a1.dtype, a2.dtype)
    a1, a2 = cast_to(a1, common), cast_to(a2, common)
    n = max(a1.shape[0], a2.shape[0])
    pad = lambda p: p if p.shape[0] == n else concatenate((Tensor(np.zeros(n - p.shape[0], common.np_dtype)), p))
    return pad(a1), pad(a2)


def polyadd(a1, a2):
    """``mnp.polyadd(a1, a2)``: the sum of two polynomials."""
    a1, a2 = _aligned("polyadd", a1, a2)
    return ops.add(a1, a2)


def polysub(a1, a2):
    """``mnp.polysub(a1, a2)``: the difference of two polynomials."""
    a1, a2 = _aligned("polysub", a1, a2)
    return ops.sub(a1, a2)


def polymul(a1, a2):
    """``mnp.polymul(a1, a2)``: the product of two polynomials (the convolution of the coefficients)."""
    a1, a2 = _vectors("polymul", a1, a2)
    return _full_convolution(a1, a2)


def polyder(p, m=1):
    """``mnp.polyder(p, m=1)``: the ``m``-th derivative of the polynomial."""
    p = _coefficients(p, "polyder")
    m = static_int(m, "polyder", "m")
    if m < 0:
        raise fail(ValueError, "polyder", f"m must be >= 0, but got {m}", "the order of the derivative")
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return Tensor(np.zeros(1, p.dtype.np_dtype))
        p = ops.mul(p[:-1], Tensor(np.arange(n, 0, -1).astype(p.dtype.np_dtype)))
    return p


def polyint(p, m=1, k=None):
    """``mnp.polyint(p, m=1, k=None)``: the ``m``-th antiderivative; ``k`` the integration constants
    (one number for all, or ``m`` of them), 0 by default."""
    p = _coefficients(p, "polyint")
    p = p if p.dtype.is_float else ops.cast(p, ms.float32)
    m = static_int(m, "polyint", "m")
    if m < 0:
        raise fail(ValueError, "polyint", f"m must be >= 0, but got {m}", "the order of the antiderivative")
    constants = [0.0] * m if k is None else [k] * m if is_number(k) else list(k)
    if len(constants) != m:
        raise fail(ValueError, "polyint", f"{len(constants)} constants for {m} integrations", "one per integration")
    for c in constants:
        n = p.shape[0]
        scaled = ops.div(p, Tensor(np.arange(n, 0, -1).astype(p.dtype.np_dtype)))
        p = concatenate((scaled, cast_to(as_tensor([c], "polyint", "k"), p.dtype)))
    return p


# ----- covariance ------------------------------------------------------------------------------------------
def _variables(where, m, y, rowvar):
    m = as_tensor(m, where, "m")
    m = ops.reshape(m, (1, -1)) if m.ndim == 1 else m
    if m.ndim != 2:
        raise fail(ValueError, where, f"m must be 1-D or 2-D, but got {describe(m)}", "variables in rows")
    if not rowvar:
        m = ops.transpose(m, (1, 0))
    if y is not None:
        y = as_tensor(y, where, "y")
        y = ops.reshape(y, (1, -1)) if y.ndim == 1 else (y if rowvar else ops.transpose(y, (1, 0)))
        m = concatenate((m, y), 0)
    return m if m.dtype.is_float else ops.cast(m, ms.float32)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """``mnp.cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
    dtype=None)``: the covariance matrix of the variables (rows, unless ``rowvar=False``), with
    frequency and reliability weights as NumPy."""
    one_variable = y is None and as_tensor(m, "cov", "m").ndim == 1
    x = _variables("cov", m, y, rowvar)
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else static_int(ddof, "cov", "ddof")
    w = None
    for weights, name in ((fweights, "fweights"), (aweights, "aweights")):
        if weights is not None:
            weights = as_tensor(weights, "cov", name)
            if name == "fweights" and weights.dtype.kind != "int":
                raise fail(TypeError, "cov", f"fweights must be integer counts, but got {describe(weights)}",
                           "repeat counts as ints, e.g. Tensor([1, 2, 1], mnp.int32); reliability weights "
                           "go in aweights")
            weights = cast_to(weights, x.dtype)
            if weights.shape != (n,):
                raise fail(ValueError, "cov", f"{name} has shape {list(weights.shape)} for {n} observations",
                           "one weight per observation")
            w = weights if w is None else ops.mul(w, weights)
    if w is None:
        mean = ops.mean(x, 1, True)
        factor = float(n - ddof)
    else:
        total = ops.sum(w)
        mean = ops.div(ops.sum(ops.mul(x, w), 1, True), total)
        correction = ops.div(ops.sum(ops.mul(w, cast_to(as_tensor(aweights, "cov", "aweights"), x.dtype))), total) \
            if aweights is not None else 1.0
        factor = ops.sub(total, ops.mul(correction, float(ddof)))
    centered = ops.sub(x, mean)
    weighted = centered if w is None else ops.mul(centered, w)
    out = ops.div(ops.matmul(weighted, ops.transpose(centered, (1, 0))), factor)
    out = ops.reshape(out, ()) if one_variable else out
    return cast_to(out, None if dtype is None else to_dtype(dtype, "cov"))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """``mnp.corrcoef(x, y=None, rowvar=True, dtype=None)``: the correlation coefficients,
    ``cov[i, j] / sqrt(cov[i, i] * cov[j, j])``, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return cast_to(ops.div(c, c), None if dtype is None else to_dtype(dtype, "corrcoef"))
    d = ops.sqrt(ops.getitem(c, (np.arange(c.shape[0]), np.arange(c.shape[0]))))
    out = ops.div(ops.div(c, ops.reshape(d, (-1, 1))), ops.reshape(d, (1, -1)))
    out = ops.minimum(ops.maximum(out, -1.0), 1.0)
    return cast_to(out, None if dtype is None else to_dtype(dtype, "corrcoef"))



# ----- calculus on samples, interpolation, padding -------------------------------------------------------
def gradient(f, *varargs, axis=None, edge_order=1):
    """``mnp.gradient(f, *varargs, axis=None, edge_order=1)``: the derivative of sampled values by
    central differences inside and one-sided ones at the ends (first or second order), for each axis
    (spacings: one number, or one per axis; 1 by default)."""
    f = as_tensor(f, "gradient", "f")
    f = f if f.dtype.is_float else ops.cast(f, ms.float32)
    axes = tuple(range(f.ndim)) if axis is None else \
        tuple(axis_arg(a, f.ndim, "gradient") for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
    if edge_order not in (1, 2):
        raise fail(ValueError, "gradient", f"edge_order must be 1 or 2, but got {edge_order!r}", "edge_order=1")
    spacing = list(varargs) if len(varargs) == len(axes) else list(varargs) * len(axes) if len(varargs) == 1 \
        else [1.0] * len(axes) if not varargs else None
    if spacing is None or not all(is_number(h) for h in spacing):
        raise fail(ValueError, "gradient", "varargs must be one spacing (a number) or one per axis",
                   "e.g. mnp.gradient(f, 0.1); sample coordinates are not supported")
    out = [_derivative(f, ax, float(h), edge_order) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else out


def _derivative(f, axis, h, edge_order):
    n = f.shape[axis]
    if n < edge_order + 1:
        raise fail(ValueError, "gradient", f"axis {axis} has {n} samples, too few for edge_order={edge_order}",
                   "at least edge_order + 1 samples")
    part = lambda s: _along(f, axis, s)
    inside = ops.div(ops.sub(part(slice(2, None)), part(slice(None, -2))), 2.0 * h)
    if edge_order == 1:
        first = ops.div(ops.sub(part(slice(1, 2)), part(slice(0, 1))), h)
        last = ops.div(ops.sub(part(slice(-1, None)), part(slice(-2, -1))), h)
    else:
        first = ops.div(ops.add(ops.add(ops.mul(part(slice(0, 1)), -3.0), ops.mul(part(slice(1, 2)), 4.0)),
                                ops.neg(part(slice(2, 3)))), 2.0 * h)
        last = ops.div(ops.add(ops.add(ops.mul(part(slice(-1, None)), 3.0), ops.mul(part(slice(-2, -1)), -4.0)),
                               part(slice(-3, -2))), 2.0 * h)
    return concatenate((first, inside, last), axis)


def unwrap(p, discont=np.pi, axis=-1):
    """``mnp.unwrap(p, discont=pi, axis=-1)``: phases with jumps larger than ``discont`` replaced by
    their ``2 pi`` complements (the corrections added up along ``axis``)."""
    p = as_tensor(p, "unwrap", "p")
    p = p if p.dtype.is_float else ops.cast(p, ms.float32)
    axis = axis_arg(axis, p.ndim, "unwrap")
    dd = diff(p, axis=axis)
    ddmod = ops.sub(ops.floor_mod(ops.add(dd, np.pi), 2 * np.pi), np.pi)
    ddmod = ops.select(ops.logical_and(ops.equal(ddmod, -np.pi), ops.gt(dd, 0)), ops.zeros_like(ddmod) + np.pi, ddmod)
    correction = ops.select(ops.lt(ops.abs(dd), discont), ops.zeros_like(dd), ops.sub(ddmod, dd))
    return concatenate((_along(p, axis, slice(0, 1)),
                        ops.add(_along(p, axis, slice(1, None)), cumsum(correction, axis))), axis)


def interp(x, xp, fp, left=None, right=None):
    """``mnp.interp(x, xp, fp, left=None, right=None)``: piecewise-linear interpolation of the points
    ``(xp, fp)`` (``xp`` increasing) at ``x``; outside, ``left``/``right`` (the end values by default).
    Differentiable in ``x`` and ``fp``."""
    x = as_tensor(x, "interp", "x")
    xp, fp = as_tensor(xp, "interp", "xp"), as_tensor(fp, "interp", "fp")
    if xp.ndim != 1 or fp.shape != xp.shape or xp.shape[0] < 1:
        raise fail(ValueError, "interp", f"xp and fp must be vectors of one length, but got {describe(xp)} and "
                   f"{describe(fp)}", "xp increasing, one fp per xp")
    ftype = ms.dtype.result_type(fp.dtype, x.dtype)
    ftype = ftype if ftype.is_float else ms.float32
    x, xp, fp = cast_to(x, ftype), cast_to(xp, ftype), cast_to(fp, ftype)
    n = xp.shape[0]
    if n == 1:
        y = ops.broadcast_to(fp, x.shape)
    else:
        upper = ops.minimum(ops.maximum(searchsorted(xp, x, "right"), 1), n - 1)
        lower = ops.sub(upper, 1)
        x0, x1 = ops.getitem(xp, lower), ops.getitem(xp, upper)
        y0, y1 = ops.getitem(fp, lower), ops.getitem(fp, upper)
        y = ops.add(y0, ops.mul(ops.div(ops.sub(x, x0), ops.sub(x1, x0)), ops.sub(y1, y0)))
    below = fp[0] if left is None else left
    above = fp[-1] if right is None else right
    y = ops.select(ops.lt(x, xp[0]), ops.zeros_like(y) + below, y)
    return ops.select(ops.gt(x, xp[-1]), ops.zeros_like(y) + above, y)


def _per_axis(value, ndim, where, name, dtype=np.int64):
    """A NumPy-style per-axis pair argument (``n``, ``(before, after)`` or one pair per axis) as
    ``ndim`` pairs."""
    try:
        return np.broadcast_to(np.asarray(value, dtype=dtype).reshape(-1, 2) if np.size(value) > 1
                               else np.full((1, 2), value, dtype=dtype), (ndim, 2)).tolist()
    except (ValueError, TypeError):
        raise fail(ValueError, where, f"{name} {value!r} is not a number, a (before, after) pair or one pair "
                   "per axis", f"e.g. {name}=((1, 1), (0, 2))") from None


_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean", "linear_ramp")


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """``mnp.pad(arr, pad_width, mode='constant', ...)``: ``arr`` with values added before and after
    each axis — ``'constant'`` (``constant_values``), ``'edge'``, ``'reflect'``, ``'symmetric'`` (both
    with ``reflect_type='odd'`` too), ``'wrap'``, ``'linear_ramp'`` (to ``end_values``), or the
    ``'maximum'``/``'minimum'``/``'mean'`` of the first/last ``stat_length`` entries — joined with
    ``concatenate``, so the gradient flows back to the entries copied; or a function that fills each
    vector, as NumPy's."""
    arr = as_tensor(arr, "pad", "arr")
    if callable(mode):
        return _pad_with_function(arr, _per_axis(pad_width, arr.ndim, "pad", "pad_width"), mode, kwargs)
    if mode not in _PAD_MODES:
        raise fail(NotImplementedError if isinstance(mode, str) else TypeError, "pad",
                   f"mode {mode!r} is not supported", f"one of {', '.join(_PAD_MODES)}")
    widths = _per_axis(pad_width, arr.ndim, "pad", "pad_width")
    if any(w < 0 for pair in widths for w in pair):
        raise fail(ValueError, "pad", f"pad_width {pad_width!r} has a negative width", "widths >= 0")
    if reflect_type not in ("even", "odd"):
        raise fail(ValueError, "pad", f"reflect_type must be 'even' or 'odd', but got {reflect_type!r}",
                   "reflect_type='even' (a mirror) or 'odd' (a point reflection through the edge)")
    options = {"odd": reflect_type == "odd",
               "constant": _per_axis(constant_values, arr.ndim, "pad", "constant_values", np.float64),
               "linear_ramp": _per_axis(end_values, arr.ndim, "pad", "end_values", np.float64),
               "stat": None if stat_length is None else _per_axis(stat_length, arr.ndim, "pad", "stat_length")}
    for axis, (before, after) in enumerate(widths):
        if mode == "reflect" and arr.shape[axis] == 1 and (before or after):
            arr = _pad_axis(arr, axis, before, after, "edge", options)    # one value reflects to itself
        elif mode == "wrap" and (before or after):     # periodic: every position taken modulo the size
            positions = np.arange(-before, arr.shape[axis] + after) % arr.shape[axis]
            arr = _along(arr, axis, positions)
        elif mode in ("reflect", "symmetric"):
            while before or after:                  # a wide pad reflects the padded Tensor again
                limit = arr.shape[axis] - (mode == "reflect")
                step_before, step_after = min(before, limit), min(after, limit)
                arr = _pad_axis(arr, axis, step_before, step_after, mode, options)
                before, after = before - step_before, after - step_after
        elif before or after:
            arr = _pad_axis(arr, axis, before, after, mode, options)
    return arr


def _pad_with_function(arr, widths, function, kwargs):
    """NumPy's callable ``mode``: zeros are added, then ``function(vector, (before, after), axis,
    kwargs)`` fills each 1-D vector along each axis in place (``vector[:before] = ...``, a recorded
    write) or returns the filled vector."""
    arr = pad(arr, widths)
    for axis, (before, after) in enumerate(widths):
        moved = ops.transpose(arr, tuple(d for d in range(arr.ndim) if d != axis) + (axis,))
        rows = ops.reshape(moved, (-1, moved.shape[-1]))
        filled = []
        for i in range(rows.shape[0]):
            vector = rows[i]
            result = function(vector, (before, after), axis, kwargs)
            filled.append(vector if result is None else as_tensor(result, "pad", "mode's result"))
        moved = ops.reshape(ops.stack(tuple(filled), 0), moved.shape)
        order = list(range(arr.ndim - 1))
        order.insert(axis, arr.ndim - 1)
        arr = ops.transpose(moved, tuple(order))
    return arr


def _pad_axis(arr, axis, before, after, mode, options):
    n = arr.shape[axis]
    part = lambda s: _along(arr, axis, s)
    shape = lambda width: arr.shape[:axis] + (width,) + arr.shape[axis + 1:]
    if mode == "constant":
        low, high = options["constant"][axis]
        head, tail = (Tensor(np.full(shape(w), v, dtype=arr.dtype.np_dtype)) for w, v in ((before, low), (after, high)))
    elif mode in ("reflect", "symmetric"):
        skip = 1 if mode == "reflect" else 0
        head = flip(part(slice(skip, before + skip)), axis)
        tail = flip(part(slice(n - after - skip, n - skip)), axis)
        if options["odd"]:              # reflected through the edge value: 2 * edge - mirror image
            head = ops.sub(ops.mul(part(slice(0, 1)), 2), head)
            tail = ops.sub(ops.mul(part(slice(n - 1, n)), 2), tail)
    elif mode == "linear_ramp":
        low, high = options["linear_ramp"][axis]
        head = _ramp(part(slice(0, 1)), low, before, axis, reverse=False)
        tail = _ramp(part(slice(n - 1, n)), high, after, axis, reverse=True)
    else:
        if mode == "edge":
            first, last = part(slice(0, 1)), part(slice(n - 1, n))
        else:
            reduce = {"maximum": ops.amax, "minimum": ops.amin, "mean": ops.mean}[mode]
            first_n, last_n = (n, n) if options["stat"] is None else options["stat"][axis]
            first = reduce(part(slice(0, max(first_n, 1))), axis, True)
            last = reduce(part(slice(n - max(last_n, 1), n)), axis, True)
            if not arr.dtype.is_float and mode == "mean":
                first, last = ops.cast(first, arr.dtype), ops.cast(last, arr.dtype)
        head, tail = ops.broadcast_to(first, shape(before)), ops.broadcast_to(last, shape(after))
    return concatenate((head, arr, tail), axis)


def _ramp(edge, end, width, axis, reverse):
    """``width`` values going linearly from ``end`` towards the edge value (the edge itself excluded)."""
    fractions = np.arange(width, dtype=np.float64) / max(width, 1)
    if reverse:
        fractions = fractions[::-1]
    t = Tensor(fractions.reshape(tuple(-1 if d == axis else 1 for d in range(edge.ndim))).astype(
        edge.dtype.np_dtype if edge.dtype.is_float else np.float32))
    value = ops.add(end, ops.mul(ops.sub(edge, end), t))
    return cast_to(value, edge.dtype)
