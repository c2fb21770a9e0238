"""Tensors made from sizes and ranges: ``ops.eye``, ``ops.arange``, ``ops.linspace`` (MindSpore 2.10).

``eye`` and ``arange`` are constants (no input is differentiated), made by NumPy with MindSpore's
dtypes and values.  ``linspace`` is ``start + i * step`` in the working float format, as MindSpore's
kernel computes it (``step = (end - start) / (steps - 1)``, each product and sum rounded there), so a
float32 result matches MindSpore's digit for digit; Tensor ends make it a composition of ops,
differentiable in both ends.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import functional as ops

__all__ = ["eye", "arange", "linspace"]


def _count(op: str, name: str, value) -> int:
    """A size given as an int (or a 0-d int Tensor); a float or anything else is a TypeError."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind == "int":
        value = value.item()
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be an int, but got {describe(value)}. Fix: {name}=3.")
    return int(value)


def eye(n, m=None, dtype=None):
    """``ops.eye(n, m=None, dtype=None)``: an ``n x m`` matrix (``m = n`` by default) with ones on the
    diagonal; Float32 unless ``dtype`` says otherwise."""
    n = _count("eye", "n", n)
    m = n if m is None else _count("eye", "m", m)
    if n < 0 or m < 0:
        raise ValueError(f"eye: n and m must be >= 0, but got n={n}, m={m}. Fix: the number of rows and "
                         "columns, e.g. ops.eye(3).")
    dt = mstype.float32 if dtype is None else mstype.to_dtype(dtype, "eye")
    return Tensor._make(np.eye(n, m, dtype=dt.np_dtype))


def _range_end(name: str, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"arange: {name} must be a number or a 0-d Tensor, but got {describe(value)}.")
        value = value.item()
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
        raise TypeError(f"arange: {name} must be an int or a float, but got {describe(value)}.")
    return value


def arange(start=0, end=None, step=1, *, dtype=None):
    """``ops.arange(start=0, end=None, step=1, *, dtype=None)``: ``start, start + step, ...`` up to
    (not including) ``end``; ``arange(n)`` counts from 0.  Int64 when every argument is an int (a
    0-d int Tensor counts as one), Float32 otherwise; each entry is ``start + i * step``."""
    start, step = _range_end("start", start), _range_end("step", step)
    if end is None:
        start, end = 0, start
    end = _range_end("end", end)
    if step == 0:
        raise ValueError("arange: step is 0, so the range never reaches end. Fix: a non-zero step, "
                         "e.g. ops.arange(0, 5, 1).")
    if (end - start) * step < 0:
        raise ValueError(f"arange: step {step} leads away from end: the range from {start} to {end} needs a "
                         f"step of the other sign (MindSpore: 'delta cannot be {'positive' if step > 0 else 'negative'}"
                         f" when limit < start'). Fix: ops.arange({start}, {end}, {-step}).")
    ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    dt = (mstype.int64 if ints else mstype.float32) if dtype is None else mstype.to_dtype(dtype, "arange")
    count = max(0, math.ceil((end - start) / step))
    if ints:
        values = start + np.arange(count, dtype=np.int64) * step
    else:
        f32 = np.float32
        values = f32(start) + np.arange(count, dtype=f32) * f32(step)
    return Tensor._make(values.astype(dt.np_dtype))


def linspace(start, end, steps):
    """``ops.linspace(start, end, steps)``: ``steps`` evenly spaced values from ``start`` to ``end``,
    ``start + i * (end - start) / (steps - 1)`` computed in Float32 (or the Tensors' float dtype)."""
    steps = _count("linspace", "steps", steps)
    if steps <= 0:
        raise ValueError(f"linspace: steps must be > 0, but got {steps}. Fix: the number of values, "
                         "e.g. ops.linspace(0, 1, 5).")
    tensors = [v for v in (start, end) if isinstance(v, Tensor)]
    if not tensors:
        f = np.float32
        first, last = f(start), f(end)
        step = (last - first) / f(steps - 1) if steps > 1 else f(0)
        return Tensor._make(first + np.arange(steps, dtype=f) * step)
    dt = tensors[0].dtype if tensors[0].dtype.is_float else mstype.float32
    first, last = (ops.cast(v if isinstance(v, Tensor) else Tensor(v), dt) for v in (start, end))
    positions = Tensor._make(np.arange(steps, dtype=dt.np_dtype))
    if steps == 1:
        return ops.reshape(first, (1,))
    step = ops.div(ops.sub(last, first), float(steps - 1))
    return ops.add(first, ops.mul(positions, step))
