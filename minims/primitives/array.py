"""Array primitives: shape changes, joining, indexing, creation and casting.

Shape arguments (a shape, a permutation, an axis, an index) are *static*: they are passed to
``bind`` as Python values, so they are constants in every interpreter and get ``None`` as their
gradient.  Indexing is one primitive, ``GetItem``, whose backward rule ``GetItemGrad`` scatters the
gradient into zeros; the two are each other's derivative, so indexing is differentiable to any order.
"""
from __future__ import annotations

import numpy as np
import sympy

from .. import ops
from .. import dtype as mstype
from ..common.memory import check_allocation
from ..common.tensor import Tensor, _describe
from ..batching.trace import BatchedValueError
from ..interpreters.stack import MinimsError, Tracer, bind
from .base import Primitive
from . import batch_rules, tangents as T
from .operands import as_operand, cast_gradient, normalize_axis, sum_to


class _ArrayPrimitive(Primitive):
    """Shape, indexing, creation and cast primitives move values around without computing on them,
    so their SymPy rules take relationals (a Bool tensor's entries) as they are.  Most are linear in
    their Tensor inputs, so their forward-mode rule is the primitive itself applied to the tangents
    (with the same static arguments)."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    takes_booleans = True

    def jvp(self, primals, tangents):
        """For a primitive linear in its Tensor inputs (the others are static: a shape, an axis)."""
        out = bind(self, *primals)
        if all(t is None for t in tangents):
            return out, None
        ts = [T.or_zeros(t, p) if isinstance(p, Tensor) else p for t, p in zip(tangents, primals)]
        return out, bind(self, *ts)


def _shape_tuple(op_name: str, shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (tuple, list)) and all(isinstance(s, (int, np.integer)) for s in shape):
        return tuple(int(s) for s in shape)
    raise TypeError(f"{op_name}: shape must be a tuple of ints, but got {_describe(shape)}.")


class Reshape(_ArrayPrimitive):
    """``ops.Reshape()(x, shape)``; one entry of ``shape`` may be -1."""

    def __call__(self, x, shape):
        shape = _shape_tuple(self.name, shape)
        if any(d < -1 for d in shape) or sum(d == -1 for d in shape) > 1:
            # ValueError, as MindSpore ("invalid proposed_shape dimension", "only one dimension can
            # be inferred"); NumPy would read any negative entry as -1
            raise ValueError(f"{self.name}: invalid shape {list(shape)}: every entry must be a size >= 0, "
                             "except one -1 for a dimension to infer. Fix: e.g. (-1,) to flatten, "
                             "(2, -1) for two rows.")
        return bind(self, x, shape)

    def impl(self, x, shape):
        return x.reshape(shape)

    def batch(self, args, dims, size):
        (x, shape), (d, _) = args, dims
        return bind(self, batch_rules.front(x, d, size), (size,) + tuple(shape)), 0

    def bprop(self, x, shape, out, dout):
        return ops.reshape(dout, x.shape), None

    def sympy(self, x, shape):
        return x.reshape(shape)

    def explain_failure(self, exc, args):
        x, shape = args
        return ValueError(
            f"Reshape: cannot reshape a tensor of shape {list(x.shape)} ({int(np.prod(x.shape))} "
            f"elements) into shape {list(shape)}. The number of elements must stay the same; "
            "use -1 for one dimension to have it inferred."
        )


class Transpose(_ArrayPrimitive):
    """``ops.Transpose()(x, perm)``."""

    def __call__(self, x, perm=None):
        ndim = len(x.shape)
        perm = tuple(reversed(range(ndim))) if perm is None else _shape_tuple(self.name, perm)
        if sorted(p % ndim if ndim else p for p in perm) != list(range(ndim)) or len(perm) != ndim:
            raise ValueError(
                f"Transpose: perm {list(perm)} is not a permutation of the {ndim} axes of a tensor "
                f"of shape {list(x.shape)}. Fix: name every axis 0..{ndim - 1} once, e.g. "
                f"{tuple(reversed(range(ndim)))} reverses them."
            )
        return bind(self, x, tuple(p % ndim for p in perm))

    def impl(self, x, perm):
        return np.transpose(x, perm)

    def batch(self, args, dims, size):
        (x, perm), (d, _) = args, dims
        return bind(self, batch_rules.front(x, d, size), (0,) + tuple(p + 1 for p in perm)), 0

    def bprop(self, x, perm, out, dout):
        return ops.transpose(dout, tuple(np.argsort(perm).tolist())), None

    def sympy(self, x, perm):
        return np.transpose(x, perm)


class ExpandDims(_ArrayPrimitive):
    def __call__(self, x, axis):
        ndim = len(x.shape) + 1
        if not -ndim <= axis < ndim:
            raise ValueError(f"ExpandDims: axis {axis} is out of range for the result rank {ndim}.")
        return bind(self, x, int(axis) % ndim)

    def impl(self, x, axis):
        return np.expand_dims(x, axis)

    def batch(self, args, dims, size):
        (x, axis), (d, _) = args, dims
        return bind(self, batch_rules.front(x, d, size), axis + 1), 0

    def bprop(self, x, axis, out, dout):
        return ops.reshape(dout, x.shape), None

    def sympy(self, x, axis):
        return np.expand_dims(x, axis)


class Squeeze(_ArrayPrimitive):
    """``ops.Squeeze(axis=())(x)``: remove the given size-1 axes (all of them by default)."""

    def __init__(self, axis=()):
        self.axis = axis

    def __call__(self, x):
        if self.axis in ((), None):
            axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
        else:
            axes = normalize_axis(self.name, self.axis, len(x.shape))
            bad = [a for a in axes if x.shape[a] != 1]
            if bad:
                raise ValueError(
                    f"Squeeze: axis {bad[0]} has size {x.shape[bad[0]]}, not 1, in a tensor of shape "
                    f"{list(x.shape)}; only size-1 axes can be squeezed."
                )
        return bind(self, x, axes)

    def impl(self, x, axes):
        return np.squeeze(x, axis=axes)

    def batch(self, args, dims, size):
        (x, axes), (d, _) = args, dims
        return bind(self, batch_rules.front(x, d, size), tuple(a + 1 for a in axes)), 0

    def bprop(self, x, axes, out, dout):
        return ops.reshape(dout, x.shape), None

    def sympy(self, x, axes):
        return np.squeeze(x, axis=axes)


class BroadcastTo(_ArrayPrimitive):
    """``ops.BroadcastTo(shape)(x)``; -1 in ``shape`` keeps that dimension."""

    def __init__(self, shape):
        self.shape = shape

    def __call__(self, x):
        shape = _shape_tuple(self.name, self.shape)
        lead = len(shape) - len(x.shape)
        shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))
        return bind(self, x, shape)

    def impl(self, x, shape):
        return np.broadcast_to(x, shape)

    def batch(self, args, dims, size):
        (x, shape), (d, _) = args, dims
        x = batch_rules.front(x, d, size)
        missing = len(shape) - (x.ndim - 1)         # the example's leading axes broadcasting adds
        if missing:
            x = ops.reshape(x, (size,) + (1,) * missing + tuple(x.shape[1:]))
        return bind(self, x, (size,) + tuple(shape)), 0

    def bprop(self, x, shape, out, dout):
        return sum_to(dout, x), None

    def sympy(self, x, shape):
        return np.broadcast_to(x, shape).copy()

    def explain_failure(self, exc, args):
        x, shape = args
        return ValueError(
            f"BroadcastTo: cannot broadcast a tensor of shape {list(x.shape)} to shape {list(shape)}: "
            "each dimension must be equal to the target or 1."
        )


class Concat(_ArrayPrimitive):
    """``ops.Concat(axis=0)((x, y, ...))``."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, tensors):
        if not isinstance(tensors, (tuple, list)) or not tensors:
            raise TypeError(f"Concat: expected a non-empty tuple or list of Tensors, got {_describe(tensors)}. "
                            "Fix: put the tensors in one tuple: ops.concat((x, y), axis=0).")
        tensors = [as_operand(self.name, t, f"tensors[{i}]") for i, t in enumerate(tensors)]
        dtypes = [t.dtype for t in tensors if isinstance(t, Tensor)]
        if len(set(dtypes)) > 1:     # promoted as in an arithmetic op (MindSpore's jit: f32 + i64 -> f32)
            common = dtypes[0]
            for dt in dtypes[1:]:
                common = mstype.result_type(common, dt)
            tensors = [ops.cast(t, common) if isinstance(t, Tensor) else t for t in tensors]
        return bind(self, *tensors)

    def impl(self, *xs):
        return np.concatenate(xs, axis=self.axis)

    def batch(self, args, dims, size):
        xs = [batch_rules.front(x, d, size) for x, d in zip(args, dims)]
        axis = batch_rules.batch_axis_shifted(self.axis, xs[0].ndim - 1)
        return bind(type(self)(axis), *xs), 0

    def explain_failure(self, exc, args):
        shapes = [list(getattr(a, "shape", ())) for a in args]
        if len({len(s) for s in shapes}) == 1 and shapes[0] and isinstance(self.axis, int) \
                and -len(shapes[0]) <= self.axis < len(shapes[0]):
            axis = self.axis % len(shapes[0])
            bad = [d for d in range(len(shapes[0])) if d != axis and len({s[d] for s in shapes}) > 1]
            if bad:
                return ValueError(
                    f"Concat: the inputs are joined along axis {axis}, so every other dimension must "
                    f"match, but dimension {bad[0]} differs: shapes {', '.join(map(str, shapes))}. "
                    f"Fix: concatenate along axis {bad[0]} if that was meant, or reshape the inputs."
                )
        return super().explain_failure(exc, args)

    def bprop(self, *args):
        xs, dout = args[:-2], args[-1]
        axis = self.axis % len(dout.shape)
        grads, start = [], 0
        for x in xs:
            stop = start + x.shape[axis]
            index = (slice(None),) * axis + (slice(start, stop),)
            grads.append(ops.getitem(dout, index))
            start = stop
        return tuple(grads)

    def sympy(self, *xs):
        return np.concatenate(xs, axis=self.axis)


class Stack(_ArrayPrimitive):
    """``ops.Stack(axis=0)((x, y, ...))``."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, tensors):
        if not isinstance(tensors, (tuple, list)) or not tensors:
            raise TypeError(f"Stack: expected a non-empty tuple or list of Tensors, got {_describe(tensors)}. "
                            "Fix: put the tensors in one tuple: ops.stack((x, y), axis=0).")
        return bind(self, *tensors)

    def impl(self, *xs):
        return np.stack(xs, axis=self.axis)

    def batch(self, args, dims, size):
        xs = [batch_rules.front(x, d, size) for x, d in zip(args, dims)]
        axis = batch_rules.batch_axis_shifted(self.axis, xs[0].ndim)
        return bind(type(self)(axis), *xs), 0

    def bprop(self, *args):
        xs, dout = args[:-2], args[-1]
        axis = self.axis % len(dout.shape)
        return tuple(ops.getitem(dout, (slice(None),) * axis + (i,)) for i in range(len(xs)))

    def sympy(self, *xs):
        return np.stack(xs, axis=self.axis)


def index_values(t: Tensor) -> np.ndarray:
    """The values of a Tensor used as an index (or as ``ops.gather``'s indices).

    An index is static: its values are read when the index is built.  A Tensor being differentiated
    (jvp, grad) gives its value.  A batch inside ``vmap`` holds one index per example and a
    placeholder of a graph being compiled holds none; their ``_data`` (the first example, zeros)
    must not be read as the index, so they raise.
    """
    if not isinstance(t, Tracer):
        return t._data
    try:
        return t._concrete()._data
    except BatchedValueError:
        raise BatchedValueError(
            f"inside vmap an index Tensor of shape {list(t.shape)} stands for one index per example, but "
            "minims reads an index's values once, when the index is built, so it cannot differ between "
            "examples. Fix: give the index in_axes None (one index shared by every example), or select "
            "per example with ops.one_hot and a product or sum."
        ) from None


def normalize_index(index):
    """A user's index (ints, slices, None, Ellipsis, bool/int Tensors, lists) as a NumPy index tuple."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, Tensor):
            item = index_values(item)
        elif isinstance(item, list):
            item = np.asarray(item)
        if isinstance(item, np.ndarray) and item.dtype.kind not in "biu":
            raise TypeError(f"Tensor index must be integers or bools, got dtype {item.dtype}.")
        if not (item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice, np.ndarray))):
            raise TypeError(
                f"Tensor index: expected ints, slices, None, ..., or integer/bool Tensors, "
                f"but got {_describe(item)}."
            )
        out.append(item)
    return tuple(out)


class GetItem(_ArrayPrimitive):
    """``x[index]`` (MindSpore's tensor getitem); also the body of ``ops.gather``."""

    def __call__(self, x, index):
        return bind(self, x, normalize_index(index))

    def impl(self, x, index):
        return np.asarray(x[index])

    def batch(self, args, dims, size):
        (x, index), (d, _) = args, dims
        if not _keeps_axis_order(index):
            return batch_rules.loop(self, args, dims, size)
        return bind(self, batch_rules.front(x, d, size), (slice(None),) + index), 0

    def bprop(self, x, index, out, dout):
        return GetItemGrad()(dout, x.shape, index), None

    def sympy(self, x, index):
        return np.asarray(x[index], dtype=object)

    def explain_failure(self, exc, args):
        x, index = args
        return IndexError(f"GetItem: index {index!r} is invalid for a tensor of shape {list(x.shape)}: {exc}. "
                          "Fix: along an axis of size n, use indices 0..n-1 (or -n..-1 from the end).")


def _keeps_axis_order(index) -> bool:
    """True when putting a full slice in front of ``index`` keeps the example's axes in order: NumPy
    moves the axes of advanced (array) indices to the front when they are not next to each other."""
    advanced = [i for i, item in enumerate(index) if isinstance(item, (np.ndarray, int, np.integer))
                and not isinstance(item, bool)]
    if not any(isinstance(item, np.ndarray) for item in index):
        return True
    return advanced == list(range(advanced[0], advanced[-1] + 1))


def _has_array(index) -> bool:
    return any(isinstance(i, np.ndarray) for i in index)


class GetItemGrad(_ArrayPrimitive):
    """Scatter-add ``dout`` into zeros of ``shape`` at ``index`` (the adjoint of GetItem)."""

    def __call__(self, dout, shape, index):
        return bind(self, dout, tuple(shape), index)

    def impl(self, dout, shape, index):
        z = np.zeros(shape, dtype=dout.dtype)
        if _has_array(index):
            np.add.at(z, index, dout)        # repeated indices accumulate
        else:
            z[index] = dout
        return z

    def batch(self, args, dims, size):
        (dout, shape, index), (d, _, _) = args, dims
        if not _keeps_axis_order(index):
            return batch_rules.loop(self, args, dims, size)
        return bind(self, batch_rules.front(dout, d, size), (size,) + tuple(shape), (slice(None),) + index), 0

    def sympy(self, dout, shape, index):
        z = np.full(shape, sympy.Integer(0), dtype=object)
        if _has_array(index):
            np.add.at(z, index, dout)
        else:
            z[index] = dout
        return z

    def bprop(self, dout, shape, index, out, ddx):
        return GetItem()(ddx, index), None, None


class SetItem(_ArrayPrimitive):
    """``x`` with ``x[index] = value``, as a new value: what ``t[index] = value`` records on a traced
    Tensor (``Tensor.__setitem__``), so an in-place write is differentiable.  The entries written
    take their gradient from ``value``; ``x`` keeps the gradient of the entries left alone."""

    def __call__(self, x, index, value):
        return bind(self, x, normalize_index(index), value)

    def impl(self, x, index, value):
        out = np.array(x, copy=True)
        out[index] = value
        return out

    def jvp(self, primals, tangents):
        (x, index, value), (tx, _, tv) = primals, tangents
        out = bind(self, x, index, value)
        tv = None if not isinstance(value, Tensor) else tv
        if tx is None and tv is None:
            return out, None
        return out, bind(self, T.or_zeros(tx, x), index, tv if tv is not None else 0)

    def bprop(self, x, index, value, out, dout):
        dx = bind(self, dout, index, 0)                   # what was overwritten gets nothing
        if not isinstance(value, Tensor):
            return dx, None, None
        dvalue = bind(GetItem(), dout, index)
        lost = _overwritten_writes(x.shape, index)
        if lost is not None:                              # a repeated index: only the last write counts
            dvalue = ops.mul(dvalue, Tensor(~lost, dvalue.dtype))
        return dx, None, sum_to(dvalue, value)

    def batch(self, args, dims, size):
        (x, index, value), (dx, _, dv) = args, dims
        if not _keeps_axis_order(index):
            return batch_rules.loop(self, args, dims, size)
        x = batch_rules.front(x, dx, size)
        if dv is not None:              # the batch axis of value must line up with x[:, index]'s
            value = batch_rules.front(value, dv, size)
            target = bind(GetItem(), x, (slice(None),) + index).ndim
            missing = target - value.ndim
            if missing > 0:
                value = ops.reshape(value, (size,) + (1,) * missing + tuple(value.shape[1:]))
        return bind(self, x, (slice(None),) + index, value), 0

    def sympy(self, x, index, value):
        out = np.array(x, dtype=object, copy=True)
        out[index] = value
        return out


def _overwritten_writes(shape, index):
    """For ``x[index] = value`` with a repeated integer index, a Bool array shaped like ``x[index]``:
    True where that write was overwritten by a later one (and so reaches nothing).  ``None`` when no
    position is written twice.  The same assignment is done with write numbers, so whatever order
    NumPy writes in, the survivors found here are the ones the forward pass kept."""
    if not any(isinstance(i, np.ndarray) and i.dtype != np.bool_ for i in index):
        return None
    target = np.empty(shape, dtype=np.int8)[index].shape
    marks = np.full(shape, -1, dtype=np.int64)
    marks[index] = np.arange(int(np.prod(target)), dtype=np.int64).reshape(target)
    survived = np.zeros(int(np.prod(target)), dtype=bool)
    survived[marks[marks >= 0]] = True
    return None if survived.all() else ~survived.reshape(target)


class Fill(_ArrayPrimitive):
    """``ops.Fill()(dtype, shape, value)``."""

    differentiable = False

    def __call__(self, type_, shape, value):
        dt = mstype.to_dtype(type_, "Fill(type)")
        if isinstance(value, Tensor):
            value = value.item()
        if not isinstance(value, (bool, int, float, np.generic)):
            raise TypeError(f"Fill: value must be a number, got {_describe(value)}.")
        return bind(self, dt, _shape_tuple(self.name, shape), value)

    def impl(self, dt, shape, value):
        check_allocation(self.name, shape, dt.np_dtype)
        return np.full(shape, value, dtype=dt.np_dtype)


class OnesLike(_ArrayPrimitive):
    differentiable = False

    def impl(self, x):
        return np.ones_like(x)

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def sympy(self, x):
        return np.full(x.shape, sympy.Integer(1), dtype=object)


class ZerosLike(_ArrayPrimitive):
    differentiable = False

    def impl(self, x):
        return np.zeros_like(x)

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def sympy(self, x):
        return np.full(x.shape, sympy.Integer(0), dtype=object)


class InexactIntegerGradient(MinimsError, RuntimeError):
    """A gradient or tangent that is not a whole number would be rounded into an integer dtype."""


class Cast(_ArrayPrimitive):
    """``ops.Cast()(x, dtype)``; the gradient is cast back to the input's dtype.

    ``Cast(exact=True)`` is the cast the rules use to bring a float gradient (or tangent) back to an
    integer input's dtype: it refuses to round.  MindSpore 2.10 truncates there, so the gradient of
    ``sum(a * 1.5)`` for an Int32 ``a`` is 1 instead of 1.5; an integral gradient (``sum(a * a)``:
    2a) passes unchanged.
    """

    def __init__(self, *, exact=False):
        super().__init__()
        if exact:
            self.exact = True          # an attribute only when set: a plain Cast prints as before

    def __call__(self, x, dtype):
        x = as_operand(self.name, x, "x")
        if not isinstance(x, Tensor):
            x = Tensor(x)
        return bind(self, x, mstype.require_dtype(dtype, "Cast"))

    def impl(self, x, dt):
        out = x.astype(dt.np_dtype, copy=False)
        if getattr(self, "exact", False) and x.dtype.kind == "f" and not np.array_equal(out, x):
            bad = x[out != x]
            raise InexactIntegerGradient(
                f"A gradient (or tangent) flows into an integer Tensor ({dt}), but it is not a whole "
                f"number: {bad[:4].tolist()}{' ...' if bad.size > 4 else ''}; an {dt} cannot hold it "
                "(MindSpore 2.10 silently truncates it). Fix: differentiate with respect to float "
                "Tensors only: pass x.astype(mindspore.float32), or leave the integer input out of "
                "grad_position.")
        return out

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def bprop(self, x, dt, out, dout):
        return cast_gradient(dout, x.dtype), None

    def jvp(self, primals, tangents):
        (x, dt), (t, _) = primals, tangents
        out = bind(self, x, dt)
        # a cast to an integer or Bool dtype is piecewise constant: no tangent (as the bprop)
        return out, (bind(self, t, dt) if dt.is_float and t is not None else None)

    def sympy(self, x, dt):
        """Bool -> number: ``Piecewise((1, cond), (0, True))``; number -> Bool: ``Ne(x, 0)``;
        float -> int truncates toward zero; otherwise the expression is unchanged."""

        def is_bool(e):
            return isinstance(e, sympy.logic.boolalg.Boolean) and not isinstance(e, sympy.Expr)

        def convert(e):
            if dt.kind == "bool":
                return e if is_bool(e) else sympy.Ne(e, 0)
            if is_bool(e):
                return sympy.Piecewise((1, e), (0, True))
            if dt.kind == "int" and not e.is_integer:
                return sympy.Piecewise((sympy.floor(e), e >= 0), (sympy.ceiling(e), True))
            return e
        return np.frompyfunc(convert, 1, 1)(x)


class StopGradient(_ArrayPrimitive):
    """Identity whose output is a constant for every gradient level."""

    differentiable = False

    def impl(self, x):
        return x

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def sympy(self, x):
        return x


class Identity(_ArrayPrimitive):
    def impl(self, x):
        return x

    def batch(self, args, dims, size):
        return batch_rules.unary(self, args, dims, size)

    def bprop(self, x, out, dout):
        return (dout,)

    def sympy(self, x):
        return x
