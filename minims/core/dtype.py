"""MindSpore's data types (``minims.float32``, ``mstype.int32`` ...): a Tensor's dtype.

A :class:`DType` is a small immutable object naming a NumPy dtype the way MindSpore prints it
(``Float32``, ``Int64``, ``Bool``).  MindSpore's type promotion and its aliases are in
``minims.dtype``, the public module, which adds them to these.
"""
from __future__ import annotations

import numpy as np

__all__ = ["DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32",
           "bool_", "ALL_DTYPES", "to_dtype", "from_numpy"]


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

ALL_DTYPES = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)

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
