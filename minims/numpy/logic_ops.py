"""``mindspore.numpy``'s comparisons, logical functions and tests of values: ``equal`` ...
``greater_equal``, ``logical_and`` ..., ``isnan``, ``isinf``, ``isfinite``, ``isclose``,
``array_equal``, and ``where``.

The tests of values are comparisons, which every interpreter already runs: ``isnan(x)`` is
``x != x`` (only NaN differs from itself), ``isinf(x)`` is ``|x| == inf``, ``isfinite(x)`` is
``x == x and |x| != inf``.  Their results are Bool, never differentiated.
``where`` is a select, whose gradient goes to the branch each entry came from.
"""
from __future__ import annotations

import math

import numpy as np

import minims as ms
from minims import ops

from ._utils import as_tensor, broadcast_shape, fail, operands

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "isposinf",
           "isneginf", "signbit", "isclose", "array_equal", "array_equiv", "where", "isin", "in1d", "sometrue",
           "isscalar"]


def _compare(where, op, x1, x2):
    x1, x2 = operands(x1, x2, where)
    broadcast_shape(where, x1, x2)
    return op(x1, x2)


def equal(x1, x2, dtype=None):
    """``mnp.equal(x1, x2, dtype=None)``: a Bool Tensor."""
    return _compare("equal", ops.equal, x1, x2)


def not_equal(x1, x2, dtype=None):
    """``mnp.not_equal(x1, x2, dtype=None)``."""
    return _compare("not_equal", ops.ne, x1, x2)


def less(x1, x2, dtype=None):
    """``mnp.less(x1, x2, dtype=None)``."""
    return _compare("less", ops.lt, x1, x2)


def less_equal(x1, x2, dtype=None):
    """``mnp.less_equal(x1, x2, dtype=None)`` (MindSpore 2.10 refuses a Python number here, by an
    oversight its ``less`` does not share; minims takes it)."""
    return _compare("less_equal", ops.le, x1, x2)


def greater(x1, x2, dtype=None):
    """``mnp.greater(x1, x2, dtype=None)``."""
    return _compare("greater", ops.gt, x1, x2)


def greater_equal(x1, x2, dtype=None):
    """``mnp.greater_equal(x1, x2, dtype=None)``."""
    return _compare("greater_equal", ops.ge, x1, x2)


def _truth(x):
    """A Tensor's truth values (non-zero is True), as NumPy's logical functions read numbers."""
    return x if x.dtype is ms.bool_ else ops.ne(x, 0)


def logical_and(x1, x2, dtype=None):
    """``mnp.logical_and(x1, x2, dtype=None)``."""
    x1, x2 = operands(x1, x2, "logical_and")
    return ops.logical_and(_truth(x1), _truth(x2))


def logical_or(x1, x2, dtype=None):
    """``mnp.logical_or(x1, x2, dtype=None)``."""
    x1, x2 = operands(x1, x2, "logical_or")
    return ops.logical_or(_truth(x1), _truth(x2))


def logical_xor(x1, x2, dtype=None):
    """``mnp.logical_xor(x1, x2, dtype=None)``: True where exactly one is true."""
    x1, x2 = operands(x1, x2, "logical_xor")
    return ops.ne(_truth(x1), _truth(x2))


def logical_not(a, dtype=None):
    """``mnp.logical_not(a, dtype=None)``."""
    return ops.logical_not(_truth(as_tensor(a, "logical_not", "a")))


# ----- tests of values ------------------------------------------------------------------------------
def isnan(x, dtype=None):
    """``mnp.isnan(x, dtype=None)``: ``x != x``."""
    x = as_tensor(x, "isnan", "x")
    return ops.ne(x, x)


def isinf(x, dtype=None):
    """``mnp.isinf(x, dtype=None)``: ``|x| == inf``."""
    x = as_tensor(x, "isinf", "x")
    if not x.dtype.is_float:
        return ops.ne(x, x)                     # all False, in the graph like any other result
    return ops.equal(ops.abs(x), math.inf)


def isfinite(x, dtype=None):
    """``mnp.isfinite(x, dtype=None)``: neither NaN nor infinite, ``x == x and |x| != inf``."""
    x = as_tensor(x, "isfinite", "x")
    if not x.dtype.is_float:
        return ops.equal(x, x)
    return ops.logical_and(ops.equal(x, x), ops.ne(ops.abs(x), math.inf))


def isposinf(x):
    """``mnp.isposinf(x)``: ``x == inf``."""
    x = as_tensor(x, "isposinf", "x")
    return ops.equal(x, math.inf) if x.dtype.is_float else ops.ne(x, x)


def isneginf(x):
    """``mnp.isneginf(x)``: ``x == -inf``."""
    x = as_tensor(x, "isneginf", "x")
    return ops.equal(x, -math.inf) if x.dtype.is_float else ops.ne(x, x)


def signbit(x, dtype=None):
    """``mnp.signbit(x, dtype=None)``: ``x < 0`` (so False for ``-0.0``, as MindSpore 2.10; NumPy reads
    the sign bit of ``-0.0``)."""
    return ops.lt(as_tensor(x, "signbit", "x"), 0)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``mnp.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: ``|a - b| <= atol + rtol * |b|``,
    or equal (so two equal infinities are close); two NaNs only with ``equal_nan``."""
    a, b = operands(a, b, "isclose")
    a = a if a.dtype.is_float else ops.cast(a, ms.float32)
    b = b if b.dtype.is_float else ops.cast(b, ms.float32)
    near = ops.le(ops.abs(ops.sub(a, b)), ops.add(atol, ops.mul(rtol, ops.abs(b))))
    out = ops.logical_or(near, ops.equal(a, b))
    if equal_nan:
        out = ops.logical_or(out, ops.logical_and(isnan(a), isnan(b)))
    return out


def _all(x):
    return ops.equal(ops.sum(ops.cast(ops.logical_not(x), ms.int32)), 0)


def array_equal(a1, a2, equal_nan=False):
    """``mnp.array_equal(a1, a2, equal_nan=False)``: a 0-d Bool Tensor, False for different shapes."""
    a1, a2 = operands(a1, a2, "array_equal")
    if a1.shape != a2.shape:
        return ms.Tensor(False)
    same = ops.equal(a1, a2)
    if equal_nan:
        same = ops.logical_or(same, ops.logical_and(isnan(a1), isnan(a2)))
    return _all(same)


def array_equiv(a1, a2):
    """``mnp.array_equiv(a1, a2)``: equal after broadcasting (False if they do not broadcast)."""
    a1, a2 = operands(a1, a2, "array_equiv")
    try:
        broadcast_shape("array_equiv", a1, a2)
    except ValueError:
        return ms.Tensor(False)
    return _all(ops.equal(a1, a2))


# ----- where ------------------------------------------------------------------------------------------
def where(condition, x=None, y=None):
    """``mnp.where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y``, broadcast
    together (a number condition is true when non-zero).  The one-argument form is refused, as in
    MindSpore 2.10 (its result's shape would depend on the values)."""
    if x is None or y is None:
        raise fail(TypeError, "where", "x and y must both be given (the one-argument form, the positions "
                   "of the true entries, has a shape that depends on the values)",
                   "mnp.where(condition, x, y); for the positions, condition.asnumpy().nonzero()")
    condition = _truth(as_tensor(condition, "where", "condition"))
    x, y = operands(x, y, "where")
    if x.dtype is not y.dtype:
        common = ms.dtype.result_type(x.dtype, y.dtype)
        x, y = ops.cast(x, common), ops.cast(y, common)
    shape = broadcast_shape("where", condition, x, y)
    return ops.select(ops.broadcast_to(condition, shape), ops.broadcast_to(x, shape), ops.broadcast_to(y, shape))


# ----- membership and truth ---------------------------------------------------------------------------------
def _any(x, axis, keepdims):
    return ops.ne(ops.sum(ops.cast(x, ms.int32), axis, keepdims), 0)


def isin(element, test_elements, invert=False):
    """``mnp.isin(element, test_elements, invert=False)``: for each entry of ``element``, whether it
    equals one of ``test_elements`` (every pair compared, so the shape never depends on the values)."""
    element = as_tensor(element, "isin", "element")
    tests = ops.reshape(as_tensor(test_elements, "isin", "test_elements"), (-1,))
    found = _any(ops.equal(ops.expand_dims(element, -1), tests), -1, False)
    return ops.logical_not(found) if invert else found


def in1d(ar1, ar2, invert=False):
    """``mnp.in1d(ar1, ar2, invert=False)``: :func:`isin` of the flattened ``ar1``."""
    return isin(ops.reshape(as_tensor(ar1, "in1d", "ar1"), (-1,)), ar2, invert)


def sometrue(a, axis=None, keepdims=False):
    """``mnp.sometrue(a, axis=None, keepdims=False)``: whether any entry is true (non-zero)."""
    a = as_tensor(a, "sometrue", "a")
    axes = tuple(range(a.ndim)) if axis is None else axis
    return _any(_truth(a), axes, keepdims)


def isscalar(element):
    """``mnp.isscalar(element)``: True for a Python or NumPy scalar (a Tensor, even 0-d, is not one)."""
    return not isinstance(element, ms.Tensor) and bool(np.isscalar(element))
