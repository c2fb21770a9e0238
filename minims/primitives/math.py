"""Elementwise arithmetic and transcendental primitives with their backward rules.

``Add``, ``Mul``, ``Neg``, ``Sin`` and ``Cos`` are rows of the teaching core (``minims.core.prims``);
the rest of the arithmetic is here, on the same bases.  MindSpore's calling convention for all of
them — the arity check, the operands' checks and MindSpore's type promotion (``int32 + float16 ->
float16``; Python numbers stay constants), integer inputs of float-only functions computed in float32,
broadcasting errors worded for a learner — is installed on those bases by ``functional.py``, beside
the functions (``ops.sin``) that call them.

Binary ops broadcast; their ``bprop`` un-broadcasts with ``sum_to``.  Every rule is written in
minims ops on the primal values, so differentiating a rule again just works.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy

from .. import dtype as mstype
from . import functional as ops
from ..core import prims as _core
from ..core.stack import MinimsError
from ..core.prims import Add, Cos, Mul, Neg, Sin, _Binary, _Unary
from ..core import install
from ..core.stack import bind
from ..core.tensor import Tensor
from ..core.primitive import Primitive, wants_grad
from ..tensors.convert import describe, describe_args
from . import batch_rules, tangents as T
from .accurate import in_float64, logistic
from .input_grads import SigmoidGrad, SqrtGrad, TanhGrad
from .operands import as_operand, binary_operands, sum_to
from ..fast import scalar_forms as F

__all__ = ["Add", "Sub", "Mul", "Div", "RealDiv", "Pow", "Maximum", "Minimum", "FloorDiv", "FloorMod", "Mod",
           "Neg", "Exp", "Log", "Sqrt", "Square", "Abs", "Sign", "Sin", "Cos", "Tanh", "Sigmoid", "Reciprocal",
           "Floor", "sym_elementwise"]

sym_elementwise = _core.elementwise_sympy


class Sub(_Binary):
    def impl(self, x, y):
        return np.subtract(x, y)

    def bprop(self, x, y, out, dout):
        return sum_to(dout, x), (sum_to(ops.neg(dout), y) if wants_grad(1) else None)

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        return out, T.fit(T.sub(*tangents), out)

    def sympy(self, x, y):
        return np.subtract(x, y)


class Div(_Binary):
    """True division (MindSpore's ``RealDiv``/``Div``); integer operands give Float32."""

    float_result = True

    def impl(self, x, y):
        return np.true_divide(x, y)

    def bprop(self, x, y, out, dout):
        dx = sum_to(ops.div(dout, y), x) if wants_grad(0) else None
        dy = sum_to(ops.neg(ops.div(ops.mul(dout, out), y)), y) if wants_grad(1) else None
        return dx, dy

    def jvp(self, primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = bind(self, x, y)
        return out, T.fit(T.div(T.sub(tx, T.mul(ty, out)), y), out)     # (tx - out * ty) / y

    def sympy(self, x, y):
        return np.true_divide(x, y)


RealDiv = Div


def _pow_dx(x, y):
    """d x^y / dx = y x^(y-1), and exactly 0 where y = 0 (x^0 = 1 is constant; the formula would
    give 0 * inf = NaN at x = 0, as MindSpore 2.10 does; PyTorch gives 0).  For an integer base the
    exponent is kept >= 0: NumPy refuses negative integer powers, and the only valid case it
    changes, y = 0, is 0 anyway."""
    if isinstance(x, Tensor) and not x.dtype.is_float:
        e = y - 1
        e = ops.maximum(e, 0) if isinstance(e, Tensor) else max(e, 0)
        d = ops.mul(y, ops.pow(x, e))
    else:
        d = ops.mul(y, _power_of_y_minus_1(x, y))
    if not isinstance(y, Tensor):                  # a number exponent: x^0 is constant everywhere
        return ops.zeros_like(d) if y == 0 else d
    # only where the formula breaks (x = 0, y = 0): elsewhere its y-derivative, x^(y-1)(1 + y log x),
    # is needed by higher orders and must not be masked
    if not isinstance(x, Tensor):
        return _zero_where(ops.equal(y, 0), d) if x == 0 else d
    return _zero_where(ops.logical_and(ops.equal(y, 0), ops.equal(x, 0)), d)


def _power_of_y_minus_1(x, y):
    """x^(y-1) for a float base, with the rounding of y - 1 put back.

    y - 1 is rounded whenever y has bits below the last place of y - 1 (y = -31.96, y = 0.3), and a
    power is sensitive to its exponent: x^(y-1) then carries about |(y-1) log x| ULP of error (179
    ULP at x = 576, y = -31.96).  TwoSum gives the rounding error r exactly, y - 1 = e + r, and
    x^(y-1) = x^e x^r, where x^r = 1 + r log x to far below a ULP (|r log x| < 1e-12).  Where x is
    not a positive finite number the factor is left out: a real power of a negative base needs a
    whole y, and then r = 0.
    """
    e, r = _y_minus_1(y, x.dtype.np_dtype if isinstance(x, Tensor) else np.dtype(np.float64))
    power = ops.pow(x, e)
    if not isinstance(r, Tensor):
        if r == 0:                                 # a whole exponent (x ** 2): nothing to put back
            return power
    if isinstance(x, Tensor):
        positive = ops.logical_and(ops.gt(x, 0), ops.lt(x, float("inf")))
        log_x = ops.log(ops.select(positive, x, ops.ones_like(x)))
    else:
        log_x = float(np.log(x)) if 0 < x < float("inf") else 0.0
    return ops.mul(power, ops.add(ops.mul(r, log_x), 1))


def _y_minus_1(y, dtype):
    """``y - 1`` as ``e + r``: ``e`` the rounded difference and ``r`` its rounding error, exactly
    (Knuth's TwoSum, written in minims ops so that it differentiates: dr/dy comes out as exactly 0).
    A number ``y`` is computed in ``dtype``, the float type the power rounds it to."""
    if isinstance(y, Tensor):
        e = ops.sub(y, 1)
        back = ops.sub(e, y)                       # what was really added to y
        r = ops.add(ops.sub(y, ops.sub(e, back)), ops.sub(-1, back))
        return e, r
    y = dtype.type(y)
    e = y - dtype.type(1)
    return float(e), float(Fraction(float(y)) - 1 - Fraction(float(e)))


def _pow_dy(x, y, out):
    """d x^y / dy = x^y log x, and exactly 0 where x = 0 and y >= 0 (0^y is constant there; the
    formula gives 0 * -inf = NaN; MindSpore 2.10 and PyTorch give 0)."""
    if not isinstance(x, Tensor):                  # a number base: log x is a number; only 0 ** y needs the rule
        with np.errstate(divide="ignore", invalid="ignore"):
            d = ops.mul(out, float(np.log(float(x))))
        return d if x != 0 else _zero_where(ops.ge(y, 0), d)
    d = ops.mul(out, ops.log(x))
    return _zero_where(ops.logical_and(ops.equal(x, 0), ops.ge(y, 0)), d)


def _zero_where(condition, value):
    return ops.select(ops.broadcast_to(condition, value.shape), ops.zeros_like(value), value)


class Pow(_Binary):
    def impl(self, x, y):
        return np.power(x, y)

    def bprop(self, x, y, out, dout):
        dx = dy = None
        if wants_grad(0):
            dx = sum_to(ops.mul(dout, _pow_dx(x, y)), x)
        if wants_grad(1):
            dy = sum_to(ops.mul(dout, _pow_dy(x, y, out)), y)
        return dx, dy

    def jvp(self, primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = bind(self, x, y)
        dx = T.mul(tx, _pow_dx(x, y)) if tx is not None else None
        dy = T.mul(ty, _pow_dy(x, y, out)) if ty is not None else None
        return out, T.fit(T.add(dx, dy), out)

    def sympy(self, x, y):
        return np.power(x, y)


def _share(wins_or_ties, wins, dtype):
    """x's share of the gradient of maximum/minimum: 1 where x wins, 0 where y wins, and 1/2 on a
    tie, which MindSpore splits evenly between the two inputs (as its ReduceMax does)."""
    return ops.mul(ops.add(ops.cast(wins_or_ties, dtype), ops.cast(wins, dtype)), 0.5)


def _extreme_jvp(prim, primals, tangents, wins_or_ties, wins):
    """Maximum/minimum: each output element moves with the input it was taken from (ties: the mean of
    both, as the backward rule splits them)."""
    (x, y), (tx, ty) = primals, tangents
    out = bind(prim, x, y)
    take_x = _share(wins_or_ties(x, y), wins(x, y), out.dtype)
    return out, T.fit(T.add(T.mul(tx, take_x), T.mul(ty, ops.sub(1, take_x))), out)


class Maximum(_Binary):
    def impl(self, x, y):
        return np.maximum(x, y)

    def bprop(self, x, y, out, dout):
        take_x = _share(ops.ge(x, y), ops.gt(x, y), dout.dtype)
        dx = sum_to(ops.mul(dout, take_x), x) if wants_grad(0) else None
        dy = sum_to(ops.mul(dout, ops.sub(1, take_x)), y) if wants_grad(1) else None
        return dx, dy

    def jvp(self, primals, tangents):
        return _extreme_jvp(self, primals, tangents, ops.ge, ops.gt)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Max, 2, 1)(x, y)

    def fused_sympy(self, dtype, x, y):
        return np.frompyfunc(F.np_maximum, 2, 1)(x, y)        # which zero a tie gives: scalar_forms.py


class Minimum(_Binary):
    def impl(self, x, y):
        return np.minimum(x, y)

    def bprop(self, x, y, out, dout):
        take_x = _share(ops.le(x, y), ops.lt(x, y), dout.dtype)
        dx = sum_to(ops.mul(dout, take_x), x) if wants_grad(0) else None
        dy = sum_to(ops.mul(dout, ops.sub(1, take_x)), y) if wants_grad(1) else None
        return dx, dy

    def jvp(self, primals, tangents):
        return _extreme_jvp(self, primals, tangents, ops.le, ops.lt)

    def sympy(self, x, y):
        return np.frompyfunc(sympy.Min, 2, 1)(x, y)

    def fused_sympy(self, dtype, x, y):
        return np.frompyfunc(F.np_minimum, 2, 1)(x, y)


class IntegerDivisionByZero(MinimsError, ZeroDivisionError):
    """An integer ``x // 0`` or ``x % 0``: no integer is the answer.  MindSpore 2.10 on the CPU gives
    one anyway (Int32: ``7 // 0`` is 2147483647, ``-7 // 0`` -2147483648, ``7 % 0`` -2147483648),
    NumPy 0; minims refuses, as Python does for ``7 // 0``.  A float division gives ±inf or nan."""


class _IntegerDivision(_Binary):
    """``FloorDiv`` and ``FloorMod``: NumPy's ``ufunc``, refusing a zero divisor when both operands are
    integers (a float zero divisor gives ±inf or nan, as IEEE 754 and MindSpore do)."""

    differentiable = False
    ufunc = None
    symbol = ""

    def impl(self, x, y):
        if np.result_type(x, y).kind in "iub" and not np.all(y):
            raise IntegerDivisionByZero(self._by_zero(x, y))
        return self.ufunc(x, y)

    def abstract_eval(self, x, y):
        """The output's type, for a graph being traced: its inputs stand in as zeros, which ``impl``
        would refuse as divisors, so the type comes from dividing by ones."""
        return self.ufunc(x, np.ones_like(y) if isinstance(y, np.ndarray) else type(y)(1))

    def _by_zero(self, x, y) -> str:
        zeros = np.asarray(y) == 0
        where = "is 0" if zeros.ndim == 0 else (f"holds 0 at index {tuple(int(i) for i in np.argwhere(zeros)[0])} "
                                               f"({int(zeros.sum())} of its {zeros.size} entries are 0)")
        dtype = mstype.from_numpy(np.result_type(x, y))
        return (f"{self.name}: integer {'division' if self.symbol == '//' else 'modulo'} by zero: the divisor "
                f"{where}, and no {dtype} is x {self.symbol} 0 (MindSpore 2.10 gives a number anyway: in Int32 "
                f"7 // 0 is 2147483647 and 7 % 0 is -2147483648). Fix: compute in floats, "
                f"x.astype(mindspore.float32) {self.symbol} y (±inf or nan where y is 0), or keep 0 out of the "
                "divisor, e.g. ops.select(y == 0, ops.ones_like(y), y).")


class FloorDiv(_IntegerDivision):
    ufunc = staticmethod(np.floor_divide)
    symbol = "//"

    def sympy(self, x, y):
        return np.frompyfunc(lambda a, b: sympy.floor(a / b), 2, 1)(x, y)


class _Remainder(_IntegerDivision):
    """A remainder ``x - y * q(x / y)``, with ``q`` the rounding of the quotient (``quotient``): its
    derivatives are 1 for ``x`` and ``-q(x / y)`` for ``y``, almost everywhere (the quotient is
    piecewise constant)."""

    differentiable = True
    skips_unneeded_grads = True

    def quotient(self, x, y, out):  # pragma: no cover - each remainder defines its rounding
        raise NotImplementedError

    def bprop(self, x, y, out, dout):
        dx = sum_to(dout, x) if wants_grad(0) else None
        dy = sum_to(ops.neg(ops.mul(dout, self.quotient(x, y, out))), y) if wants_grad(1) else None
        return dx, dy

    def jvp(self, primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = bind(self, x, y)
        dy = None if ty is None else ops.mul(ty, self.quotient(x, y, out))
        return out, T.fit(T.sub(tx, dy), out)


class FloorMod(_Remainder):
    """``x - y * floor(x / y)``: the sign of ``y``, as Python's ``%`` (``ops.floor_mod``,
    ``ops.remainder``, the ``%`` operator)."""

    ufunc = staticmethod(np.mod)
    symbol = "%"

    def quotient(self, x, y, out):
        return ops.floor_divide(x, y)

    def sympy(self, x, y):
        return np.frompyfunc(lambda a, b: a - b * _whole_floor(a / b), 2, 1)(x, y)


def _no_slope(self, argindex=1):
    return sympy.S.Zero


#: SymPy's ``floor`` with derivative 0: the remainders' quotient is piecewise constant, and SymPy
#: leaves the derivative of ``floor`` unevaluated, which no printer turns into a number.  Named
#: "floor", so that printers and ``lambdify`` write and evaluate it as ``floor``.
_whole_floor = type("floor", (sympy.floor,), {"fdiff": _no_slope, "__module__": __name__})


class Mod(_Remainder):
    """``x - y * trunc(x / y)``: the sign of ``x``, as C's ``fmod`` (MindSpore's ``ops.Mod`` and
    ``ops.fmod``: ``Mod(-7, 2)`` is -1, where ``FloorMod`` gives 1).

    MindSpore 2.10's gradient of ``Mod`` with respect to ``y`` is ``-floor(x / y)`` (4 at x = -7,
    y = 2), the rule of ``FloorMod``; the derivative of this function is ``-trunc(x / y)`` (3), which
    minims gives."""

    ufunc = staticmethod(np.fmod)
    symbol = "%"

    def quotient(self, x, y, out):
        # trunc(x / y) = floor(x / y) + 1 where the two remainders differ (they then differ by y exactly)
        floor = ops.floor_divide(x, y)
        return ops.add(floor, ops.cast(ops.not_equal(ops.floor_mod(x, y), out), floor.dtype))

    def sympy(self, x, y):
        def fmod(a, b):
            q = a / b
            return a - b * sympy.Piecewise((_whole_floor(q), q >= 0), (-_whole_floor(-q), True))
        return np.frompyfunc(fmod, 2, 1)(x, y)


class Exp(_Unary):
    float_only = True

    def impl(self, x):
        return np.exp(x)

    def bprop(self, x, out, dout):
        return (ops.mul(dout, out),)

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        return out, ops.mul(tangents[0], out)

    sympy = staticmethod(sym_elementwise(sympy.exp))


class Log(_Unary):
    float_only = True

    def impl(self, x):
        # float32 through float64: NumPy's own float32 log is up to 2.4 ULP off near 1 (SIMD,
        # depending on the CPU), and log x enters the derivatives of x^y twice
        return in_float64(np.log, x)

    def bprop(self, x, out, dout):
        return (ops.div(dout, x),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), ops.div(tangents[0], primals[0])

    sympy = staticmethod(sym_elementwise(sympy.log))

    def fused_sympy(self, dtype, x):
        return sym_elementwise(lambda v: sympy.log(F.f64(v)))(x)     # in float64, as impl


class Sqrt(_Unary):
    float_only = True

    def impl(self, x):
        return np.sqrt(x)

    # from x, not as dout / (2 out): the second derivative then takes two roundings fewer
    def bprop(self, x, out, dout):
        return (SqrtGrad()(x, dout),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), SqrtGrad()(primals[0], tangents[0])

    sympy = staticmethod(sym_elementwise(sympy.sqrt))


class Square(_Unary):
    def impl(self, x):
        return np.square(x)

    def bprop(self, x, out, dout):
        return (ops.mul(dout, ops.mul(x, 2)),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), ops.mul(tangents[0], ops.mul(primals[0], 2))

    def sympy(self, x):
        return np.multiply(x, x)


class Abs(_Unary):
    def impl(self, x):
        return np.abs(x)

    def bprop(self, x, out, dout):
        return (ops.mul(dout, ops.sign(x)),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), ops.mul(tangents[0], ops.sign(primals[0]))

    sympy = staticmethod(sym_elementwise(sympy.Abs))


class Sign(_Unary):
    differentiable = False

    def impl(self, x):
        return np.sign(x)

    sympy = staticmethod(sym_elementwise(sympy.sign))


class Tanh(_Unary):
    float_only = True

    def impl(self, x):
        return np.tanh(x)

    # From x, not dout * (1 - out * out): where tanh saturates, out rounds to ±1 and the textbook
    # rule gives 0 or noise (input_grads.py).
    def bprop(self, x, out, dout):
        return (TanhGrad()(x, dout),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), TanhGrad()(primals[0], tangents[0])

    sympy = staticmethod(sym_elementwise(sympy.tanh))


class Sigmoid(_Unary):
    float_only = True

    def impl(self, x):
        # not (tanh(x/2) + 1) / 2, which cancels to 0 for large negative x (accurate.py)
        return in_float64(logistic, x)

    # from x, not dout * out * (1 - out), which cancels where sigmoid saturates (input_grads.py)
    def bprop(self, x, out, dout):
        return (SigmoidGrad()(x, dout),)

    def jvp(self, primals, tangents):
        return bind(self, *primals), SigmoidGrad()(primals[0], tangents[0])

    sympy = staticmethod(sym_elementwise(lambda v: 1 / (1 + sympy.exp(-v))))

    def fused_sympy(self, dtype, x):
        return sym_elementwise(F.logistic)(x)                  # impl's kernel: no overflow, no flush to 0


class Reciprocal(_Unary):
    float_only = True

    def impl(self, x):
        return np.reciprocal(x)

    def bprop(self, x, out, dout):
        return (ops.neg(ops.mul(dout, ops.mul(out, out))),)

    def jvp(self, primals, tangents):
        out = bind(self, *primals)
        return out, ops.neg(ops.mul(tangents[0], ops.mul(out, out)))

    sympy = staticmethod(sym_elementwise(lambda v: 1 / v))


class Floor(_Unary):
    differentiable = False

    def impl(self, x):
        return np.floor(x)

    sympy = staticmethod(sym_elementwise(sympy.floor))

