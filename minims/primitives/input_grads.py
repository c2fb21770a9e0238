"""The derivatives of tanh, sigmoid and sqrt as primitives of their own, computed from the input.

MindSpore's backward rules call ``TanhGrad(y, dy)``, ``SigmoidGrad(y, dy)`` and ``SqrtGrad(y, dy)``:
they compute the derivative from the *output* ``y`` — ``dy * (1 - y*y)``, ``dy * y * (1 - y)``,
``dy / (2y)``.  Where tanh or sigmoid saturate, ``y`` rounds to ±1 (or 1), and those formulas keep no
correct digit: the gradient of a perfectly trainable unit comes out as 0 or as noise.  The
primitives here take the *input* ``x`` instead (``TanhGrad(x, dout)``), and their NumPy kernels
(``accurate.py``) stay within a couple of ULP everywhere the true value is a normal number.

Each has the rules of any primitive, written in minims ops, so derivatives of every order work and
stay accurate (``python -m minims.testing.accuracy`` measures them):

* ``TanhGrad(x, d) = d sech²x``; its derivative in x is ``-2 tanh(x) TanhGrad(x, d)``;
* ``SigmoidGrad(x, d) = d σ(x) σ(-x)``; in x: ``-tanh(x/2) SigmoidGrad(x, d)`` (as 1 - 2σ(x) = -tanh(x/2));
* ``SqrtGrad(x, d) = d / (2 sqrt x)``; in x: ``-SqrtGrad(x, d) / (2x)``;

and all three are linear in ``d``.
"""
from __future__ import annotations

import numpy as np
import sympy

from . import functional as ops
from ..core.stack import bind
from . import batch_rules, tangents as T
from ..fast import scalar_forms as F
from .accurate import in_float64, sech_squared, sech_squared_for_narrow
from ..core.primitive import Primitive, wants_grad
from .operands import sum_to

__all__ = ["TanhGrad", "SigmoidGrad", "SqrtGrad"]


class _InputGrad(Primitive):
    """``dout * f'(x)`` for an elementwise f; subclasses give the kernel and ``f''/f'`` in minims ops."""

    skips_unneeded_grads = True
    checks_rule_results = False       # built-in rule: checked over the table by the tests

    def batch(self, args, dims, size):
        return batch_rules.elementwise(self, args, dims, size)

    def kernel(self, x, dout):
        """``dout * f'(x)`` on float64 arrays, accurate to float64's last bits."""
        raise NotImplementedError

    def narrow_kernel(self, x, dout):
        """``dout * f'(x)`` in float64 for a float32 or narrower result: only the final rounding to
        that format has to be right, which plain float64 arithmetic gives much more cheaply.
        ``None``: use ``kernel``."""
        return None

    def ratio(self, x):
        """``f''(x) / f'(x)`` in minims ops: the x-derivative of the rule is ``ratio(x) * rule``."""
        raise NotImplementedError

    def impl(self, x, dout):
        if type(x) is np.ndarray and type(dout) is np.ndarray and x.dtype is dout.dtype:
            dtype = x.dtype                 # the common case, without result_type's cost
        else:
            dtype = np.result_type(x, dout)
        if dtype.itemsize < 8:
            out = self.narrow_kernel(x, dout)
            if out is not None:
                return out.astype(dtype, copy=False)
        return in_float64(self.kernel, x, dout)

    def bprop(self, x, dout, out, g):
        # x and dout may broadcast against each other: each gradient is summed back to its input's shape
        dx = sum_to(ops.mul(self.ratio(x), bind(self, x, ops.mul(dout, g))), x) if wants_grad(0) else None
        ddout = sum_to(bind(self, x, g), dout) if wants_grad(1) else None
        return dx, ddout

    def jvp(self, primals, tangents):
        (x, dout), (tx, td) = primals, tangents
        out = bind(self, x, dout)
        along_x = T.mul(tx, ops.mul(self.ratio(x), out))
        along_dout = None if td is None else bind(self, x, td)
        return out, T.fit(T.add(along_x, along_dout), out)


class TanhGrad(_InputGrad):
    """``dout * (1 - tanh(x)**2)``, computed as ``dout * sech(x)**2`` from x."""

    def kernel(self, x, dout):
        return dout * sech_squared(x)

    def narrow_kernel(self, x, dout):
        return np.multiply(dout, sech_squared_for_narrow(x), dtype=np.float64)

    def fused_sympy(self, dtype, x, dout):
        # the narrow kernel's arithmetic, in float64 as it computes it (scalar_forms.py)
        return np.frompyfunc(lambda v, d: d * F.sech2_narrow(v, 1.0), 2, 1)(x, dout) if dtype != "float64" else None

    def ratio(self, x):
        return ops.mul(ops.tanh(x), -2.0)

    def sympy(self, x, dout):
        return np.frompyfunc(lambda v, d: d * (1 - sympy.tanh(v) ** 2), 2, 1)(x, dout)


class SigmoidGrad(_InputGrad):
    """``dout * σ(x) (1 - σ(x))``, computed as ``dout * sech(x/2)**2 / 4`` from x."""

    def kernel(self, x, dout):
        return dout * (0.25 * sech_squared(0.5 * x))       # σ' = sech²(x/2) / 4: both scalings exact

    def narrow_kernel(self, x, dout):
        return np.multiply(dout, 0.25 * sech_squared_for_narrow(x, 0.5), dtype=np.float64)

    def fused_sympy(self, dtype, x, dout):
        return (np.frompyfunc(lambda v, d: d * (sympy.Rational(1, 4) * F.sech2_narrow(v, sympy.Rational(1, 2))),
                              2, 1)(x, dout) if dtype != "float64" else None)

    def ratio(self, x):
        return ops.neg(ops.tanh(ops.mul(x, 0.5)))

    def sympy(self, x, dout):
        return np.frompyfunc(lambda v, d: d * sympy.exp(-v) / (1 + sympy.exp(-v)) ** 2, 2, 1)(x, dout)


class SqrtGrad(_InputGrad):
    """``dout / (2 sqrt(x))``."""

    def kernel(self, x, dout):
        return (dout * 0.5) / np.sqrt(x)                   # halving is exact: two roundings in all

    def ratio(self, x):
        return ops.div(-0.5, x)

    def sympy(self, x, dout):
        return np.frompyfunc(lambda v, d: d / (2 * sympy.sqrt(v)), 2, 1)(x, dout)
