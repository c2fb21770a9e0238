"""Array primitives: shape changes, joining, indexing, creation and casting.

Shape arguments (a shape, a permutation, an axis) are *static*: they are passed to ``bind`` as
Python values, so they are constants in every interpreter and get ``None`` as their gradient.  An
index is static too except for its Tensors, which are operands (``index_operands``): a compiled
graph reads each call's index.  Indexing is one primitive, ``GetItem``, whose backward rule
``GetItemGrad`` scatters the gradient into zeros; the two are each other's derivative, so indexing
is differentiable to any order.
"""
from __future__ import annotations

import numpy as np
import sympy

from . import functional as ops
from .. import dtype as mstype
from ..tensors.memory import check_allocation
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..core.stack import MinimsError
from ..core.stack import Tracer, bind
from ..core.primitive import Primitive
from ..core.prims import BroadcastTo, Cast, OnesLike, Reshape, Transpose, ZerosLike, _Linear
from ..core import install
from . import batch_rules, tangents as T
from .index_operands import (CompiledShapeChanged, Slot, check_in_range, concrete_index_array, fill,
                             has_int_array, has_mask, mask_shape, split_index)
from .operands import as_operand, cast_gradient, normalize_axis, sum_to


class _ArrayPrimitive(_Linear):
    """Shape, indexing, creation and cast primitives move values around without computing on them,
    so their SymPy rules take relationals (a Bool tensor's entries) as they are.  Most are linear in
    their Tensor inputs, so their forward-mode rule is the primitive itself applied to the tangents
    (with the same static arguments: the core's ``_Linear``, whose rows ``Reshape``, ``Transpose``,
    ``BroadcastTo``, ``Cast``, ``OnesLike`` and ``ZerosLike`` are, get MindSpore's calls below)."""

    takes_booleans = True


def _shape_tuple(op_name: str, shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (tuple, list)) and all(isinstance(s, (int, np.integer)) for s in shape):
        return tuple(int(s) for s in shape)
    raise TypeError(f"{op_name}: shape must be a tuple of ints, but got {_describe(shape)}.")


# ----- MindSpore's calls for the core's rows -------------------------------------------------------------
def _reshape_call(self, x, shape):
    """``ops.Reshape()(x, shape)``; one entry of ``shape`` may be -1."""
    shape = _shape_tuple(self.name, shape)
    if any(d < -1 for d in shape) or sum(d == -1 for d in shape) > 1:
        # ValueError, as MindSpore ("invalid proposed_shape dimension", "only one dimension can
        # be inferred"); NumPy would read any negative entry as -1
        raise ValueError(f"{self.name}: invalid shape {list(shape)}: every entry must be a size >= 0, "
                         "except one -1 for a dimension to infer. Fix: e.g. (-1,) to flatten, "
                         "(2, -1) for two rows.")
    return bind(self, x, shape)


def _reshape_failure(self, exc, args):
    x, shape = args
    return ValueError(
        f"Reshape: cannot reshape a tensor of shape {list(x.shape)} ({int(np.prod(x.shape))} "
        f"elements) into shape {list(shape)}. The number of elements must stay the same; "
        "use -1 for one dimension to have it inferred.")


def _transpose_call(self, x, perm=None):
    """``ops.Transpose()(x, perm)``."""
    ndim = len(x.shape)
    perm = tuple(reversed(range(ndim))) if perm is None else _shape_tuple(self.name, perm)
    if sorted(p % ndim if ndim else p for p in perm) != list(range(ndim)) or len(perm) != ndim:
        raise ValueError(
            f"Transpose: perm {list(perm)} is not a permutation of the {ndim} axes of a tensor "
            f"of shape {list(x.shape)}. Fix: name every axis 0..{ndim - 1} once, e.g. "
            f"{tuple(reversed(range(ndim)))} reverses them.")
    return bind(self, x, tuple(p % ndim for p in perm))


def _broadcast_to_call(self, x):
    """``ops.BroadcastTo(shape)(x)``; -1 in ``shape`` keeps that dimension."""
    shape = _shape_tuple(self.name, self.shape)
    lead = len(shape) - len(x.shape)
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))
    return bind(self, x, shape)


def _broadcast_to_failure(self, exc, args):
    x, shape = args
    return ValueError(
        f"BroadcastTo: cannot broadcast a tensor of shape {list(x.shape)} to shape {list(shape)}: "
        "each dimension must be equal to the target or 1.")


def _cast_call(self, x, dtype):
    """``ops.Cast()(x, dtype)``; the gradient is cast back to the input's dtype."""
    x = as_operand(self.name, x, "x")
    if not isinstance(x, Tensor):
        x = Tensor(x)
    return bind(self, x, mstype.require_dtype(dtype, "Cast"))


def _cast_sympy(self, x, dt):
    """Bool -> number: ``Piecewise((1, cond), (0, True))``; number -> Bool: ``Ne(x, 0)``;
    float -> int truncates toward zero; otherwise the expression is unchanged."""
    def convert(e):
        is_bool = isinstance(e, sympy.logic.boolalg.Boolean) and not isinstance(e, sympy.Expr)
        if dt.kind == "bool":
            return e if is_bool else sympy.Ne(e, 0)
        if is_bool:
            return sympy.Piecewise((1, e), (0, True))
        if dt.kind == "int" and not e.is_integer:
            return sympy.Piecewise((sympy.floor(e), e >= 0), (sympy.ceiling(e), True))
        return e
    return np.frompyfunc(convert, 1, 1)(x)


class InexactIntegerGradient(MinimsError, RuntimeError):
    """A gradient or tangent that is not a whole number would be rounded into an integer dtype."""


def _cast_impl(self, x, dt):
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


install(_Linear, takes_booleans=True)
install(Reshape, __call__=_reshape_call, explain_failure=_reshape_failure)
install(Transpose, __call__=_transpose_call)
install(BroadcastTo, __call__=_broadcast_to_call, explain_failure=_broadcast_to_failure)
install(Cast, __call__=_cast_call, sympy=_cast_sympy, impl=_cast_impl)


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


def normalize_index(index):
    """A user's index as a NumPy index tuple, its Tensors read now: a *constant* index (tests and
    rules that build one).  The primitives below take index Tensors as operands instead."""
    template, tensors = split_index(index)
    return fill(template, [t._concrete()._data if isinstance(t, Tracer) else t._data for t in tensors])


class _Indexed(_ArrayPrimitive):
    """Indexing primitives: the index is a template (static) followed by the index Tensors as
    operands (``index_operands``).  Linear in the first input; the index Tensors are values, never
    differentiated, so the forward-mode rule applies the primitive to the first input's tangent
    with the same index."""

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        if tangents[0] is None:
            return out, None
        return out, bind(self, tangents[0], *primals[1:])


class GetItem(_Indexed):
    """``x[index]`` (MindSpore's tensor getitem); also the body of ``ops.gather``:
    ``bind(GetItem(), x, template, *index_tensors)``.

    ``GetItem(out_shape=...)`` is what a graph records for a Bool mask Tensor (``fix_shape``): the
    output shape the graph was compiled for, checked at every run (``CompiledShapeChanged``).
    """

    def __init__(self, *, out_shape=None):
        super().__init__()
        if out_shape is not None:
            self.out_shape = tuple(out_shape)   # an attribute only when set: a plain GetItem prints as before

    def __call__(self, x, index):
        template, tensors = split_index(index)
        return bind(self, x, template, *tensors)

    def _expected(self):
        return getattr(self, "out_shape", None)

    def impl(self, x, template, *arrays):
        check_in_range(x.shape, template, arrays)
        out = np.asarray(x[fill(template, arrays)])
        _check_selection(self.name, self._expected(), out.shape)
        return out

    def abstract_eval(self, x, template, *arrays):
        """The output type while a graph is traced; for a Bool mask the shape ``fix_shape`` fixed
        (the placeholder's zeros would select nothing)."""
        expected = self._expected()
        if expected is None:
            return self.impl(x, template, *arrays)
        check_in_range(x.shape, template, arrays)
        return np.zeros(expected, x.dtype)

    def fix_shape(self, args, value_of):
        """Called by the staging interpreter before recording: a Bool mask that is a value of the
        graph selects as many entries as it has True values, so the graph records the count its
        values give now (``value_of``) and compiles again when a call selects another count."""
        x, template, *tensors = args
        shape = _selection(x.shape, template, tensors, value_of, self._expected())
        return self if shape == self._expected() else GetItem(out_shape=shape)

    def batch(self, args, dims, size):
        x, template, *tensors = args
        if any(d is not None for d in dims[2:]) or not _keeps_axis_order(template):
            return batch_rules.loop(self, args, dims, size)     # one index per example: one take each
        expected = self._expected()
        prim = GetItem(out_shape=None if expected is None else (size,) + expected)
        return bind(prim, batch_rules.front(x, dims[0], size), (slice(None),) + template, *tensors), 0

    def bprop(self, x, template, *rest):
        *tensors, out, dout = rest
        return (bind(GetItemGrad(), dout, tuple(x.shape), template, *tensors), None) + (None,) * len(tensors)

    def sympy(self, x, template, *tensors):
        index = fill(template, [concrete_index_array(t) for t in tensors])
        return np.asarray(x[index], dtype=object)

    def explain_failure(self, exc, args):
        x, template, *tensors = args
        given = f" with index Tensors {', '.join(_describe(t) for t in tensors)}" if tensors else ""
        return IndexError(f"GetItem: index {template!r}{given} is invalid for a tensor of shape "
                          f"{list(x.shape)}: {exc}. "
                          "Fix: along an axis of size n, use indices 0..n-1 (or -n..-1 from the end).")


def _selection(shape, template, tensors, value_of, fixed):
    """For a graph being traced: the shape of ``x[index]`` (``x`` of ``shape``) when a Bool mask
    that is a value of the graph decides it, from the mask's value in the call being compiled
    (``value_of``).  ``fixed``: the shape a primitive already holds (replayed from another graph),
    kept where no mask decides or the values are not known (a backward graph, traced on zeros), and
    otherwise checked anew (a jit inlined into another: its graph may hold an older call's count)."""
    if not any(isinstance(t, Tracer) and t.dtype.kind == "bool" for t in tensors):
        return fixed
    arrays = [value_of(t, required=fixed is None) if t.dtype.kind == "bool" else np.zeros(t.shape, np.int64)
              for t in tensors]
    if any(a is None for a in arrays):
        return fixed
    try:
        return mask_shape(shape, template, arrays)
    except IndexError:
        return fixed            # an index that fits no call: the abstract evaluation names the problem


def _check_selection(name, expected, got) -> None:
    """The check a graph compiled for one mask count runs: ``jit`` compiles again when it fails."""
    if expected is not None and tuple(got) != expected:
        raise CompiledShapeChanged(
            f"{name}: this graph was compiled for a Bool mask selecting shape {list(expected)}, but this "
            f"call's mask selects shape {list(got)}. A jit function compiles again when that happens; "
            "met elsewhere, a compiled graph ran outside its jit function. Fix: call the jit function "
            "itself, or keep the shape fixed: ops.select(mask, x, ops.zeros_like(x)).")


def _keeps_axis_order(index) -> bool:
    """True when putting a full slice in front of ``index`` keeps the example's axes in order: NumPy
    moves the axes of advanced (array) indices to the front when they are not next to each other.
    An index Tensor (a Slot) is an array index."""
    arrays = (np.ndarray, Slot)
    advanced = [i for i, item in enumerate(index) if isinstance(item, arrays + (int, np.integer))
                and not isinstance(item, bool)]
    if not any(isinstance(item, arrays) for item in index):
        return True
    return advanced == list(range(advanced[0], advanced[-1] + 1))


def _has_array(index) -> bool:
    return any(isinstance(i, np.ndarray) for i in index)


class GetItemGrad(_Indexed):
    """Scatter-add ``dout`` into zeros of ``shape`` at ``index`` (the adjoint of GetItem):
    ``bind(GetItemGrad(), dout, shape, template, *index_tensors)``."""

    def __call__(self, dout, shape, index):
        template, tensors = split_index(index)
        return bind(self, dout, tuple(shape), template, *tensors)

    def impl(self, dout, shape, template, *arrays):
        check_in_range(shape, template, arrays)
        return _scatter_add(np.zeros(shape, dtype=dout.dtype), fill(template, arrays), dout)

    def abstract_eval(self, dout, shape, template, *arrays):
        """A placeholder mask selects nothing, so ``dout`` would not fit it: the type only."""
        if any(a.dtype == np.bool_ for a in arrays):
            return np.zeros(shape, dout.dtype)
        return self.impl(dout, shape, template, *arrays)

    def batch(self, args, dims, size):
        dout, shape, template, *tensors = args
        if any(d is not None for d in dims[3:]) or not _keeps_axis_order(template):
            return batch_rules.loop(self, args, dims, size)
        return bind(self, batch_rules.front(dout, dims[0], size), (size,) + tuple(shape),
                    (slice(None),) + template, *tensors), 0

    def sympy(self, dout, shape, template, *tensors):
        index = fill(template, [concrete_index_array(t) for t in tensors])
        return _scatter_add(np.full(shape, sympy.Integer(0), dtype=object), index, dout)

    def bprop(self, dout, shape, template, *rest):
        *tensors, out, ddx = rest
        # the gather back has dout's shape, known even where a mask's count is not (a graph)
        prim = GetItem(out_shape=tuple(dout.shape)) if has_mask(tensors) else GetItem()
        return (bind(prim, ddx, template, *tensors), None, None) + (None,) * len(tensors)


def _scatter_add(z, index, dout):
    if _has_array(index):
        np.add.at(z, index, dout)        # repeated indices accumulate
    else:
        z[index] = dout
    return z


class SetItem(_Indexed):
    """``x`` with ``x[index] = value``, as a new value: what ``t[index] = value`` records on a traced
    Tensor (``Tensor.__setitem__``), so an in-place write is differentiable.  The entries written
    take their gradient from ``value``; ``x`` keeps the gradient of the entries left alone.
    ``bind(SetItem(), x, template, value, *index_tensors)``.

    ``SetItem(selected=...)`` is what a graph records for a Bool mask Tensor and a Tensor value: the
    shape of ``x[mask]`` it was compiled for (its backward graph gathers that many gradients),
    checked at every run, as ``GetItem(out_shape=...)``.
    """

    def __init__(self, *, selected=None):
        super().__init__()
        if selected is not None:
            self.selected = tuple(selected)     # an attribute only when set, as GetItem's out_shape

    def __call__(self, x, index, value):
        template, tensors = split_index(index)
        return bind(self, x, template, value, *tensors)

    def _expected(self):
        return getattr(self, "selected", None)

    def impl(self, x, template, value, *arrays):
        check_in_range(x.shape, template, arrays)
        if self._expected() is not None:
            _check_selection(self.name, self._expected(), mask_shape(x.shape, template, arrays))
        out = np.array(x, copy=True)
        out[fill(template, arrays)] = value
        return out

    def abstract_eval(self, x, template, value, *arrays):
        """The output type while a graph is traced.  A placeholder mask selects nothing, so for a
        mask the value is checked against the selection ``fix_shape`` fixed (a Python number
        written needs none: it fits any selection)."""
        if not any(a.dtype == np.bool_ for a in arrays):
            return self.impl(x, template, value, *arrays)
        check_in_range(x.shape, template, arrays)
        if self._expected() is not None:
            np.broadcast_to(value, self._expected())        # a value that does not fit: ValueError
        return np.array(x, copy=True)

    def fix_shape(self, args, value_of):
        """As ``GetItem.fix_shape``, for a Tensor value written through a mask that is a value of
        the graph: its gradient is ``dout[mask]``, which has that shape."""
        x, template, value, *tensors = args
        if not isinstance(value, Tensor):
            return self
        shape = _selection(x.shape, template, tensors, value_of, self._expected())
        return self if shape == self._expected() else SetItem(selected=shape)

    def jvp(self, primals, tangents):
        x, template, value, *tensors = primals
        tx, tv = tangents[0], tangents[2]
        out = bind(self, *primals)
        tv = None if not isinstance(value, Tensor) else tv
        if tx is None and tv is None:
            return out, None
        return out, bind(self, T.or_zeros(tx, x), template, tv if tv is not None else 0, *tensors)

    def bprop(self, x, template, value, *rest):
        *tensors, out, dout = rest
        untouched = (None,) * len(tensors)
        dx = bind(SetItem(), dout, template, 0, *tensors)          # what was overwritten gets nothing
        if not isinstance(value, Tensor):
            return (dx, None, None) + untouched
        gather = GetItem(out_shape=self._expected())
        dvalue = _surviving_writes_only(bind(gather, dout, template, *tensors), x.shape, template, tensors)
        return (dx, None, sum_to(dvalue, value)) + untouched

    def batch(self, args, dims, size):
        x, template, value, *tensors = args
        dx, dv = dims[0], dims[2]
        if any(d is not None for d in dims[3:]) or not _keeps_axis_order(template):
            return batch_rules.loop(self, args, dims, size)
        x = batch_rules.front(x, dx, size)
        template = (slice(None),) + template
        expected = self._expected()
        if dv is not None:              # the batch axis of value must line up with x[:, index]'s
            value = batch_rules.front(value, dv, size)
            target = (len(expected) + 1 if expected is not None else
                      bind(GetItem(), x, template, *tensors).ndim)
            missing = target - value.ndim
            if missing > 0:
                value = ops.reshape(value, (size,) + (1,) * missing + tuple(value.shape[1:]))
        prim = SetItem(selected=None if expected is None else (size,) + expected)
        return bind(prim, x, template, value, *tensors), 0

    def sympy(self, x, template, value, *tensors):
        out = np.array(x, dtype=object, copy=True)
        out[fill(template, [concrete_index_array(t) for t in tensors])] = value
        return out


def _surviving_writes_only(dvalue, shape, template, tensors):
    """``dvalue`` (the gradient of each write of ``x[index] = value``) with zeros for the writes
    that a later write to the same position overwrote: only the last write reaches the output."""
    if not tensors:
        lost = _overwritten_writes(shape, template)
        return dvalue if lost is None else ops.mul(dvalue, Tensor(~lost, dvalue.dtype))
    if not has_int_array(template, tensors):
        return dvalue               # a mask names each position once
    # The index is a value (known when a graph runs): number the writes, write the numbers as the
    # forward pass wrote the values, read them back; a write survived where it reads its own number.
    numbers = Tensor(np.arange(int(np.prod(dvalue.shape)), dtype=np.int64).reshape(dvalue.shape))
    selected = tuple(dvalue.shape) if has_mask(tensors) else None      # known where a mask's count is not
    marks = bind(SetItem(selected=selected), Tensor(np.full(shape, -1, np.int64)), template, numbers, *tensors)
    kept = ops.equal(bind(GetItem(out_shape=selected), marks, template, *tensors), numbers)
    return ops.mul(dvalue, ops.cast(kept, dvalue.dtype))


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
