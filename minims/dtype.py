"""MindSpore's data types under their public name (``minims.dtype``, ``mindspore.common.dtype``), with
MindSpore's aliases and its type-promotion rules.

The types themselves are the core's (``minims.core.dtype``: a Tensor's dtype).  Promotion follows
MindSpore, which differs from NumPy in two places that learners meet early:

* an integer or bool tensor combined with a float tensor takes the *float tensor's* type
  (``int32 + float16 -> float16``; NumPy would give float64);
* a Python scalar never widens a tensor (``float32 * 2.5 -> float32``), and a Python float with an
  integer tensor gives ``float32`` (NumPy would give float64).
"""
from __future__ import annotations

import numpy as np

from .core.dtype import (ALL_DTYPES, DType, bool_, float16, float32, float64, from_numpy, int8, int16,
                         int32, int64, to_dtype, uint8, uint32)
from .core import install
from .core.dtype import _BY_NUMPY

__all__ = [
    "DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_",
    "float_", "int_", "half", "single", "double", "number_type", "to_dtype", "from_numpy",
    "result_type", "scalar_result_type", "require_dtype", "ALL_DTYPES", "float_type",
    "dtype_to_nptype",
]

# MindSpore's aliases
half, single, double = float16, float32, float64
float_ = float32
int_ = int64

number_type = (float16, float32, float64, int8, int16, int32, int64, uint8)


def _to_numpy(self):
    """The NumPy scalar type of this dtype (MindSpore's ``dtype_to_nptype``)."""
    return self.np_dtype.type


install(DType, is_int=property(lambda self: self.kind == "int"), to_numpy=_to_numpy)


def dtype_to_nptype(type_):
    """MindSpore's ``dtype_to_nptype(mstype.float32)`` -> ``numpy.float32``; KeyError for anything but a
    minims dtype, as MindSpore (a lookup in its table)."""
    if not isinstance(type_, DType):
        raise KeyError(f"dtype_to_nptype: {type_!r} is not a mindspore dtype. Fix: pass one such as "
                       "mindspore.float32.")
    return type_.to_numpy()
float_type = (float16, float32, float64)


def require_dtype(value, where: str) -> DType:
    """Only a minims dtype (``mstype.float32``): ``ops.cast`` takes nothing else (TypeError, as
    MindSpore; ``Tensor.astype`` is the lenient spelling that also takes 'float32' or np.float32)."""
    if isinstance(value, DType):
        return value
    try:
        suggestion = f"mindspore.{to_dtype(value).name.lower().replace('bool', 'bool_')}"
    except TypeError:
        suggestion = "mindspore.float32"
    raise TypeError(f"{where}: the dtype must be a mindspore dtype such as mindspore.float32, but got "
                    f"{value!r} of type {type(value).__name__}. Fix: {suggestion} (or x.astype({value!r})).")


def result_type(a: DType, b: DType) -> DType:
    """MindSpore's promotion of two tensor dtypes."""
    if a is b:
        return a
    if a.kind == "float" or b.kind == "float":
        if a.kind == "float" and b.kind == "float":
            return a if a._rank >= b._rank else b
        return a if a.kind == "float" else b
    if a.kind == "bool":
        return b
    if b.kind == "bool":
        return a
    return _BY_NUMPY[np.promote_types(a.np_dtype, b.np_dtype)]


def scalar_result_type(t: DType, scalar) -> DType:
    """MindSpore's promotion of a tensor dtype with a Python scalar (the tensor wins unless widened)."""
    if isinstance(scalar, bool):
        return t
    if isinstance(scalar, (float, np.floating)):
        return t if t.kind == "float" else float32
    if isinstance(scalar, (int, np.integer)):
        return int64 if t.kind == "bool" else t
    return t
