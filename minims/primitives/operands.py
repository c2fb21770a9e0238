"""Argument handling shared by the primitives: operand checking, dtype promotion, un-broadcasting.

* ``binary_operands`` turns the two operands of an elementwise op into what its ``impl`` expects,
  applying MindSpore's promotion (``int32 + float16 -> float16``, ``float32 * 2.5 -> float32``,
  ``int32 * 2.5 -> float32``) and rejecting strings and other non-numbers with an error that names
  the op.  Python scalars stay Python scalars: they are constants, never differentiated.
* ``keep_where`` is ``np.where(mask, values, 0)`` without its cost on unpredictable masks.
* ``sum_to`` (the core's: ``minims.core.prims``) is the gradient side of broadcasting: it sums a
  gradient over the dimensions that broadcasting added or stretched, so that it has the shape (and
  dtype) of the input again.
"""
from __future__ import annotations

import numpy as np

from . import functional as ops
from ..core.prims import cast_gradient, sum_to  # noqa: F401 - the rules' spelling
from .. import dtype as mstype
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..core.stack import MinimsError


class ShapeMismatchError(MinimsError, RuntimeError, ValueError):
    """Operand shapes that do not fit together (a product's inner dimensions, a convolution's
    channels).  MindSpore 2.10 raises RuntimeError from ``ops.matmul`` and ``Conv2D`` and ValueError
    from ``ops.MatMul`` and ``nn.Dense``; this is both, so either ``except`` catches it."""


class DtypeMismatchError(MinimsError, TypeError):
    """Two operands that must share a dtype do not (a product, a convolution): TypeError, as
    MindSpore 2.10.  ``mismatch`` is the message without its fix and ``dtypes`` the two dtypes, so
    that a layer the op ran in can say which of them to cast (``minims.nn.cell_call``)."""

    def __init__(self, op_name: str, names, dtypes, quoted: bool = False):
        self.dtypes = tuple(dtypes)
        a, b = (f"'{n}'" for n in names) if quoted else names
        self.mismatch = f"{op_name}: {a} and {b} must have the same dtype, but got {dtypes[0]} and {dtypes[1]}"
        super().__init__(f"{self.mismatch}. Fix: cast one of them, e.g. {names[1]}.astype({names[0]}.dtype).")


_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def as_operand(op_name: str, value, position: str):
    """Tensors and Python numbers pass; anything else is a TypeError naming the op.

    A NumPy array, a list or a tuple is refused rather than converted, as in MindSpore 2.10
    ("Failed calling ReLU with ReLU()(input=<class 'numpy.ndarray'>)"): an array that came from
    ``t.asnumpy()`` has left the computation, and converting it back would silently cut the gradient.
    """
    if isinstance(value, (Tensor, bool, int, float)):
        return value
    if isinstance(value, np.generic) and isinstance(value, _SCALARS):
        return value.item()
    if isinstance(value, (np.ndarray, list, tuple)):
        raise TypeError(
            f"{op_name}: input '{position}' must be a Tensor, but got {_describe(value)}; ops do not "
            "convert NumPy arrays or lists (an array from .asnumpy() has left the computation, and no "
            "gradient would flow through it). Fix: keep the computation in Tensors and ops, or wrap "
            "constant data once: Tensor(value).")
    raise TypeError(
        f"{op_name}: input '{position}' must be a Tensor or a number (int, float, bool), "
        f"but got {_describe(value)}. Fix: pass a Tensor or a Python number."
    )


def binary_operands(op, x, y, float_result: bool = False):
    """Check and promote the operands of an elementwise binary op ``op`` (the primitive, or its
    name); returns (x, y).  The name is looked up only for an error or a promotion."""
    # the common cases first, with no work: two tensors of one dtype, a float tensor and a float
    if isinstance(x, Tensor):
        kind = x._data.dtype.kind
        if isinstance(y, Tensor):
            if x._data.dtype == y._data.dtype and (kind == "f" or not float_result):
                return x, y
        elif type(y) is float and kind == "f":
            return x, y
        elif type(y) is int and not float_result:
            if kind == "f":
                return x, float(y)          # a weak float constant, as the general path makes it
            if kind in "iu":
                return x, y
    return _promote(op if isinstance(op, str) else op.name, x, y, float_result)


def _promote(op_name: str, x, y, float_result: bool):
    x = as_operand(op_name, x, "x")
    y = as_operand(op_name, y, "y")
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    if xt and yt:
        if x._data.dtype == y._data.dtype:
            target = None if not float_result else _float_of(x.dtype)
        else:
            target = mstype.result_type(x.dtype, y.dtype)
            if float_result:
                target = _float_of(target)
    elif xt:
        target = mstype.scalar_result_type(x.dtype, y)
        target = _float_of(target) if float_result else target
        y = _scalar_for(y, target)
    elif yt:
        target = mstype.scalar_result_type(y.dtype, x)
        target = _float_of(target) if float_result else target
        x = _scalar_for(x, target)
    else:
        x = Tensor(x)
        return _promote(op_name, x, y, float_result)
    if target is not None:
        if xt and x._data.dtype != target.np_dtype:
            x = ops.cast(x, target)
        if yt and y._data.dtype != target.np_dtype:
            y = ops.cast(y, target)
    return x, y


def _float_of(d: mstype.DType) -> mstype.DType:
    return d if d.kind == "float" else mstype.float32


def _scalar_for(value, target: mstype.DType):
    """A Python scalar converted to the kind NumPy needs to keep ``target`` (NEP 50 weak scalars)."""
    if target.kind == "float":
        return float(value)
    if target.kind == "int":
        return int(value)
    return value


_SAME_WIDTH_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def keep_where(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.where(mask, values, 0)`` for float ``values`` (ReLU's gradient, for one), bit for bit.

    ``np.where`` branches per element; on a mask such as ``relu_output > 0`` for random data the
    branch is unpredictable, and it ran 16x slower than a multiplication (0.79 against 0.05 ms on
    LeNet's first activation).  ``values * mask`` would be fast but wrong: a NaN or inf where the
    mask is False must give 0, not NaN.  So select with bits instead: AND every value's bit pattern
    with all ones (keep) or all zeros (which is +0.0).
    """
    uint = _SAME_WIDTH_UINT.get(values.dtype.itemsize) if values.dtype.kind == "f" else None
    if uint is None or values.ndim == 0 or np.shape(mask) != values.shape:   # (0-d: nothing to gain)
        return np.where(mask, values, np.zeros((), values.dtype))
    bits = mask.astype(uint)
    np.negative(bits, out=bits)                   # True -> all ones, False -> 0
    values = np.ascontiguousarray(values)
    return np.bitwise_and(values.view(uint), bits, out=bits).view(values.dtype)


def normalize_axis(op_name: str, axis, ndim: int) -> tuple:
    """An int, tuple/list of ints, None or () as a sorted tuple of non-negative axes."""
    if axis is None or axis == ():
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    if not isinstance(axis, (tuple, list)) or not all(isinstance(a, (int, np.integer)) for a in axis):
        raise TypeError(f"{op_name}: axis must be an int or a tuple of ints, but got {_describe(axis)}.")
    out = []
    for a in axis:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(
                f"{op_name}: axis {a} is out of range for a tensor of rank {ndim} "
                f"(valid: {-ndim}..{max(ndim - 1, 0)}). Fix: count axes from 0, or from -1 for the last."
            )
        out.append(int(a) % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"{op_name}: axis {tuple(axis)} repeats an axis.")
    return tuple(sorted(out))
