"""``Tensor``: an n-dimensional array with a dtype, the value every primitive consumes.

A Tensor holds one NumPy array (``_data``); its dtype is read from the array.  The interpreters'
tracers are subclasses, so user code sees the same ``shape``, ``dtype`` and printing under a
gradient.  This is the data model alone: the operators come from ``prims.py`` (so every computation
goes through the table), and MindSpore's surface — the constructor's checks, the printed form, the
methods — is installed by the layers above (``minims.tensors``, ``minims.primitives``).
"""
from __future__ import annotations

import numpy as np

from . import dtype as mstype

__all__ = ["Tensor"]


def _convert(input_data, dtype=None, *_, **__) -> np.ndarray:
    """The core's own conversion, a copy (the layers above install MindSpore's, with its checks)."""
    data = input_data._data if isinstance(input_data, Tensor) else input_data
    return np.array(data, dtype=None if dtype is None else mstype.to_dtype(dtype).np_dtype)


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

    def _value_array(self) -> np.ndarray:
        """The array of this Tensor's value (a tracer's: the value it stands for, or an error)."""
        return self._data

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

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value={self._data.tolist()})"

    def __str__(self) -> str:
        return str(self._data)
