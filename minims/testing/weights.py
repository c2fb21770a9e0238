"""A Cell's Parameters as arguments: so that ``check_grads`` can differentiate with respect to them.

``check_grads`` and ``numerical_grad`` differentiate a function with respect to its *arguments*, but a
network reads its weights from Parameters.  ``with_parameters_as_args(fn, params)`` returns a function
``g(*args, *values)`` that calls ``fn(*args)`` while each Parameter stands for the value given in its
place — the way a gradient level lends a Parameter a stand-in (``minims.core.stack.lend``) —
and the Parameters hold their own values again when it returns::

    params = net.trainable_params()
    g = with_parameters_as_args(loss_net, params)
    check_grads(g, (x, label, *params), order=1)     # float64 copies of every weight, moved one by one

The values may have another dtype than the Parameters (``check_grads`` passes float64 copies), so a
float32 network is checked in float64: during the call each Parameter also holds its value's data,
because ops check dtypes on the Parameter they are given.
"""
from __future__ import annotations

import numpy as np

from ..tensors.lending import lend, unlend

__all__ = ["with_parameters_as_args"]


def with_parameters_as_args(fn, params):
    """``g(*args, *values)``: ``fn(*args)`` with each of ``params`` standing for its value in ``values``."""
    params = list(params)

    def g(*args_and_values):
        if len(args_and_values) < len(params):
            raise TypeError(f"{getattr(fn, '__name__', type(fn).__name__)} with Parameters as arguments: "
                            f"expected the arguments, then {len(params)} values (one per Parameter), got "
                            f"{len(args_and_values)} in all.")
        cut = len(args_and_values) - len(params)
        args, values = args_and_values[:cut], args_and_values[cut:]
        saved = [(p, p._data) for p in params]
        for p, v in zip(params, values):
            data = getattr(v, "_data", None)
            if isinstance(data, np.ndarray) and data.dtype != object:
                p._data = data          # the value's dtype too: ops check dtypes on the Parameter itself
        tokens = [lend(p, v) for p, v in zip(params, values)]
        try:
            return fn(*args)
        finally:
            for token in reversed(tokens):
                unlend(token)
            for p, data in saved:
                p._data = data

    g.__name__ = f"{getattr(fn, '__name__', type(fn).__name__)}_of_parameters"
    return g
