"""Fast batch normalisation (forward only; the backward rule stays in minims ops).

Per channel ``c`` of ``x`` (viewed as ``(N, C, L)``, ``L = H*W``, or 1 for 2-D input):

    training:   mu = mean(x[:, c]),  var = mean((x[:, c] - mu)**2)     (the biased variance)
    both:       y[:, c] = (x[:, c] - mu) * (scale[c] / sqrt(var + eps)) + bias[c]

The NumPy path makes about six passes over ``x`` (mean, variance, subtract, multiply, add, cast);
this kernel makes three (sum, sum of squares around the mean, write ``y``), a channel at a time
(one channel per thread when ``minims.fast.parallel`` is on).
The variance is computed around the mean (two passes), not as ``E[x^2] - E[x]^2``, which loses
every digit when the mean is large compared to the spread.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from ._common import FLOATS, c_array, kernel

__all__ = ["batch_norm"]


@kernel(parallel=True, reassociate=True)
def _bn_training(x, scale, bias, eps):
    """``(y, mean, biased variance)`` with the batch statistics; ``x`` is ``(N, C, L)``."""
    n_, c_, l_ = x.shape
    m = n_ * l_
    y = np.empty_like(x)
    mean = np.empty(c_, dtype=x.dtype)
    var = np.empty(c_, dtype=x.dtype)
    for c in prange(c_):
        total = 0.0                                  # float64 accumulators
        for n in range(n_):
            for k in range(l_):
                total += x[n, c, k]
        mean[c] = total / m
        mu = mean[c]                                 # read back: rounded to x's dtype, as in NumPy
        squares = 0.0
        for n in range(n_):
            for k in range(l_):
                d = x[n, c, k] - mu
                squares += d * d
        var[c] = squares / m
        a = scale[c] / np.sqrt(var[c] + eps)        # y = (x - mu) * a + b
        b = bias[c]
        for n in range(n_):
            for k in range(l_):
                y[n, c, k] = (x[n, c, k] - mu) * a + b
    return y, mean, var


@kernel(parallel=True)
def _bn_inference(x, scale, bias, mean, var, eps):
    """``y`` with the given (moving) statistics; ``x`` is ``(N, C, L)``."""
    n_, c_, l_ = x.shape
    y = np.empty_like(x)
    for c in prange(c_):
        a = scale[c] / np.sqrt(var[c] + eps)
        b = bias[c]
        mu = mean[c]
        for n in range(n_):
            for k in range(l_):
                y[n, c, k] = (x[n, c, k] - mu) * a + b
    return y


def batch_norm(prim, x, scale, bias, mean, variance):
    """The five outputs of ``BatchNorm`` (see ``minims.primitives.nn.batch_norm``), or None."""
    if not isinstance(x, np.ndarray) or x.dtype not in FLOATS or x.ndim not in (2, 4):
        return None
    if not all(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in (scale, bias, mean, variance)):
        return None
    n, c = x.shape[:2]
    x3 = c_array(x).reshape(n, c, -1)
    # the parameters enter the arithmetic in x's dtype, as in the NumPy path
    s, b = (c_array(v.astype(x.dtype, copy=False)) for v in (scale, bias))
    if prim.is_training:
        y, mu, var = _bn_training(x3, s, b, prim.epsilon)
        m = x.size // c
        stats = (mu, var * (m / (m - 1)), mu, var)     # the moving average uses the unbiased variance
    else:
        mu, var = (c_array(v.astype(x.dtype, copy=False)) for v in (mean, variance))
        y = _bn_inference(x3, s, b, mu, var, prim.epsilon)
        stats = (mean.copy(), variance.copy(), mean.copy(), variance.copy())
    return (y.reshape(x.shape),) + tuple(v.astype(scale.dtype, copy=False) for v in stats)


def _examples():
    def training(dtype):
        one = np.ones(1, dtype)
        _bn_training(np.zeros((2, 1, 1), dtype), one, one, 1e-5)

    def inference(dtype):
        one = np.ones(1, dtype)
        _bn_inference(np.zeros((2, 1, 1), dtype), one, one, one, one, 1e-5)

    return [("batch_norm.training", _bn_training, training), ("batch_norm.inference", _bn_inference, inference)]
