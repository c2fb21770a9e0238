"""``ops.jet(fn, primals, series)``: Taylor-mode differentiation, built on forward mode.

MindSpore's convention (checked on MindSpore 2.10, and JAX's ``jet`` uses the same): each input moves
along the curve ``x(t) = x0 + x1 t + x2 t^2/2! + ... + xn t^n/n!``, where ``x0`` is the primal and
``series[k-1]`` is ``xk``, the k-th derivative of the curve at ``t = 0``; the result is ``fn(x0)`` and
the derivatives ``y1, ..., yn`` of ``y(t) = fn(x(t))`` at ``t = 0``, stacked on a new first axis like
the series.  ``series = [v, 0, 0]`` gives the directional derivatives of orders 1 to 3 along ``v``
(``ops.derivative`` is that with ``v = 1``).

How: ``t`` is one scalar input, and forward mode (the core's JVP level) differentiates ``fn(x(t))``
with respect to it; nesting that ``n`` times gives the n-th derivative.  Each nesting differentiates
the function that returns all the lower derivatives as well, so one run of the innermost function
yields ``y0, ..., yn`` together.  Every primitive with a ``jvp`` rule (or a ``bprop``, transposed) is
covered, because the rules are written in minims ops and forward mode runs them again one level up.
The price of this simplicity is ``2^n`` times the work of one evaluation; a dedicated Taylor
interpreter with one propagation rule per primitive (JAX's ``jet``) would cost ``O(n^2)``.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..autodiff.grad_api import require_function
from ..core.tensor import Tensor
from ..primitives import functional as ops
from ..tensors import undo
from ..tensors.convert import _describe
from .transforms import _jvp_call

__all__ = ["jet"]

_VALUE_TYPES = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)


def _pair(x, s):
    """One primal and its series, checked as MindSpore checks them; integers become Float32."""
    if x.dtype not in _VALUE_TYPES or s.dtype is not x.dtype:
        raise TypeError(
            "jet: the elements' types of primals and series must be the same and belong to int32, int64, "
            f"float32, float64, but got a primal of {x.dtype} and its series of {s.dtype}. Fix: give both "
            "the same dtype, e.g. series.astype(primals.dtype).")
    if x.dtype in (mstype.int32, mstype.int64):
        x, s = ops.cast(x, mstype.float32), ops.cast(s, mstype.float32)
    return x, s


def _series_terms(x, s):
    """``s`` as a stack of terms shaped like ``x`` (one term may be given without its axis)."""
    if tuple(s.shape[1:]) == tuple(x.shape):
        return s
    if tuple(s.shape) == tuple(x.shape):
        return ops.expand_dims(s, 0)
    raise ValueError(
        f"jet: in series, the shape of each element must be the same as the primals' ({list(x.shape)}), but "
        f"the series has shape {list(s.shape)}. Fix: stack the derivatives on a new first axis, shape "
        f"[n] + {list(x.shape)}.")


def _checked(primals, series):
    if isinstance(primals, Tensor) and isinstance(series, Tensor):
        x, s = _pair(primals, series)
        return [x], [_series_terms(x, s)]
    if not (isinstance(primals, tuple) and isinstance(series, tuple)):
        raise TypeError(f"jet: the primals and series must be both Tensor or both tuple, but got "
                        f"{_describe(primals)} and {_describe(series)}. Fix: jet(fn, x, s) or "
                        "jet(fn, (x, y), (sx, sy)).")
    if len(primals) != len(series):
        raise ValueError(f"jet: the lengths of primals and series must be the same, but got {len(primals)} "
                         f"primals and {len(series)} series. Fix: give one series per primal.")
    xs, ss = [], []
    for i, (x, s) in enumerate(zip(primals, series)):
        if not (isinstance(x, Tensor) and isinstance(s, Tensor)):
            raise TypeError(f"jet: primal {i} and its series must be Tensors, but got {_describe(x)} and "
                            f"{_describe(s)}.")
        x, s = _pair(x, s)
        xs.append(x)
        ss.append(_series_terms(x, s))
    if len({s.shape[0] for s in ss}) > 1:
        raise ValueError(f"jet: every series must have the same number of terms, but they have "
                         f"{[s.shape[0] for s in ss]}. Fix: pad the shorter ones with zeros.")
    return xs, ss


def _curve(x, s, t):
    """``x + s[0] t + s[1] t^2/2! + ...``, written with products only (Horner's scheme), so that at
    ``t = 0`` it is ``x`` exactly and every derivative rule it meets is a product's or a sum's."""
    n = s.shape[0]
    acc = None
    for k in range(n, 0, -1):
        term = s[k - 1] / float(_factorial(k))
        acc = term if acc is None else term + t * acc
    return x + t * acc


def _factorial(k: int) -> int:
    out = 1
    for i in range(2, k + 1):
        out *= i
    return out


def _one_more_derivative(h):
    """From ``h(t) = (y, y', ..., y^(k))`` the function ``(y, y', ..., y^(k+1))``: forward mode of ``h``
    along ``dt = 1``, keeping the primal outputs and the tangent of the last one."""
    def h_next(t):
        outs, tangents = _jvp_call(h, (t,), (ops.ones_like(t),))
        return tuple(outs) + (tangents[-1],)
    return h_next


def _derivatives(fn, xs, ss):
    n = ss[0].shape[0]
    t0 = ops.zeros((), xs[0].dtype)

    def h(t):
        return (fn(*(_curve(x, s, t) for x, s in zip(xs, ss))),)
    for _ in range(n):
        h = _one_more_derivative(h)
    return h(t0)


def jet(fn, primals, series):
    """``ops.jet(fn, primals, series)``: ``(out_primals, out_series)`` — ``fn(*primals)`` and the first
    ``n`` derivatives of ``fn`` along the curve the series describe (module docstring).

    ``primals`` and ``series`` are both a Tensor or both a tuple of Tensors; a series has shape
    ``[n] + primal.shape`` (or the primal's shape, for ``n = 1``).  Integer inputs are computed in
    Float32.  For a function with several outputs both results are lists, one entry per output.
    """
    require_function(fn, "jet", "jet(fn, primals, series)", "jet(fn(x), primals, series)", RuntimeError)
    xs, ss = _checked(primals, series)
    levels = undo.atomic(_derivatives, fn, xs, ss)
    first = levels[0]
    if isinstance(first, (tuple, list)) and len(first) > 1:
        return (list(first),
                [ops.stack([_as_tensor(level[i], first[i]) for level in levels[1:]], 0) for i in range(len(first))])
    out = first[0] if isinstance(first, (tuple, list)) else first
    pick = (lambda level: level[0]) if isinstance(first, (tuple, list)) else (lambda level: level)
    return out, ops.stack([_as_tensor(pick(level), out) for level in levels[1:]], 0)


def _as_tensor(value, like):
    """A derivative that is not a Tensor (an output that is a Python number) is zero."""
    return value if isinstance(value, Tensor) else ops.zeros_like(like)
