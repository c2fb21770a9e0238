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
        np_dtype = np.dtype(np_dtype)
        kind = {"f": "float", "i": "int", "u": "int", "b": "bool"}[np_dtype.kind]
        for key, value in (("name", name), ("np_dtype", np_dtype), ("kind", kind), ("_rank", rank)):
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise AttributeError("minims dtypes are immutable")

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self):
        return (to_dtype, (self.name,))

    @property
    def is_float(self) -> bool:
        return self.kind == "float"



float16, float32, float64 = DType("Float16", np.float16, 12), DType("Float32", np.float32, 13), \
    DType("Float64", np.float64, 14)
int8, int16, int32, int64 = DType("Int8", np.int8, 3), DType("Int16", np.int16, 5), \
    DType("Int32", np.int32, 7), DType("Int64", np.int64, 9)
uint8, bool_ = DType("UInt8", np.uint8, 2), DType("Bool", np.bool_, 0)
ALL_DTYPES = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
# UInt32 holds data (MnistDataset's labels) but is not one of the types every op is tested with
uint32 = DType("UInt32", np.uint32, 6)

_BY_NUMPY = {d.np_dtype: d for d in (*ALL_DTYPES, uint32)}
_BY_NAME = {key: d for d in (*ALL_DTYPES, uint32) for key in (d.name, d.name.lower(), d.np_dtype.name)}
_BY_NAME.update(bool_=bool_)
_BY_PYTHON = {bool: bool_, int: int64, float: float32}


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
        raise TypeError(f"minims does not support the NumPy dtype {np_dtype!r}; supported: {supported}. "
                        "Convert the data first, e.g. array.astype(np.float32).") from None


def to_dtype(value, where: str = "dtype") -> DType:
    """Accept a DType, a NumPy dtype/type, a Python type or a name ('float32', 'Float32')."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if isinstance(value, type) and value in _BY_PYTHON:
        return _BY_PYTHON[value]
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (KeyError, TypeError):
        raise TypeError(
            f"{where}: expected a minims dtype such as minims.float32 (or mstype.int32), but got {value!r} "
            f"of type {type(value).__name__}. Fix: pass one of minims.float16/float32/float64/int8/int16/"
            "int32/int64/uint8/bool_.") from None
