"""``mindspore.numpy``'s reductions and scans: ``sum``, ``mean``, ``amax``/``amin``, ``argmax``/
``argmin``, ``std``, ``var``, ``average``, ``ptp``, ``count_nonzero``, ``nansum``, ``nanmean``,
``cumsum``, ``cumprod``.

Dtypes follow MindSpore 2.10: ``sum`` adds integers and Bools as Int64 (``mnp.sum(int32)`` is Int64),
``mean`` of integers stays an integer (the mean truncated toward zero), ``var``/``std`` of integers
are Float32, ``argmax`` is Int64 and ``argmin`` Int32, ``cumsum`` of small integers and Bools is Int32.

``cumsum`` and ``cumprod`` have no primitive: they are scans written with ``ops`` (Hillis and
Steele's): ``log2(n)`` rounds, each combining every entry with the one ``2**k`` places before it
(padded with 0 for a sum, 1 for a product).  Being a composition of slices, concatenations and
additions or multiplications, a scan is differentiable with no rule of its own — and ``cumprod``'s
gradient stays finite where an input is 0 (MindSpore 2.10's, which divides by the input, is NaN).
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from ._utils import as_tensor, axes_arg, axis_arg, cast_to, describe, fail, to_dtype
from .logic_ops import isnan

__all__ = ["sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "average",
           "ptp", "count_nonzero", "nansum", "nanmean", "cumsum", "cumprod", "nanmax", "nanmin", "nanvar",
           "nanstd", "nancumsum"]


def _dtype(dtype, where):
    return None if dtype is None else to_dtype(dtype, where)


def _count(x, axes) -> int:
    return int(np.prod([x.shape[a] for a in axes], dtype=np.int64))


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 - mindspore.numpy's name
    """``mnp.sum(a, axis=None, dtype=None, keepdims=False, initial=None)``: integers and Bools are
    summed as Int64."""
    a = as_tensor(a, "sum", "a")
    axes = axes_arg(axis, a.ndim, "sum")
    if not a.dtype.is_float:
        a = ops.cast(a, ms.int64)
    out = ops.sum(a, axes, keepdims)
    if initial is not None:
        out = ops.add(out, initial)
    return cast_to(out, _dtype(dtype, "sum"))


def mean(a, axis=None, keepdims=False, dtype=None):
    """``mnp.mean(a, axis=None, keepdims=False, dtype=None)``: for an integer Tensor, the mean
    truncated toward zero in its own dtype (``mean([1, 2]) == 1``), as MindSpore 2.10."""
    a = as_tensor(a, "mean", "a")
    if a.dtype is ms.bool_:
        raise fail(RuntimeError, "mean", f"a is {describe(a)}; MindSpore 2.10 has no mean of Bools",
                   "count them instead: mnp.mean(a.astype(mnp.float32))")
    axes = axes_arg(axis, a.ndim, "mean")
    if a.dtype.is_float:
        out = ops.mean(a, axes, keepdims)
    else:
        total = ops.sum(ops.cast(a, ms.float64), axes, keepdims)
        out = ops.cast(ops.div(total, _count(a, axes)), a.dtype)     # the cast truncates toward zero
    return cast_to(out, _dtype(dtype, "mean"))


def _extreme(where, reduce, combine, a, axis, keepdims, initial, where_mask):
    a = as_tensor(a, where, "a")
    if a.dtype is ms.bool_:
        raise fail(TypeError, where, f"a is {describe(a)}; MindSpore 2.10 has no {where} of Bools",
                   f"mnp.{where}(a.astype(mnp.int32)), or mnp.count_nonzero")
    axes = axes_arg(axis, a.ndim, where)
    if where_mask is not True:
        if initial is None:
            raise fail(ValueError, where, "a where= mask needs initial= (the value of a row with no entry "
                       "selected)", f"e.g. mnp.{where}(a, axis, where=mask, initial=0.0)")
        mask = as_tensor(where_mask, where, "where")
        a = ops.select(ops.broadcast_to(mask, a.shape), a, ops.zeros_like(a) + initial)
    if _count(a, axes) == 0 and initial is None:
        raise fail(ValueError, where, f"a has no entries along axis {axis} (shape {list(a.shape)}), and a "
                   "maximum or minimum of nothing is undefined", "give initial= for empty rows")
    out = reduce(a, axes, keepdims)
    if initial is not None:
        out = combine(out, initial)
    return out


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """``mnp.amax`` (``mnp.max``): the largest entry; at a tie the gradient is shared equally among
    the tied entries, as MindSpore's."""
    return _extreme("amax", ops.amax, ops.maximum, a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """``mnp.amin`` (``mnp.min``)."""
    return _extreme("amin", ops.amin, ops.minimum, a, axis, keepdims, initial, where)


max = amax  # noqa: A001 - mindspore.numpy's names
min = amin  # noqa: A001


def _arg(where, op, a, axis, dtype):
    a = as_tensor(a, where, "a")
    if axis is None:
        return ops.cast(op(ops.reshape(a, (-1,)), 0), dtype)
    return ops.cast(op(a, axis_arg(axis, a.ndim, where)), dtype)


def argmax(a, axis=None):
    """``mnp.argmax(a, axis=None)``: Int64 positions (of the flattened Tensor without ``axis``)."""
    return _arg("argmax", ops.argmax, a, axis, ms.int64)


def argmin(a, axis=None):
    """``mnp.argmin(a, axis=None)``: Int32 positions, as MindSpore 2.10 (its argmax is Int64)."""
    return _arg("argmin", ops.argmin, a, axis, ms.int32)


def var(x, axis=None, ddof=0, keepdims=False):
    """``mnp.var(x, axis=None, ddof=0, keepdims=False)``: the sum of squared deviations from the mean
    over ``n - ddof`` (integers computed as Float32; ``n - ddof <= 0`` divides by 0, as MindSpore)."""
    x = as_tensor(x, "var", "x")
    if not isinstance(ddof, (int, np.integer)) or isinstance(ddof, bool):
        raise fail(TypeError, "var", f"ddof must be an int, but got {describe(ddof)}",
                   "ddof=0 for the population variance, ddof=1 for the sample variance")
    x = x if x.dtype.is_float else ops.cast(x, ms.float32)
    axes = axes_arg(axis, x.ndim, "var")
    centered = ops.sub(x, ops.mean(x, axes, True))
    squares = ops.sum(ops.mul(centered, centered), axes, keepdims)
    dof = _count(x, axes) - ddof
    return ops.div(squares, float(dof if dof > 0 else 0))


def std(x, axis=None, ddof=0, keepdims=False):
    """``mnp.std(x, axis=None, ddof=0, keepdims=False)``: the square root of :func:`var`."""
    return ops.sqrt(var(x, axis, ddof, keepdims))


def average(x, axis=None, weights=None, returned=False):
    """``mnp.average(x, axis=None, weights=None, returned=False)``: ``sum(x * w) / sum(w)``, ``w``
    either of ``x``'s shape or 1-D along ``axis``; without weights the :func:`mean`.  ``returned``
    adds the sum of the weights (the count without weights)."""
    x = as_tensor(x, "average", "x")
    axes = axes_arg(axis, x.ndim, "average")
    if weights is None:
        out = mean(x, axis)
        total = _filled_like(out, _count(x, axes), x.dtype if x.dtype.is_float else ms.float32)
    else:
        w = as_tensor(weights, "average", "weights")
        w = _aligned_weights(x, w, axis, axes)
        if not x.dtype.is_float and not w.dtype.is_float:
            x = ops.cast(x, ms.float32)
        total = ops.sum(ops.broadcast_to(w, x.shape), axes)
        out = ops.div(ops.sum(ops.mul(x, w), axes), total)
        total = cast_to(total, out.dtype)
    return (out, total) if returned else out


def _aligned_weights(x, w, axis, axes):
    if w.shape == x.shape:
        return w
    if w.ndim == 1 and isinstance(axis, (int, np.integer)) and w.shape[0] == x.shape[axes[0]]:
        return ops.reshape(w, tuple(w.shape[0] if d == axes[0] else 1 for d in range(x.ndim)))
    raise fail(ValueError, "average", f"weights of shape {list(w.shape)} fit neither x's shape "
               f"{list(x.shape)} nor axis {axis}", "weights of x's shape, or 1-D weights with one value "
               "per entry along an int axis")


def _filled_like(out, value, dtype):
    return Tensor(np.full(out.shape, value, dtype=dtype.np_dtype))


def ptp(x, axis=None, keepdims=False):
    """``mnp.ptp(x, axis=None, keepdims=False)``: ``amax - amin`` (peak to peak)."""
    return ops.sub(amax(x, axis, keepdims), amin(x, axis, keepdims))


def count_nonzero(x, axis=None, keepdims=False):
    """``mnp.count_nonzero(x, axis=None, keepdims=False)``: Int32 counts (Bool Tensors are refused,
    as in MindSpore 2.10)."""
    x = as_tensor(x, "count_nonzero", "x")
    if x.dtype is ms.bool_:
        raise fail(TypeError, "count_nonzero", f"x is {describe(x)}; MindSpore 2.10 counts numbers only",
                   "mnp.count_nonzero(x.astype(mnp.int32))")
    axes = axes_arg(axis, x.ndim, "count_nonzero")
    return ops.sum(ops.cast(ops.ne(x, 0), ms.int32), axes, keepdims)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """``mnp.nansum``: the sum with NaNs counted as 0."""
    a = as_tensor(a, "nansum", "a")
    return sum(ops.select(isnan(a), ops.zeros_like(a), a), axis, dtype, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """``mnp.nanmean``: the mean of the entries that are not NaN."""
    a = as_tensor(a, "nanmean", "a")
    present = ops.cast(ops.logical_not(isnan(a)), a.dtype if a.dtype.is_float else ms.float32)
    out = ops.div(nansum(a, axis, None, keepdims), ops.sum(present, axes_arg(axis, a.ndim, "nanmean"), keepdims))
    return cast_to(out, _dtype(dtype, "nanmean"))


# ----- scans ------------------------------------------------------------------------------------------
def _scan(where, combine, identity, a, axis, dtype):
    """Inclusive scan of ``combine`` along ``axis`` (the flattened Tensor for None), Hillis-Steele."""
    a = as_tensor(a, where, "a")
    dtype = _dtype(dtype, where)
    if dtype is not None:
        a = ops.cast(a, dtype)
    elif a.dtype in (ms.bool_, ms.int8, ms.int16, ms.uint8):
        a = ops.cast(a, ms.int32)                  # MindSpore 2.10: small integers scan as Int32
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    axis = axis_arg(axis, a.ndim, where)
    n = a.shape[axis]
    shift = 1
    while shift < n:
        pad_shape = a.shape[:axis] + (shift,) + a.shape[axis + 1:]
        pad = Tensor(np.full(pad_shape, identity, dtype=a.dtype.np_dtype))
        before = ops.getitem(a, (slice(None),) * axis + (slice(0, n - shift),))
        a = combine(a, ops.concat((pad, before), axis))
        shift *= 2
    return a


def cumsum(a, axis=None, dtype=None):
    """``mnp.cumsum(a, axis=None, dtype=None)``: running sums (Bools and 8/16-bit integers as Int32)."""
    return _scan("cumsum", ops.add, 0, a, axis, dtype)


def cumprod(a, axis=None, dtype=None):
    """``mnp.cumprod(a, axis=None, dtype=None)``: running products."""
    return _scan("cumprod", ops.mul, 1, a, axis, dtype)


# ----- ignoring NaNs ----------------------------------------------------------------------------------------
def _nan_to(a, value):
    return ops.select(isnan(a), ops.zeros_like(a) + value, a)


def _nan_extreme(where, reduce, fill, a, axis, keepdims):
    a = as_tensor(a, where, "a")
    if not a.dtype.is_float:
        return reduce(a, axis, keepdims)
    axes = axes_arg(axis, a.ndim, where)
    out = reduce(_nan_to(a, fill), axes, keepdims)
    all_nan = ops.equal(ops.sum(ops.cast(ops.logical_not(isnan(a)), ms.int32), axes, keepdims), 0)
    return ops.select(all_nan, ops.zeros_like(out) + float("nan"), out)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """``mnp.nanmax``: the largest entry that is not NaN (NaN where all are)."""
    return cast_to(_nan_extreme("nanmax", amax, -float("inf"), a, axis, keepdims), _dtype(dtype, "nanmax"))


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """``mnp.nanmin``: the smallest entry that is not NaN (NaN where all are)."""
    return cast_to(_nan_extreme("nanmin", amin, float("inf"), a, axis, keepdims), _dtype(dtype, "nanmin"))


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``mnp.nanvar``: the variance of the entries that are not NaN, over ``count - ddof``."""
    a = as_tensor(a, "nanvar", "a")
    a = a if a.dtype.is_float else ops.cast(a, ms.float32)
    axes = axes_arg(axis, a.ndim, "nanvar")
    present = ops.cast(ops.logical_not(isnan(a)), a.dtype)
    count = ops.sum(present, axes, True)
    centered = ops.mul(ops.sub(_nan_to(a, 0.0), ops.div(ops.sum(_nan_to(a, 0.0), axes, True), count)), present)
    squares = ops.sum(ops.mul(centered, centered), axes, keepdims)
    dof = ops.maximum(ops.sub(count if keepdims else ops.sum(present, axes), float(ddof)), 0.0)
    return cast_to(ops.div(squares, dof), _dtype(dtype, "nanvar"))


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``mnp.nanstd``: the square root of :func:`nanvar`."""
    return cast_to(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), _dtype(dtype, "nanstd"))


def nancumsum(a, axis=None, dtype=None):
    """``mnp.nancumsum``: running sums with NaNs counted as 0."""
    a = as_tensor(a, "nancumsum", "a")
    return cumsum(_nan_to(a, 0.0) if a.dtype.is_float else a, axis, dtype)
