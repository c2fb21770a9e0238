"""A Tensor as MindSpore has it: its constructor's conversions and checks, its printed form, its
value methods and their messages — installed on the core's ``Tensor`` (``minims.core.install``).

The core's Tensor is the data model alone (an array and its dtype).  What a user meets when building
one — Python floats becoming Float32, a ragged list refused with the row lengths, an integer that no
dtype holds refused instead of wrapped, ``t.item()`` on many entries explained, PyTorch habits such
as ``t.backward()`` answered with the MindSpore spelling — is MindSpore's API, and lives here.
(Operators and methods that compute, ``x * y`` and ``t.sum()``, are installed by ``minims.primitives``.)
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..core import install
from ..core.tensor import Tensor
from . import undo
from .repr import tensor_repr, tensor_str

__all__ = ["Tensor", "tensor", "RaggedListError", "IntegerOutOfRange", "check_integer_fits", "describe",
           "describe_args"]

_PY_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def describe(value) -> str:
    """Short description of a value for error messages."""
    if isinstance(value, Tensor):
        return f"Tensor(shape={list(value.shape)}, dtype={value.dtype})"
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray(shape={list(value.shape)}, dtype={value.dtype})"
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


_describe = describe


def describe_args(args) -> str:
    return ", ".join(describe(a) for a in args)


class RaggedListError(TypeError, ValueError):
    """A nested list whose rows differ in length: MindSpore raises TypeError, NumPy ValueError."""


class IntegerOutOfRange(RuntimeError, OverflowError):
    """A Python int no integer dtype holds: MindSpore raises RuntimeError ("Unsupported tensor type"),
    NumPy OverflowError."""


def _shown_int(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"


def check_integer_fits(value: int, target, where: str, fix: str, why: str = "") -> None:
    """Refuse an integer that the integer dtype ``target`` cannot hold — what a cast would silently
    wrap around (``300`` into Int8 is 44): raise :class:`IntegerOutOfRange` naming it and the dtype's
    range.  ``where`` starts the message, ``why`` continues it and ``fix`` ends it.  Every
    out-of-range refusal of minims goes through here."""
    info = np.iinfo(target)
    if not info.min <= value <= info.max:
        raise IntegerOutOfRange(f"{where}: the integer {_shown_int(value)} does not fit "
                                f"{mstype.from_numpy(np.dtype(target))} ({info.min}..{info.max}){why}. Fix: {fix}")


def _python_int_array(value: int, dtype) -> np.ndarray:
    """A Python int as an array: Int64 by default, or the dtype asked for (a float dtype rounds it, as
    a float literal would be).  One that the dtype cannot hold is refused rather than wrapped."""
    target = None if dtype is None else mstype.to_dtype(dtype, "Tensor(dtype=...)")
    if target is not None and target.is_float:
        try:
            return np.asarray(float(value), dtype=target.np_dtype)
        except OverflowError:
            raise IntegerOutOfRange(f"Tensor: the integer {_shown_int(value)} is beyond every float dtype (about "
                                    "1.8e308 at most). Fix: check where the number comes from.") from None
    if target is not None and target.kind == "bool":
        return np.asarray(value != 0)            # MindSpore 2.10: Tensor(5, bool_) is True
    np_dtype = np.int64 if target is None else target.np_dtype
    unsigned = (" (MindSpore 2.10 stores 2**63..2**64-1 as UInt64, a dtype minims does not have)"
                if target is None and 2 ** 63 <= value < 2 ** 64 else "")
    check_integer_fits(value, np_dtype, "Tensor", "give it as a float, Tensor(float(x)) or "
                       "Tensor(x, mindspore.float64), or a wider integer dtype.", unsigned)
    return np.asarray(value, dtype=np_dtype)


def _ragged_rows(data):
    """``(depth, row lengths)`` at the first depth where a nested list stops being rectangular
    (a length None stands for a number among lists)."""
    level, depth = list(data), 1
    while level:
        sizes = [len(x) if isinstance(x, (list, tuple)) else
                 (np.shape(x)[0] if np.ndim(x) else None) for x in level]
        if len(set(sizes)) > 1 or sizes[0] is None:
            return depth, sizes
        level = [y for x in level for y in x]
        depth += 1
    return depth, []


def _to_array(data, dtype) -> np.ndarray:
    """Convert Tensor input data to a NumPy array with MindSpore's default dtypes."""
    if isinstance(data, Tensor):
        arr = data._unguarded_array()   # a traced value: the value it stands for, or a refusal
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, np.generic):
        arr = np.asarray(data)                     # NumPy scalars keep their dtype (np.float64 -> Float64)
    elif isinstance(data, _PY_SCALARS):
        if isinstance(data, bool):
            arr = np.asarray(data, dtype=np.bool_)
        elif isinstance(data, int):
            arr = _python_int_array(data, dtype)
        else:       # Float32 by default, as in MindSpore; with a dtype given, converted once to it
            arr = np.asarray(data, dtype=np.float32 if dtype is None else np.float64)
    elif isinstance(data, (list, tuple)):
        try:
            arr = np.array([_to_array(d, None) if isinstance(d, Tensor) else d for d in data])
        except ValueError:
            depth, sizes = _ragged_rows(data)
            shown = ", ".join("a number" if n is None else str(n) for n in sizes[:8])
            raise RaggedListError(
                f"Tensor: the nested list/tuple is ragged: at depth {depth} its rows have lengths "
                f"[{shown}{', ...' if len(sizes) > 8 else ''}], but a Tensor needs rows of one length. "
                "Fix: make every row the same length (pad the short ones), or make one Tensor per row."
            ) from None
        if arr.dtype == np.float64 and dtype is None:
            arr = arr.astype(np.float32)          # Python floats become Float32, as in MindSpore
        elif arr.dtype.kind in "iu" and dtype is None and arr.dtype != np.int64:
            arr = arr.astype(np.int64)
    else:
        raise TypeError(
            "Tensor: input_data must be a Tensor, numpy.ndarray, list, tuple, int, float or bool, "
            f"but got {_describe(data)}. Fix: convert it first, e.g. Tensor(np.asarray(data, np.float32))."
        )
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"Tensor: cannot hold data of NumPy dtype {arr.dtype} (from {_describe(data)}); "
            "minims tensors hold numbers and bools. Fix: convert the data to numbers first."
        )
    if dtype is not None:
        target = mstype.to_dtype(dtype, "Tensor(dtype=...)").np_dtype
        if arr.dtype != target:
            arr = arr.astype(target)
    else:
        mstype.from_numpy(arr.dtype)               # raises a clear TypeError for e.g. uint16
    return arr


# Attributes PyTorch users reach for; MindSpore's Tensor has none of them (checked on MindSpore 2.10)
_TORCH_HABITS = {
    "backward": "gradients come from a function of the inputs: mindspore.grad(fn)(x) or "
                "mindspore.value_and_grad(fn)(x).",
    "grad": "a gradient is returned by mindspore.grad(fn)(x), not stored on the Tensor.",
    "grad_fn": "there is no recorded graph on a Tensor; mindspore.grad(fn) records one while fn runs.",
    "retain_grad": "ask mindspore.grad for the gradients you want (grad_position=, weights=).",
    "is_leaf": "choose what to differentiate with grad_position= (inputs) or weights= (Parameters).",
    "requires_grad": "only a Parameter has requires_grad; choose what to differentiate with "
                     "grad_position= or weights=.",
    "detach": "use ops.stop_gradient(x).",
    "cuda": "minims computes on the CPU; no device transfer is needed.",
}


def _convert(input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False):
    """``Tensor(input_data=None, dtype=None, shape=None, init=None)`` as MindSpore converts it:
    Python floats become Float32, Python ints Int64, NumPy arrays keep their dtype (copied: a Tensor
    never aliases caller-owned memory); ``shape``/``init`` build it from an initializer."""
    if input_data is None:
        if init is None or shape is None:
            raise TypeError(
                "Tensor: give input_data, or give both shape= and init= (an initializer); "
                f"got input_data=None, shape={shape!r}, init={init!r}.")
        from .initializer import initializer     # lazy: the initializers build Tensors
        return initializer(init, shape, dtype or mstype.float32)._data
    if shape is not None and not isinstance(input_data, Tensor):
        raise ValueError("Tensor: give either input_data or shape=, not both.")
    arr = _to_array(input_data, dtype)
    if arr is getattr(input_data, "_data", None) or arr is input_data:
        arr = arr.copy()
    return arr


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False):
    """``mindspore.tensor(...)``: the function spelling of ``Tensor(...)`` (MindSpore 2.x), with the
    same arguments and the same result (``mindspore.tensor([[1, 2]], mindspore.float32)``)."""
    return Tensor(input_data, dtype, shape=shape, init=init, const_arg=const_arg)


# ----- the value methods, with MindSpore's messages -----------------------------------------------------
def _item(self, index=None):
    if index is None:
        if self._data.size != 1:
            raise ValueError(
                f"Tensor.item(): only a tensor with one element can be converted to a Python "
                f"scalar, but this one has shape {list(self.shape)}. Fix: index it first, e.g. t[0].item().")
        return self._data.item()
    return self._data.item(index)


def _bool(self) -> bool:
    if self._data.size != 1:
        raise ValueError(f"The truth value of a Tensor with shape {list(self.shape)} is ambiguous. "
                         "Fix: reduce it first with .any() or .all().")
    return bool(self._data)


def _index(self) -> int:
    if self._data.dtype.kind not in "iu" or self._data.size != 1:
        raise TypeError("only integer Tensors of one element can be used as an index")
    return self._data.item()             # any shape of one element: Tensor([1]) indexes as 1, as in MindSpore


def _len(self) -> int:
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d Tensor (a scalar) is undefined")
    return self._data.shape[0]


def _iter(self):
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d Tensor (a scalar)")
    return (self[i] for i in range(self._data.shape[0]))


def _getattr(self, name):
    # only reached when normal lookup failed: say what to do instead of PyTorch's tensor API
    hint = _TORCH_HABITS.get(name)
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'" + (
        f" (a PyTorch habit: MindSpore Tensors have no .{name}). Fix: {hint}" if hint else ""))


def _format(self, spec: str) -> str:
    if spec and self._data.size == 1:
        return format(self._data.item(), spec)
    return str(self) if not spec else format(str(self), spec)


def _assign_value(self, value):
    """Replace the data with ``value`` (same shape), as MindSpore's ``Tensor.assign_value``."""
    arr = _to_array(value, self.dtype)
    if arr.shape != self.shape:
        raise ValueError(f"assign_value: expected shape {list(self.shape)}, got {list(arr.shape)}.")
    arr = arr.copy() if arr is getattr(value, "_data", None) else arr
    undo.write(self, arr, logged=getattr(self, "_is_parameter", False))
    return self


install(Tensor,
        _convert=staticmethod(_convert), assign_value=_assign_value,
        item=_item, __bool__=_bool, __index__=_index, __len__=_len, __iter__=_iter,
        __getattr__=_getattr, __format__=_format,
        __repr__=lambda self: tensor_repr(self._data, self.dtype.name),
        __str__=lambda self: tensor_str(self._data),
        __copy__=lambda self: Tensor._make(self._data),
        __deepcopy__=lambda self, memo: Tensor._make(self._data.copy()),
        __reduce__=lambda self: (Tensor, (self._data,)),
        numpy=lambda self: self.asnumpy(),
        itemsize=property(lambda self: self._data.itemsize),
        nbytes=property(lambda self: self._data.nbytes),
        strides=property(lambda self: self._data.strides))

