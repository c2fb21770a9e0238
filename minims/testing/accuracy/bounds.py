"""The documented accuracy bound of every row of the table, in ULP of the true value.

Every rule of every elementwise primitive must stay within :data:`DEFAULT_BOUND` ULP wherever the
true value is a normal number, in float64 and in float32.  The derivatives that cannot are listed
in :data:`CONDITIONED`, with why and the condition number their bound is scaled by: each is a sum of
two terms of opposite sign that vanishes inside the domain, at points no rounded input hits
exactly, and near such a zero the relative error of any computation in the working precision grows
like the condition number of that sum, ``(|a| + |b|) / |a + b|``.  The table (docs/accuracy.md) and the CI test
(``tests/testing/test_accuracy_bounds.py``) read the bounds from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["DEFAULT_BOUND", "Conditioned", "CONDITIONED", "bound_for", "condition_for"]

DEFAULT_BOUND = 4.0


@dataclass(frozen=True)
class Conditioned:
    """A derivative whose error is bounded by ``factor * kappa(inputs)`` ULP."""

    kappa: Callable            # float64 arrays of the inputs -> condition number >= 1, elementwise
    formula: str               # kappa, as docs/accuracy.md prints it
    why: str
    factor: float = DEFAULT_BOUND


def _pow_mixed_kappa(x, y):
    t = y * np.log(x)
    with np.errstate(divide="ignore"):
        return (1 + np.abs(t)) / np.abs(1 + t)


def _third_kappa(t):
    """(a + b) / |a - b| for a = 1 - t**2 and b = 2 t**2: the terms of a third derivative of tanh."""
    with np.errstate(divide="ignore"):
        return (1 + t * t) / np.abs(1 - 3 * t * t)


_POW_MIXED = Conditioned(
    _pow_mixed_kappa, "(1 + |y log x|) / |1 + y log x|",
    "∂²(x^y)/∂x∂y = x^(y-1) (1 + y log x) vanishes on the curve y log x = -1, which crosses the domain. "
    "Near it the rules add x^(y-1) and y x^(y-1) log x, two terms of opposite sign, and the rounding "
    "of log x (a fraction of a ULP) is magnified by their cancellation; computing 1 + y log x to a "
    "few ULP there would need log x to more than working precision.")

_TANH_THIRD = Conditioned(
    lambda x, dout: _third_kappa(np.tanh(x)), "(1 + tanh²x) / |1 - 3 tanh²x|",
    "The second x-derivative of TanhGrad(x, dout) is the third derivative of tanh, "
    "-2 dout sech²x (1 - 3 tanh²x), zero at x = ±atanh(1/√3) = ±0.658. The rule differentiates "
    "-2 tanh(x) TanhGrad(x, dout) by the product rule, and its two terms, sech⁴x and 2 tanh²x sech²x, "
    "cancel there. Each term is a product of three or four rounded factors, about 4 ULP of rounding "
    "in all, hence the factor 6 rather than 4.", factor=6.0)

_SIGMOID_THIRD = Conditioned(
    lambda x, dout: _third_kappa(np.tanh(x / 2)), "(1 + tanh²(x/2)) / |1 - 3 tanh²(x/2)|",
    "The second x-derivative of SigmoidGrad(x, dout) is the third derivative of sigmoid, "
    "dout σ'(x) (1 - 6 σ'(x)), zero at x = ±2 atanh(1/√3) = ±1.317, where the two product-rule "
    "terms of -tanh(x/2) SigmoidGrad(x, dout) cancel; as for TanhGrad, each term carries several "
    "roundings, hence the factor 6.", factor=6.0)

#: ``(primitive, derivative) -> Conditioned``; the derivative as the table writes it ("xy": d/dy of d/dx).
CONDITIONED: dict[tuple[str, str], Conditioned] = {
    ("Pow", "xy"): _POW_MIXED, ("Pow", "yx"): _POW_MIXED,
    ("TanhGrad", "xx"): _TANH_THIRD, ("SigmoidGrad", "xx"): _SIGMOID_THIRD,
}


def bound_for(primitive: str, wrt: str) -> float:
    """The bound of one row (for a conditioned derivative: the factor of its condition number)."""
    conditioned = condition_for(primitive, wrt)
    return DEFAULT_BOUND if conditioned is None else conditioned.factor


def condition_for(primitive: str, wrt: str) -> Conditioned | None:
    """The condition number a row's errors are divided by before the bound applies (None: 1)."""
    return CONDITIONED.get((primitive, wrt))
