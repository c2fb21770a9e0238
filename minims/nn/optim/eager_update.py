"""An optimizer's update on NumPy arrays directly, where running it op by op would give the same bits.

In PyNative mode an optimizer's step is a few elementwise ops per parameter (Momentum: two
multiplications, an addition, a subtraction and two ``ops.assign``), each dispatched, wrapped and
checked on its own: for LeNet's eight parameters that is ~50 dispatches per step around arrays of a
few hundred elements (issue 28 item 2).  Where nothing can observe or change those ops — no
interpreter active (no gradient level, no graph being compiled, no ``vmap``), nothing rewriting
binds (mixed precision, a lent Parameter), the plain evaluator (no ``check_nan``) — an optimizer may
apply the same arithmetic with NumPy, one correctly rounded operation for each op in the same order
and dtype, and store the results with the same Parameter write (``undo.write``).  The values are
then bit-identical to the op-by-op update (``tests/nn/test_eager_update.py``); anywhere else the
optimizer runs its ops, and a compiled step records them as before.
"""
from __future__ import annotations

import numpy as np

from ...core import stack

__all__ = ["plain_eager", "same_float_arrays"]


def plain_eager() -> bool:
    """True when an op would run straight on NumPy arrays (module docstring)."""
    return not stack.active_traces() and not stack.rewriters() and stack.evaluator() is stack.evaluate


def same_float_arrays(*tensors) -> bool:
    """True when the Tensors hold NumPy arrays of one float dtype (the op-by-op update would then
    compute in that dtype, with no cast)."""
    dtype = tensors[0]._data.dtype
    return dtype.kind == "f" and all(type(t._data) is np.ndarray and t._data.dtype == dtype for t in tensors)
