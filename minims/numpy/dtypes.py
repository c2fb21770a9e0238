"""``mindspore.numpy``'s data types and constants, and ``promote_types``/``result_type``.

The dtypes are minims' own (``mnp.float32 is minims.float32``); ``int_`` and ``float_`` are Int32 and
Float32 here, as in MindSpore 2.10's ``mindspore.numpy`` (``minims.int_`` is Int64, as ``mindspore.int_``).
MindSpore's unsigned types other than ``uint8`` have no minims counterpart.
"""
import math

import minims as ms
from minims import Tensor, bool_, float16, float32, float64, int8, int16, int32, int64, uint8  # noqa: F401

from ._utils import as_tensor, fail, is_number, to_dtype

__all__ = ["promote_types", "result_type"]

int_ = int32
float_ = float32

inf = math.inf
PINF = math.inf
NINF = -math.inf
nan = math.nan
pi = math.pi

numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint8", "float_", "float16", "float32",
                 "float64", "bool_"]


def promote_types(type1, type2):
    """``mnp.promote_types(type1, type2)``: the dtype both convert to (MindSpore's promotion)."""
    return ms.dtype.result_type(to_dtype(type1, "promote_types"), to_dtype(type2, "promote_types"))


def result_type(*arrays_and_dtypes):
    """``mnp.result_type(*arrays_and_dtypes)``: the dtype of a result combining Tensors, dtypes and
    Python numbers (numbers read as mindspore.numpy reads them: Int32, Float32, Bool)."""
    if not arrays_and_dtypes:
        raise fail(ValueError, "result_type", "no Tensors or dtypes were given", "pass at least one")
    found = []
    for i, item in enumerate(arrays_and_dtypes):
        if isinstance(item, Tensor):
            found.append(item.dtype)
        elif is_number(item) or isinstance(item, (list, tuple)):
            found.append(as_tensor(item, "result_type", f"arrays_and_dtypes[{i}]").dtype)
        else:
            found.append(to_dtype(item, "result_type"))
    out = found[0]
    for d in found[1:]:
        out = ms.dtype.result_type(out, d)
    return out
