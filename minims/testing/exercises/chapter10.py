"""Exercises of chapter 10 (how accurate is a gradient).

10.1  tanh'(x) from the input, in a form that does not cancel where tanh saturates (checked in ULP);
10.2  the error of a float64 result against a true value, in ULP of the true value.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy

from ...common.tensor import Tensor
from ..accuracy.bounds import DEFAULT_BOUND
from ..accuracy.reference import Reference, evaluate as reference_values
from . import Exercise
from .feedback import Quantity
from .measure import array_of, where

# ----- 10.1: tanh' that survives saturation ------------------------------------------------------------
_TANH_POINTS = np.array([-20.0, -3.0, 0.5, 10.0, 20.0])
_DERIVATIVE = "the value of tanh'(x)"


def _tanh_run(tanh_derivative):
    got = tanh_derivative(Tensor(_TANH_POINTS))
    return [Quantity(_DERIVATIVE, "", 0, where({"x": _TANH_POINTS}), array_of(got))]


def _tanh_expect():
    s = sympy.Symbol("x", real=True)
    truth = reference_values(Reference(sympy.diff(sympy.tanh(s), s), (s,)), [_TANH_POINTS])
    return [Quantity(_DERIVATIVE, "", 0, where({"x": _TANH_POINTS}), truth.hi, ulps=DEFAULT_BOUND, lo=truth.lo)]


TANH_DERIVATIVE = Exercise(
    "10.1", "tanh'(x) that survives saturation",
    "1 - tanh(x)**2 asks how far a rounded 1 is from 1. With u = exp(-2|x|) (ops.exp, ops.abs), "
    "tanh'(x) = 4u / (1 + u)**2: nothing is subtracted.",
    run=_tanh_run, expect=_tanh_expect,
    reference="SymPy's d/dx tanh(x), evaluated by mpmath",
    solved=f"Within {DEFAULT_BOUND:g} ULP of the true value (float64) at every point, saturated ones included.")


# ----- 10.2: an error in ULP ---------------------------------------------------------------------------
def _cases():
    """(computed float64, true value as an mpmath number, how to write them) for exercise 10.2."""
    with mpmath.workdps(50):
        return [(1.0 + 2.0 ** -52, mpmath.mpf(1), "(1 + 2**-52, 1)"),
                (1.0 - 2.0 ** -53, mpmath.mpf(1), "(1 - 2**-53, 1)"),
                (-1.0 + 2.0 ** -53, mpmath.mpf(-1), "(-1 + 2**-53, -1)"),
                (0.1, mpmath.mpf(1) / 10, "(0.1, 1/10)"),
                (0.0, mpmath.sech(20) ** 2, "(0.0, sech(20)**2)")]


_CASES_TEXT = "(c, t) = " + ", ".join(text for _, _, text in _cases())
_ERRORS = "the errors in ULP"


def _ulp_run(ulp_error):
    got = [ulp_error(c, t) for c, t, _ in _cases()]
    return [Quantity(_ERRORS, "", 0, _CASES_TEXT, None if any(g is None for g in got) else array_of(
        [float(g) for g in got]))]


def _ulp_expect():
    """|c - t| / 2**(e - 52) with 2**e <= |t| < 2**(e + 1), in mpmath with 50 digits."""
    with mpmath.workdps(50):
        values = [abs(mpmath.mpf(c) - t) / mpmath.ldexp(1, mpmath.frexp(t)[1] - 1 - 52)
                  for c, t, _ in _cases()]
        return [Quantity(_ERRORS, "", 0, _CASES_TEXT, np.array([float(v) for v in values]))]


ULP_ERROR = Exercise(
    "10.2", "an error in ULP",
    "the ULP of the true value t is 2**(e - 52) where 2**e <= |t| < 2**(e + 1); math.frexp(float(t)) "
    "gives e + 1. The error is |c - t| / ulp(t), computed with mpmath (t has 50 digits).",
    run=_ulp_run, expect=_ulp_expect, reference="the definition, in mpmath with 50 digits",
    solved="The ULP is that of the true value, in float64 (53 bits).")

EXERCISES = (TANH_DERIVATIVE, ULP_ERROR)
