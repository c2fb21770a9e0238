"""Scalar functions with NumPy's float behaviour, for the forms graph fusion compiles (``fused_sympy``).

Graph fusion (``minims.fast.fusion``) compiles a chain of elementwise primitives from their SymPy
rules.  SymPy thinks in exact numbers, and where the NumPy ``impl`` has a float behaviour of its own
the printed rule gives another answer:

* ``Max(x, y)`` sorts its arguments, so which operand a tie returns is lost; ``np.maximum(-0.0, 0.0)``
  is +0.0 and ``np.maximum(0.0, -0.0)`` is -0.0 (NumPy returns the second operand on a tie, and
  MindSpore 2.10 does the same), which ``1 / z`` tells apart;
* ``np.clip(-0.0, 0, 6)`` is -0.0 (the value is kept unless it lies outside), ``np.maximum(-0.0, 0)``
  is +0.0: ReLU6 and ReLU differ there;
* an ``impl`` that computes in float64 and rounds once (``in_float64``: the logistic function, log,
  the narrow kernels of TanhGrad and SigmoidGrad) keeps subnormal results such as sigmoid(-100) =
  3.7e-44 in float32, which ``1 / (1 + exp(100))`` in float32 flushes to 0.

A primitive whose NumPy kernel does such a thing writes its ``fused_sympy`` form with the undefined
SymPy functions below; the printer writes each as a Numba helper of the same name (``fusion._HELPERS``)
that computes what the NumPy kernel computes, bit for bit on signed zeros, subnormals, infinities and
NaN (``tests/graph/test_i22_fused.py`` checks every fusible primitive on them).
"""
from __future__ import annotations

import sympy

__all__ = ["np_maximum", "np_minimum", "np_clip", "f64", "logistic", "sech2_narrow", "FORMS"]

#: ``np.maximum(a, b)``: NaN if either is NaN, else the larger, ``b`` on a tie (+0.0 vs -0.0).
np_maximum = sympy.Function("np_maximum")

#: ``np.minimum(a, b)``: NaN if either is NaN, else the smaller, ``b`` on a tie.
np_minimum = sympy.Function("np_minimum")

#: ``np.clip(a, lo, hi)``: NaN stays NaN, ``lo`` below it, ``hi`` above it, else ``a`` itself (-0.0 too).
np_clip = sympy.Function("np_clip")

#: The value widened to float64, so that what follows is computed in float64 (``in_float64``).
f64 = sympy.Function("f64")

#: ``accurate.logistic`` in float64: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: no overflow.
logistic = sympy.Function("logistic")

#: ``accurate.sech_squared_for_narrow(a, scale)``: sech(scale * min(|a|, 700))² in float64.
sech2_narrow = sympy.Function("sech2_narrow")

#: The names the fusion printer must know.
FORMS = ("np_maximum", "np_minimum", "np_clip", "f64", "logistic", "sech2_narrow")
