"""``Parameter`` and ``ParameterTuple``: named, trainable tensors.

A Parameter is a Tensor with a ``name`` and a ``requires_grad`` flag.  Differentiating with respect
to a Parameter never changes it: the gradient level lends it a tracer (see
``minims.core.stack.lend``) for the duration of the forward pass.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..core import install
from ..core.tensor import Tensor
from .convert import _describe, _to_array
from .lending import current_value
from . import undo

__all__ = ["Parameter", "ParameterTuple", "ParameterNameError", "is_generated_name"]

# A Parameter made without a name is called ``Parameter#<n>``, n counting up, as in MindSpore 2.10
# (whose own import uses #0 and #1, so a program's first unnamed Parameter is ``Parameter#2`` there
# and here).  A Cell attribute renames such a Parameter after itself (``self.w = Parameter(...)``).
_GENERATED = "Parameter#"
_generated_count = itertools.count(2)


def is_generated_name(name) -> bool:
    """Whether ``name`` is one minims gave a Parameter made without a name."""
    return isinstance(name, str) and name.startswith(_GENERATED)


class ParameterNameError(ValueError, TypeError):
    """A Parameter name that is not a string: MindSpore raises ValueError; a TypeError too, since
    that is what a wrong type is in Python.  Also a name no checkpoint can store (a lone surrogate):
    MindSpore's Parameter raises TypeError for it, its save_checkpoint ValueError."""


def _int32_of(value: int, name) -> np.ndarray:
    """A Python int as a Parameter holds it: Int32, as MindSpore 2.10 (which wraps a value outside Int32's
    range without a word, e.g. 2**40 to 0; minims refuses it)."""
    info = np.iinfo(np.int32)
    if not info.min <= value <= info.max:
        raise ValueError(f"Parameter{'' if name is None else ' ' + repr(name)}: the Python int {value} is stored "
                         f"as Int32, whose range is [{info.min}, {info.max}]; MindSpore would keep a wrapped "
                         f"value. Fix: Parameter(Tensor({value}, ms.int64)) for a 64-bit integer Parameter.")
    return np.asarray(value, dtype=np.int32)


class Parameter(Tensor):
    """MindSpore's ``Parameter(default_input, name=None, requires_grad=True)``."""

    __slots__ = ("name", "requires_grad", "__dict__")
    _is_parameter = True        # read by the graph tracer without importing this module

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        if name is not None and not isinstance(name, str):
            raise ParameterNameError(
                f"Parameter: name must be a string, but got {_describe(name)}. Fix: name='weight'."
            )
        if not isinstance(requires_grad, bool):
            raise TypeError(f"Parameter: requires_grad must be a bool, got {_describe(requires_grad)}. "
                            "Fix: requires_grad=True or requires_grad=False.")
        if isinstance(default_input, bool):     # ValueError, as MindSpore: a flag is no weight
            raise ValueError("Parameter data can not be `bool`: Parameter(True) holds no number to train. "
                             "Fix: Parameter(Tensor(True)) for a Bool Parameter, or a number (1.0).")
        if hasattr(default_input, "init_data") and not isinstance(default_input, Tensor):
            default_input = default_input.init_data()
        if isinstance(default_input, float):
            arr = np.asarray(default_input, dtype=np.float32)
        elif isinstance(default_input, int) and not isinstance(default_input, bool):
            arr = _int32_of(default_input, name)
        else:
            arr = _to_array(default_input, None)
            if arr is getattr(default_input, "_data", None) or arr is default_input:
                arr = arr.copy()
        self._data = arr
        self.name = name.strip() if name is not None and name.strip() else f"{_GENERATED}{next(_generated_count)}"
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    def set_data(self, data, slice_shape=False):
        """Replace the value (same shape; the dtype is converted to the Parameter's)."""
        if isinstance(data, Tensor) and data._has_no_value():
            raise RuntimeError(
                f"Parameter.set_data: '{self.name}' cannot be set to a value computed inside a compiled "
                "graph (jit or a Graph-mode construct): while it is compiled the value does not exist yet "
                "(MindSpore refuses this too). Fix: ops.assign(param, value), which the graph performs "
                "each time it runs.")
        if isinstance(data, float) and self.dtype.kind != "float":
            # TypeError, as MindSpore: a float would be cut to an integer without a word
            raise TypeError(
                "Incoming Parameter dtype can not be converted to current dtype implicitly. Current dtype is "
                f"{self.dtype}, and incoming is Float. (Parameter.set_data: '{self.name}' holds {self.dtype}, "
                f"and {data!r} is a float.) Fix: set_data(Tensor({data!r}).astype(...)) to convert on purpose, "
                "or make the Parameter a float one.")
        arr = _to_array(data, None)
        if arr.shape != self.shape:
            raise ValueError(
                f"Parameter.set_data: '{self.name}' has shape {list(self.shape)} but the new data has "
                f"shape {list(arr.shape)}. Fix: pass data of the same shape."
            )
        undo.write(self, arr.astype(self._data.dtype, copy=True))
        return self

    def init_data(self, layout=None, set_sliced=False):
        """MindSpore's ``init_data()``: a Parameter made from an initializer gets its values when this
        is called there; minims' has them from the start, so this returns the Parameter itself (as
        MindSpore does once they are there)."""
        return self

    def value(self):
        """MindSpore's ``Parameter.value()``: the value now, as a Tensor that a gradient with respect to
        this Parameter differentiates through (inside ``grad(..., weights)``, its stand-in) and that a
        later ``ops.assign``/``set_data`` leaves unchanged (MindSpore 2.10: the same)."""
        return current_value(self)

    def clone(self, init="same"):
        """A new Parameter of the same name, shape and dtype: a copy of the values (``init="same"``)
        or filled by ``init`` (a name such as ``"zeros"``, an Initializer, a number), as MindSpore."""
        if isinstance(init, str) and init == "same":
            data = self._data.copy()
        else:
            from .initializer import initializer       # lazy: initializer imports this module's Tensor
            data = initializer(init, self.shape, self.dtype)._data
        return Parameter(Tensor._make(data), name=self.name, requires_grad=self.requires_grad)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        return (Parameter, (self._data, self.name, self.requires_grad))


# every Tensor answers ``_is_parameter`` (False) without a failed attribute lookup
install(Tensor, _is_parameter=False)


def _data(self):
    """MindSpore's ``Tensor.data``/``Parameter.data``: a Tensor holding this one's array now, outside
    any gradient (MindSpore 2.10: a gradient through ``w.data`` does not reach ``w``; ``w.value()`` does)."""
    return Tensor._make(self._value_array())


def _set_data(self, value):
    """``t.data = value``: a Parameter's ``set_data``; a Tensor takes the new value's array."""
    if self._is_parameter:
        self.set_data(value)
    else:
        undo.write(self, _to_array(value, None).copy(), logged=False)


install(Tensor, data=property(_data, _set_data))


class ParameterTuple(tuple):
    """A tuple of Parameters with unique names, as MindSpore's ``ParameterTuple``."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        names = {}
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"ParameterTuple: every element must be a Parameter, but got {_describe(p)}. "
                    "Fix: wrap tensors with Parameter(tensor, name=...)."
                )
            # the same Parameter twice is allowed (as MindSpore); two Parameters sharing a name are not
            if names.setdefault(p.name, p) is not p:
                raise ValueError(f"ParameterTuple: two different Parameters are named '{p.name}'; names must "
                                 "be unique. Fix: give each Parameter its own name=.")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        """Clones named ``prefix.name`` (``init`` as for :meth:`Parameter.clone`)."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"ParameterTuple.clone: prefix must be a non-empty string, got {prefix!r}.")
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
