"""Errors in units in the last place (ULP): how far a computed float is from the true value.

The *ULP* of a real number ``t`` in a binary floating-point format with ``p`` significand bits is the
gap between the two representable numbers around it: ``2**(e - p + 1)`` where ``2**e <= |t| < 2**(e+1)``
(``p`` = 53 for float64, 24 for float32).  A correctly rounded result is within 0.5 ULP of ``t``;
``|computed - t| / ulp(t)`` is the error this module measures.  The ULP is taken of the *true* value,
not of the computed one, so a result of 0 where ``t`` is 1e-9 counts as about ``2**29`` ULP in float32
rather than as "infinitely wrong".

The true value comes as a double-double ``hi + lo`` (two float64 numbers, about 106 significant
bits), so even float64 results are compared exactly: for ``computed`` near ``hi`` the difference
``computed - hi`` is exact (Sterbenz's lemma), and ``lo`` carries the rest.

Where ``t`` is not a normal number of the format, a ULP error means something else, so those points
are classified apart (:data:`CLASSES`): an exact zero, a subnormal value (measured in units of the
smallest subnormal, the spacing there), a value beyond the largest finite number (overflow: the
result should be infinite), or no real value at all (the reference is undefined there).
"""
from __future__ import annotations

import numpy as np

__all__ = ["CLASSES", "FORMATS", "Format", "ulp_errors", "subnormal_errors"]

#: How a true value sits in a format: ``normal`` values get a ULP error; the rest are reported apart.
CLASSES = ("normal", "zero", "subnormal", "overflow", "undefined")


class Format:
    """The facts of one binary format that the error needs: precision and range."""

    def __init__(self, dtype):
        info = np.finfo(dtype)
        self.name = np.dtype(dtype).name           # "float64"
        self.dtype = np.dtype(dtype)
        self.precision = info.nmant + 1            # significand bits, the hidden one included
        self.tiny = float(info.smallest_normal)
        self.max = float(info.max)
        self.subnormal_spacing = float(info.smallest_subnormal)

    def __repr__(self):
        return f"Format({self.name})"


FORMATS = {name: Format(name) for name in ("float32", "float64")}


def ulp_errors(computed, hi, lo, fmt: Format) -> np.ndarray:
    """``|computed - (hi + lo)| / ulp(hi + lo)`` elementwise, for true values that are normal in ``fmt``.

    ``computed`` may be float32 or float64; it is widened to float64, which is exact.  A NaN or an
    infinity where the true value is finite is an infinite error.
    """
    c = np.asarray(computed, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    _, exponent = np.frexp(hi)                      # |hi| in [2**(exponent-1), 2**exponent)
    ulp = np.ldexp(1.0, exponent - fmt.precision)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs((c - hi) - lo) / ulp
    return np.where(np.isfinite(c), err, np.inf)


def subnormal_errors(computed, hi, lo, fmt: Format) -> np.ndarray:
    """The error in units of the smallest subnormal, for true values below the normal range."""
    c = np.asarray(computed, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs((c - np.asarray(hi, np.float64)) - np.asarray(lo, np.float64)) / fmt.subnormal_spacing
    return np.where(np.isfinite(c), err, np.inf)
