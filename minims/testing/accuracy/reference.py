"""True values for the accuracy harness: a primitive's SymPy form, differentiated by SymPy and
evaluated by mpmath with at least 50 significant digits.

The formula comes from the primitive's own ``sympy`` rule, run by the symbolic interpreter
(``symbolic_call``); ``sympy.diff`` gives every derivative from it.  So no backward rule of minims
enters the reference, and the reference of ``tanh'`` is SymPy's ``1 - tanh(x)**2``.

That formula cancels: at x = 300, ``tanh(x)**2`` agrees with 1 to 260 digits, so a fixed 50-digit
evaluation would leave no correct digit at all.  Each value is therefore evaluated at increasing
working precision (30, 50, 100, 200, ... digits) until two successive evaluations agree to
:data:`AGREE_DIGITS` digits; the more precise of the two is kept.  A value that is exactly zero at
every precision up to :data:`ZERO_DIGITS` digits is taken as zero (a cancellation that
leaves nothing at 30 and 50 digits, as ``1 - tanh(300)**2`` does, is not).

The result is a double-double ``hi + lo`` per point (enough for a float64 ULP error), from which
:class:`Truth` tells each point's class in a format (``ulp.CLASSES``).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import sympy

from ...interpreters.symbolic import symbolic_call
from .ulp import FORMATS

__all__ = ["formula", "derivative", "Reference", "Truth", "evaluate", "AGREE_DIGITS", "ZERO_DIGITS", "PRECISIONS"]

#: Working precisions (decimal digits) tried in turn.
PRECISIONS = (30, 50, 100, 200, 400, 800, 1600)

#: Two successive evaluations must agree to this many significant digits.
AGREE_DIGITS = 25

#: A zero must still be zero at this working precision (the true derivatives measured here that
#: are not exactly zero need far fewer digits: tanh' at x = 360 cancels about 313).
ZERO_DIGITS = 800


def formula(prim, inputs):
    """The SymPy expression of ``prim`` applied to ``inputs`` (SymPy symbols, or Python numbers
    for inputs held fixed)."""
    return sympy.sympify(symbolic_call(lambda *a: prim(*a), *inputs))


@functools.lru_cache(maxsize=None)
def derivative(expr, symbols: tuple, wrt: tuple):
    """``d^k expr / d symbols[wrt[0]] ... d symbols[wrt[-1]]`` (``wrt=()``: the expression itself)."""
    for i in wrt:
        expr = sympy.diff(expr, symbols[i])
    return expr


# Functions SymPy's derivatives of kinks produce, on real arguments away from the kink; at the kink
# the derivative does not exist, which is what NaN says here.
def _heaviside(x, at_zero=0.5):
    return mpmath.mpf(1) if x > 0 else (mpmath.mpf(0) if x < 0 else mpmath.mpf(at_zero))


def _dirac(x, *order):
    return mpmath.mpf(0) if x != 0 else mpmath.nan


_MODULES = [{"Heaviside": _heaviside, "DiracDelta": _dirac, "sign": mpmath.sign}, "mpmath"]


@functools.lru_cache(maxsize=None)
def _compiled(expr, symbols):
    return sympy.lambdify(list(symbols), expr, modules=_MODULES)


class Reference:
    """An expression ready to evaluate at points: ``Reference(expr, symbols).value((x, y)) -> mpf``."""

    def __init__(self, expr, symbols):
        self.expr = expr
        self.constant = expr if expr.is_number else None     # 0, 1, 2: no per-point work
        # compiled once per expression: every domain and format of a primitive shares it
        self._fn = _compiled(expr, tuple(symbols))

    def value(self, point):
        """The true value at one point (floats): an mpf, or NaN where it has no real value.
        Sets ``mpmath.mp.dps`` (:func:`evaluate` restores it)."""
        args = [mpmath.mpf(float(v)) for v in point]       # exact: every float is an mpf
        previous = None
        for digits in PRECISIONS:
            mpmath.mp.dps = digits
            value = self._value(args)
            if previous is not None and _agree(previous, value) and (value or digits >= ZERO_DIGITS):
                return value
            previous = value
        raise ArithmeticError(f"the reference {self.expr} at {tuple(float(v) for v in point)} did not settle "
                              f"within {PRECISIONS[-1]} digits")

    def _value(self, args):
        try:
            value = self._fn(*args)
        except (ValueError, ZeroDivisionError):      # outside the formula's domain
            return mpmath.nan
        value = mpmath.mpmathify(value)
        if isinstance(value, mpmath.mpc):           # e.g. a real power of a negative base
            return mpmath.nan if value.imag != 0 else value.real
        return +value                              # rounded to the working precision


_TOLERANCE = {}


def _agree(a, b) -> bool:
    if a != a or b != b:                           # NaN: undefined at both precisions
        return a != a and b != b
    if a == b:
        return True
    if mpmath.isinf(a) or mpmath.isinf(b):
        return False
    if AGREE_DIGITS not in _TOLERANCE:
        _TOLERANCE[AGREE_DIGITS] = mpmath.mpf(10) ** (-AGREE_DIGITS)
    return abs(a - b) <= abs(b) * _TOLERANCE[AGREE_DIGITS]


class Truth:
    """The true values at an array of points: a double-double ``hi + lo`` (float64 arrays; ``hi`` is
    ±inf beyond float64's range) and which were exactly zero or undefined."""

    def __init__(self, hi, lo, zero, undefined):
        self.hi, self.lo, self.zero, self.undefined = hi, lo, zero, undefined

    def classes(self, fmt) -> np.ndarray:
        """Each point's class (``ulp.CLASSES``) in the format ``fmt``."""
        magnitude = np.abs(self.hi)
        out = np.full(self.hi.shape, "normal", dtype=object)
        out[magnitude < fmt.tiny] = "subnormal"
        out[magnitude > fmt.max] = "overflow"
        out[self.zero] = "zero"
        out[self.undefined] = "undefined"
        return out


def evaluate(reference: Reference, points) -> Truth:
    """The reference at every point; ``points`` is one array per symbol, all of the same length."""
    n = len(points[0])
    zero, undefined = np.zeros(n, bool), np.zeros(n, bool)
    if reference.constant is not None:
        c = float(reference.constant)
        return Truth(np.full(n, c), np.zeros(n), zero | (c == 0), undefined)
    hi, lo = np.zeros(n), np.zeros(n)
    biggest = mpmath.mpf(FORMATS["float64"].max)
    saved = mpmath.mp.prec
    try:
        for k in range(n):
            value = reference.value([p[k] for p in points])
            if value != value:
                undefined[k] = True
            elif not value:
                zero[k] = True
            elif abs(value) > biggest:
                hi[k] = math.inf if value > 0 else -math.inf
            else:
                h = float(value)
                hi[k], lo[k] = h, float(value - h)
    finally:
        mpmath.mp.prec = saved
    return Truth(hi, lo, zero, undefined)
