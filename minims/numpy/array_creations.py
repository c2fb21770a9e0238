"""``mindspore.numpy``'s array creation: ``array``, ``zeros``, ``arange``, ``linspace``, ``eye``,
``diag``, ``tril``, ``meshgrid`` ...

A shape, a count or a range is a Python value, so most results are constants built with NumPy.  Where
a Tensor goes in (``full`` with a Tensor value, ``linspace`` between Tensors, ``diag``, ``tril``,
``diagonal``, ``trace``, ``meshgrid``), the result is built from it with ``minims.ops`` and its gradient
flows back: ``diag`` of a vector is a gather from the vector (with one zero in front for the
off-diagonal entries), ``tril`` a select against a constant mask, ``diagonal`` a gather at constant
positions.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from ._utils import (as_tensor, axis_arg, cast_to, constant, describe, fail, is_number, shape_arg,
                     static_int, to_dtype, traced)

__all__ = ["array", "asarray", "asfarray", "copy", "zeros", "ones", "full", "empty", "zeros_like",
           "ones_like", "full_like", "empty_like", "arange", "linspace", "logspace", "eye", "identity",
           "tri", "tril", "triu", "diag", "diagonal", "trace", "meshgrid", "geomspace", "diagflat",
           "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices",
           "indices", "ix_", "vander", "hamming", "hanning", "bartlett", "blackman", "mgrid", "ogrid"]


# ----- from data ----------------------------------------------------------------------------------
def array(obj, dtype=None, copy=True, ndmin=0):
    """``mnp.array(obj, dtype=None, copy=True, ndmin=0)``: a Tensor of ``obj`` (Python ints become
    Int32, floats Float32).  A Tensor being differentiated stays differentiable."""
    dtype = None if dtype is None else to_dtype(dtype, "array")
    if isinstance(obj, Tensor):
        out = obj.copy() if copy else obj
    else:
        out = as_tensor(obj, "array", "obj")
    out = cast_to(out, dtype)
    ndmin = static_int(ndmin, "array", "ndmin")
    if out.ndim < ndmin:
        out = ops.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out


def asarray(a, dtype=None):
    """``mnp.asarray(a, dtype=None)``: ``a`` itself when it is a Tensor of that dtype already."""
    dtype = None if dtype is None else to_dtype(dtype, "asarray")
    return cast_to(as_tensor(a, "asarray", "a"), dtype)


def asfarray(a, dtype=ms.float32):
    """``mnp.asfarray(a, dtype=mnp.float32)``: as a float Tensor (an integer dtype means Float32)."""
    dtype = to_dtype(dtype, "asfarray")
    return asarray(a, dtype if dtype.is_float else ms.float32)


def copy(a):
    """``mnp.copy(a)``: a new Tensor of the same values (differentiable)."""
    return as_tensor(a, "copy", "a").copy()


# ----- filled ---------------------------------------------------------------------------------------
def _filled(where, shape, value, dtype):
    return Tensor(np.full(shape_arg(shape, where), value, dtype=dtype.np_dtype))


def zeros(shape, dtype=ms.float32):
    """``mnp.zeros(shape, dtype=mnp.float32)``."""
    return _filled("zeros", shape, 0, to_dtype(dtype, "zeros"))


def ones(shape, dtype=ms.float32):
    """``mnp.ones(shape, dtype=mnp.float32)``."""
    return _filled("ones", shape, 1, to_dtype(dtype, "ones"))


def empty(shape, dtype=ms.float32):
    """``mnp.empty(shape, dtype=mnp.float32)``: zeros, as MindSpore 2.10 returns (never memory
    garbage: a learner's printed output must not change from run to run)."""
    return _filled("empty", shape, 0, to_dtype(dtype, "empty"))


def full(shape, fill_value, dtype=None):
    """``mnp.full(shape, fill_value, dtype=None)``: a number fills (Int32 for an int, Float32 for a
    float, Bool for a bool); a Tensor or list is broadcast to ``shape`` (differentiable)."""
    dtype = None if dtype is None else to_dtype(dtype, "full")
    if is_number(fill_value):
        return _filled("full", shape, fill_value, dtype or to_dtype(type(fill_value), "full"))
    value = cast_to(as_tensor(fill_value, "full", "fill_value"), dtype)
    return ops.broadcast_to(value, shape_arg(shape, "full"))


def _like(where, a, dtype, shape):
    a = as_tensor(a, where, "a")
    dtype = a.dtype if dtype is None else to_dtype(dtype, where)
    return dtype, a.shape if shape is None else shape_arg(shape, where)


def zeros_like(a, dtype=None, shape=None):
    """``mnp.zeros_like(a, dtype=None, shape=None)``: zeros of ``a``'s dtype and shape."""
    dtype, shape = _like("zeros_like", a, dtype, shape)
    return _filled("zeros_like", shape, 0, dtype)


def ones_like(a, dtype=None, shape=None):
    """``mnp.ones_like(a, dtype=None, shape=None)``."""
    dtype, shape = _like("ones_like", a, dtype, shape)
    return _filled("ones_like", shape, 1, dtype)


def empty_like(prototype, dtype=None, shape=None):
    """``mnp.empty_like``: zeros, as :func:`empty`."""
    dtype, shape = _like("empty_like", prototype, dtype, shape)
    return _filled("empty_like", shape, 0, dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    """``mnp.full_like(a, fill_value, dtype=None, shape=None)``: ``fill_value`` converted to ``a``'s
    dtype (``full_like(int_tensor, 0.5)`` is zeros, as NumPy and MindSpore)."""
    dtype, shape = _like("full_like", a, dtype, shape)
    if is_number(fill_value):
        return _filled("full_like", shape, np.asarray(fill_value).astype(dtype.np_dtype), dtype)
    return ops.broadcast_to(cast_to(as_tensor(fill_value, "full_like", "fill_value"), dtype), shape)


# ----- ranges ---------------------------------------------------------------------------------------
def _range_value(value, where, name):
    """A range end as a Python number; a concrete 0-d Tensor is read (as a float, as MindSpore)."""
    if isinstance(value, Tensor) and value.size == 1 and not traced(value):
        return float(value.asnumpy().reshape(()))
    if not is_number(value) or isinstance(value, (bool, np.bool_)):
        raise fail(TypeError, where, f"{name} must be an int or a float, but got {describe(value)}",
                   f"pass {name} as a Python number")
    return value


def arange(start, stop=None, step=None, dtype=None):
    """``mnp.arange(start, stop=None, step=None, dtype=None)``: ``arange(n)`` counts from 0, as does
    ``arange(n, step=s)``; Int32 when every argument is an int, Float32 otherwise (MindSpore 2.10;
    NumPy would give Int64/Float64)."""
    start, stop, step = (None if v is None else _range_value(v, "arange", n)
                         for v, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if stop is None:
        start, stop = 0, start
    ends = [start, stop] + ([] if step is None else [step])
    if step == 0:
        raise fail(ZeroDivisionError, "arange", "step is 0, so the range never reaches stop",
                   "a non-zero step, e.g. mnp.arange(0, 5, 1)")
    if dtype is None:
        dtype = ms.int32 if all(isinstance(v, (int, np.integer)) for v in ends) else ms.float32
        if dtype is ms.int32 and not all(-2**31 <= v < 2**31 for v in ends):
            dtype = ms.int64                 # never wrapped into Int32 (see _utils.from_python)
    else:
        dtype = to_dtype(dtype, "arange")
    values = np.arange(*ends, dtype=np.float64 if dtype.is_float else np.int64)
    return Tensor(values.astype(dtype.np_dtype))


def _count(num, where):
    num = static_int(num, where, "num")
    if num < 0:
        raise fail(ValueError, where, f"num must be >= 0, but got {num}", "the number of samples, e.g. num=50")
    return num


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``mnp.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)``:
    ``num`` evenly spaced samples (Float32 by default).  ``start``/``stop`` may be Tensors: the
    samples are ``start * (1 - t) + stop * t`` for fractions ``t``, differentiable in both ends."""
    num = _count(num, "linspace")
    dtype = None if dtype is None else to_dtype(dtype, "linspace")
    div = num - 1 if endpoint else num
    fractions = np.arange(num, dtype=np.float64) / div if div > 0 else np.zeros(num)
    if is_number(start) and is_number(stop):
        samples = start + (stop - start) * fractions
        if endpoint and num > 1:
            samples[-1] = stop
        out = Tensor(samples.astype((dtype or ms.float32).np_dtype))
        step = (stop - start) / div if div > 0 else float("nan")
        return (out, Tensor(step, ms.float32)) if retstep else out
    start, stop = as_tensor(start, "linspace", "start"), as_tensor(stop, "linspace", "stop")
    ftype = ms.dtype.result_type(start.dtype, stop.dtype)
    ftype = ftype if ftype.is_float else ms.float32
    start, stop = cast_to(start, ftype), cast_to(stop, ftype)
    ends_ndim = max(start.ndim, stop.ndim)
    t = Tensor(fractions.reshape((num,) + (1,) * ends_ndim).astype(ftype.np_dtype))
    out = ops.add(ops.mul(ops.expand_dims(start, 0), ops.sub(1.0, t)), ops.mul(ops.expand_dims(stop, 0), t))
    if ends_ndim:
        out = ops.transpose(out, _moved(0, axis_arg(axis, ends_ndim + 1, "linspace"), ends_ndim + 1))
    out = cast_to(out, dtype)
    if retstep:
        return out, ops.div(ops.sub(stop, start), div) if div > 0 else ops.mul(ops.sub(stop, start), float("nan"))
    return out


def _moved(source, destination, ndim):
    """The permutation that moves axis ``source`` to position ``destination``."""
    order = [a for a in range(ndim) if a != source]
    order.insert(destination, source)
    return tuple(order)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``mnp.logspace``: ``base ** linspace(start, stop, ...)``."""
    exponents = linspace(start, stop, num, endpoint, False, None, axis)
    out = ops.pow(base, exponents)
    return cast_to(out, None if dtype is None else to_dtype(dtype, "logspace"))


# ----- matrices ---------------------------------------------------------------------------------------
def _size(value, where, name):
    value = static_int(value, where, name)
    if value < 0:
        raise fail(ValueError, where, f"{name} must be >= 0, but got {value}", f"a size, e.g. {name}=3")
    return value


def eye(N, M=None, k=0, dtype=ms.float32):
    """``mnp.eye(N, M=None, k=0, dtype=mnp.float32)``: ones on the ``k``-th diagonal."""
    N = _size(N, "eye", "N")
    M = N if M is None else _size(M, "eye", "M")
    return Tensor(np.eye(N, M, static_int(k, "eye", "k"), dtype=to_dtype(dtype, "eye").np_dtype))


def identity(n, dtype=ms.float32):
    """``mnp.identity(n, dtype=mnp.float32)``."""
    return eye(_size(n, "identity", "n"), dtype=dtype)


def tri(N, M=None, k=0, dtype=ms.float32):
    """``mnp.tri(N, M=None, k=0, dtype=mnp.float32)``: ones at and below the ``k``-th diagonal."""
    N = _size(N, "tri", "N")
    M = N if M is None else _size(M, "tri", "M")
    return Tensor(np.tri(N, M, static_int(k, "tri", "k"), dtype=to_dtype(dtype, "tri").np_dtype))


def _triangle(where, m, k, lower):
    m = as_tensor(m, where, "m")
    k = static_int(k, where, "k")
    if m.ndim == 0:
        raise fail(ValueError, where, "m is a scalar, which has no triangle", "pass a 1-D or 2-D Tensor")
    if m.ndim == 1:                      # as NumPy: a vector is broadcast to a square matrix first
        m = ops.broadcast_to(m, (m.shape[0],) * 2)
    rows, cols = m.shape[-2:]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    mask = constant(np.broadcast_to(mask, m.shape))
    return ops.select(mask, m, ops.zeros_like(m))


def tril(m, k=0):
    """``mnp.tril(m, k=0)``: ``m`` with the entries above the ``k``-th diagonal set to zero."""
    return _triangle("tril", m, k, lower=True)


def triu(m, k=0):
    """``mnp.triu(m, k=0)``: ``m`` with the entries below the ``k``-th diagonal set to zero."""
    return _triangle("triu", m, k, lower=False)


def diag(v, k=0):
    """``mnp.diag(v, k=0)``: the ``k``-th diagonal of a matrix, or a matrix with vector ``v`` on its
    ``k``-th diagonal.  The matrix is a gather from ``[0, v...]`` (position 0 for every entry off the
    diagonal), so its gradient is the sum back onto ``v``."""
    v = as_tensor(v, "diag", "v")
    k = static_int(k, "diag", "k")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise fail(ValueError, "diag", f"v must be 1-D or 2-D, but got {describe(v)}",
                   "a vector to make a diagonal matrix, or a matrix to read its diagonal")
    n = v.shape[0]
    size = n + abs(k)
    positions = np.zeros((size, size), dtype=np.int64)
    r0, c0 = max(-k, 0), max(k, 0)
    positions[np.arange(n) + r0, np.arange(n) + c0] = np.arange(1, n + 1)
    padded = ops.concat((Tensor(np.zeros(1, v.dtype.np_dtype)), v))
    return ops.getitem(padded, positions)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``mnp.diagonal(a, offset=0, axis1=0, axis2=1)``: the diagonal of the ``axis1``/``axis2``
    planes, as the last axis (a gather at constant positions)."""
    a = as_tensor(a, "diagonal", "a")
    if a.ndim < 2:
        raise fail(ValueError, "diagonal", f"a must have at least 2 axes, but got {describe(a)}",
                   "mnp.diag(v) makes a matrix from a vector")
    offset = static_int(offset, "diagonal", "offset")
    ax1, ax2 = axis_arg(axis1, a.ndim, "diagonal"), axis_arg(axis2, a.ndim, "diagonal")
    if ax1 == ax2:
        raise fail(ValueError, "diagonal", f"axis1 and axis2 are the same axis ({axis1}, {axis2})",
                   "two different axes, e.g. axis1=0, axis2=1")
    rest = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    planes = ops.transpose(a, tuple(rest) + (ax1, ax2))
    rows, cols = a.shape[ax1], a.shape[ax2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    length = max(0, min(rows - r0, cols - c0))
    index = (Ellipsis, np.arange(length) + r0, np.arange(length) + c0)
    return ops.getitem(planes, index)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """``mnp.trace(a, offset=0, axis1=0, axis2=1, dtype=None)``: the sum of :func:`diagonal`
    (integers summed as Int64; for Bools whether any is True, as MindSpore 2.10)."""
    d = diagonal(a, offset, axis1, axis2)
    out = ops.sum(d if d.dtype.is_float else cast_to(d, ms.int64), -1)
    if d.dtype is ms.bool_:
        out = ops.ne(out, 0)
    return cast_to(out, None if dtype is None else to_dtype(dtype, "trace"))


def meshgrid(*xi, sparse=False, indexing="xy"):
    """``mnp.meshgrid(*xi, sparse=False, indexing='xy')``: a list of coordinate Tensors (each input
    flattened, reshaped along its own axis and broadcast)."""
    if indexing not in ("xy", "ij"):
        raise fail(TypeError, "meshgrid", f"indexing must be 'xy' or 'ij', but got {indexing!r}",
                   "indexing='xy' (Cartesian, the default) or 'ij' (matrix)")
    grids = [ops.reshape(as_tensor(x, "meshgrid", f"xi[{i}]"), (-1,)) for i, x in enumerate(xi)]
    shape = [g.shape[0] for g in grids]
    axes = list(range(len(grids)))
    if indexing == "xy" and len(grids) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        axes[0], axes[1] = 1, 0
    out = []
    for g, ax in zip(grids, axes):
        along = [1] * len(grids)
        along[ax] = g.shape[0]
        g = ops.reshape(g, tuple(along))
        out.append(g if sparse else ops.broadcast_to(g, tuple(shape)))
    return out


# ----- more ranges and grids -------------------------------------------------------------------------
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``mnp.geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0)``: ``num`` samples
    evenly spaced on a log scale, ``sign * exp(linspace(log|start|, log|stop|))`` (the ends of one
    sign; Tensor ends are differentiable)."""
    if is_number(start) and is_number(stop):
        if start == 0 or stop == 0:
            raise fail(ValueError, "geomspace", "start and stop must not be 0 (a log scale has no 0)",
                       "positive (or negative) ends, e.g. mnp.geomspace(1, 1000, 4)")
        out = Tensor(np.geomspace(start, stop, _count(num, "geomspace"), endpoint).astype(np.float32))
        return cast_to(out, None if dtype is None else to_dtype(dtype, "geomspace"))
    start, stop = as_tensor(start, "geomspace", "start"), as_tensor(stop, "geomspace", "stop")
    start = start if start.dtype.is_float else ops.cast(start, ms.float32)
    stop = stop if stop.dtype.is_float else ops.cast(stop, ms.float32)
    logs = linspace(ops.log(ops.abs(start)), ops.log(ops.abs(stop)), num, endpoint, False, None, axis)
    sign = ops.sign(start)
    if sign.ndim and logs.ndim > 1:
        sign = ops.expand_dims(sign, axis_arg(axis, logs.ndim, "geomspace"))
    return cast_to(ops.mul(sign, ops.exp(logs)), None if dtype is None else to_dtype(dtype, "geomspace"))


def diagflat(v, k=0):
    """``mnp.diagflat(v, k=0)``: the flattened input on the ``k``-th diagonal of a matrix."""
    return diag(ops.reshape(as_tensor(v, "diagflat", "v"), (-1,)), k)


def _index_tensors(arrays):
    return tuple(Tensor(a.astype(np.int32)) for a in arrays)


def _whole(value):
    """An integral float (``3.0``) as the int it is, as NumPy's index functions take it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def tril_indices(n, k=0, m=None):
    """``mnp.tril_indices(n, k=0, m=None)``: the (row, column) positions of the lower triangle."""
    m = None if m is None else _size(_whole(m), "tril_indices", "m")
    k = static_int(_whole(k), "tril_indices", "k")
    return _index_tensors(np.tril_indices(_size(_whole(n), "tril_indices", "n"), k, m))


def triu_indices(n, k=0, m=None):
    """``mnp.triu_indices(n, k=0, m=None)``: the (row, column) positions of the upper triangle."""
    m = None if m is None else _size(_whole(m), "triu_indices", "m")
    k = static_int(_whole(k), "triu_indices", "k")
    return _index_tensors(np.triu_indices(_size(_whole(n), "triu_indices", "n"), k, m))


def tril_indices_from(arr, k=0):
    """``mnp.tril_indices_from(arr, k=0)``: :func:`tril_indices` of a 2-D Tensor's shape."""
    arr = as_tensor(arr, "tril_indices_from", "arr")
    if arr.ndim != 2:
        raise fail(ValueError, "tril_indices_from", f"arr must be 2-D, but got {describe(arr)}", "a matrix")
    return tril_indices(arr.shape[0], k, arr.shape[1])


def triu_indices_from(arr, k=0):
    """``mnp.triu_indices_from(arr, k=0)``: :func:`triu_indices` of a 2-D Tensor's shape."""
    arr = as_tensor(arr, "triu_indices_from", "arr")
    if arr.ndim != 2:
        raise fail(ValueError, "triu_indices_from", f"arr must be 2-D, but got {describe(arr)}", "a matrix")
    return triu_indices(arr.shape[0], k, arr.shape[1])


def diag_indices(n, ndim=2):
    """``mnp.diag_indices(n, ndim=2)``: ``ndim`` copies of ``arange(n)``, the main diagonal's positions."""
    return _index_tensors(np.diag_indices(_size(n, "diag_indices", "n"), _size(ndim, "diag_indices", "ndim")))


def indices(dimensions, dtype=ms.int32, sparse=False):
    """``mnp.indices(dimensions, dtype=mnp.int32, sparse=False)``: a grid of positions, a list of
    one Tensor per axis (broadcastable ones with ``sparse``), as MindSpore 2.10 returns it (NumPy
    stacks the dense grids into one array)."""
    dimensions = shape_arg(dimensions, "indices")
    grids = np.indices(dimensions, dtype=to_dtype(dtype, "indices").np_dtype, sparse=sparse)
    return [Tensor(np.ascontiguousarray(g)) for g in grids]


def ix_(*args):
    """``mnp.ix_(*args)``: 1-D Tensors reshaped to index an open mesh (``x[ix_(rows, cols)]``)."""
    out = []
    for i, a in enumerate(args):
        a = as_tensor(a, "ix_", f"args[{i}]")
        if a.ndim != 1:
            raise fail(ValueError, "ix_", f"args[{i}] must be 1-D, but got {describe(a)}", "pass vectors")
        out.append(ops.reshape(a, (1,) * i + (-1,) + (1,) * (len(args) - i - 1)))
    return tuple(out)


def vander(x, N=None, increasing=False):
    """``mnp.vander(x, N=None, increasing=False)``: the columns are powers of ``x`` (decreasing from
    ``N - 1`` by default)."""
    x = as_tensor(x, "vander", "x")
    if x.ndim != 1:
        raise fail(ValueError, "vander", f"x must be 1-D, but got {describe(x)}", "a vector")
    N = x.shape[0] if N is None else _size(N, "vander", "N")
    powers = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    exponent = Tensor(powers.astype(x.dtype.np_dtype if x.dtype.kind != "bool" else np.int32))
    return ops.pow(ops.expand_dims(x, 1), exponent)


def _window(where, M, make):
    M = static_int(M, where, "M")
    return Tensor(make(max(M, 0)).astype(np.float32))


def hamming(M):
    """``mnp.hamming(M)``: the Hamming window (Float32)."""
    return _window("hamming", M, np.hamming)


def hanning(M):
    """``mnp.hanning(M)``: the Hann window (Float32)."""
    return _window("hanning", M, np.hanning)


def bartlett(M):
    """``mnp.bartlett(M)``: the triangular Bartlett window (Float32)."""
    return _window("bartlett", M, np.bartlett)


def blackman(M):
    """``mnp.blackman(M)``: the Blackman window (Float32)."""
    return _window("blackman", M, np.blackman)


class _GridMaker:
    """``mnp.mgrid[0:3, 0:4]`` / ``mnp.ogrid[...]``: NumPy's grids of slices as Tensors (Int32 for
    integer slices, Float32 otherwise, as mindspore.numpy reads Python numbers)."""

    def __init__(self, maker, sparse):
        self._maker, self._sparse = maker, sparse

    def __getitem__(self, key):
        grid = self._maker[key]
        convert = lambda g: Tensor(g.astype(np.int32 if g.dtype.kind in "iu" else np.float32))
        if self._sparse and isinstance(grid, (list, tuple)):
            return [convert(g) for g in grid]
        return convert(np.asarray(grid))


mgrid = _GridMaker(np.mgrid, sparse=False)
ogrid = _GridMaker(np.ogrid, sparse=True)
