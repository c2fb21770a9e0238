"""MindSpore 2.10's shape and product functions that are compositions of the table's primitives:
``ops.tensor_dot``, ``ops.dense``, ``ops.bias_add`` (and ``ops.BiasAdd``), ``ops.bmm``, ``ops.swapaxes``,
``ops.split``, ``ops.chunk``, ``ops.tile``, ``ops.repeat_interleave``, ``ops.diag``, ``ops.partial``,
``ops.Shape`` and ``ops.Flatten``.

Every function reshapes, transposes, slices, broadcasts or multiplies with the existing primitives,
so gradients, ``jit`` and ``vmap`` need nothing new: a tile is a broadcast of a reshaped input
(its gradient sums the copies back), a split is slices (each piece's gradient lands in its slice).
"""
from __future__ import annotations

import functools

import numpy as np

from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import functional as ops
from .operands import normalize_axis

__all__ = ["tensor_dot", "dense", "bias_add", "BiasAdd", "bmm", "swapaxes", "split", "chunk", "tile",
           "repeat_interleave", "diag", "partial", "shape", "Shape", "Flatten"]


def _tensor(op: str, name: str, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, but got {describe(value)}. Fix: Tensor(data).")
    return value


def _int(op: str, name: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be an int, but got {describe(value)}.")
    return int(value)


# ----- products ----------------------------------------------------------------------------------------
def _axes_pair(x1: Tensor, x2: Tensor, axes):
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(x1.ndim, x2.ndim):
            raise ValueError(f"tensor_dot: axes={n} is more axes than x1 ({x1.ndim}) or x2 ({x2.ndim}) has.")
        return tuple(range(x1.ndim - n, x1.ndim)), tuple(range(n))
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        first, second = ((a,) if isinstance(a, (int, np.integer)) else tuple(a) for a in axes)
        if len(first) != len(second):
            raise ValueError(f"tensor_dot: axes {axes!r} pairs {len(first)} axes of x1 with {len(second)} of x2.")
        return (tuple(normalize_axis("tensor_dot", a, x1.ndim)[0] for a in first),
                tuple(normalize_axis("tensor_dot", a, x2.ndim)[0] for a in second))
    raise TypeError(f"tensor_dot: axes must be an int or a pair of axis lists, but got {describe(axes)}. "
                    "Fix: axes=1, or axes=((1,), (0,)).")


def tensor_dot(x1, x2, axes):
    """``ops.tensor_dot(x1, x2, axes)``: the sum of products over the last ``axes`` axes of ``x1`` and the
    first ``axes`` of ``x2`` (or over the axes paired by ``axes=((a...), (b...))``): one matrix product
    of the two, transposed and reshaped so those axes meet."""
    _tensor("tensor_dot", "x1", x1)
    _tensor("tensor_dot", "x2", x2)
    a_axes, b_axes = _axes_pair(x1, x2, axes)
    for a, b in zip(a_axes, b_axes):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(f"tensor_dot: axis {a} of x1 {list(x1.shape)} has size {x1.shape[a]}, but the axis "
                             f"{b} of x2 {list(x2.shape)} it is paired with has size {x2.shape[b]}. Fix: pair axes "
                             "of equal sizes.")
    a_free = [d for d in range(x1.ndim) if d not in a_axes]
    b_free = [d for d in range(x2.ndim) if d not in b_axes]
    size = int(np.prod([x1.shape[d] for d in a_axes]))
    left = ops.reshape(ops.transpose(x1, tuple(a_free) + a_axes), (-1, size))
    right = ops.reshape(ops.transpose(x2, b_axes + tuple(b_free)), (size, -1))
    out_shape = tuple(x1.shape[d] for d in a_free) + tuple(x2.shape[d] for d in b_free)
    return ops.reshape(ops.matmul(left, right), out_shape)


def dense(input, weight, bias=None):  # noqa: A002 - MindSpore's names
    """``ops.dense(input, weight, bias=None)``: ``input @ weight.T + bias`` over the last axis of ``input``;
    ``weight`` is ``(out, in)``, or a vector ``(in,)`` (one output per row, without the axis)."""
    _tensor("dense", "input", input)
    _tensor("dense", "weight", weight)
    if weight.ndim not in (1, 2) or input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        raise ValueError(f"dense: the last axis of input {list(input.shape)} must match the last axis of weight "
                         f"{list(weight.shape)} (out_features, in_features). Fix: weight of shape "
                         f"[out, {input.shape[-1] if input.ndim else '?'}].")
    out = ops.matmul(input, ops.transpose(weight, (1, 0)) if weight.ndim == 2 else weight)
    return out if bias is None else ops.add(out, _tensor("dense", "bias", bias))


def _channel_axis(op: str, x: Tensor, data_format: str) -> int:
    if not 2 <= x.ndim <= 5:
        raise ValueError(f"{op}: input_x must have rank 2 to 5 (N, C, ...), but got {describe(x)}.")
    if data_format not in ("NCHW", "NHWC", "NCDHW"):
        raise ValueError(f"{op}: data_format must be 'NCHW', 'NHWC' or 'NCDHW', but got {data_format!r}.")
    return x.ndim - 1 if data_format == "NHWC" else 1


def _bias_add(op: str, input_x, bias, data_format="NCHW"):
    _tensor(op, "input_x", input_x)
    _tensor(op, "bias", bias)
    axis = _channel_axis(op, input_x, data_format)
    if bias.ndim != 1 or bias.shape[0] != input_x.shape[axis]:
        raise ValueError(f"{op}: bias must have shape [{input_x.shape[axis]}] (the channel axis {axis} of input_x "
                         f"{list(input_x.shape)}), but got {list(bias.shape)}.")
    return ops.add(input_x, ops.reshape(bias, (-1,) + (1,) * (input_x.ndim - 1 - axis)))


def bias_add(input_x, bias):
    """``ops.bias_add(input_x, bias)``: ``bias`` added along the channel axis (axis 1) of an input of rank
    2 to 5."""
    return _bias_add("bias_add", input_x, bias)


class BiasAdd(Primitive):
    """``ops.BiasAdd(data_format='NCHW')(input_x, bias)``; ``'NHWC'`` adds along the last axis."""

    def __init__(self, data_format="NCHW"):
        self.data_format = data_format

    def __call__(self, input_x, bias):
        return _bias_add("BiasAdd", input_x, bias, self.data_format)


def bmm(input_x, mat2):
    """``ops.bmm(input_x, mat2)``: batches of matrix products; both inputs have the same rank (batch axes
    first), as MindSpore 2.10 requires on CPU."""
    _tensor("bmm", "input_x", input_x)
    _tensor("bmm", "mat2", mat2)
    if input_x.ndim != mat2.ndim or input_x.ndim < 2:
        raise ValueError(f"bmm: input_x {list(input_x.shape)} and mat2 {list(mat2.shape)} must have the same rank "
                         "(at least 2); MindSpore does not broadcast them on CPU. Fix: ops.matmul, which does.")
    return ops.matmul(input_x, mat2)


# ----- shapes ----------------------------------------------------------------------------------------
def swapaxes(input, axis0, axis1):  # noqa: A002
    """``ops.swapaxes(input, axis0, axis1)``: the two axes exchanged (a transpose)."""
    x = _tensor("swapaxes", "input", input)
    a, b = (normalize_axis("swapaxes", _int("swapaxes", "axis", v), x.ndim)[0] for v in (axis0, axis1))
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return ops.transpose(x, tuple(perm))


def _pieces(x: Tensor, sizes, axis: int) -> tuple:
    out, start = [], 0
    for size in sizes:
        out.append(ops.getitem(x, (slice(None),) * axis + (slice(start, start + size),)))
        start += size
    return tuple(out)


def split(tensor, split_size_or_sections, axis=0):
    """``ops.split(tensor, split_size_or_sections, axis=0)``: pieces of ``split_size_or_sections``
    entries along ``axis`` (the last one smaller if they do not divide), or of the sizes listed."""
    x = _tensor("split", "tensor", tensor)
    axis = normalize_axis("split", _int("split", "axis", axis), x.ndim)[0]
    n = x.shape[axis]
    if isinstance(split_size_or_sections, (int, np.integer)) and not isinstance(split_size_or_sections, bool):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"split: split_size_or_sections must be > 0, but got {size}.")
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    elif isinstance(split_size_or_sections, (tuple, list)):
        sizes = [_int("split", "a section size", s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ValueError(f"split: the sizes {sizes} must be >= 0 and add up to {n}, the size of axis {axis} of "
                             f"{describe(x)}, but they add up to {sum(sizes)}.")
    else:
        raise TypeError(f"split: split_size_or_sections must be an int or a list of ints, but got "
                        f"{describe(split_size_or_sections)}.")
    return _pieces(x, sizes, axis)


def chunk(input, chunks, axis=0):  # noqa: A002
    """``ops.chunk(input, chunks, axis=0)``: at most ``chunks`` pieces of ``ceil(n / chunks)`` entries
    along ``axis`` (the last one smaller; fewer pieces when they run out)."""
    x = _tensor("chunk", "input", input)
    chunks = _int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be > 0, but got {chunks}.")
    axis = normalize_axis("chunk", _int("chunk", "axis", axis), x.ndim)[0]
    n = x.shape[axis]
    size = -(-n // chunks) if n else 0
    return split(x, size, axis) if size else (x,)


def tile(input, dims):  # noqa: A002
    """``ops.tile(input, dims)``: ``input`` repeated ``dims[i]`` times along each axis (``dims`` shorter
    than the rank counts from the last axis; longer adds leading axes) — a broadcast of ``input`` with
    a new axis before each of its own, then a reshape."""
    x = _tensor("tile", "input", input)
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, (int, np.integer)) and d >= 0 for d in dims):
        raise TypeError(f"tile: dims must be a tuple of ints >= 0, but got {describe(dims)}. Fix: dims=(2, 1).")
    ndim = max(x.ndim, len(dims))
    reps = (1,) * (ndim - len(dims)) + tuple(int(d) for d in dims)
    shape = (1,) * (ndim - x.ndim) + tuple(x.shape)
    spread = ops.reshape(x, tuple(s for d in shape for s in (1, d)))
    copies = ops.broadcast_to(spread, tuple(s for r, d in zip(reps, shape) for s in (r, d)))
    return ops.reshape(copies, tuple(r * d for r, d in zip(reps, shape)))


def repeat_interleave(input, repeats, axis=None):  # noqa: A002
    """``ops.repeat_interleave(input, repeats, axis=None)``: each entry along ``axis`` repeated
    ``repeats`` times (an int, or one count per entry); without ``axis``, of the flattened input."""
    x = _tensor("repeat_interleave", "input", input)
    if axis is None:
        x, axis = ops.reshape(x, (-1,)), 0
    axis = normalize_axis("repeat_interleave", _int("repeat_interleave", "axis", axis), x.ndim)[0]
    n = x.shape[axis]
    if isinstance(repeats, Tensor):
        repeats = repeats.tolist() if repeats.ndim else repeats.item()
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        counts = [int(repeats)] * n
    else:
        counts = [_int("repeat_interleave", "a count", c) for c in repeats]
    if len(counts) != n or any(c < 0 for c in counts):
        raise ValueError(f"repeat_interleave: repeats must be one count >= 0, or {n} of them (one per entry along "
                         f"axis {axis}), but got {repeats!r}.")
    return ops.getitem(x, (slice(None),) * axis + (np.repeat(np.arange(n), counts),))


def diag(input):  # noqa: A002
    """``ops.diag(input)``: a Tensor of shape ``input.shape + input.shape`` with ``input`` on its diagonal
    (for a vector, the diagonal matrix) — a gather from ``[0, input...]`` at constant positions, so
    its gradient is the diagonal's back onto ``input``."""
    x = _tensor("diag", "input", input)
    if x.ndim == 0:
        raise ValueError("diag: input must have rank >= 1, but got a 0-d Tensor. Fix: ops.reshape(x, (1,)).")
    n = x.size
    positions = np.zeros((n, n), dtype=np.int64)
    positions[np.arange(n), np.arange(n)] = np.arange(1, n + 1)
    padded = ops.concat((Tensor._make(np.zeros(1, x._data.dtype)), ops.reshape(x, (-1,))))
    return ops.reshape(ops.getitem(padded, positions), tuple(x.shape) * 2)


def partial(func, *args, **kwargs):
    """``ops.partial(func, *args)``: ``func`` with its first arguments (and, as a convenience, keyword
    arguments) fixed — ``functools.partial``, which ``jit`` traces through like any Python call."""
    if not callable(func):
        raise TypeError(f"partial: the first argument must be a function, but got {describe(func)}.")
    return functools.partial(func, *args, **kwargs)


def shape(input):  # noqa: A002
    """``ops.shape(input)``: the shape as a tuple of ints."""
    return tuple(_tensor("shape", "input", input).shape)


class Shape(Primitive):
    """``ops.Shape()(x)``: the shape as a tuple of ints (static: a constant in a compiled graph)."""

    def __call__(self, input_x):
        return tuple(_tensor("Shape", "input_x", input_x).shape)


class Flatten(Primitive):
    """``ops.Flatten()(input_x)``: ``(N, ...)`` -> ``(N, product of the rest)``; a vector becomes
    ``(N, 1)``."""

    def __call__(self, input_x):
        x = _tensor("Flatten", "input_x", input_x)
        if x.ndim == 0:
            raise RuntimeError("Flatten: input_x must have rank >= 1 (its first axis is kept), but got a 0-d Tensor.")
        return ops.reshape(x, (x.shape[0], -1) if x.shape[0] else (0, int(np.prod(x.shape[1:]))))
