"""MindSpore's data types (``minims.float32``, ``mstype.int32`` ...) and its type-promotion rules.

A :class:`DType` is a small immutable object naming a NumPy dtype the way MindSpore prints it
(``Float32``, ``Int64``, ``Bool``).  Promotion follows MindSpore, which differs from NumPy in two
places that learners meet early:

* an integer or bool tensor combined with a float tensor takes the *float tensor's* type
  (``int32 + float16 -> float16``; NumPy would give float64);
* a Python scalar never widens a tensor (``float32 * 2.5 -> float32``), and a Python float with an
  integer tensor gives ``float32`` (NumPy would give float64).
"""
from __future__ import annotations

import numpy as np

__all__ = [
    "DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_",
    "float_", "int_", "half", "single", "double", "number_type", "to_dtype", "from_numpy",
    "result_type", "scalar_result_type",
]


class DType:
    """A MindSpore data type; ``str(minims.float32) == 'Float32'``."""

    __slots__ = ("name", "np_dtype", "kind", "_rank")

    def __init__(self, name: str, np_dtype, rank: int):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "np_dtype", np.dtype(np_dtype))
        kind = {"f": "float", "i": "int", "u": "int", "b": "bool"}[self.np_dtype.kind]
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "_rank", rank)

    def __setattr__(self, key, value):
        raise AttributeError("minims dtypes are immutable")

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self):
        return (to_dtype, (self.name,))

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    def to_numpy(self):
        """The NumPy scalar type of this dtype (MindSpore's ``dtype_to_nptype``)."""
        return self.np_dtype.type


float16 = DType("Float16", np.float16, 12)
float32 = DType("Float32", np.float32, 13)
float64 = DType("Float64", np.float64, 14)
int8 = DType("Int8", np.int8, 3)
int16 = DType("Int16", np.int16, 5)
int32 = DType("Int32", np.int32, 7)
int64 = DType("Int64", np.int64, 9)
uint8 = DType("UInt8", np.uint8, 2)
bool_ = DType("Bool", np.bool_, 0)

# MindSpore's aliases
half, single, double = float16, float32, float64
float_ = float32
int_ = int64

ALL_DTYPES = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
number_type = (float16, float32, float64, int8, int16, int32, int64, uint8)
float_type = (float16, float32, float64)

# UInt32 holds data (MnistDataset's labels) but is not one of the types every op is tested with
uint32 = DType("UInt32", np.uint32, 6)

_BY_NUMPY = {d.np_dtype: d for d in (*ALL_DTYPES, uint32)}
_BY_NAME = {}
for _d in (*ALL_DTYPES, uint32):
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d.name.lower()] = _d
    _BY_NAME[_d.np_dtype.name] = _d
_BY_NAME["bool_"] = bool_


def from_numpy(np_dtype) -> DType:
    """The minims dtype of a NumPy dtype; TypeError for types minims does not support."""
    try:
        return _BY_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        supported = ", ".join(d.np_dtype.name for d in ALL_DTYPES)
        raise TypeError(
            f"minims does not support the NumPy dtype {np_dtype!r}; supported: {supported}. "
            "Convert the data first, e.g. array.astype(np.float32)."
        ) from None


def to_dtype(value, where: str = "dtype") -> DType:
    """Accept a DType, a NumPy dtype/type or a name ('float32', 'Float32') and return a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is bool:
        return bool_
    if value is int:
        return int64
    if value is float:
        return float32
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (KeyError, TypeError):
        raise TypeError(
            f"{where}: expected a minims dtype such as minims.float32 (or mstype.int32), "
            f"but got {value!r} of type {type(value).__name__}. "
            "Fix: pass one of minims.float16/float32/float64/int8/int16/int32/int64/uint8/bool_."
        ) from None


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
