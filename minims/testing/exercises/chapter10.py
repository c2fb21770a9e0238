"""Exercises of chapter 10 (how accurate is a gradient).

10.1  tanh'(x) from the input, in a form that does not cancel where tanh saturates (checked in ULP);
10.2  the error of a float64 result against a true value, in ULP of the true value.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy

from ...core.tensor import Tensor
from ..accuracy.bounds import DEFAULT_BOUND
from ..accuracy.reference import Reference, evaluate as reference_values
from . import Exercise
from .declare import Box, drawn, random_source
from .feedback import Quantity, ulp_distance
from .measure import array_of, where

# ----- 10.1: tanh' that survives saturation ------------------------------------------------------------
#: the chapter's five points, then random ones near 0 and far out, to |x| = 300 (where exp(2|x|)
#: is 1e260: a formula that forms it, such as 4u/(1+u)**2 with u = exp(-2x) for x < 0, overflows)
_TANH_POINTS = [np.array([-20.0, -3.0, 0.5, 10.0, 20.0]),
                *(p["x"] for p in drawn("10.1", 1, x=Box((5,), -6.0, 6.0))),
                *(p["x"] for p in drawn("10.1 far", 2, x=Box((4,), -300.0, 300.0)))]
_DERIVATIVE = "the value of tanh'(x)"


def _tanh_run(tanh_derivative):
    return [Quantity(_DERIVATIVE, "", 0, where({"x": x}), array_of(tanh_derivative(Tensor(x))))
            for x in _TANH_POINTS]


def _tanh_expect():
    s = sympy.Symbol("x", real=True)
    reference = Reference(sympy.diff(sympy.tanh(s), s), (s,))
    found = []
    for x in _TANH_POINTS:
        truth = reference_values(reference, [x])
        found.append(Quantity(_DERIVATIVE, "", 0, where({"x": x}), truth.hi, ulps=DEFAULT_BOUND, lo=truth.lo))
    return found


def _how_accurate(tanh_derivative) -> str:
    """The answer's error in ULP, measured at every point: the worst, and where."""
    worst, where_worst = -1.0, 0.0
    for x, q in zip(_TANH_POINTS, _tanh_expect()):
        ulps = ulp_distance(q, array_of(tanh_derivative(Tensor(x))))
        i = int(np.argmax(ulps))
        if ulps[i] > worst:
            worst, where_worst = float(ulps[i]), float(x[i])
    return (f"Your tanh' is within {worst:.2g} ULP of the true value (float64) at every point, the worst at "
            f"x = {where_worst:g}; saturated points, out to |x| = 300, included.")


TANH_DERIVATIVE = Exercise(
    "10.1", "tanh'(x) that survives saturation",
    "1 - tanh(x)**2 asks how far a rounded 1 is from 1, and once tanh(x) rounds to 1 nothing is left. "
    "Section 3 writes tanh'(x) from x so that nothing is subtracted; mind the sign of x (exp of a large "
    "positive number overflows).",
    run=_tanh_run, expect=_tanh_expect,
    reference="SymPy's d/dx tanh(x), evaluated by mpmath",
    solved=_how_accurate, wants="function tanh_derivative",
    worked="tanh'(x) = sech(x)**2 = 4 / (e^x + e^-x)**2. Multiply above and below by u = e^(-2|x|), which is at "
           "most 1: tanh'(x) = 4u / (1 + u)**2. Nothing is subtracted, and nothing overflows (u only "
           "underflows, to 0, where the true value is below the smallest float64 anyway).")


# ----- 10.2: an error in ULP ---------------------------------------------------------------------------
def _cases():
    """(computed float64, true value as an mpmath number, how to write them) for exercise 10.2: the
    chapter's five, then random true values of either sign over 2**-60 .. 2**60, each with a float64
    a few ULP away (their mantissa stays clear of a power of 2, where float(t) may round into the
    next binade)."""
    with mpmath.workdps(50):
        cases = [(1.0 + 2.0 ** -52, mpmath.mpf(1), "(1 + 2**-52, 1)"),
                 (1.0 - 2.0 ** -53, mpmath.mpf(1), "(1 - 2**-53, 1)"),
                 (-1.0 + 2.0 ** -53, mpmath.mpf(-1), "(-1 + 2**-53, -1)"),
                 (0.1, mpmath.mpf(1) / 10, "(0.1, 1/10)"),
                 (0.0, mpmath.sech(20) ** 2, "(0.0, sech(20)**2)")]
        rng = random_source("10.2")
        for _ in range(3):
            digits = "".join(str(d) for d in rng.integers(0, 10, 48))
            mantissa = mpmath.mpf("1.001") + mpmath.mpf("0.998") * mpmath.mpf("0." + digits)
            t = mpmath.ldexp(mantissa, int(rng.integers(-60, 61))) * int(rng.choice([-1, 1]))
            c = float(t) + int(rng.integers(-5, 6)) * float(np.spacing(abs(float(t))))
            cases.append((c, t, f"({c!r}, {mpmath.nstr(t, 20)})"))
        return cases


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


def _what_errors(ulp_error) -> str:
    """The answer's errors on the chapter's five cases, measured."""
    got = ", ".join(f"{float(ulp_error(c, t)):.4g}" for c, t, _ in _cases()[:5])
    return (f"On the chapter's five cases your ulp_error gave {got} ULP: the ULP of the true value, in "
            "float64 (53 significant bits).")


ULP_ERROR = Exercise(
    "10.2", "an error in ULP",
    "the ULP of the true value t is 2**(e - 52) where 2**e <= |t| < 2**(e + 1); math.frexp(float(t)) "
    "gives e + 1. The error is |c - t| / ulp(t), computed with mpmath (t has 50 digits).",
    run=_ulp_run, expect=_ulp_expect, reference="the definition, in mpmath with 50 digits",
    solved=_what_errors, wants="function ulp_error",
    worked="math.frexp(float(t)) gives (m, e) with |t| = m 2**e and 0.5 <= m < 1, so 2**(e - 1) <= |t| < 2**e "
           "and ulp(t) = 2**(e - 1 - 52) = 2**(e - 53). Then abs(mpmath.mpf(c) - t) / mpmath.ldexp(1, e - 53), "
           "as a float.")

EXERCISES = (TANH_DERIVATIVE, ULP_ERROR)
