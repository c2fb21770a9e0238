"""``Tensor``: an n-dimensional array with a dtype, the value every primitive consumes.

A Tensor holds one NumPy array (``_data``) and nothing else; its dtype is read from the array.
Tracers used by the interpreters are subclasses of Tensor, so user code sees the same ``shape``,
``dtype`` and printing whether or not a gradient is being taken.

This is the data model alone.  The arithmetic operators come from ``minims.core.prims`` (so every
computation goes through the primitive table); MindSpore's surface — the constructor's conversions
and checks, the printed form, the methods (``reshape``, ``sum``, ``t[i] = v`` ...) — is installed
by the layers above (``minims.tensors``, ``minims.ops``) through ``seams.install``.
"""
from __future__ import annotations

import numpy as np

from . import dtype as mstype

__all__ = ["Tensor"]


def _convert(input_data, dtype=None, *_, **__) -> np.ndarray:
    """The core's own conversion (the layers above install MindSpore's, with its checks): Python
    floats become float32 and ints int64, as in MindSpore; the array is always a copy."""
    data = input_data._data if isinstance(input_data, Tensor) else input_data
    arr = np.array(data)
    if dtype is not None:
        return arr.astype(mstype.to_dtype(dtype).np_dtype)
    if arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
        return arr.astype(np.float32)
    return arr


class Tensor:
    """``Tensor(input_data, dtype=None)``: an array and its dtype."""

    __slots__ = ("_data", "__weakref__")
    __array_priority__ = 1000       # NumPy defers ``array * tensor`` to the Tensor's operators
    _convert = staticmethod(_convert)

    def __init__(self, input_data=None, dtype=None, *args, **kwargs):
        self._data = self._convert(input_data, dtype, *args, **kwargs)

    @classmethod
    def _make(cls, array: np.ndarray) -> "Tensor":
        """Wrap an array the engine produced (no conversion, no copy)."""
        t = object.__new__(Tensor)
        t._data = array
        return t

    def _has_no_value(self) -> bool:
        """True for a placeholder of a graph being compiled (or a batch inside vmap): a Tensor whose
        value cannot be read here.  A plain Tensor always has one."""
        return False

    def _value_array(self) -> np.ndarray:
        """The array of this Tensor's value, for whatever reads values out of minims (``asnumpy``, a
        checkpoint): a Tensor's own array; a tracer's the value it stands for, raising where it has
        none (a graph's placeholder, a batch inside vmap) — never its placeholder array."""
        return self._data

    def _become(self, other: "Tensor") -> None:
        """Take ``other``'s value in place (``t[i] = v`` rebinds no variable, so ``t`` itself changes)."""
        self._data = other._data

    # ----- attributes -----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> mstype.DType:
        return mstype.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    # ----- values ---------------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """A NumPy copy of the data (changing it does not change the Tensor)."""
        return self._value_array().copy()

    def tolist(self):
        return self._data.tolist()

    def item(self, index=None):
        return self._data.item() if index is None else self._data.item(index)

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        return int(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={self._data.tolist()})"

    def __str__(self) -> str:
        return str(self._data)
