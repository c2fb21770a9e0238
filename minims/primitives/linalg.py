"""Matrix multiplication: ``MatMul(transpose_a, transpose_b)``, batched with broadcasting.

The four transpose combinations have closed-form gradients that are themselves matrix products,
so the backward rule only ever calls ``MatMul`` again (with other transpose flags) and sums the
batch dimensions that broadcasting added.
"""
from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from ..core.stack import bind
from ..core.primitive import Primitive, wants_grad
from . import batch_rules, tangents as T
from .operands import DtypeMismatchError, ShapeMismatchError, sum_to
from .precision import cast_by_bind as _cast_by_bind


class MatMul(Primitive):
    """``ops.MatMul(transpose_a=False, transpose_b=False)(x, y)`` for inputs of rank >= 2."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    skips_unneeded_grads = True      # a product per input: a constant input costs none

    def __init__(self, transpose_a=False, transpose_b=False):
        for arg, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b)):
            if not isinstance(v, (bool, np.bool_)):    # ops.MatMul(x, y): inputs given to the constructor
                raise TypeError(
                    f"{type(self).__name__}: {arg} must be a bool, but got {type(v).__name__}. A Primitive "
                    f"is created first and then called with its inputs. Fix: ops.{type(self).__name__}()(x, y), "
                    "or ops.matmul(x, y).")
        self.transpose_a = bool(transpose_a)
        self.transpose_b = bool(transpose_b)

    def __call__(self, x, y):
        self._check(x, y)
        return bind(self, x, y)

    def _check(self, x, y):
        for name, v in (("x", x), ("y", y)):
            if not isinstance(v, Tensor):
                raise TypeError(f"{self.name}: input '{name}' must be a Tensor, but got {type(v).__name__}.")
            if len(v.shape) < 2:
                raise ValueError(
                    f"{self.name}: input '{name}' must have rank >= 2, but has shape {list(v.shape)}. "
                    "Fix: use ops.matmul for vectors, or reshape to a matrix."
                )
        if x.dtype is not y.dtype and not _cast_by_bind(x, y):
            raise DtypeMismatchError(self.name, ("x", "y"), (x.dtype, y.dtype))
        k_x = x.shape[-2] if self.transpose_a else x.shape[-1]
        k_y = y.shape[-1] if self.transpose_b else y.shape[-2]
        if k_x != k_y:
            raise ShapeMismatchError(
                f"{self.name}: the inner dimensions do not match: x has shape {list(x.shape)}"
                f"{' (transposed)' if self.transpose_a else ''} and y has shape {list(y.shape)}"
                f"{' (transposed)' if self.transpose_b else ''}, so x contributes {k_x} columns but "
                f"y has {k_y} rows. Fix: transpose or reshape one input so these agree."
            )
        try:
            np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise ValueError(
                f"{self.name}: batch dimensions {list(x.shape[:-2])} and {list(y.shape[:-2])} "
                "cannot be broadcast together."
            ) from None

    def impl(self, x, y):
        if self.transpose_a:
            x = np.swapaxes(x, -1, -2)
        if self.transpose_b:
            y = np.swapaxes(y, -1, -2)
        if x.shape[-1] == 1 and y.ndim >= 2 and y.shape[-2] == 1 and x.ndim > 2:
            # a stack of outer products (per-example weight gradients under vmap): NumPy's matmul
            # runs these one small product at a time, 2-3x slower than the same broadcast product.
            # Bit for bit the same numbers once the sum a product starts from is added: each entry
            # is 0 + x*y, so a product -0.0 (-4 * 0) comes out +0.0, as from any matmul
            out = np.multiply(x, y)
            if out.dtype.kind in "fc":
                out += 0
            return out
        return np.matmul(x, y)

    def batch(self, args, dims, size):
        """The vmap batch is one more leading batch axis of the product (batched operands get
        singleton axes so that their batch axes line up)."""
        return batch_rules.elementwise(self, args, dims, size, any_axis=False)

    def bprop(self, x, y, out, dout):
        ta, tb = self.transpose_a, self.transpose_b
        dx = dy = None
        if wants_grad(0):
            if not ta:             # C = X Y or X Y^T
                dx = _mm(False, not tb)(dout, y)
            else:                  # C = X^T Y or X^T Y^T
                dx = _mm(tb, True)(y, dout)
            dx = sum_to(dx, x)
        if wants_grad(1):
            if not tb:             # C = X Y or X^T Y
                dy = _mm(not ta, False)(x, dout)
            else:                  # C = X Y^T or X^T Y^T
                dy = _mm(True, ta)(dout, x)
            dy = sum_to(dy, y)
        return dx, dy

    def jvp(self, primals, tangents):
        (x, y), (tx, ty) = primals, tangents       # bilinear: d(xy) = dx y + x dy
        out = bind(self, x, y)
        dx = bind(self, tx, y) if tx is not None else None
        dy = bind(self, x, ty) if ty is not None else None
        return out, T.fit(T.add(dx, dy), out)

    def sympy(self, x, y):
        return self.impl(x, y)


class BatchMatMul(MatMul):
    """``ops.BatchMatMul(transpose_a=False, transpose_b=False)``: MatMul over leading batch axes."""


_CACHE = {}


def _mm(ta: bool, tb: bool) -> MatMul:
    key = (ta, tb)
    prim = _CACHE.get(key)
    if prim is None:
        prim = _CACHE[key] = MatMul(ta, tb)
    return prim
