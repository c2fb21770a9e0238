"""``mindspore.numpy``'s elementwise arithmetic and math functions: ``add`` ... ``power``, ``exp``,
``log``, ``sqrt``, the trigonometric and hyperbolic functions, ``clip``, ``floor`` ...

Each is a composition of ``minims.ops`` (``tan = sin / cos``, ``log2 = log / ln 2``,
``sinh = (exp(x) - exp(-x)) / 2``), so its derivative comes from the primitives' rules.

Which input dtypes a function takes follows MindSpore 2.10 (``tests/data/oracle_mnp_facts.json``):
``exp``, ``expm1``, the logarithms and ``floor`` refuse integer and Bool Tensors (TypeError, as
MindSpore's CPU kernels do), ``sqrt``, ``sin`` & co. compute integers as Float32, ``square`` and
``negative`` keep integers and refuse Bools; the trigonometric and hyperbolic functions compute Bools
in Float16, as NumPy.  Where MindSpore 2.10 returns a lower precision or a wrong value, minims keeps
NumPy's rule instead: ``ceil(float64)`` is Float64 (MindSpore: Float32), ``cbrt(True)`` 1
(MindSpore: NaN).

Binary functions read Python numbers as mindspore.numpy does, as Int32/Float32/Bool Tensors, so
``mnp.add(float16_tensor, 2.5)`` is Float32 (where ``float16_tensor + 2.5`` stays Float16).
"""
from __future__ import annotations

import math

import minims as ms
from minims import ops

from ._utils import as_tensor, broadcast_shape, cast_to, describe, fail, operands, static_int, to_dtype

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
           "fmod", "power", "float_power", "maximum", "minimum", "hypot", "logaddexp", "logaddexp2",
           "heaviside", "negative", "positive", "absolute", "abs", "fabs", "exp", "exp2", "expm1",
           "log", "log2", "log10", "log1p", "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan",
           "tanh", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "deg2rad", "radians", "rad2deg",
           "sign", "floor", "ceil", "trunc", "fix", "clip", "copysign", "rint", "around", "round", "divmod"]


def _out(x, dtype, where):
    """The result cast to the ``dtype`` argument, if one was given."""
    return cast_to(x, None if dtype is None else to_dtype(dtype, where))


# ----- binary -----------------------------------------------------------------------------------------
def _binary(where, op, x1, x2, dtype):
    x1, x2 = operands(x1, x2, where)
    return _out(op(x1, x2), dtype, where)


def add(x1, x2, dtype=None):
    """``mnp.add(x1, x2, dtype=None)``: elementwise sum, broadcast (two Bool Tensors are refused, as
    MindSpore 2.10 refuses them)."""
    x1, x2 = operands(x1, x2, "add")
    if x1.dtype is ms.bool_ and x2.dtype is ms.bool_:
        raise fail(TypeError, "add", "both inputs are Bool Tensors, which MindSpore 2.10 does not add",
                   "mnp.logical_or(x1, x2) for 'either', or add them as ints: x1.astype(mnp.int32)")
    return _out(ops.add(x1, x2), dtype, "add")


def subtract(x1, x2, dtype=None):
    """``mnp.subtract(x1, x2, dtype=None)``."""
    return _binary("subtract", ops.sub, x1, x2, dtype)


def multiply(x1, x2, dtype=None):
    """``mnp.multiply(x1, x2, dtype=None)``."""
    return _binary("multiply", ops.mul, x1, x2, dtype)


def divide(x1, x2, dtype=None):
    """``mnp.divide(x1, x2, dtype=None)``: true division (integers give Float32)."""
    return _binary("divide", ops.div, x1, x2, dtype)


def true_divide(x1, x2, dtype=None):
    """``mnp.true_divide``: the same as :func:`divide`."""
    return _binary("true_divide", ops.div, x1, x2, dtype)


def floor_divide(x1, x2, dtype=None):
    """``mnp.floor_divide(x1, x2, dtype=None)``: ``floor(x1 / x2)``."""
    return _binary("floor_divide", ops.floor_divide, x1, x2, dtype)


def remainder(x1, x2, dtype=None):
    """``mnp.remainder`` (``mnp.mod``): ``x1 - x2 * floor(x1 / x2)``, the sign of ``x2``."""
    return _binary("remainder", ops.floor_mod, x1, x2, dtype)


mod = remainder


def fmod(x1, x2, dtype=None):
    """``mnp.fmod(x1, x2, dtype=None)``: the remainder of truncated division, the sign of ``x1``."""
    return _binary("fmod", ops.fmod, x1, x2, dtype)


def power(x1, x2, dtype=None):
    """``mnp.power(x1, x2, dtype=None)``: ``x1 ** x2``, elementwise."""
    return _binary("power", ops.pow, x1, x2, dtype)


def float_power(x1, x2, dtype=None):
    """``mnp.float_power``: ``x1 ** x2`` computed in a float dtype (at least Float32: MindSpore 2.10
    keeps Float32 inputs Float32, where NumPy computes in Float64)."""
    x1, x2 = operands(x1, x2, "float_power")
    common = ms.dtype.result_type(x1.dtype, x2.dtype)
    common = common if common.is_float and common is not ms.float16 else ms.float32
    return _out(ops.pow(cast_to(x1, common), cast_to(x2, common)), dtype, "float_power")


def maximum(x1, x2, dtype=None):
    """``mnp.maximum(x1, x2, dtype=None)``: the larger of each pair (a NaN wins); at a tie the
    gradient is shared equally, as MindSpore's."""
    return _binary("maximum", ops.maximum, x1, x2, dtype)


def minimum(x1, x2, dtype=None):
    """``mnp.minimum(x1, x2, dtype=None)``."""
    return _binary("minimum", ops.minimum, x1, x2, dtype)


def hypot(x1, x2, dtype=None):
    """``mnp.hypot(x1, x2, dtype=None)``: ``sqrt(x1**2 + x2**2)``."""
    x1, x2 = operands(x1, x2, "hypot")
    return _out(ops.sqrt(ops.add(ops.square(_floating(x1)), ops.square(_floating(x2)))), dtype, "hypot")


def logaddexp(x1, x2, dtype=None):
    """``mnp.logaddexp(x1, x2, dtype=None)``: ``log(exp(x1) + exp(x2))`` without overflow: the larger
    input ``m`` is taken out first, ``m + log(exp(x1 - m) + exp(x2 - m))``; ``m`` is held constant for
    the gradient (its terms cancel), which is then exactly the softmax weights."""
    x1, x2 = operands(x1, x2, "logaddexp")
    _float_only("logaddexp", x1, "x1")
    _float_only("logaddexp", x2, "x2")
    m = ops.stop_gradient(ops.maximum(x1, x2))
    out = ops.add(m, ops.log(ops.add(ops.exp(ops.sub(x1, m)), ops.exp(ops.sub(x2, m)))))
    return _out(out, dtype, "logaddexp")


def logaddexp2(x1, x2, dtype=None):
    """``mnp.logaddexp2(x1, x2, dtype=None)``: ``log2(2**x1 + 2**x2)``."""
    x1, x2 = operands(x1, x2, "logaddexp2")
    ln2 = math.log(2.0)
    return _out(ops.div(logaddexp(ops.mul(x1, ln2), ops.mul(x2, ln2)), ln2), dtype, "logaddexp2")


def heaviside(x1, x2, dtype=None):
    """``mnp.heaviside(x1, x2, dtype=None)``: 0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` at 0."""
    x1, x2 = operands(x1, x2, "heaviside")
    x2 = ops.broadcast_to(cast_to(x2, x1.dtype), broadcast_shape("heaviside", x1, x2))
    ones, zeros = ops.ones_like(x2), ops.zeros_like(x2)
    return _out(ops.select(ops.lt(x1, 0), zeros, ops.select(ops.gt(x1, 0), ones, x2)), dtype, "heaviside")


# ----- unary: which dtypes each takes -------------------------------------------------------------------
def _float_only(where, x, name="x"):
    """Refuse an integer or Bool Tensor, as MindSpore 2.10's kernel for ``where`` does."""
    if not x.dtype.is_float:
        raise fail(TypeError, where, f"{name} is {describe(x)}, but {where} takes float Tensors only (MindSpore "
                   "2.10 has no integer or Bool kernel for it)", f"cast first: {name}.astype(mnp.float32)")
    return x


def _no_bool(where, x):
    if x.dtype is ms.bool_:
        raise fail(TypeError, where, f"x is {describe(x)}, but {where} does not take Bool Tensors "
                   "(MindSpore 2.10 refuses them too)", "cast first: x.astype(mnp.int32)")
    return x


def _floating(x):
    """An integer or Bool Tensor as Float32 (how ``sqrt``, ``ceil`` & co. read them)."""
    return x if x.dtype.is_float else ops.cast(x, ms.float32)


# How a function reads integer and Bool Tensors: refused ("refuse"), kept ("keep"), or computed in a
# float dtype.  The trigonometric and hyperbolic functions compute Bools in Float16, as NumPy and
# MindSpore 2.10 do (NumPy's smallest float that holds a Bool exactly); sqrt & co. in Float32.
_FLOAT = (ms.float32, ms.float32)
_TRIG = (ms.float32, ms.float16)


def _unary(where, fn, x, dtype, rule):
    """Apply ``fn`` to ``x`` with the dtype ``rule``: ``(for integers, for Bools)``."""
    x = as_tensor(x, where, "x")
    if not x.dtype.is_float:
        how = rule[1] if x.dtype is ms.bool_ else rule[0]
        if how == "refuse":
            (_float_only if rule[0] == "refuse" else _no_bool)(where, x)
        elif how != "keep":
            x = ops.cast(x, how)
    return _out(fn(x), dtype, where)


_FLOAT_ONLY = ("refuse", "refuse")
_KEEP_INTS = ("keep", "refuse")


def negative(a, dtype=None):
    """``mnp.negative(a, dtype=None)``: ``-a``."""
    return _unary("negative", ops.neg, a, dtype, _KEEP_INTS)


def positive(a, dtype=None):
    """``mnp.positive(a, dtype=None)``: a copy of ``a``."""
    return _unary("positive", ops.identity, a, dtype, _KEEP_INTS)


def absolute(x, dtype=None):
    """``mnp.absolute`` (``abs``, ``fabs``): ``|x|``; Bools stay Bools.  Its gradient at 0 is 0."""
    x = as_tensor(x, "absolute", "x")
    return _out(x if x.dtype is ms.bool_ else ops.abs(x), dtype, "absolute")


abs = absolute  # noqa: A001 - mindspore.numpy's name
fabs = absolute


def exp(x, dtype=None):
    """``mnp.exp(x, dtype=None)``: ``e ** x`` (float Tensors only, as MindSpore 2.10)."""
    return _unary("exp", ops.exp, x, dtype, _FLOAT_ONLY)


def exp2(x, dtype=None):
    """``mnp.exp2(x, dtype=None)``: ``2 ** x``; integers stay integers (Bools become Int64)."""
    x = as_tensor(x, "exp2", "x")
    x = ops.cast(x, ms.int64) if x.dtype is ms.bool_ else x
    return _out(ops.pow(2.0 if x.dtype.is_float else 2, x), dtype, "exp2")


def expm1(x, dtype=None):
    """``mnp.expm1(x, dtype=None)``: ``exp(x) - 1``."""
    return _unary("expm1", lambda v: ops.sub(ops.exp(v), 1.0), x, dtype, _FLOAT_ONLY)


def log(x, dtype=None):
    """``mnp.log(x, dtype=None)``: the natural logarithm (float Tensors only, as MindSpore 2.10)."""
    return _unary("log", ops.log, x, dtype, _FLOAT_ONLY)


def log2(x, dtype=None):
    """``mnp.log2(x, dtype=None)``: ``log(x) / log(2)``."""
    return _unary("log2", lambda v: ops.div(ops.log(v), math.log(2.0)), x, dtype, _FLOAT_ONLY)


def log10(x, dtype=None):
    """``mnp.log10(x, dtype=None)``: ``log(x) / log(10)``."""
    return _unary("log10", lambda v: ops.div(ops.log(v), math.log(10.0)), x, dtype, _FLOAT_ONLY)


def log1p(x, dtype=None):
    """``mnp.log1p(x, dtype=None)``: ``log(1 + x)``, computed as that sum, as MindSpore 2.10 does
    (so for ``|x|`` below float32's epsilon it is 0, not ``x``)."""
    return _unary("log1p", lambda v: ops.log(ops.add(v, 1.0)), x, dtype, _FLOAT_ONLY)


def sqrt(x, dtype=None):
    """``mnp.sqrt(x, dtype=None)``: integers give Float32; a negative input gives NaN."""
    return _unary("sqrt", ops.sqrt, x, dtype, _FLOAT)


def cbrt(x, dtype=None):
    """``mnp.cbrt(x, dtype=None)``: the real cube root, ``sign(x) * |x| ** (1/3)``."""
    return _unary("cbrt", lambda v: ops.mul(ops.sign(v), ops.pow(ops.abs(v), 1.0 / 3.0)), x, dtype, _FLOAT)


def square(x, dtype=None):
    """``mnp.square(x, dtype=None)``: ``x * x``; integers stay integers."""
    return _unary("square", ops.square, x, dtype, _KEEP_INTS)


def reciprocal(x, dtype=None):
    """``mnp.reciprocal(x, dtype=None)``: ``1 / x``; for integers the quotient truncated to an
    integer (``reciprocal(2) == 0``), as NumPy and MindSpore."""
    x = _no_bool("reciprocal", as_tensor(x, "reciprocal", "x"))
    out = ops.reciprocal(x) if x.dtype.is_float else ops.cast(ops.div(1.0, x), x.dtype)
    return _out(out, dtype, "reciprocal")


def sin(x, dtype=None):
    """``mnp.sin(x, dtype=None)``."""
    return _unary("sin", ops.sin, x, dtype, _TRIG)


def cos(x, dtype=None):
    """``mnp.cos(x, dtype=None)``."""
    return _unary("cos", ops.cos, x, dtype, _TRIG)


def tan(x, dtype=None):
    """``mnp.tan(x, dtype=None)``: ``sin(x) / cos(x)``."""
    return _unary("tan", lambda v: ops.div(ops.sin(v), ops.cos(v)), x, dtype, _TRIG)


def tanh(x, dtype=None):
    """``mnp.tanh(x, dtype=None)``."""
    return _unary("tanh", ops.tanh, x, dtype, _TRIG)


def sinh(x, dtype=None):
    """``mnp.sinh(x, dtype=None)``: ``(exp(x) - exp(-x)) / 2``."""
    return _unary("sinh", lambda v: ops.mul(ops.sub(ops.exp(v), ops.exp(ops.neg(v))), 0.5), x, dtype, _TRIG)


def cosh(x, dtype=None):
    """``mnp.cosh(x, dtype=None)``: ``(exp(x) + exp(-x)) / 2``."""
    return _unary("cosh", lambda v: ops.mul(ops.add(ops.exp(v), ops.exp(ops.neg(v))), 0.5), x, dtype, _TRIG)


def _asinh(v):
    """``sign(v) * log(|v| + sqrt(v**2 + 1))``: the odd form keeps large negative inputs accurate."""
    a = ops.abs(v)
    return ops.mul(ops.sign(v), ops.log(ops.add(a, ops.sqrt(ops.add(ops.square(a), 1.0)))))


def arcsinh(x, dtype=None):
    """``mnp.arcsinh(x, dtype=None)``: the inverse hyperbolic sine."""
    return _unary("arcsinh", _asinh, x, dtype, _TRIG)


def arccosh(x, dtype=None):
    """``mnp.arccosh(x, dtype=None)``: ``log(x + sqrt(x**2 - 1))`` (NaN below 1)."""
    return _unary("arccosh", lambda v: ops.log(ops.add(v, ops.sqrt(ops.sub(ops.square(v), 1.0)))),
                  x, dtype, _TRIG)


def arctanh(x, dtype=None):
    """``mnp.arctanh(x, dtype=None)``: ``log((1 + x) / (1 - x)) / 2``."""
    return _unary("arctanh", lambda v: ops.mul(ops.log(ops.div(ops.add(1.0, v), ops.sub(1.0, v))), 0.5),
                  x, dtype, _TRIG)


def deg2rad(x, dtype=None):
    """``mnp.deg2rad`` (``radians``): ``x * pi / 180``."""
    return _unary("deg2rad", lambda v: ops.mul(v, math.pi / 180.0), x, dtype, _FLOAT)


radians = deg2rad


def rad2deg(x, dtype=None):
    """``mnp.rad2deg(x, dtype=None)``: ``x * 180 / pi``."""
    return _unary("rad2deg", lambda v: ops.mul(v, 180.0 / math.pi), x, dtype, _FLOAT)


def sign(x, dtype=None):
    """``mnp.sign(x, dtype=None)``: -1, 0 or 1; integers give Float32 and Bools are refused, as in
    MindSpore 2.10."""
    x = _no_bool("sign", as_tensor(x, "sign", "x"))
    return _out(ops.sign(_floating(x)), dtype, "sign")


def floor(x, dtype=None):
    """``mnp.floor(x, dtype=None)``: float Tensors only, as MindSpore 2.10."""
    return _unary("floor", ops.floor, x, dtype, _FLOAT_ONLY)


def ceil(x, dtype=None):
    """``mnp.ceil(x, dtype=None)``: ``-floor(-x)`` (integers give Float32)."""
    return _unary("ceil", lambda v: ops.neg(ops.floor(ops.neg(v))), x, dtype, _FLOAT)


def trunc(x, dtype=None):
    """``mnp.trunc(x, dtype=None)``: rounds toward zero, ``sign(x) * floor(|x|)``."""
    return _unary("trunc", lambda v: ops.mul(ops.sign(v), ops.floor(ops.abs(v))), x, dtype, _FLOAT)


def fix(x):
    """``mnp.fix(x)``: rounds toward zero (the same as :func:`trunc`)."""
    return trunc(x)


# ----- clip -----------------------------------------------------------------------------------------
def _bound(value, like, where, name):
    """A bound of :func:`clip` in ``like``'s dtype (a float bound of an integer Tensor truncates,
    as MindSpore 2.10)."""
    if isinstance(value, ms.Tensor):
        return cast_to(value, like.dtype)
    value = as_tensor(value, where, name)
    return cast_to(value, like.dtype)


def clip(x, xmin, xmax, dtype=None):
    """``mnp.clip(x, xmin, xmax, dtype=None)``: ``minimum(maximum(x, xmin), xmax)`` (either bound may
    be None, not both).  At a bound the gradient is shared, ``1/2``, as MindSpore's."""
    x = as_tensor(x, "clip", "x")
    if xmin is None and xmax is None:
        raise fail(ValueError, "clip", "xmin and xmax are both None, so there is nothing to clip to",
                   "give at least one bound, e.g. mnp.clip(x, 0.0, None)")
    out = x
    if xmin is not None:
        out = ops.maximum(out, _bound(xmin, x, "clip", "xmin"))
    if xmax is not None:
        out = ops.minimum(out, _bound(xmax, x, "clip", "xmax"))
    return _out(out, dtype, "clip")


# ----- signs and rounding ------------------------------------------------------------------------------
def copysign(x1, x2, dtype=None):
    """``mnp.copysign(x1, x2, dtype=None)``: ``|x1|`` with the sign of ``x2`` (negative where
    ``x2 < 0``; integers stay integers, as MindSpore 2.10)."""
    x1, x2 = operands(x1, x2, "copysign")
    shape = broadcast_shape("copysign", x1, x2)
    magnitude = ops.broadcast_to(ops.abs(_no_bool("copysign", x1)), shape)
    negative = ops.broadcast_to(ops.lt(x2, 0), shape)
    return _out(ops.select(negative, ops.neg(magnitude), magnitude), dtype, "copysign")


#: from this magnitude on, every float of the dtype is an integer (2 ** mantissa bits)
_ALL_INTEGERS = {"Float16": 2.0 ** 10, "Float32": 2.0 ** 23, "Float64": 2.0 ** 52}


def _round_half_even(v):
    """Round to the nearest integer, a tie to the even one: ``floor(v + 1/2)``, minus 1 where ``v`` was
    exactly halfway and that landed on an odd number.  Floats too large to have a fraction are kept
    (``v + 1/2`` would round there).  Its gradient is 0, as the floor's."""
    up = ops.floor(ops.add(v, 0.5))
    tie = ops.equal(ops.sub(up, v), 0.5)
    odd = ops.equal(ops.floor_mod(up, 2.0), 1.0)
    rounded = ops.select(ops.logical_and(tie, odd), ops.sub(up, 1.0), up)
    return ops.select(ops.ge(ops.abs(v), _ALL_INTEGERS[str(v.dtype)]), v, rounded)


def rint(x, dtype=None):
    """``mnp.rint(x, dtype=None)``: the nearest integer, ties to even (float Tensors only, as
    MindSpore 2.10)."""
    return _unary("rint", _round_half_even, x, dtype, _FLOAT_ONLY)


def around(a, decimals=0):
    """``mnp.around`` (``mnp.round``): rounded to ``decimals`` places, ties to even, as
    ``rint(a * 10**decimals) / 10**decimals``."""
    decimals = static_int(decimals, "around", "decimals")
    if decimals < 0:
        raise fail(ValueError, "around", f"decimals must be >= 0, but got {decimals}",
                   "round to tens by hand: mnp.around(a / 10) * 10")
    a = as_tensor(a, "around", "a")
    if not a.dtype.is_float:
        return a
    if decimals == 0:
        return _round_half_even(a)
    scale = 10.0 ** decimals
    return ops.div(_round_half_even(ops.mul(a, scale)), scale)


round = around  # noqa: A001 - mindspore.numpy's name


def divmod(x1, x2, dtype=None):  # noqa: A001 - mindspore.numpy's name
    """``mnp.divmod(x1, x2, dtype=None)``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)
