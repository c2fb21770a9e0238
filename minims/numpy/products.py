"""``mindspore.numpy``'s products and norms: ``dot``, ``matmul``, ``inner``, ``outer``,
``tensordot``, ``kron``, ``multi_dot``, ``matrix_power`` and ``norm`` (MindSpore 2.10 has these at the
top of ``mindspore.numpy``; it has no ``mindspore.numpy.linalg``).

``tensordot`` is the general product the others reduce to: the contracted axes of ``a`` are moved to
the end and those of ``b`` to the front, both are reshaped to matrices, and one ``MatMul`` multiplies
them; ``dot`` and ``inner`` are tensordots over the axes NumPy names.  The products take two Tensors
of one dtype (TypeError otherwise, as MindSpore 2.10's ``MatMul``).

``norm`` is written with ``abs``, ``sum``, ``amax``/``amin`` and ``sqrt``; the matrix 2-norm and the
nuclear norm need singular values, which MindSpore 2.10's ``mnp.norm`` does not compute either
(NotImplementedError).
"""
from __future__ import annotations

import math

import numpy as np

import minims as ms
from minims import Tensor, ops

from ._utils import as_tensor, axes_arg, axis_arg, cast_to, describe, fail, static_int, to_dtype

__all__ = ["dot", "matmul", "inner", "outer", "tensordot", "kron", "multi_dot", "matrix_power", "norm"]


def _pair(where, a, b):
    a, b = as_tensor(a, where, "a"), as_tensor(b, where, "b")
    if a.dtype is not b.dtype:
        raise fail(TypeError, where, f"a is {describe(a)} and b {describe(b)}; a product takes two Tensors of "
                   "one dtype (as MindSpore 2.10's MatMul)", "cast one of them, e.g. b.astype(a.dtype)")
    return a, b


def _contract(where, a, b, a_axes, b_axes):
    """``sum over the paired axes of a * b``: the free axes of ``a``, then those of ``b``."""
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise fail(ValueError, where, f"shapes {list(a.shape)} and {list(b.shape)} are not aligned: axis {i} "
                       f"of a has size {a.shape[i]}, axis {j} of b has size {b.shape[j]}",
                       "pair axes of equal size (transpose or reshape an input)")
    a_free = [d for d in range(a.ndim) if d not in a_axes]
    b_free = [d for d in range(b.ndim) if d not in b_axes]
    k = int(np.prod([a.shape[i] for i in a_axes], dtype=np.int64))
    left = ops.reshape(ops.transpose(a, tuple(a_free) + tuple(a_axes)), (-1, k))
    right = ops.reshape(ops.transpose(b, tuple(b_axes) + tuple(b_free)), (k, -1))
    out_shape = tuple(a.shape[d] for d in a_free) + tuple(b.shape[d] for d in b_free)
    return ops.reshape(ops.matmul(left, right), out_shape)


def tensordot(a, b, axes=2):
    """``mnp.tensordot(a, b, axes=2)``: the sum over the last ``axes`` axes of ``a`` and the first of
    ``b`` (or over the pairs ``axes=((a axes), (b axes))``)."""
    a, b = _pair("tensordot", a, b)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise fail(ValueError, "tensordot", f"axes={n} is more axes than a ({a.ndim}) or b ({b.ndim}) has",
                       "a count no larger than either rank")
        a_axes, b_axes = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        a_axes = (axes[0],) if isinstance(axes[0], (int, np.integer)) else tuple(axes[0])
        b_axes = (axes[1],) if isinstance(axes[1], (int, np.integer)) else tuple(axes[1])
        if len(a_axes) != len(b_axes):
            raise fail(ValueError, "tensordot", f"axes {axes!r} pairs {len(a_axes)} axes of a with "
                       f"{len(b_axes)} of b", "as many axes of b as of a")
        a_axes = tuple(axis_arg(d, a.ndim, "tensordot") for d in a_axes)
        b_axes = tuple(axis_arg(d, b.ndim, "tensordot") for d in b_axes)
    else:
        raise fail(TypeError, "tensordot", f"axes must be an int or a pair of axis lists, but got "
                   f"{describe(axes)}", "axes=1, or axes=((1, 2), (0, 1))")
    return _contract("tensordot", a, b, a_axes, b_axes)


def dot(a, b):
    """``mnp.dot(a, b)``: for vectors their inner product, for matrices the matrix product, for N-D
    Tensors the sum over the last axis of ``a`` and the second-to-last of ``b``; a scalar multiplies."""
    a, b = _pair("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return _contract("dot", a, b, (a.ndim - 1,), (max(b.ndim - 2, 0),))


def matmul(x1, x2, dtype=None):
    """``mnp.matmul(x1, x2, dtype=None)``: the matrix product, broadcast over leading batch axes
    (vectors as in NumPy); scalars are refused (ValueError, as MindSpore 2.10)."""
    x1, x2 = as_tensor(x1, "matmul", "x1"), as_tensor(x2, "matmul", "x2")
    if x1.ndim == 0 or x2.ndim == 0:
        raise fail(ValueError, "matmul", f"x1 is {describe(x1)} and x2 {describe(x2)}; matmul takes Tensors of "
                   "rank >= 1", "mnp.multiply for a scalar")
    out = ops.matmul(x1, x2)
    return cast_to(out, None if dtype is None else to_dtype(dtype, "matmul"))


def inner(a, b):
    """``mnp.inner(a, b)``: the sum over the last axes of both; a scalar multiplies."""
    a, b = _pair("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return _contract("inner", a, b, (a.ndim - 1,), (b.ndim - 1,))


def outer(a, b):
    """``mnp.outer(a, b)``: ``a[i] * b[j]`` of the flattened inputs."""
    a, b = _pair("outer", a, b)
    return ops.mul(ops.reshape(a, (-1, 1)), ops.reshape(b, (1, -1)))


def kron(a, b):
    """``mnp.kron(a, b)``: the Kronecker product, blocks ``a[i, j] * b``: ``a`` and ``b`` with their axes
    interleaved (``a`` on the outer positions), multiplied, and the pairs merged."""
    a, b = as_tensor(a, "kron", "a"), as_tensor(b, "kron", "b")
    ndim = max(a.ndim, b.ndim)
    sa, sb = (1,) * (ndim - a.ndim) + a.shape, (1,) * (ndim - b.ndim) + b.shape
    left = ops.reshape(a, tuple(s for d in sa for s in (d, 1)))
    right = ops.reshape(b, tuple(s for d in sb for s in (1, d)))
    return ops.reshape(ops.mul(left, right), tuple(x * y for x, y in zip(sa, sb)))


def multi_dot(arrays):
    """``mnp.multi_dot(arrays)``: ``dot`` of several Tensors in turn (a first vector is a row, a last
    one a column)."""
    if not isinstance(arrays, (list, tuple)) or len(arrays) < 2:
        raise fail(ValueError, "multi_dot", f"arrays must be a list of at least two Tensors, but got "
                   f"{describe(arrays)}", "mnp.multi_dot([a, b, c])")
    out = as_tensor(arrays[0], "multi_dot", "arrays[0]")
    for i, x in enumerate(arrays[1:], 1):
        out = dot(out, as_tensor(x, "multi_dot", f"arrays[{i}]"))
    return out


def matrix_power(a, n):
    """``mnp.matrix_power(a, n)``: ``a`` multiplied by itself ``n`` times (by repeated squaring);
    ``n = 0`` gives the identity, ``n < 0`` is refused (ValueError, as MindSpore 2.10)."""
    a = as_tensor(a, "matrix_power", "a")
    n = static_int(n, "matrix_power", "n")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise fail(ValueError, "matrix_power", f"a must be a square matrix (or a batch of them), but got "
                   f"{describe(a)}", "square matrices in the last two axes")
    if n < 0:
        raise fail(ValueError, "matrix_power", f"n = {n} would need the inverse, which mindspore.numpy does "
                   "not compute", "n >= 0")
    if n == 0:
        return Tensor(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype.np_dtype), a.shape).copy())
    result, square = None, a
    while n:
        if n & 1:
            result = square if result is None else ops.matmul(result, square)
        n >>= 1
        if n:
            square = ops.matmul(square, square)
    return result


# ----- norms -------------------------------------------------------------------------------------------
def _vector_norm(x, ord, axes, keepdims):
    a = ops.abs(x)
    if ord is None or ord == 2:
        return ops.sqrt(ops.sum(ops.mul(x, x), axes, keepdims))
    if ord == math.inf:
        return ops.amax(a, axes, keepdims)
    if ord == -math.inf:
        return ops.amin(a, axes, keepdims)
    if ord == 0:
        return ops.sum(ops.cast(ops.ne(x, 0), x.dtype), axes, keepdims)
    if ord == 1:
        return ops.sum(a, axes, keepdims)
    return ops.pow(ops.sum(ops.pow(a, float(ord)), axes, keepdims), 1.0 / float(ord))


def _matrix_norm(x, ord, axes, keepdims):
    row, col = axes
    if ord in (None, "fro"):
        return ops.sqrt(ops.sum(ops.mul(x, x), axes, keepdims))
    if ord in (2, -2):
        raise fail(NotImplementedError, "norm", "the matrix 2-norm needs singular values, which "
                   "mindspore.numpy does not compute (MindSpore 2.10 neither)", "ord='fro', 1 or inf")
    if ord == "nuc":
        raise fail(NotImplementedError, "norm", "the nuclear norm needs singular values, which "
                   "mindspore.numpy does not compute (MindSpore 2.10 neither)", "ord='fro', 1 or inf")
    if ord in (1, -1):          # the largest (smallest) column sum
        sums, other = ops.sum(ops.abs(x), row, True), col
    elif ord in (math.inf, -math.inf):
        sums, other = ops.sum(ops.abs(x), col, True), row
    else:
        raise fail(ValueError, "norm", f"ord={ord!r} is not a matrix norm",
                   "ord=None or 'fro', 1, -1, inf or -inf")
    out = (ops.amax if ord in (1, math.inf) else ops.amin)(sums, other, True)
    return out if keepdims else ops.squeeze(out, axes)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's parameter name
    """``mnp.norm(x, ord=None, axis=None, keepdims=False)``: a vector norm (``axis`` an int, or ``x``
    1-D) or a matrix norm (``axis`` two ints, or ``x`` 2-D); without ``ord`` and ``axis``, the 2-norm of
    all entries.  Integers and Float16 are computed as Float32 (MindSpore 2.10)."""
    x = as_tensor(x, "norm", "x")
    if x.dtype is not ms.float64:
        x = cast_to(x, ms.float32)
    if isinstance(ord, str) and ord not in ("fro", "nuc"):
        raise fail(ValueError, "norm", f"ord={ord!r} is not a norm", "ord=None, 'fro', 'nuc' or a number")
    if axis is None:
        if ord is None:
            return _vector_norm(x, None, axes_arg(None, x.ndim, "norm"), keepdims)
        if x.ndim not in (1, 2):
            raise fail(ValueError, "norm", f"ord={ord!r} needs a 1-D or 2-D Tensor without axis, but got "
                       f"{describe(x)}", "give axis= (one axis: a vector norm, two: a matrix norm)")
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise fail(ValueError, "norm", f"ord={ord!r} is a matrix norm, but one axis was given",
                       "a number for a vector norm, or two axes")
        return _vector_norm(x, ord, (axis_arg(axes[0], x.ndim, "norm"),), keepdims)
    if len(axes) == 2:
        axes = tuple(axis_arg(a, x.ndim, "norm") for a in axes)
        if axes[0] == axes[1]:
            raise fail(ValueError, "norm", f"axis {axis} names one axis twice", "two different axes")
        return _matrix_norm(x, ord, axes, keepdims)
    raise fail(ValueError, "norm", f"axis must be one or two axes, but got {axis!r}", "axis=0 or axis=(0, 1)")
