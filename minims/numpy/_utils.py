"""What every ``minims.numpy`` function shares: turning arguments into Tensors the way
``mindspore.numpy`` does, its dtype spellings, axis checking, and errors that name the function.

``mindspore.numpy`` differs from ``minims.ops`` (and from MindSpore's ``ops``) in how it reads a
Python value (checked on MindSpore 2.10, see ``tests/data/oracle_mnp_facts.json``):

* a Python int, a list of ints or an ``int`` dtype is **Int32** (``mnp.array([1, 2])``,
  ``mnp.arange(5)``, ``mnp.add(1, 2)``), where ``Tensor([1, 2])`` is Int64; floats are Float32.
  Ints that Int32 cannot hold make Int64 (MindSpore 2.10 wraps them: ``mnp.array([2**40])`` is 0);
* a NumPy array is refused (TypeError): ``mnp.array(np.ones(2))`` fails on MindSpore 2.10 too;
  ``Tensor(array)`` is the conversion.

Nothing here computes on values: every function of the package is a composition of ``minims.ops``
(primitives with their backward, forward-mode and batching rules), so ``grad``, ``jit`` and ``vmap``
work through them with no rule of their own.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

#: the dtype a Python scalar (and a list of them) becomes in mindspore.numpy
_PY_DTYPE = {bool: ms.bool_, int: ms.int32, float: ms.float32}


def fail(cls, where: str, what: str, fix: str):
    """``cls("mnp.<where>: <what>. Fix: <fix>")`` — the shape of every error of the package."""
    return cls(f"mindspore.numpy.{where}: {what}. Fix: {fix}")


def describe(value) -> str:
    """A short description of a value for a message: ``Tensor(shape=[2, 3], dtype=Float32)``."""
    if isinstance(value, Tensor):
        return f"Tensor(shape={list(value.shape)}, dtype={value.dtype})"
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray(shape={list(value.shape)}, dtype={value.dtype})"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) < 40 else text[:37] + '...'}"


# ----- dtypes -------------------------------------------------------------------------------------
def to_dtype(dtype, where: str):
    """A dtype argument as a minims dtype: ``mnp.float32``, ``'float32'``, ``np.float32``, or the
    Python types ``int``/``float``/``bool`` (Int32, Float32, Bool, as mindspore.numpy reads them)."""
    if dtype in _PY_DTYPE:
        return _PY_DTYPE[dtype]
    try:
        return ms.dtype.to_dtype(dtype, where)
    except TypeError:
        raise fail(TypeError, where, f"dtype {dtype!r} is not a data type minims has",
                   "one of mnp.float16, float32, float64, int8, int16, int32, int64, uint8, bool_ "
                   "(or their names, 'float32')") from None


def cast_to(x: Tensor, dtype):
    """``x`` as ``dtype`` (None: unchanged); a no-op when it already is."""
    if dtype is None or x.dtype is dtype:
        return x
    return ops.cast(x, dtype)


def traced(value) -> bool:
    """True for a Tensor being differentiated or traced (``grad``, ``jit``, ``vmap``): reading its
    value would cut it out of the computation."""
    return isinstance(value, ops.Tracer)


def is_number(value) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


# ----- Tensors from Python values -----------------------------------------------------------------
def from_python(value, where: str, name: str = "input"):
    """A NumPy array of a Python number or (nested) list/tuple of them, with mindspore.numpy's dtypes.

    Concrete Tensors inside a list are read as their values (``mnp.array([Tensor(1.), 2.])``)."""
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in _leaves(value)):
        value = _read_tensors(value, where, name)
    try:
        arr = np.array(value)
    except ValueError as exc:
        raise fail(ValueError, where, f"{name} is not a rectangular nested list ({exc})",
                   "give every row the same length") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise fail(TypeError, where, f"{name} must be a Tensor, a number, or a list/tuple of numbers, "
                   f"but got {describe(value)}", "mnp.array([1.0, 2.0]) or Tensor(data)")
    if isinstance(value, (np.generic,)):
        return arr
    kind = arr.dtype.kind
    if kind in "iu" and arr.size and not (_INT32.min <= arr.min() and arr.max() <= _INT32.max):
        return arr.astype(np.int64)     # MindSpore 2.10 wraps such ints into Int32: 2**40 becomes 0
    return arr.astype({"b": np.bool_, "i": np.int32, "u": np.int32, "f": np.float32}[kind])


_INT32 = np.iinfo(np.int32)


def _leaves(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def _read_tensors(value, where, name):
    def read(v):
        if isinstance(v, (list, tuple)):
            return [read(u) for u in v]
        if isinstance(v, Tensor):
            if traced(v):
                raise fail(TypeError, where, f"{name} is a list holding a Tensor that is being "
                           "differentiated or traced; reading its value would drop the gradient",
                           "mnp.stack([...]) keeps it")
            return v.asnumpy().tolist()
        return v
    return read(value)


def as_tensor(value, where: str, name: str = "input") -> Tensor:
    """A Tensor argument: Tensors pass unchanged, Python numbers and lists become Tensors with
    mindspore.numpy's dtypes; NumPy arrays, strings and None are refused (TypeError, as MindSpore)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        raise fail(TypeError, where, f"{name} is a numpy.ndarray; mindspore.numpy takes Tensors, Python "
                   "numbers, lists and tuples (MindSpore 2.10 refuses arrays too)",
                   "Tensor(array) converts it (keeping its dtype)")
    if is_number(value) or isinstance(value, (list, tuple)):
        return Tensor(from_python(value, where, name))
    raise fail(TypeError, where, f"{name} must be a Tensor, a number, or a list/tuple of numbers, but got "
               f"{describe(value)}", "pass a Tensor (mnp.array(data) makes one)")


def operand(value, where: str, name: str):
    """An operand of an elementwise op: a Tensor, or a Python number kept as a number when the other
    operand is a Tensor (the op's promotion then treats it as MindSpore does)."""
    if isinstance(value, Tensor) or is_number(value):
        return value
    return as_tensor(value, where, name)


def operands(x1, x2, where: str):
    """Both operands of a binary function: numbers become Int32/Float32/Bool Tensors, which is what
    mindspore.numpy does (``mnp.add(b, 1)`` of a Bool Tensor is Int32, ``mnp.add(1, 2)`` Int32)."""
    x1 = operand(x1, where, "x1")
    x2 = operand(x2, where, "x2")
    if not isinstance(x1, Tensor):
        x1 = as_tensor(x1, where, "x1")
    if not isinstance(x2, Tensor):
        x2 = as_tensor(x2, where, "x2")
    return x1, x2


# ----- shapes and axes ----------------------------------------------------------------------------
def broadcast_shape(where, *tensors):
    """The shape ``tensors`` broadcast to, or a ValueError naming ``where``."""
    try:
        return tuple(np.broadcast_shapes(*(t.shape for t in tensors)))
    except ValueError:
        shapes = ", ".join(str(list(t.shape)) for t in tensors)
        raise fail(ValueError, where, f"the shapes {shapes} do not broadcast together",
                   "make each axis either equal or 1") from None


def shape_arg(shape, where: str) -> tuple:
    """A shape argument: an int or a tuple/list of ints, none negative."""
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
        raise fail(TypeError, where, f"shape must be an int or a tuple of ints, but got {describe(shape)}",
                   "e.g. (2, 3)")
    if any(s < 0 for s in shape):
        raise fail(ValueError, where, f"shape {tuple(shape)} has a negative size", "sizes are >= 0")
    return tuple(int(s) for s in shape)


def axis_arg(axis, ndim: int, where: str) -> int:
    """One axis, as a non-negative int (``-1`` is the last)."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise fail(TypeError, where, f"axis must be an int, but got {describe(axis)}", "e.g. axis=0")
    if not -ndim <= axis < ndim:
        raise fail(ValueError, where, f"axis {axis} is out of range for a Tensor of rank {ndim} "
                   f"(valid: {-ndim}..{ndim - 1})", "count axes from 0, or from -1 for the last")
    return int(axis) % ndim


def axes_arg(axis, ndim: int, where: str) -> tuple:
    """``None`` (every axis), an int or a tuple/list of ints, as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        out = tuple(axis_arg(a, ndim, where) for a in axis)
        if len(set(out)) != len(out):
            raise fail(ValueError, where, f"axis {tuple(axis)} names an axis twice", "list each axis once")
        return tuple(sorted(out))
    return (axis_arg(axis, ndim, where),)


def static_int(value, where: str, name: str) -> int:
    """An int argument that decides a shape (a count, a repeat, an offset)."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind == "int" and not traced(value):
        value = value.item()
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise fail(TypeError, where, f"{name} must be an int, but got {describe(value)}",
                   f"pass {name} as a Python int")
    return int(value)


def constant(array: np.ndarray) -> Tensor:
    """A NumPy array the function built (an index, a mask, a grid) as a constant Tensor."""
    return Tensor(np.ascontiguousarray(array))
