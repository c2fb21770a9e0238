"""``mindspore.numpy``'s data types and constants.

The dtypes are minims' own (``mnp.float32 is minims.float32``); ``int_`` and ``float_`` are Int32 and
Float32 here, as in MindSpore 2.10's ``mindspore.numpy`` (``minims.int_`` is Int64, as ``mindspore.int_``).
MindSpore's unsigned types other than ``uint8`` have no minims counterpart.
"""
import math

from minims import bool_, float16, float32, float64, int8, int16, int32, int64, uint8

int_ = int32
float_ = float32

inf = math.inf
PINF = math.inf
NINF = -math.inf
nan = math.nan
pi = math.pi

numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint8", "float_", "float16", "float32",
                 "float64", "bool_"]
