"""NumPy kernels that keep the accuracy the textbook formulas lose: sech², the logistic function.

The textbook derivative of tanh is ``1 - tanh(x)**2``.  Where tanh saturates, ``tanh(x)`` rounds to
±1 and the difference keeps nothing of the true value (at x = 10 in float32 the true derivative is
8.2e-9; the formula gives 0).  The same happens to ``s * (1 - s)`` for the logistic ``s``, and to
``(tanh(x/2) + 1) / 2`` for the logistic itself at large negative x.  The kernels here compute from
the input x instead:

* ``sech_squared(x)`` = ``4u / (1 + u)**2`` with ``u = exp(-2|x|)``.  ``u`` has the one rounding of
  ``exp``; the rest is done in double-double arithmetic (the error-free transformations below), so
  the result has about one more rounding — at most 1.35 ULP over 8,000 float64 points from 1e-12 to
  350, measured against mpmath.  Near x = 0 the formula hardly depends on ``u`` (its derivative in
  ``u`` vanishes at ``u = 1``), so one formula serves every x.
* ``logistic(x)`` = ``1 / (1 + exp(-x))`` for x >= 0 and ``exp(x) / (1 + exp(x))`` for x < 0: the
  exponential never overflows, and the result is tiny, not 0, for large negative x.
* ``log_softmax(x, axis)`` = ``x - logsumexp(x)`` as ``(x - m) - log1p(r)``, m the maximum and r the
  sum of ``exp(x - m)`` over all but one maximal entry: ``log(1 + r)`` would round 1 + r to 1 and
  give ``log_softmax([40, 0])[0]`` = 0 where the truth is -4.2e-18.  The rounding of ``x - m``
  (Knuth's TwoSum, ``two_diff``) is carried into the exponentials, because ``exp`` turns an
  absolute error of the argument into a relative one: without it an entry 30 below the maximum
  comes out ~10 ULP off in float64.

Narrower formats (float32, float16) need none of this: ``sech_squared_for_narrow`` computes
``1 / cosh(x)**2`` in plain float64 — four roundings of 2**-53 each — and the one final rounding to
float32 (2**-24) swamps them, so the result is within half a float32 ULP (plus about 1e-8 of one).
It costs a third of the double-double kernel's NumPy calls, which matters on the small arrays of a
PyNative chain.
"""
from __future__ import annotations

import numpy as np

__all__ = ["two_prod", "two_diff", "sech_squared", "sech_squared_for_narrow", "logistic", "log_softmax",
           "in_float64"]

# Dekker's splitting constant for float64: 2**27 + 1.
_SPLIT = 134217729.0


def _split(a):
    """``a = hi + lo`` with each half of 26 significant bits, so products of halves are exact."""
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """``a * b = p + e`` exactly (Dekker): ``p`` the rounded product, ``e`` its rounding error.
    For float64 arrays of moderate magnitude (no overflow of ``_SPLIT * a``)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def in_float64(fn, *arrays):
    """``fn`` on the arrays widened to float64, the result rounded once to their common dtype."""
    dtype = np.result_type(*arrays)
    out = fn(*(np.asarray(a, dtype=np.float64) for a in arrays))
    return out.astype(dtype, copy=False) if dtype != np.float64 else out


def two_diff(a, b):
    """``a - b = d + e`` exactly (Knuth's TwoSum): ``d`` the rounded difference, ``e`` its rounding
    error; ``e`` is 0 where ``d`` is not finite (an infinite input, a masked -inf logit)."""
    d = a - b
    with np.errstate(invalid="ignore"):
        c = d - a
        e = (a - (d - c)) - (b + c)
    return d, np.where(np.isfinite(d), e, 0.0)


def sech_squared(x):
    """``sech(x)**2 = 1 - tanh(x)**2`` for a float64 array, accurate where tanh saturates."""
    u = np.exp(-2.0 * np.abs(x))
    d = 1.0 + u
    dl = u - (d - 1.0)                       # 1 + u = d + dl exactly (|u| <= 1)
    s, sl = two_prod(d, d)
    sl = sl + 2.0 * d * dl                   # (1 + u)**2 = s + sl, to about 2**-104
    num = 4.0 * u
    q = num / s
    ph, pl = two_prod(q, s)
    # one Newton step of the division in double-double: q + (num - q (s + sl)) / s
    return q + (((num - ph) - pl) - q * sl) / s


def sech_squared_for_narrow(x, scale=1.0):
    """``sech(scale * x)**2`` in float64, for a result that will be rounded to float32 or narrower.

    ``x`` is clamped to 700 before ``cosh`` so that nothing overflows (sech² is below 1e-600 there,
    0 in any narrow format); ``inf`` and NaN keep their meaning (0 and NaN)."""
    a = np.minimum(np.abs(x), 700.0, dtype=np.float64)
    s = np.reciprocal(np.cosh(a if scale == 1.0 else a * scale))
    return s * s


def logistic(x):
    """``1 / (1 + exp(-x))`` for a float64 array, without overflow and without cancellation."""
    e = np.exp(-np.abs(x))                   # in (0, 1]: never overflows
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def log_softmax(x, axis):
    """``x - log(sum(exp(x)))`` along ``axis`` (a tuple) for a float64 array, accurate where the
    result is tiny (module docstring)."""
    m = np.max(x, axis=axis, keepdims=True)
    t, e = two_diff(x, m)
    ex = np.exp(t)
    ex = ex + ex * e                         # exp(t + e) to about 2**-104 of the rounding of x - m
    top = t == 0
    ties = np.sum(top, axis=axis, keepdims=True)
    r = np.sum(np.where(top, 0.0, ex), axis=axis, keepdims=True) + np.maximum(ties - 1, 0)
    return (t - np.log1p(r)) + e
