"""The primitives the core's own rules need, and the functions the rules are written in.

Each class is a row of the table: ``impl`` (NumPy), ``bprop`` and ``jvp`` (written with the functions
at the end of this file, so rules are differentiable again), a batching rule and a SymPy form.  The
backward pass needs ``add`` and ``zeros_like``; broadcasting ``sum_to`` (``ReduceSum``, ``Reshape``)
and ``BroadcastTo``; dtypes ``Cast``; batching ``Transpose``; ``Sin``'s rule ``Mul`` and ``Cos`` —
enough for ``sin(x) * x``, the function chapter 01 follows through the engine.  The rest of the table,
and MindSpore's calling conventions for these rows (argument checks, promotion, messages), are in
``minims.primitives``, which installs them (``core.install``).
"""
from __future__ import annotations

import numpy as np
import sympy

from .stack import MinimsError
from .primitive import Primitive
from .stack import bind, wants_grad
from .tensor import Tensor

__all__ = ["Add", "Mul", "Neg", "Sin", "Cos", "ReduceSum", "Reshape",
           "BroadcastTo", "Transpose", "Cast", "ZerosLike", "OnesLike",
           "add", "mul", "neg", "sin", "cos", "reduce_sum", "reshape",
           "broadcast_to", "transpose", "cast", "cast_gradient", "zeros_like", "ones_like", "sum_to", "fit",
           "move_to_front", "front", "batch_elementwise", "batch_unary", "elementwise_sympy"]


def elementwise_sympy(fn):
    """A SymPy function applied to every entry of an object array (the symbolic interpreter's data)."""
    ufunc = np.frompyfunc(fn, 1, 1)
    return lambda x: np.asarray(ufunc(x), dtype=object)


def move_to_front(value, dim):
    """``value`` with its batch axis ``dim`` moved to the front (``dim`` None or 0: unchanged)."""
    if not dim:
        return value
    return transpose(value, (dim,) + tuple(i for i in range(value.ndim) if i != dim))


def front(value, dim, size):
    """``value`` with its batch axis in front; an unbatched value is broadcast to the batch."""
    if dim is None:
        return broadcast_to(value, (size,) + tuple(value.shape))
    return move_to_front(value, dim)


def batch_unary(prim, args, dims, size):
    """The batching rule of a primitive elementwise in its one Tensor input (the others are static)."""
    return bind(prim, *args), dims[0]


def batch_elementwise(prim, args, dims, size, any_axis=True):
    """The batching rule of operands that broadcast against each other (``any_axis=False``: the
    batched matrix product): batch axes in front, example axes aligned from the right."""
    ranks = [a.ndim - (d is not None) if isinstance(a, Tensor) else 0 for a, d in zip(args, dims)]
    rank = max(ranks)
    batched = [d for d in dims if d is not None]
    if (any_axis or batched[0] == 0) and len(set(batched)) == 1 and all(
            r == rank and d is not None for a, d, r in zip(args, dims, ranks) if isinstance(a, Tensor)):
        return bind(prim, *args), batched[0]         # every operand batched alike: as it is
    new = []
    for a, d, r in zip(args, dims, ranks):
        if d is not None:
            a = move_to_front(a, d)
            a = reshape(a, (a.shape[0],) + (1,) * (rank - r) + tuple(a.shape[1:])) if r < rank else a
        new.append(a)
    return bind(prim, *new), 0


# ----- elementwise -------------------------------------------------------------------------------------
class _Elementwise(Primitive):
    """Elementwise in its Tensor inputs, which broadcast against each other."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def batch(self, args, dims, size):
        return batch_elementwise(self, args, dims, size)


class _Binary(_Elementwise):
    skips_unneeded_grads = True       # ``x * 2.0``: no gradient computed for the constant


class _Unary(_Elementwise):
    def batch(self, args, dims, size):
        return batch_unary(self, args, dims, size)


class Add(_Binary):
    def impl(self, x, y):
        return np.add(x, y)

    def bprop(self, x, y, out, dout):
        return sum_to(dout, x), sum_to(dout, y)

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        return out, fit(tangent_sum(*tangents), out)

    def sympy(self, x, y):
        return np.add(x, y)


class Mul(_Binary):
    def impl(self, x, y):
        return np.multiply(x, y)

    def bprop(self, x, y, out, dout):
        dx = sum_to(mul(dout, y), x) if wants_grad(0) else None
        dy = sum_to(mul(dout, x), y) if wants_grad(1) else None
        return dx, dy

    def jvp(self, primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = bind(self, x, y)
        return out, fit(tangent_sum(tangent_times(tx, y), tangent_times(ty, x)), out)

    def sympy(self, x, y):
        return np.multiply(x, y)


class Neg(_Unary):
    def impl(self, x):
        return np.negative(x)

    def bprop(self, x, out, dout):
        return (neg(dout),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), neg(tangents[0])

    def sympy(self, x):
        return np.negative(x)


class Sin(_Unary):
    float_only = True

    def impl(self, x):
        return np.sin(x, dtype=np.float64).astype(x.dtype, copy=False)  # rounded once: float32 sin is 1 ULP off

    def bprop(self, x, out, dout):
        return (mul(dout, cos(x)),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), mul(tangents[0], cos(primals[0]))

    sympy = staticmethod(elementwise_sympy(sympy.sin))


class Cos(_Unary):
    float_only = True

    def impl(self, x):
        return np.cos(x, dtype=np.float64).astype(x.dtype, copy=False)  # rounded once: float32 cos is 1 ULP off

    def bprop(self, x, out, dout):
        return (neg(mul(dout, sin(x))),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), neg(mul(tangents[0], sin(primals[0])))

    sympy = staticmethod(elementwise_sympy(sympy.cos))


# ----- shapes and dtypes ---------------------------------------------------------------------------------
class _Linear(Primitive):
    """Linear in its Tensor inputs: the tangent is the primitive applied to the tangents."""

    checks_rule_results = False

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        if all(t is None for t in tangents):
            return out, None
        ts = [(zeros_like(p) if t is None else t) if isinstance(p, Tensor) else p
              for t, p in zip(tangents, primals)]
        return out, bind(self, *ts)


class _Reduce(Primitive):
    """A reduction over ``axes`` (a sorted tuple), keeping them as size 1 or not."""

    checks_rule_results = False

    def __init__(self, keep_dims=False):
        self.keep_dims = bool(keep_dims)

    def batch(self, args, dims, size):
        (x, axes), (d, _) = args, dims
        return bind(self, front(x, d, size), tuple(a + 1 for a in axes)), 0

    def _kept_shape(self, x, axes):
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape))

    def _expand(self, g, x, axes):         # an output-shaped gradient, broadcastable against x
        return g if self.keep_dims else reshape(g, self._kept_shape(x, axes))


class ReduceSum(_Reduce):
    def impl(self, x, axes):
        out = np.sum(x, axis=axes, keepdims=self.keep_dims)
        return np.asarray(out, dtype=x.dtype if x.dtype.kind != "b" else np.int64)

    def bprop(self, x, axes, out, dout):
        return broadcast_to(self._expand(dout, x, axes), x.shape), None

    def jvp(self, primals, tangents):
        (x, axes), (t, _) = primals, tangents
        return bind(self, x, axes), bind(self, t, axes)

    def sympy(self, x, axes):
        return np.asarray(np.sum(x, axis=axes, keepdims=self.keep_dims), dtype=object)


class Reshape(_Linear):
    def impl(self, x, shape):
        return x.reshape(shape)

    def batch(self, args, dims, size):
        (x, shape), (d, _) = args, dims
        return bind(self, front(x, d, size), (size,) + tuple(shape)), 0

    def bprop(self, x, shape, out, dout):
        return reshape(dout, x.shape), None

    def sympy(self, x, shape):
        return x.reshape(shape)


class Transpose(_Linear):
    def impl(self, x, perm):
        return np.transpose(x, perm)

    def batch(self, args, dims, size):
        (x, perm), (d, _) = args, dims
        return bind(self, front(x, d, size), (0,) + tuple(p + 1 for p in perm)), 0

    def bprop(self, x, perm, out, dout):
        return transpose(dout, tuple(np.argsort(perm).tolist())), None

    def sympy(self, x, perm):
        return np.transpose(x, perm)


class BroadcastTo(_Linear):
    """``BroadcastTo(shape)(x)``."""

    def __init__(self, shape):
        self.shape = shape

    def __call__(self, x):
        return bind(self, x, tuple(self.shape))

    def impl(self, x, shape):
        return np.broadcast_to(x, shape)

    def batch(self, args, dims, size):
        (x, shape), (d, _) = args, dims
        x = front(x, d, size)
        missing = len(shape) - (x.ndim - 1)         # the example's leading axes broadcasting adds
        if missing:
            x = reshape(x, (size,) + (1,) * missing + tuple(x.shape[1:]))
        return bind(self, x, (size,) + tuple(shape)), 0

    def bprop(self, x, shape, out, dout):
        return sum_to(dout, x), None

    def sympy(self, x, shape):
        return np.broadcast_to(x, shape).copy()


class Cast(_Linear):
    """``Cast()(x, dtype)``; the gradient is cast back to the input's dtype.  ``Cast(exact=True)`` is
    the cast that brings a float gradient back to an integer input's dtype: ``minims.primitives.array``
    makes it refuse to round (MindSpore truncates), and installs the SymPy form."""

    def __init__(self, *, exact=False):
        if exact:
            self.exact = True          # an attribute only when set: a plain Cast prints as before

    def impl(self, x, dt):
        return x.astype(dt.np_dtype, copy=False)

    def batch(self, args, dims, size):
        return batch_unary(self, args, dims, size)

    def bprop(self, x, dt, out, dout):
        return cast_gradient(dout, x.dtype), None

    def jvp(self, primals, tangents):
        (x, dt), (t, _) = primals, tangents
        out = bind(self, x, dt)
        # a cast to an integer or Bool dtype is piecewise constant: no tangent (as the bprop)
        return out, (bind(self, t, dt) if dt.is_float and t is not None else None)


class _Constant(_Linear):
    """Ones or zeros shaped like the input: no gradient flows through it."""

    differentiable = False

    def batch(self, args, dims, size):
        return batch_unary(self, args, dims, size)


class OnesLike(_Constant):
    def impl(self, x):
        return np.ones_like(x)

    def sympy(self, x):
        return np.full(x.shape, sympy.Integer(1), dtype=object)


class ZerosLike(_Constant):
    def impl(self, x):
        return np.zeros_like(x)

    def sympy(self, x):
        return np.full(x.shape, sympy.Integer(0), dtype=object)


# ----- the functions the rules are written in ------------------------------------------------------------
# Each binds its primitive at once in the case the rules meet (Tensors of one dtype); otherwise the
# primitive's call checks and promotes its operands (MindSpore's rules, once installed).
_add, _mul, _neg, _sin, _cos = Add(), Mul(), Neg(), Sin(), Cos()
_sum, _reshape, _transpose, _cast = ReduceSum(), Reshape(), Transpose(), Cast()
_ones_like, _zeros_like, _exact_cast = OnesLike(), ZerosLike(), Cast(exact=True)


def add(x, y):
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype:
        return bind(_add, x, y)
    return _add(x, y)


def mul(x, y):
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype is y._data.dtype:
        return bind(_mul, x, y)
    return _mul(x, y)


def neg(x):
    return bind(_neg, x)


def sin(x):
    return bind(_sin, x) if x._data.dtype.kind == "f" else _sin(x)


def cos(x):
    return bind(_cos, x) if x._data.dtype.kind == "f" else _cos(x)


def ones_like(x):
    return bind(_ones_like, x)


def zeros_like(x):
    return bind(_zeros_like, x)


def reduce_sum(x, axes):
    return bind(_sum, x, tuple(axes))


def reshape(x, shape):
    return bind(_reshape, x, tuple(shape))


def transpose(x, perm):
    return bind(_transpose, x, tuple(perm))


def broadcast_to(x, shape):
    return BroadcastTo(tuple(shape))(x)


def cast(x, dtype):
    return bind(_cast, x, dtype)


def cast_gradient(g, dtype):
    """``g`` cast to ``dtype``: into an integer dtype only if it holds whole numbers (never rounded)."""
    return bind(_exact_cast if g.dtype.is_float and dtype.kind == "int" else _cast, g, dtype)


def sum_to(g, like):
    """Sum the broadcast gradient ``g`` back to the shape and dtype of ``like`` (None for a number)."""
    if not isinstance(like, Tensor):
        return None
    if g._data.shape == like._data.shape and g._data.dtype is like._data.dtype:
        return g                    # the common case, decided without a property call
    return _summed_to(g, like)


def _summed_to(g, like):
    shape, gshape = like._data.shape, g._data.shape
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1)
        if axes:
            g = reduce_sum(g, axes)
        if g.shape != shape:
            g = reshape(g, shape)
    if g._data.dtype != like._data.dtype:
        g = cast_gradient(g, like.dtype)
    return g


def fit(t, out):
    """Tangent ``t`` broadcast to the shape of ``out`` and cast to its dtype (None, a zero, stays)."""
    if t is None:
        return None
    if t.shape != out.shape:
        t = broadcast_to(t, out.shape)
    return t if t._data.dtype == out._data.dtype else cast_gradient(t, out.dtype)


def tangent_sum(a, b):          # tangents may be None: a zero nobody computed
    return b if a is None else a if b is None else add(a, b)


def tangent_times(t, factor):
    return None if t is None else mul(t, factor)


def _reflected(fn):
    return lambda self, other: fn(other, self)


# the core's Tensor operators (``minims.primitives`` installs MindSpore's full set over them)
Tensor.__add__, Tensor.__radd__ = _add, _reflected(_add)
Tensor.__mul__, Tensor.__rmul__ = _mul, _reflected(_mul)
Tensor.__neg__ = _neg
