"""Tensor indices as operands: how ``x[i]`` keeps its index Tensor ``i`` a value, not a constant.

A user's index (``x[1, i, ::2]``) is split in two by :func:`split_index`:

* a *template*, the static part, a tuple of ints, slices, ``None``, ``...`` and NumPy arrays (from
  Python lists), where each Tensor is replaced by a :class:`Slot` naming its position;
* the index Tensors themselves, passed to ``bind`` as operands after the primitive's own inputs.

Every interpreter then sees the index Tensors as what they are: a graph being staged records them as
inputs of the equation (so a compiled graph reads each call's index, never the placeholder's zeros),
``vmap`` sees whether they carry the batch, a gradient level gives them no gradient.  The
primitive's ``impl`` puts the arrays back into the template (:func:`fill`) and checks integer
indices against the axis they index (:func:`check_in_range`): a Tensor index out of range is a
``RuntimeError``, as MindSpore 2.10's ``Gather`` raises (``x[5]`` with a Python int stays an
``IndexError``, as in Python and MindSpore).

A Bool mask Tensor selects as many entries as it has True values, so the output shape depends on the
mask's *values*; :func:`mask_shape` computes it where a graph fixes it (see ``GetItem.fix_shape``).
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..core.stack import MinimsError

__all__ = ["Slot", "split_index", "fill", "check_in_range", "has_mask", "has_int_array", "mask_shape",
           "IndexOutOfRangeError", "CompiledShapeChanged", "concrete_index_array"]


class IndexOutOfRangeError(MinimsError, RuntimeError):
    """An index Tensor holds a position outside its axis (MindSpore 2.10: RuntimeError from Gather)."""


class CompiledShapeChanged(MinimsError, RuntimeError):
    """A graph compiled for the number of entries a Bool mask selected met a mask selecting another
    number; ``jit`` catches it and compiles again for the new count."""


class Slot:
    """The place of the ``k``-th index Tensor inside an index template (printed ``<index k>``)."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, Slot) and other.k == self.k

    def __hash__(self):
        return hash(("Slot", self.k))

    def __repr__(self):
        return f"<index {self.k}>"


def split_index(index) -> tuple[tuple, list]:
    """``(template, tensors)`` for a user's index: ints, slices, None, ..., lists and int/bool Tensors."""
    if not isinstance(index, tuple):
        index = (index,)
    template, tensors = [], []
    for item in index:
        if isinstance(item, Tensor):
            if item.dtype.kind not in ("int", "bool"):
                raise TypeError(f"Tensor index: an index Tensor must hold integers or bools, but got "
                                f"dtype {item.dtype}. Fix: cast it, i.astype(mindspore.int32).")
            template.append(Slot(len(tensors)))
            tensors.append(item)
            continue
        if isinstance(item, list):
            item = np.asarray(item)
        if isinstance(item, np.ndarray) and item.dtype.kind not in "biu":
            raise TypeError(f"Tensor index must be integers or bools, got dtype {item.dtype}.")
        if not (item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice, np.ndarray))):
            raise TypeError(
                f"Tensor index: expected ints, slices, None, ..., or integer/bool Tensors, "
                f"but got {_describe(item)}."
            )
        template.append(item)
    return tuple(template), tensors


def fill(template, arrays) -> tuple:
    """The NumPy index: ``template`` with each Slot replaced by its array."""
    return tuple(arrays[i.k] if isinstance(i, Slot) else i for i in template)


def _is_mask(item) -> bool:
    return isinstance(item, (bool, np.bool_)) or (isinstance(item, np.ndarray) and item.dtype == np.bool_)


def _axes_taken(item) -> int:
    """How many axes of the indexed array one item of a NumPy index consumes."""
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    if isinstance(item, np.ndarray) and item.dtype == np.bool_:
        return item.ndim
    return 1


def check_in_range(shape, template, arrays) -> None:
    """Raise :class:`IndexOutOfRangeError` when an integer index Tensor (a Slot) points outside the
    axis it indexes.  Other errors (too many indices, a mask of the wrong shape, a Python int out of
    range) are left to NumPy, whose IndexError the primitive explains."""
    ndim = len(shape)
    index = fill(template, arrays)
    taken = sum(_axes_taken(i) for i in index)
    axis = 0
    for item, value in zip(template, index):
        if item is Ellipsis:
            axis += max(ndim - taken, 0)
            continue
        if isinstance(item, Slot) and value.dtype.kind in "iu" and value.size and axis < ndim:
            n = shape[axis]
            low, high = int(value.min()), int(value.max())
            if high >= n or low < -n:
                bad = high if high >= n else low
                fix = (f"keep the indices in 0..{n - 1} (or {-n}..-1 from the end)" if n else
                       "the axis is empty, so nothing can be taken from it")
                raise IndexOutOfRangeError(
                    f"Gather: index {bad} is out of range for axis {axis} of size {n} (input shape "
                    f"{list(shape)}); an index Tensor (x[index], ops.gather) must be in [{-n}, {n}). "
                    f"Fix: {fix}.")
        axis += _axes_taken(value)


def has_mask(tensors) -> bool:
    """Does one of the index Tensors hold bools (a mask, whose True count fixes the output shape)?"""
    return any(t.dtype.kind == "bool" for t in tensors)


def has_int_array(template, tensors) -> bool:
    """Does the index hold an integer array (static or a Tensor), which may name a position twice?"""
    static = any(isinstance(i, np.ndarray) and i.dtype != np.bool_ for i in template)
    return static or any(t.dtype.kind == "int" for t in tensors)


def mask_shape(shape, template, arrays) -> tuple:
    """The shape of ``x[index]`` for an ``x`` of ``shape``, without reading or copying ``x``."""
    view = np.broadcast_to(np.zeros((), np.int8), shape)      # no memory of x's size
    return tuple(view[fill(template, arrays)].shape)


def concrete_index_array(a) -> np.ndarray:
    """An index array as NumPy ints or bools; the symbolic interpreter passes object arrays of SymPy
    numbers (a constant index Tensor), which become ints (or bools) again here."""
    a = np.asarray(a)
    if a.dtype != object:
        return a
    flat = list(a.flat)
    if all(e in (sympy.true, sympy.false) or isinstance(e, (bool, np.bool_)) for e in flat):
        return np.array([bool(e) for e in flat], dtype=bool).reshape(a.shape)
    try:
        return np.array([int(e) for e in flat], dtype=np.int64).reshape(a.shape)
    except TypeError:
        raise TypeError("symbolic interpreter: an index Tensor must hold numbers, not SymPy symbols. "
                        "Fix: index by constants, or select with ops.select.") from None
