"""More of MindSpore 2.10's Tensor methods: the in-place forms (``add_``, ``sub_``, ``mul_``, ``div_``,
``copy_``, ``zero_``, ``fill_``, ``clamp_``, ``masked_fill_``, ``exp_``, ``floor_``), conversions
(``Tensor.from_numpy``, ``float``, ``half``, ``int``, ``is_contiguous``, ``contiguous``) and the methods
of the composed ops (``swapaxes``, ``norm``, ``clip``/``clamp``, ``diag``, ``bmm``, ``gather``,
``tile``, ``repeat``, ``chunk``, ``cumsum``, ``sort``, ``topk``, ``prod``, ``round``, ``isnan``,
``masked_fill``) — installed on the Tensor when ``minims.ops`` is imported.

An in-place method computes the new value with the ops and writes it into the Tensor as
``t[...] = new`` does (``ops.setitem``): a Parameter is assigned (undone if the call fails), a view
passes the write on to the Tensor it shares entries with, a traced value takes the result's place,
and writing into an input of the function being differentiated is refused.  The Tensor keeps its
shape and dtype, and the method returns it, as MindSpore documents.  (MindSpore 2.10's CPU build
differs: ``add_``, ``sub_``, ``mul_`` and ``div_`` return the result without changing the Tensor, and
``zero_``, ``fill_``, ``clamp_``, ``exp_``, ``floor_`` and ``masked_fill_`` have no CPU kernel.)
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..core import install
from ..core.stack import MinimsError, Tracer
from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import clip as clipping
from . import composite_array as arrays
from . import composite_math as maths
from . import functional as ops
from . import sorting
from .operands import normalize_axis
from .tensor_methods import _transposed


class InPlaceDtypeError(MinimsError, TypeError):
    """An in-place op whose result has a dtype the Tensor cannot take without losing it (a float result
    into an integer Tensor)."""


class InPlaceShapeError(MinimsError, RuntimeError, ValueError):
    """An in-place op whose result is broadcast to a larger shape than the Tensor's."""


def _written(name: str, self: Tensor, new: Tensor) -> Tensor:
    """``self[...] = new``, checked: ``new`` must keep ``self``'s shape and fit its dtype."""
    if tuple(new.shape) != tuple(self.shape):
        raise InPlaceShapeError(f"Tensor.{name}: the result has shape {list(new.shape)}, but the Tensor written "
                                f"into has shape {list(self.shape)}; an in-place op keeps the shape. Fix: "
                                f"y = x.{name.rstrip('_')}(...) for a new Tensor.")
    if new.dtype is not self.dtype and new.dtype.is_float and not self.dtype.is_float:
        raise InPlaceDtypeError(f"Tensor.{name}: the result is {new.dtype}, but {describe(self)} keeps its dtype "
                                "in place and would lose the fraction. Fix: x = x.astype(mindspore.float32) "
                                f"first, or y = x.{name.rstrip('_')}(...) for a new Tensor.")
    ops.setitem(self, Ellipsis, new)
    return self


def _in_place(name: str, compute):
    def method(self, *args, **kwargs):
        return _written(name, self, compute(self, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = f"``Tensor.{name}``: the Tensor itself, its entries replaced by the result."
    return method


def _add(self, other, *, alpha=1):
    return ops.add(self, other if alpha == 1 else ops.mul(other, alpha))


def _sub(self, other, *, alpha=1):
    return ops.sub(self, other if alpha == 1 else ops.mul(other, alpha))


def _div(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return ops.div(self, other)
    if rounding_mode == "floor":
        return ops.floor_divide(self, other)
    if rounding_mode == "trunc":
        quotient = ops.div(self, other)
        truncated = ops.mul(ops.sign(quotient), ops.floor(ops.abs(quotient)))
        return truncated if self.dtype.is_float else ops.cast(truncated, self.dtype)
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', but got {rounding_mode!r}.")


def _copy_from(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        raise TypeError(f"Tensor.copy_: src must be a Tensor, but got {describe(src)}.")
    return ops.cast(ops.broadcast_to(src, self.shape), self.dtype)


def _filled(self, value):
    value = value.item() if isinstance(value, Tensor) else value
    return ops.fill(self.dtype, self.shape, value)


def _from_numpy(array):
    """``Tensor.from_numpy(array)``: a Tensor that shares the array's memory (a change to the array shows
    in the Tensor), with the array's dtype."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"Tensor.from_numpy: expected a NumPy array, but got {describe(array)}. Fix: "
                        "Tensor(data) copies any data.")
    mstype.from_numpy(array.dtype)          # a dtype minims has, or its TypeError
    return Tensor._make(array)


def _is_contiguous(self):
    """Whether the entries lie in memory in row-major order (a transposed view's do not)."""
    try:
        return bool(self._unguarded_array().flags["C_CONTIGUOUS"])
    except MinimsError:                 # a placeholder of a graph being compiled: laid out afresh
        return True


def _contiguous(self):
    """The Tensor itself when contiguous, else a row-major copy (differentiable: an identity)."""
    if _is_contiguous(self):
        return self
    if isinstance(self, Tracer):
        return ops.identity(self)
    return Tensor._make(np.ascontiguousarray(self._data))


def _swapaxes(self, axis0, axis1):
    """``swapaxes(axis0, axis1)``: a view with the two axes exchanged."""
    perm = list(range(self.ndim))
    a, b = (normalize_axis("swapaxes", axis, self.ndim)[0] for axis in (axis0, axis1))
    perm[a], perm[b] = perm[b], perm[a]
    return _transposed(self, tuple(perm))


def _norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return maths.norm(self, ord, dim, keepdim, dtype=dtype)


def _clamp(self, min=None, max=None):  # noqa: A002
    return clipping.clamp(self, min, max)


def _diag(self, diagonal=None):
    """``diag()``: ``ops.diag``; ``diag(k)``: a vector on the ``k``-th diagonal, or a matrix's ``k``-th
    diagonal (the newer overload)."""
    if diagonal is None:
        return arrays.diag(self)
    k = int(diagonal)
    if self.ndim == 1:
        n = self.shape[0]
        size = n + abs(k)
        positions = np.zeros((size, size), dtype=np.int64)
        positions[np.arange(n) + max(-k, 0), np.arange(n) + max(k, 0)] = np.arange(1, n + 1)
        padded = ops.concat((Tensor._make(np.zeros(1, self._data.dtype)), self))
        return ops.getitem(padded, positions)
    if self.ndim == 2:
        rows, cols = self.shape
        length = max(0, min(rows - max(-k, 0), cols - max(k, 0)))
        return ops.getitem(self, (np.arange(length) + max(-k, 0), np.arange(length) + max(k, 0)))
    raise ValueError(f"Tensor.diag: diagonal= needs a 1-D or 2-D Tensor, but got {describe(self)}.")


def _gather(self, *args, **kwargs):
    """``gather(dim, index)`` (each entry of ``index`` read along ``dim``) or the older
    ``gather(input_indices, axis, batch_dims=0)`` (``ops.gather``)."""
    if "dim" in kwargs or "index" in kwargs or (args and isinstance(args[0], (int, np.integer))
                                                and not isinstance(args[0], bool)):
        given = dict(zip(("dim", "index"), args), **kwargs)
        dim, index = given.get("dim"), given.get("index")
        if not isinstance(index, Tensor) or index.dtype.kind != "int" or index.ndim != self.ndim:
            raise TypeError(f"Tensor.gather: index must be an int Tensor of rank {self.ndim}, but got "
                            f"{describe(index)}.")
        return sorting.take_along_axis(self, index, int(dim) % self.ndim)
    return ops.gather(self, *args, **kwargs)


def _tile(self, dims=None, *, reps=None):
    return arrays.tile(self, dims if reps is None else reps)


def _repeat(self, *repeats):
    """``repeat(*repeats)``: the Tensor repeated along each axis (``ops.tile``)."""
    if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)):
        repeats = tuple(repeats[0])
    return arrays.tile(self, tuple(repeats))


def _chunk(self, chunks, dim=None, *, axis=None):
    return arrays.chunk(self, chunks, (dim if dim is not None else axis) or 0)


def _cumsum(self, dim=None, *, dtype=None, axis=None):
    dim = dim if dim is not None else axis
    if dim is None:
        return maths.cumsum(ops.reshape(self, (-1,)), 0, dtype)
    return maths.cumsum(self, dim, dtype)


def _sort(self, dim=-1, descending=False, stable=False, *, axis=None):
    return sorting.sort(self, dim if axis is None else axis, descending)


def _topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002
    return sorting.topk(self, k, dim, largest, sorted)


def _prod(self, dim=None, keepdim=False, dtype=None, *, axis=None, keep_dims=None):
    return maths.prod(self, dim if axis is None else axis, keepdim if keep_dims is None else keep_dims, dtype)


def _round(self, decimals=0):
    return maths.round(self, decimals=decimals)


def _masked_fill(self, mask, value):
    return maths.masked_fill(self, mask, value)


install(Tensor,
        from_numpy=staticmethod(_from_numpy),
        add_=_in_place("add_", _add), sub_=_in_place("sub_", _sub), mul_=_in_place("mul_", ops.mul),
        div_=_in_place("div_", _div), copy_=_in_place("copy_", _copy_from),
        zero_=_in_place("zero_", lambda self: _filled(self, 0)), fill_=_in_place("fill_", _filled),
        clamp_=_in_place("clamp_", _clamp), masked_fill_=_in_place("masked_fill_", _masked_fill),
        exp_=_in_place("exp_", lambda self: ops.exp(self)), floor_=_in_place("floor_", lambda self: ops.floor(self)),
        float=lambda self: ops.cast(self, mstype.float32), half=lambda self: ops.cast(self, mstype.float16),
        int=lambda self: ops.cast(self, mstype.int32),
        is_contiguous=_is_contiguous, contiguous=_contiguous,
        swapaxes=_swapaxes,
        norm=_norm, clip=_clamp, clamp=_clamp, diag=_diag, bmm=lambda self, mat2: arrays.bmm(self, mat2),
        gather=_gather, tile=_tile, repeat=_repeat, chunk=_chunk, cumsum=_cumsum, sort=_sort, topk=_topk,
        prod=_prod, round=_round, isnan=lambda self: maths.isnan(self), masked_fill=_masked_fill)
