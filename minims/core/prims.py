"""The primitives the core's own rules need, and the functions the rules are written in.

Each class is a full row of the table: ``impl`` (NumPy), ``bprop`` and ``jvp`` (written with the
functions at the end of this file, so rules are differentiable again), a batching rule and a SymPy
form.  The backward pass itself needs ``add`` and ``zeros_like``; broadcasting needs ``sum_to``
(``ReduceSum``, ``Reshape``) and ``BroadcastTo``; a dtype change ``Cast``; the batching interpreter
``Transpose``; the rules of ``Sin`` and ``Cos`` need ``Mul``, ``Neg`` and each other — enough for
``sin(x) * x``, the function chapter 01 follows through the engine.

The rest of the table — and MindSpore's calling conventions for these rows (argument checks, type
promotion, messages) — lives in ``minims.primitives``, which installs them (``seams.install``).
Here a binary operation takes two Tensors of one dtype, or a Tensor and a Python number.
"""
from __future__ import annotations

import numpy as np
import sympy

from . import dtype as mstype
from .errors import MinimsError
from .primitive import Primitive, wants_grad
from .stack import bind
from .tensor import Tensor

__all__ = ["Add", "Mul", "Neg", "Sin", "Cos", "ReduceSum", "Reshape",
           "BroadcastTo", "Transpose", "Cast", "ZerosLike", "OnesLike", "InexactIntegerGradient",
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
    """The batching rule of operands that broadcast against each other (with ``any_axis=False``,
    the batched matrix product, whose last two axes are the matrices): batch axes to the front,
    each operand's example axes aligned from the right, as broadcasting aligns them."""
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

    def __call__(self, x, y):
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.dtype != y._data.dtype:
            target = mstype.from_numpy(np.promote_types(x._data.dtype, y._data.dtype))
            x, y = cast(x, target), cast(y, target)
        return bind(self, x, y)


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
        return out, fit(_plus(*tangents), out)

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
        return out, fit(_plus(_times(tx, y), _times(ty, x)), out)

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
        return np.sin(x)

    def bprop(self, x, out, dout):
        return (mul(dout, cos(x)),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), mul(tangents[0], cos(primals[0]))

    sympy = staticmethod(elementwise_sympy(sympy.sin))


class Cos(_Unary):
    float_only = True

    def impl(self, x):
        return np.cos(x)

    def bprop(self, x, out, dout):
        return (neg(mul(dout, sin(x))),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), neg(mul(tangents[0], sin(primals[0])))

    sympy = staticmethod(elementwise_sympy(sympy.cos))


# ----- shapes and dtypes ---------------------------------------------------------------------------------
class _Linear(Primitive):
    """Moves values around without computing on them, linear in its Tensor inputs: the tangent of
    the result is the primitive applied to the tangents (the other arguments are static)."""

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

    def _expand(self, g, x, axes):
        """Bring an output-shaped gradient back to a shape that broadcasts against ``x``."""
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


class InexactIntegerGradient(MinimsError, RuntimeError):
    """A gradient or tangent that is not a whole number would be rounded into an integer dtype."""


class Cast(_Linear):
    """``Cast()(x, dtype)``; the gradient is cast back to the input's dtype.  ``Cast(exact=True)``
    refuses to round: the cast that brings a float gradient back to an integer input's dtype."""

    def __init__(self, *, exact=False):
        if exact:
            self.exact = True          # an attribute only when set: a plain Cast prints as before

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
        return batch_unary(self, args, dims, size)

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


class _Constant(_Linear):
    """A Tensor of ones or zeros shaped like the input: no gradient flows through it."""

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
_add, _mul, _neg, _sin, _cos = Add(), Mul(), Neg(), Sin(), Cos()
_sum, _reshape, _transpose, _cast = ReduceSum(), Reshape(), Transpose(), Cast()
_ones_like, _zeros_like, _exact_cast = OnesLike(), ZerosLike(), Cast(exact=True)
add, mul, neg, sin, cos = _add, _mul, _neg, _sin, _cos
ones_like, zeros_like = _ones_like, _zeros_like


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
    """A gradient or tangent cast to ``dtype`` (its input's or output's): into an integer dtype only
    if it holds whole numbers (``Cast(exact=True)``), never silently rounded."""
    return bind(_exact_cast if g.dtype.is_float and dtype.kind == "int" else _cast, g, dtype)


def sum_to(g, like):
    """Sum the broadcast gradient ``g`` back to the shape and dtype of ``like`` (None for a number):
    the gradient side of broadcasting."""
    if not isinstance(like, Tensor):
        return None
    data, gdata = like._data, g._data
    shape, gshape = data.shape, gdata.shape
    if gshape == shape and gdata.dtype is data.dtype:
        return g                    # the common case, decided without a property call
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1)
        if axes:
            g = reduce_sum(g, axes)
        if g.shape != shape:
            g = reshape(g, shape)
    if g._data.dtype != data.dtype:
        g = cast_gradient(g, like.dtype)
    return g


def fit(t, out):
    """Tangent ``t`` broadcast to the shape of ``out`` and cast to its dtype (None, a zero, stays)."""
    if t is None:
        return None
    if t.shape != out.shape:
        t = broadcast_to(t, out.shape)
    return t if t._data.dtype == out._data.dtype else cast_gradient(t, out.dtype)


def _plus(a, b):
    return b if a is None else a if b is None else add(a, b)


def _times(t, factor):
    return None if t is None else mul(t, factor)


def _reflected(fn):
    return lambda self, other: fn(other, self)


# the core's Tensor operators (``minims.primitives`` installs MindSpore's full set over them)
Tensor.__add__, Tensor.__radd__ = _add, _reflected(_add)
Tensor.__mul__, Tensor.__rmul__ = _mul, _reflected(_mul)
Tensor.__neg__ = _neg
