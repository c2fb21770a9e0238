"""``mindspore.dataset.transforms``: transforms for any column — ``TypeCast`` and ``Compose``.

Like every minims data transform, each is an object called on one NumPy array (one column of one
row): in a pipeline by ``dataset.map``, or eagerly, ``TypeCast(mindspore.int32)(array)``.
"""
from __future__ import annotations

import numpy as np

from ... import Tensor
from ... import dtype as mstype

__all__ = ["TypeCast", "Compose", "check_array"]


def check_array(value, where):
    """The NumPy array a transform works on: NumPy arrays (and PIL images); not Tensors (TypeError,
    as MindSpore)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        raise TypeError(f"{where}: input should be NumPy or PIL image, got Tensor. Fix: pass "
                        "tensor.asnumpy(), or use the transform in dataset.map.")
    if type(value).__module__.startswith("PIL."):
        return np.asarray(value)
    if isinstance(value, (int, float, bool, np.generic, list)):
        return np.asarray(value)
    raise TypeError(f"{where}: input should be NumPy or PIL image, got {type(value).__name__}.")


class TypeCast:
    """``TypeCast(data_type)``: the array as ``data_type`` (a mindspore dtype, a NumPy dtype or its
    name); floats to integers truncate toward zero, as NumPy's ``astype``."""

    def __init__(self, data_type):
        self.data_type = mstype.to_dtype(data_type, "TypeCast(data_type=...)")

    def __call__(self, array):
        return check_array(array, "TypeCast").astype(self.data_type.np_dtype)

    def __repr__(self):
        return f"TypeCast(data_type={self.data_type})"


class Compose:
    """``Compose(transforms)``: the transforms one after another, as one transform."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not transforms or not all(map(callable, transforms)):
            raise TypeError(f"Compose: transforms must be a non-empty list of callables, but got {transforms!r}.")
        self.transforms = list(transforms)

    def __call__(self, *values):
        for t in self.transforms:
            out = t(*values)
            values = out if isinstance(out, tuple) else (out,)
        return values[0] if len(values) == 1 else values

