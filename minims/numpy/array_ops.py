"""``mindspore.numpy``'s shape manipulation: ``reshape``, ``transpose``, ``moveaxis``,
``expand_dims``, ``squeeze``, ``concatenate``, ``stack``, ``split``, ``tile``, ``repeat``, ``flip``,
``roll``, ``broadcast_to``, ``atleast_1d`` ..., ``take`` and ``take_along_axis``.

Shapes are known before anything runs, so each function works out its result's shape in Python and
then calls the shape primitives (``Reshape``, ``Transpose``, ``Concat``, ``BroadcastTo``,
``GetItem``).  Their gradients route every entry back to where it came from: ``tile`` is a
broadcast (its gradient sums the copies), ``repeat`` with a list and ``take`` are gathers (the
gradient is added back at the positions taken), ``flip`` and ``roll`` are slices.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from ._utils import (as_tensor, axes_arg, axis_arg, broadcast_shape, cast_to, describe, fail,
                     shape_arg, static_int)
from ._utils import traced as _traced
from .logic_ops import where

__all__ = ["reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "expand_dims",
           "squeeze", "concatenate", "append", "stack", "hstack", "vstack", "dstack", "column_stack",
           "split", "array_split", "hsplit", "vsplit", "dsplit", "tile", "repeat", "flip", "flipud",
           "fliplr", "roll", "rot90", "broadcast_to", "broadcast_arrays", "atleast_1d", "atleast_2d",
           "atleast_3d", "size", "take", "take_along_axis", "select", "choose", "searchsorted", "digitize",
           "unravel_index", "ravel_multi_index", "apply_along_axis", "apply_over_axes", "piecewise", "array_str"]


# ----- reshaping ----------------------------------------------------------------------------------------
def reshape(x, new_shape):
    """``mnp.reshape(x, new_shape)``: one entry may be -1 (inferred)."""
    x = as_tensor(x, "reshape", "x")
    if isinstance(new_shape, (int, np.integer)) and not isinstance(new_shape, bool):
        new_shape = (new_shape,)
    if not isinstance(new_shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in new_shape):
        raise fail(TypeError, "reshape", f"new_shape must be an int or a tuple of ints, but got "
                   f"{describe(new_shape)}", "e.g. (3, -1)")
    unknown = [s for s in new_shape if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in new_shape):
        raise fail(ValueError, "reshape", f"new_shape {tuple(new_shape)} has more than one -1 or a negative "
                   "size; only one size can be inferred", "give every size but one")
    known = int(np.prod([s for s in new_shape if s != -1], dtype=np.int64))
    if (unknown and (known == 0 or x.size % known)) or (not unknown and known != x.size):
        raise fail(ValueError, "reshape", f"cannot reshape {describe(x)} ({x.size} entries) into shape "
                   f"{tuple(new_shape)}", "keep the number of entries the same (use -1 for one size)")
    return ops.reshape(x, tuple(int(s) for s in new_shape))


def ravel(x):
    """``mnp.ravel(x)``: the entries as a 1-D Tensor (row-major)."""
    return ops.reshape(as_tensor(x, "ravel", "x"), (-1,))


def transpose(a, axes=None):
    """``mnp.transpose(a, axes=None)``: axes reversed, or permuted as ``axes`` says."""
    a = as_tensor(a, "transpose", "a")
    if axes is None:
        return ops.transpose(a, tuple(range(a.ndim - 1, -1, -1)))
    perm = _permutation("transpose", axes, a.ndim)
    return ops.transpose(a, perm)


def _permutation(where, axes, ndim):
    if not isinstance(axes, (tuple, list)) or len(axes) != ndim:
        raise fail(ValueError, where, f"axes {axes!r} must list each of the {ndim} axes once",
                   f"a permutation of {tuple(range(ndim))}")
    perm = tuple(axis_arg(a, ndim, where) for a in axes)
    if sorted(perm) != list(range(ndim)):
        raise fail(ValueError, where, f"axes {tuple(axes)} is not a permutation of the {ndim} axes",
                   f"a permutation of {tuple(range(ndim))}")
    return perm


def swapaxes(x, axis1, axis2):
    """``mnp.swapaxes(x, axis1, axis2)``."""
    x = as_tensor(x, "swapaxes", "x")
    a1, a2 = axis_arg(axis1, x.ndim, "swapaxes"), axis_arg(axis2, x.ndim, "swapaxes")
    perm = list(range(x.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return ops.transpose(x, tuple(perm))


def moveaxis(a, source, destination):
    """``mnp.moveaxis(a, source, destination)``: axes moved to new positions, the others in order."""
    a = as_tensor(a, "moveaxis", "a")
    source = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    destination = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(source) != len(destination):
        raise fail(ValueError, "moveaxis", f"source {source} and destination {destination} have different "
                   "lengths", "one destination per source axis")
    src = [axis_arg(s, a.ndim, "moveaxis") for s in source]
    dst = [axis_arg(d, a.ndim, "moveaxis") for d in destination]
    order = [d for d in range(a.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return ops.transpose(a, tuple(order))


def rollaxis(x, axis, start=0):
    """``mnp.rollaxis(x, axis, start=0)``: axis ``axis`` moved to just before position ``start``."""
    x = as_tensor(x, "rollaxis", "x")
    axis = axis_arg(axis, x.ndim, "rollaxis")
    start = static_int(start, "rollaxis", "start")
    start = start + x.ndim if start < 0 else start
    if not 0 <= start <= x.ndim:
        raise fail(ValueError, "rollaxis", f"start {start} is out of range for rank {x.ndim}",
                   f"0..{x.ndim}")
    target = start - 1 if axis < start else start
    return moveaxis(x, axis, target)


def expand_dims(a, axis):
    """``mnp.expand_dims(a, axis)``: new axes of size 1 at ``axis`` (an int or a tuple)."""
    a = as_tensor(a, "expand_dims", "a")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    ndim = a.ndim + len(axes)
    new = set(axes_arg(axes, ndim, "expand_dims"))
    sizes = iter(a.shape)
    return ops.reshape(a, tuple(1 if d in new else next(sizes) for d in range(ndim)))


def squeeze(a, axis=None):
    """``mnp.squeeze(a, axis=None)``: axes of size 1 removed (all of them, or those named).  Naming an
    axis whose size is not 1 is a ValueError, as in NumPy (MindSpore 2.10 ignores it silently)."""
    a = as_tensor(a, "squeeze", "a")
    if axis is None:
        return ops.reshape(a, tuple(s for s in a.shape if s != 1))
    axes = axes_arg(axis, a.ndim, "squeeze")
    for d in axes:
        if a.shape[d] != 1:
            raise fail(ValueError, "squeeze", f"axis {d} of {describe(a)} has size {a.shape[d]}, not 1",
                       "name only axes of size 1 (or no axis to remove them all)")
    return ops.reshape(a, tuple(s for d, s in enumerate(a.shape) if d not in axes))


# ----- joining ------------------------------------------------------------------------------------------
def _sequence(where, arrays):
    """The Tensors to join: a Tensor counts as the sequence of its rows, as in NumPy."""
    if isinstance(arrays, Tensor):
        return [arrays[i] for i in range(arrays.shape[0])] if arrays.ndim else [arrays]
    if not isinstance(arrays, (list, tuple)):
        raise fail(TypeError, where, f"arrays must be a tuple or list of Tensors, but got {describe(arrays)}",
                   f"mnp.{where}((x, y))")
    if not arrays:
        raise _NothingToJoin(f"mindspore.numpy.{where}: no Tensors were given. Fix: pass at least one, "
                             f"e.g. mnp.{where}((x, y))")
    tensors = [as_tensor(t, where, f"arrays[{i}]") for i, t in enumerate(arrays)]
    common = tensors[0].dtype
    for t in tensors[1:]:
        common = ms.dtype.result_type(common, t.dtype)
    return [cast_to(t, common) for t in tensors]


class _NothingToJoin(ValueError, IndexError):
    """An empty sequence to join: ValueError as NumPy, IndexError as MindSpore 2.10 raises."""


def _join(where, tensors, axis):
    """``ops.concat`` after checking that all sizes but ``axis`` agree."""
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t.ndim != first.ndim or any(s != u for d, (s, u) in enumerate(zip(t.shape, first.shape)) if d != axis):
            raise fail(ValueError, where, f"arrays[{i}] has shape {list(t.shape)} and arrays[0] {list(first.shape)}; "
                       f"all sizes except along axis {axis} must agree", "reshape or slice them to fit")
    return ops.concat(tuple(tensors), axis)


def concatenate(arrays, axis=0):
    """``mnp.concatenate(arrays, axis=0)``: joined along an existing axis (``axis=None``: flattened
    first); dtypes are promoted to a common one."""
    tensors = _sequence("concatenate", arrays)
    if axis is None:
        return _join("concatenate", [ops.reshape(t, (-1,)) for t in tensors], 0)
    return _join("concatenate", tensors, axis_arg(axis, max(tensors[0].ndim, 1), "concatenate"))


def append(arr, values, axis=None):
    """``mnp.append(arr, values, axis=None)``: :func:`concatenate` of the two."""
    return concatenate((arr, values), axis)


def stack(arrays, axis=0):
    """``mnp.stack(arrays, axis=0)``: joined along a new axis (all shapes must be equal)."""
    tensors = _sequence("stack", arrays)
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise fail(ValueError, "stack", f"arrays[{i}] has shape {list(t.shape)} and arrays[0] "
                       f"{list(tensors[0].shape)}; stacked Tensors must have one shape",
                       "reshape or slice them to one shape")
    axis = axis_arg(axis, tensors[0].ndim + 1, "stack")
    return ops.stack(tuple(tensors), axis)


def hstack(tup):
    """``mnp.hstack(tup)``: joined along axis 1 (axis 0 for vectors)."""
    tensors = _sequence("hstack", tup)
    if tensors[0].ndim <= 1:
        return _join("hstack", [ops.reshape(t, (-1,)) for t in tensors], 0)
    return _join("hstack", tensors, 1)


def vstack(tup):
    """``mnp.vstack(tup)``: joined along axis 0, vectors as rows."""
    return _join("vstack", [atleast_2d(t) for t in _sequence("vstack", tup)], 0)


def dstack(tup):
    """``mnp.dstack(tup)``: joined along axis 2 (depth)."""
    return _join("dstack", [atleast_3d(t) for t in _sequence("dstack", tup)], 2)


def column_stack(tup):
    """``mnp.column_stack(tup)``: vectors as columns, joined along axis 1."""
    tensors = [ops.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in _sequence("column_stack", tup)]
    return _join("column_stack", tensors, 1)


# ----- splitting ----------------------------------------------------------------------------------------
def _pieces(x, bounds, axis):
    lead = (slice(None),) * axis
    return [ops.getitem(x, lead + (slice(a, b),)) for a, b in zip(bounds[:-1], bounds[1:])]


def _split(where, x, indices_or_sections, axis, equal):
    x = as_tensor(x, where, "x")
    axis = axis_arg(axis, x.ndim, where)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0 or (equal and n % k):
            raise fail(ValueError, where, f"axis {axis} of size {n} cannot be split into {k} equal sections",
                       "a number of sections that divides the size, or mnp.array_split")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        return tuple(_pieces(x, np.concatenate(([0], np.cumsum(sizes))).tolist(), axis))
    if isinstance(indices_or_sections, (list, tuple)) and all(
            isinstance(i, (int, np.integer)) for i in indices_or_sections):
        bounds = [0] + [min(max(int(i) + (n if i < 0 else 0), 0), n) for i in indices_or_sections] + [n]
        bounds = [max(b, a) for a, b in zip([0] + bounds[:-1], bounds)]        # never going back
        return _pieces(x, bounds, axis)
    raise fail(TypeError, where, f"indices_or_sections must be an int or a list of ints, but got "
               f"{describe(indices_or_sections)}", "e.g. 2 (equal sections) or [1, 3] (split points)")


def split(x, indices_or_sections, axis=0):
    """``mnp.split(x, indices_or_sections, axis=0)``: equal sections (a tuple; the size must divide)
    or pieces between split points (a list), as MindSpore 2.10 returns them."""
    return _split("split", x, indices_or_sections, axis, equal=True)


def array_split(x, indices_or_sections, axis=0):
    """``mnp.array_split``: as :func:`split`, but sections may differ in size by one."""
    return _split("array_split", x, indices_or_sections, axis, equal=False)


def hsplit(x, indices_or_sections):
    """``mnp.hsplit``: :func:`split` along axis 1 (axis 0 for vectors)."""
    x = as_tensor(x, "hsplit", "x")
    return _split("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, equal=True)


def vsplit(x, indices_or_sections):
    """``mnp.vsplit``: :func:`split` along axis 0 (at least 2-D)."""
    x = _least_rank("vsplit", x, 2)
    return _split("vsplit", x, indices_or_sections, 0, equal=True)


def dsplit(x, indices_or_sections):
    """``mnp.dsplit``: :func:`split` along axis 2 (at least 3-D)."""
    x = _least_rank("dsplit", x, 3)
    return _split("dsplit", x, indices_or_sections, 2, equal=True)


def _least_rank(where, x, rank):
    x = as_tensor(x, where, "x")
    if x.ndim < rank:
        raise fail(ValueError, where, f"x must have at least {rank} axes, but got {describe(x)}",
                   "mnp.split with an axis it has")
    return x


# ----- repeating ------------------------------------------------------------------------------------------
def tile(a, reps):
    """``mnp.tile(a, reps)``: ``a`` repeated ``reps`` times along each axis — a broadcast of ``a`` with
    a new axis in front of each of its axes, then a reshape."""
    a = as_tensor(a, "tile", "a")
    reps = shape_arg(reps, "tile")
    ndim = max(a.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    shape = (1,) * (ndim - a.ndim) + a.shape
    spread = ops.reshape(a, tuple(s for d in shape for s in (1, d)))
    big = ops.broadcast_to(spread, tuple(s for r, d in zip(reps, shape) for s in (r, d)))
    return ops.reshape(big, tuple(r * d for r, d in zip(reps, shape)))


def repeat(a, repeats, axis=None):
    """``mnp.repeat(a, repeats, axis=None)``: each entry repeated (``repeats`` an int, or one count per
    entry along ``axis``); without ``axis``, of the flattened Tensor."""
    a = as_tensor(a, "repeat", "a")
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    axis = axis_arg(axis, a.ndim, "repeat")
    n = a.shape[axis]
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise fail(ValueError, "repeat", f"repeats must be >= 0, but got {repeats}", "a count, e.g. 2")
        spread = ops.expand_dims(a, axis + 1)
        big = ops.broadcast_to(spread, a.shape[:axis + 1] + (int(repeats),) + a.shape[axis + 1:])
        return ops.reshape(big, a.shape[:axis] + (n * int(repeats),) + a.shape[axis + 1:])
    counts = list(repeats) if isinstance(repeats, (list, tuple)) else None
    if counts is None or not all(isinstance(c, (int, np.integer)) and c >= 0 for c in counts):
        raise fail(TypeError, "repeat", f"repeats must be an int or a list of ints >= 0, but got "
                   f"{describe(repeats)}", "e.g. 2, or [1, 2] for one count per entry")
    if len(counts) != n:
        raise fail(ValueError, "repeat", f"{len(counts)} counts given for {n} entries along axis {axis}",
                   "one count per entry, or a single int")
    positions = np.repeat(np.arange(n), counts)
    return ops.getitem(a, (slice(None),) * axis + (positions,))


# ----- reordering -----------------------------------------------------------------------------------------
def flip(m, axis=None):
    """``mnp.flip(m, axis=None)``: the order of entries reversed along ``axis`` (every axis: None)."""
    m = as_tensor(m, "flip", "m")
    axes = axes_arg(axis, m.ndim, "flip")
    index = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(m.ndim))
    return ops.getitem(m, index) if axes else m


def flipud(m):
    """``mnp.flipud(m)``: :func:`flip` along axis 0."""
    return flip(m, 0)


def fliplr(m):
    """``mnp.fliplr(m)``: :func:`flip` along axis 1 (at least 2-D)."""
    return flip(_least_rank("fliplr", m, 2), 1)


def roll(a, shift, axis=None):
    """``mnp.roll(a, shift, axis=None)``: entries shifted along ``axis``, those pushed off the end
    coming back at the start (no axis: of the flattened Tensor)."""
    a = as_tensor(a, "roll", "a")
    if axis is None:
        return ops.reshape(roll(ops.reshape(a, (-1,)), shift, 0), a.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise fail(ValueError, "roll", f"{len(shifts)} shifts for {len(axes)} axes", "one shift per axis")
    for s, ax in zip(shifts, axes):
        ax = axis_arg(ax, a.ndim, "roll")
        n = a.shape[ax]
        s = static_int(s, "roll", "shift") % n if n else 0
        if s:
            lead = (slice(None),) * ax
            a = ops.concat((ops.getitem(a, lead + (slice(n - s, n),)), ops.getitem(a, lead + (slice(0, n - s),))), ax)
    return a


def rot90(a, k=1, axes=(0, 1)):
    """``mnp.rot90(a, k=1, axes=(0, 1))``: rotated by 90 degrees ``k`` times, from the first axis
    towards the second."""
    a = as_tensor(a, "rot90", "a")
    if len(axes) != 2:
        raise fail(ValueError, "rot90", f"axes {axes!r} must name two axes", "e.g. axes=(0, 1)")
    ax0, ax1 = axis_arg(axes[0], a.ndim, "rot90"), axis_arg(axes[1], a.ndim, "rot90")
    if ax0 == ax1:
        raise fail(ValueError, "rot90", f"axes {tuple(axes)} name one axis twice", "two different axes")
    k = static_int(k, "rot90", "k") % 4
    if k == 0:
        return a
    if k == 2:
        return flip(a, (ax0, ax1))
    perm = list(range(a.ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return ops.transpose(flip(a, ax1), tuple(perm))
    return flip(ops.transpose(a, tuple(perm)), ax1)


# ----- broadcasting and rank --------------------------------------------------------------------------------
def broadcast_to(array, shape):
    """``mnp.broadcast_to(array, shape)``."""
    array = as_tensor(array, "broadcast_to", "array")
    shape = shape_arg(shape, "broadcast_to")
    try:
        fits = tuple(np.broadcast_shapes(array.shape, shape)) == shape
    except ValueError:
        fits = False
    if not fits:
        raise fail(ValueError, "broadcast_to", f"{describe(array)} cannot be broadcast to shape {list(shape)}",
                   "each axis of the Tensor must be 1 or equal the target's (counted from the right)")
    return ops.broadcast_to(array, shape)


def broadcast_arrays(*args):
    """``mnp.broadcast_arrays(*args)``: a list of the inputs broadcast to their common shape."""
    tensors = [as_tensor(t, "broadcast_arrays", f"args[{i}]") for i, t in enumerate(args)]
    shape = broadcast_shape("broadcast_arrays", *tensors)
    return [ops.broadcast_to(t, shape) for t in tensors]


def _atleast(where, arys, shape_of):
    out = []
    for i, x in enumerate(arys):
        if not isinstance(x, Tensor):
            raise fail(TypeError, where, f"arys[{i}] must be a Tensor, but got {describe(x)}",
                       "mnp.array(value) makes one")
        shape = shape_of(x.shape)
        out.append(x if shape == x.shape else ops.reshape(x, shape))
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """``mnp.atleast_1d(*arys)``: a scalar becomes a vector of one; a list for several inputs."""
    return _atleast("atleast_1d", arys, lambda s: s if len(s) >= 1 else (1,))


def atleast_2d(*arys):
    """``mnp.atleast_2d(*arys)``: a vector becomes a row ``(1, n)``."""
    return _atleast("atleast_2d", arys, lambda s: s if len(s) >= 2 else (1,) * (2 - len(s)) + s)


def atleast_3d(*arys):
    """``mnp.atleast_3d(*arys)``: ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``."""
    return _atleast("atleast_3d", arys,
                    lambda s: s if len(s) >= 3 else {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}[len(s)])


def size(a, axis=None):
    """``mnp.size(a, axis=None)``: the number of entries (along ``axis``), a Python int."""
    a = as_tensor(a, "size", "a")
    return a.size if axis is None else a.shape[axis_arg(axis, a.ndim, "size")]


# ----- gathers ----------------------------------------------------------------------------------------------
def _index_tensor(indices, where):
    indices = as_tensor(indices, where, "indices")
    if indices.dtype.kind != "int":
        raise fail(TypeError, where, f"indices must hold integers, but got {describe(indices)}",
                   "indices.astype(mnp.int32)")
    return indices


def take(a, indices, axis=None, mode="clip"):
    """``mnp.take(a, indices, axis=None, mode='clip')``: the entries at ``indices`` along ``axis``
    (of the flattened Tensor without one).  ``mode='clip'`` (MindSpore's default) moves an index out
    of range to the nearest end (after a negative index counts from the end once, as MindSpore 2.10:
    ``take(x, -1)`` is the last entry), ``'wrap'`` wraps it around, ``'raise'`` refuses it."""
    a = as_tensor(a, "take", "a")
    indices = _index_tensor(indices, "take")
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    axis = axis_arg(axis, a.ndim, "take")
    n = a.shape[axis]
    if mode == "clip":
        indices = ops.select(ops.lt(indices, 0), ops.add(indices, n), indices)
        indices = ops.minimum(ops.maximum(indices, 0), n - 1)
    elif mode == "wrap":
        indices = ops.floor_mod(indices, n)
    elif mode != "raise":
        raise fail(ValueError, "take", f"mode must be 'clip', 'wrap' or 'raise', but got {mode!r}",
                   "mode='clip' (the default)")
    return ops.getitem(a, (slice(None),) * axis + (indices,))


def take_along_axis(arr, indices, axis):
    """``mnp.take_along_axis(arr, indices, axis)``: ``arr`` gathered along ``axis`` at ``indices``
    (of the same rank), the other axes matched position by position."""
    arr = as_tensor(arr, "take_along_axis", "arr")
    indices = _index_tensor(indices, "take_along_axis")
    if axis is None:
        arr, axis = ops.reshape(arr, (-1,)), 0
    axis = axis_arg(axis, arr.ndim, "take_along_axis")
    if indices.ndim != arr.ndim:
        raise fail(ValueError, "take_along_axis", f"indices has {indices.ndim} axes and arr {arr.ndim}",
                   "indices of arr's rank (mnp.expand_dims adds axes)")
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            index.append(np.arange(arr.shape[d]).reshape(tuple(-1 if e == d else 1 for e in range(arr.ndim))))
    return ops.getitem(arr, tuple(index))


# ----- choosing -----------------------------------------------------------------------------------------------
def select(condlist, choicelist, default=0):
    """``mnp.select(condlist, choicelist, default=0)``: from the first choice whose condition holds,
    else ``default`` — a chain of ``where`` from the last condition to the first."""
    condlist, choicelist = _rows(condlist), _rows(choicelist)
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)) \
            or len(condlist) != len(choicelist):
        raise fail(ValueError, "select", "condlist and choicelist must be lists of the same length",
                   "one choice per condition")
    choices = _sequence("select", list(choicelist)) if choicelist else []
    out = default
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        out = where(cond, choice, out)
    return as_tensor(out, "select", "default")


def _rows(value):
    """A Tensor given for a list: its rows (as NumPy iterates an array)."""
    return [value[i] for i in range(value.shape[0])] if isinstance(value, Tensor) and value.ndim else value


def choose(a, choices, mode="clip"):
    """``mnp.choose(a, choices, mode='clip')``: ``choices[a[i]][i]`` for every position ``i`` (a gather
    from the choices stacked along a new first axis); ``mode`` as in :func:`take`."""
    a = _index_tensor(a, "choose")
    options = _sequence("choose", choices)
    shape = broadcast_shape("choose", a, *options)
    stacked = ops.stack(tuple(ops.broadcast_to(c, shape) for c in options), 0)
    n = len(options)
    index = ops.broadcast_to(a, shape)
    if mode == "clip":
        index = ops.minimum(ops.maximum(index, 0), n - 1)
    elif mode == "wrap":
        index = ops.floor_mod(index, n)
    elif mode != "raise":
        raise fail(ValueError, "choose", f"mode must be 'clip', 'wrap' or 'raise', but got {mode!r}", "mode='clip'")
    grid = tuple(np.arange(s).reshape((-1,) + (1,) * (len(shape) - d - 1)) for d, s in enumerate(shape))
    return ops.getitem(stacked, (index,) + grid)


def searchsorted(a, v, side="left", sorter=None):
    """``mnp.searchsorted(a, v, side='left', sorter=None)``: where each ``v`` would be inserted into the
    sorted vector ``a`` to keep it sorted: the number of entries of ``a`` below ``v`` (``'left'``) or
    not above it (``'right'``), counted by comparing every pair (Int32)."""
    a = as_tensor(a, "searchsorted", "a")
    if a.ndim != 1:
        raise fail(ValueError, "searchsorted", f"a must be 1-D, but got {describe(a)}", "a sorted vector")
    if sorter is not None:
        a = take(a, sorter, mode="raise")
    v = as_tensor(v, "searchsorted", "v")
    if side not in ("left", "right"):
        raise fail(ValueError, "searchsorted", f"side must be 'left' or 'right', but got {side!r}", "side='left'")
    below = (ops.lt if side == "left" else ops.le)(a, ops.expand_dims(v, -1))
    return ops.sum(ops.cast(below, ms.int32), -1)


def digitize(x, bins, right=False):
    """``mnp.digitize(x, bins, right=False)``: the index of the bin each ``x`` falls in (``bins``
    increasing, or decreasing when its values say so)."""
    bins = as_tensor(bins, "digitize", "bins")
    if bins.ndim != 1:
        raise fail(ValueError, "digitize", f"bins must be 1-D, but got {describe(bins)}", "a monotonic vector")
    values = None if _traced(bins) else bins.asnumpy()
    if values is not None and values.size > 1 and values[0] > values[-1]:
        n = bins.shape[0]
        return ops.sub(n, searchsorted(flip(bins), x, "left" if right else "right"))
    return searchsorted(bins, x, "left" if right else "right")


# ----- positions, functions over axes, printing ------------------------------------------------------------------
def unravel_index(indices, shape, order="C"):
    """``mnp.unravel_index(indices, shape, order='C')``: flat positions as a tuple of coordinate
    Tensors (integer division and remainders by the strides)."""
    indices = _index_tensor(indices, "unravel_index")
    shape = shape_arg(shape, "unravel_index")
    if order not in ("C", "F"):
        raise fail(ValueError, "unravel_index", f"order must be 'C' or 'F', but got {order!r}", "order='C'")
    sizes = shape if order == "C" else shape[::-1]
    out, rest = [], indices
    for size in reversed(sizes):
        out.append(ops.floor_mod(rest, size))
        rest = ops.floor_divide(rest, size)
    out = out[::-1]
    return tuple(out if order == "C" else out[::-1])


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """``mnp.ravel_multi_index(multi_index, dims, mode='clip', order='C')``: coordinates to flat
    positions (``mode`` 'clip' or 'wrap' for coordinates out of range)."""
    dims = shape_arg(dims, "ravel_multi_index")
    coords = [_index_tensor(c, "ravel_multi_index") for c in multi_index]
    if len(coords) != len(dims):
        raise fail(ValueError, "ravel_multi_index", f"{len(coords)} coordinates for {len(dims)} dimensions",
                   "one coordinate Tensor per dimension")
    fixed = []
    for c, size in zip(coords, dims):
        if mode == "clip":
            c = ops.minimum(ops.maximum(c, 0), size - 1)
        elif mode == "wrap":
            c = ops.floor_mod(c, size)
        elif mode != "raise":
            raise fail(ValueError, "ravel_multi_index", f"mode must be 'clip', 'wrap' or 'raise', got {mode!r}",
                       "mode='clip'")
        fixed.append(c)
    order_dims = list(zip(fixed, dims)) if order == "C" else list(zip(fixed, dims))[::-1]
    out = None
    for c, size in order_dims:
        out = c if out is None else ops.add(ops.mul(out, size), c)
    return out


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``mnp.apply_along_axis(func1d, axis, arr, *args, **kwargs)``: ``func1d`` on each 1-D slice along
    ``axis``, the results stacked in its place (a Python loop over the slices)."""
    arr = as_tensor(arr, "apply_along_axis", "arr")
    axis = axis_arg(axis, arr.ndim, "apply_along_axis")
    moved = moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    flat = ops.reshape(moved, (-1, moved.shape[-1]))
    results = [as_tensor(func1d(flat[i], *args, **kwargs), "apply_along_axis", "func1d's result")
               for i in range(flat.shape[0])]
    stacked = ops.reshape(ops.stack(tuple(results), 0), outer + results[0].shape)
    if results[0].ndim == 0:
        return stacked
    return moveaxis(stacked, tuple(range(len(outer), stacked.ndim)),
                    tuple(range(axis, axis + results[0].ndim)))


def apply_over_axes(func, a, axes):
    """``mnp.apply_over_axes(func, a, axes)``: ``a = func(a, axis)`` for each axis in turn, an axis the
    result lost put back (size 1)."""
    a = as_tensor(a, "apply_over_axes", "a")
    for axis in (axes,) if isinstance(axes, (int, np.integer)) else axes:
        out = as_tensor(func(a, axis), "apply_over_axes", "func's result")
        if out.ndim == a.ndim - 1:
            out = ops.expand_dims(out, axis_arg(axis, a.ndim, "apply_over_axes"))
        elif out.ndim != a.ndim:
            raise fail(ValueError, "apply_over_axes", f"func returned {describe(out)} for {describe(a)}",
                       "a function that keeps the rank or removes the axis")
        a = out
    return a


def piecewise(x, condlist, funclist, *args, **kw):
    """``mnp.piecewise(x, condlist, funclist, *args, **kw)``: ``funclist[i](x)`` (or the number) where
    ``condlist[i]`` holds; one more function than conditions is the value elsewhere (else 0)."""
    x = as_tensor(x, "piecewise", "x")
    single = isinstance(condlist, (bool, np.bool_)) or (isinstance(condlist, Tensor) and condlist.ndim == x.ndim)
    conds = [condlist] if single else list(condlist)
    funcs = list(funclist)
    if len(funcs) not in (len(conds), len(conds) + 1):
        raise fail(ValueError, "piecewise", f"{len(funcs)} functions for {len(conds)} conditions",
                   "one per condition, and optionally one more for elsewhere")

    def value(f):
        return ops.broadcast_to(cast_to(as_tensor(f(x, *args, **kw) if callable(f) else f, "piecewise",
                                                  "a function's value"), x.dtype), x.shape)

    out = value(funcs[-1]) if len(funcs) > len(conds) else ops.zeros_like(x)
    for cond, f in zip(conds, funcs):
        out = where(cond, value(f), out)
    return out


def array_str(a):
    """``mnp.array_str(a)``: the values as NumPy prints them."""
    return np.array_str(as_tensor(a, "array_str", "a").asnumpy())
