"""Solutions of chapter 10's exercises (how accurate is a gradient)."""
import math

import mpmath

import minims.ops as ops


def tanh_derivative(x):
    """10.1: tanh'(x) = 4u / (1 + u)**2 with u = exp(-2|x|): computed from x, nothing cancels."""
    u = ops.exp(-2 * ops.abs(x))
    return 4 * u / (1 + u) ** 2


def ulp_error(c, t):
    """10.2: |c - t| in ULP of the true value t, in float64 (53 significant bits)."""
    _, e = math.frexp(float(t))                 # |t| in [2**(e-1), 2**e): its ULP is 2**(e - 53)
    return float(abs(mpmath.mpf(c) - t) / mpmath.ldexp(1, e - 53))


SOLUTIONS = {"10.1": tanh_derivative, "10.2": ulp_error}
