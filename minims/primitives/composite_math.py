"""MindSpore 2.10's elementwise and reduction functions that are compositions of the table's primitives:
the core of ``ops.clip_by_value`` (``clip.py``), ``ops.softplus``, ``ops.logsumexp``, ``ops.leaky_relu``,
``ops.gelu``, ``ops.cumsum``, ``ops.prod``, ``ops.round``, ``ops.isnan``, ``ops.masked_fill`` and
``ops.norm``.

Each is written in minims ops, so it is differentiable to any order, traced by ``jit`` and batched by
``vmap`` without rules of its own.  Where MindSpore's backward rule differs from what a plain
composition would give, the composition is chosen to give MindSpore's: ``clip_by_value`` shares the
gradient where the input equals a bound (``maximum``/``minimum``; ``clamp`` passes it on there), and
``leaky_relu`` has the slope ``(1 + alpha) / 2`` at 0.  Where a formula loses digits, a stable one
computing the same function is used (``softplus`` never overflows: ``max(x, 0) + log(1 + exp(-|x|))``;
``logsumexp`` subtracts the maximum; ``prod`` multiplies in a tree, so a zero factor gives the other
factors' product as its gradient, not 0/0).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import functional as ops
from .operands import normalize_axis
from .special import erf

__all__ = ["clip_by_value", "softplus", "logsumexp", "leaky_relu", "gelu", "cumsum", "prod",
           "round", "isnan", "masked_fill", "norm"]


def _tensor(op: str, name: str, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: {name} must be a Tensor, but got {describe(value)}. Fix: Tensor(data).")
    return value


def _float_input(op: str, x) -> Tensor:
    _tensor(op, "input", x)
    if not x.dtype.is_float:
        raise TypeError(f"{op}: input must be a float Tensor (Float16, Float32 or Float64), but got {describe(x)}. "
                        "Fix: x.astype(mindspore.float32).")
    return x


def _bound(x: Tensor, value):
    """A clamping bound as an operand of ``x``'s computation: a Tensor, or a number (a float bound on an
    integer input makes the result Float32, as MindSpore 2.10)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, float) and not x.dtype.is_float:
        return Tensor(value, mstype.float32)
    return value


def _common(x: Tensor, bounds) -> Tensor:
    """``x`` in the dtype the clamping gives: its own, or the Tensor bounds' promotion with it."""
    dt = x.dtype
    for b in bounds:
        if isinstance(b, Tensor):
            dt = mstype.result_type(dt, b.dtype)
    return ops.cast(x, dt)


# ----- clamping ------------------------------------------------------------------------------------
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``minimum(maximum(x, min), max)`` for one Tensor, whose gradient is shared (1/2) where ``x``
    equals a bound, as MindSpore's; ``ops.clip_by_value`` (``clip.py``) adds tuples and NaN."""
    _tensor("clip_by_value", "x", x)
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: clip_value_min and clip_value_max are both None, so there is "
                         "nothing to clip to. Fix: give at least one bound.")
    bounds = [None if b is None else _bound(x, b) for b in (clip_value_min, clip_value_max)]
    out = _common(x, bounds)
    for bound, extreme in zip(bounds, (ops.maximum, ops.minimum)):
        if bound is not None:
            out = extreme(out, ops.cast(bound, out.dtype) if isinstance(bound, Tensor) else bound)
    return out


# ----- activations and their relatives -----------------------------------------------------------------
def _log1p(t):
    """``log(1 + t)`` to working precision for small ``t`` too: ``log(u) * t / (u - 1)`` with ``u = 1 + t``
    (Goldberg's correction for the rounding of ``u``; ``t`` itself where ``u`` rounds to 1).  The
    correction is added as a constant, so the gradient is that of ``log(u)``, ``1 / (1 + t)``."""
    u = ops.add(t, 1.0)
    exact = ops.equal(u, 1.0)
    log_u = ops.log(u)
    ratio = ops.div(t, ops.select(exact, ops.ones_like(u), ops.sub(u, 1.0)))
    correction = ops.stop_gradient(ops.sub(ops.mul(log_u, ratio), log_u))
    return ops.select(exact, t, ops.add(log_u, correction))


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """``ops.softplus(input, beta=1, threshold=20)``: ``log(1 + exp(beta * x)) / beta``, and ``x`` itself
    where ``beta * x > threshold``.  Computed as ``max(z, 0) + log1p(exp(-|z|))`` with ``z = beta * x``,
    which never overflows, nor does its gradient, the sigmoid (``max`` and ``|z|`` are selections, so
    the slope at 0 is 1/2, not the 0 that ReLU's and Abs's conventions would give there)."""
    x = _float_input("softplus", input)
    z = ops.mul(x, beta) if beta != 1 else x
    positive = ops.gt(z, 0)
    zero = ops.zeros_like(z)
    rest = _log1p(ops.exp(ops.select(positive, ops.neg(z), z)))          # exp(-|z|) <= 1
    soft = ops.add(ops.select(positive, z, zero), rest)
    if beta != 1:
        soft = ops.div(soft, beta)
    return ops.select(ops.gt(z, threshold), x, soft)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """``ops.logsumexp(input, dim, keepdim=False)``: ``log(sum(exp(x)))`` over ``dim`` (an int or a
    tuple), as ``m + log(sum(exp(x - m)))`` with ``m`` the maximum, so large entries do not overflow.
    ``m`` is held constant: the gradient is exactly the softmax."""
    x = _float_input("logsumexp", input)
    axes = normalize_axis("logsumexp", dim, x.ndim)
    top = ops.stop_gradient(ops.amax(x, axes, True))
    top = ops.select(ops.ne(ops.abs(top), math.inf), top, ops.zeros_like(top))   # all -inf: no shift
    out = ops.add(ops.log(ops.sum(ops.exp(ops.sub(x, top)), axes, True)), top)
    return out if keepdim else ops.squeeze(out, axes) if axes else out


def leaky_relu(input, alpha=0.2):  # noqa: A002
    """``ops.leaky_relu(input, alpha=0.2)``: ``x`` where ``x > 0``, ``alpha * x`` where ``x < 0``; at 0
    the slope is ``(1 + alpha) / 2``, as MindSpore's backward rule has it."""
    x = _tensor("leaky_relu", "input", input)
    at_zero = ops.mul(x, (1.0 + alpha) / 2.0)
    return ops.select(ops.gt(x, 0), x, ops.select(ops.lt(x, 0), ops.mul(x, alpha), at_zero))


def gelu(input, approximate="none"):  # noqa: A002
    """``ops.gelu(input, approximate='none')``: ``x * Φ(x) = x (1 + erf(x / √2)) / 2``; with
    ``approximate='tanh'``, ``x (1 + tanh(√(2/π) (x + 0.044715 x³))) / 2``."""
    x = _float_input("gelu", input)
    if approximate == "none":
        inner = erf(ops.mul(x, 1.0 / math.sqrt(2.0)))
    elif approximate == "tanh":
        inner = ops.tanh(ops.mul(ops.add(x, ops.mul(ops.mul(ops.mul(x, x), x), 0.044715)),
                                 math.sqrt(2.0 / math.pi)))
    else:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', but got {approximate!r}.")
    return ops.mul(ops.mul(x, 0.5), ops.add(inner, 1.0))


# ----- scans and products ----------------------------------------------------------------------------
def _axis(op: str, axis, ndim: int) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: axis must be an int, but got {describe(axis)}.")
    return normalize_axis(op, int(axis), ndim)[0] if ndim else 0


def _shifted(x: Tensor, axis: int, shift: int, fill) -> Tensor:
    """``x`` moved ``shift`` places along ``axis``, the first ``shift`` places filled with ``fill``."""
    n = x.shape[axis]
    pad = Tensor._make(np.full(x.shape[:axis] + (shift,) + x.shape[axis + 1:], fill, x._data.dtype))
    kept = ops.getitem(x, (slice(None),) * axis + (slice(0, n - shift),))
    return ops.concat((pad, kept), axis)


def cumsum(x, axis, dtype=None):
    """``ops.cumsum(x, axis, dtype=None)``: running sums along ``axis`` (a scan of ``ceil(log2 n)``
    shifted additions, so its gradient is the reversed running sum).  Bool input is refused
    (TypeError, as MindSpore 2.10); ``dtype`` casts first."""
    _tensor("cumsum", "x", x)
    if dtype is not None:
        x = ops.cast(x, mstype.to_dtype(dtype, "cumsum"))
    if x.dtype is mstype.bool_:
        raise TypeError("cumsum: x is a Bool Tensor, which has no running sum. Fix: x.astype(mindspore.int32).")
    if x.ndim == 0:
        return x
    axis = _axis("cumsum", axis, x.ndim)
    shift = 1
    while shift < x.shape[axis]:
        x = ops.add(x, _shifted(x, axis, shift, 0))
        shift *= 2
    return x


def _product_along(x: Tensor, axis: int) -> Tensor:
    """The product along ``axis`` (kept, of size 1), multiplying pairs of halves: ``log2 n`` steps."""
    while x.shape[axis] > 1:
        n = x.shape[axis]
        if n % 2:
            one = Tensor._make(np.ones(x.shape[:axis] + (1,) + x.shape[axis + 1:], x._data.dtype))
            x, n = ops.concat((x, one), axis), n + 1
        x = ops.mul(ops.getitem(x, (slice(None),) * axis + (slice(0, n // 2),)),
                    ops.getitem(x, (slice(None),) * axis + (slice(n // 2, n),)))
    return x


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002
    """``ops.prod(input, axis=None, keep_dims=False, dtype=None)``: the product over ``axis`` (all axes
    by default).  Integers and Bools multiply as Int64, as MindSpore 2.10."""
    x = _tensor("prod", "input", input)
    if dtype is not None:
        x = ops.cast(x, mstype.to_dtype(dtype, "prod"))
    elif not x.dtype.is_float:
        x = ops.cast(x, mstype.int64)
    axes = normalize_axis("prod", axis, x.ndim)
    out = x
    for a in axes:
        out = _product_along(out, a) if out.shape[a] else ops.sum(ops.ones_like(out), a, True)
    return out if keep_dims or not axes else ops.squeeze(out, axes)


# ----- rounding and tests ------------------------------------------------------------------------------
def round(input, *, decimals=0):  # noqa: A001 - MindSpore's name
    """``ops.round(input, *, decimals=0)``: the nearest integer, a tie to the even one (``-0.5`` gives
    ``-0.0``); integers are returned as they are.  MindSpore 2.10's CPU kernel rounds to integers
    only (RuntimeError for other ``decimals``).  The gradient is 0."""
    x = _tensor("round", "input", input)
    if decimals != 0:
        raise RuntimeError(f"round: decimals must be 0 (MindSpore 2.10 rounds to integers only), but got "
                           f"{decimals!r}. Fix: ops.round(x * 10**d) / 10**d.")
    if not x.dtype.is_float:
        return x
    up = ops.floor(ops.add(x, 0.5))
    tie_to_odd = ops.logical_and(ops.equal(ops.sub(up, x), 0.5), ops.equal(ops.floor_mod(up, 2.0), 1.0))
    out = ops.select(tie_to_odd, ops.sub(up, 1.0), up)
    # every float this large is an integer already (and x + 0.5 would round there)
    whole = ops.ge(ops.abs(x), float(2 ** (np.finfo(x._data.dtype).nmant)))
    out = ops.select(whole, x, out)
    return ops.select(ops.logical_and(ops.equal(out, 0.0), ops.lt(x, 0.0)), ops.neg(out), out)   # -0.0


def isnan(input):  # noqa: A002
    """``ops.isnan(input)``: True where the entry is NaN (``x != x``); never for integers."""
    x = _tensor("isnan", "input", input)
    return ops.ne(x, x)


def masked_fill(input_x, mask, value):
    """``ops.masked_fill(input_x, mask, value)``: ``value`` where the Bool ``mask`` (broadcast to
    ``input_x``) is True.  ``value`` is a number or a 0-d Tensor, taken in ``input_x``'s dtype."""
    x = _tensor("masked_fill", "input_x", input_x)
    _tensor("masked_fill", "mask", mask)
    if mask.dtype is not mstype.bool_:
        raise TypeError(f"masked_fill: mask must be a Bool Tensor, but got {describe(mask)}. Fix: a comparison "
                        "such as x > 0, or mask.astype(mindspore.bool_).")
    shape = np.broadcast_shapes(x.shape, mask.shape)
    fill = ops.cast(value, x.dtype) if isinstance(value, Tensor) else ops.fill(x.dtype, (), value)
    return ops.select(ops.broadcast_to(mask, shape), ops.broadcast_to(fill, shape), ops.broadcast_to(x, shape))


# ----- norms -----------------------------------------------------------------------------------------------
def _vector_norm(x, ord, axes, keep):  # noqa: A002 - NumPy's and MindSpore's parameter name
    size = ops.abs(x)
    if ord is None or ord == 2:
        return ops.sqrt(ops.sum(ops.mul(x, x), axes, keep))
    if ord == math.inf:
        return ops.amax(size, axes, keep)
    if ord == -math.inf:
        return ops.amin(size, axes, keep)
    if ord == 0:
        return ops.sum(ops.cast(ops.ne(x, 0), x.dtype), axes, keep)
    if ord == 1:
        return ops.sum(size, axes, keep)
    return ops.pow(ops.sum(ops.pow(size, float(ord)), axes, keep), 1.0 / ord)


def _matrix_norm(x, ord, axes, keep):  # noqa: A002
    rows, cols = axes
    if ord in ("fro", None):
        return ops.sqrt(ops.sum(ops.mul(x, x), axes, keep))
    if ord in (1, -1, math.inf, -math.inf):
        along, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = ops.sum(ops.abs(x), along, True)
        out = (ops.amax if ord > 0 else ops.amin)(sums, across, True)
        return out if keep else ops.squeeze(out, axes)
    raise NotImplementedError(f"norm: the matrix norm ord={ord!r} needs singular values, which minims does not "
                              "compute. Fix: ord='fro', 1, -1, inf or -inf, or a vector norm over one axis.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002,N803 - MindSpore's names
    """``ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)``: a vector norm over one axis (or
    over all entries when neither ``ord`` nor ``dim`` is given), or a matrix norm over two (``'fro'``,
    ``1``, ``-1``, ``inf``, ``-inf``).  Integers are computed as Float32, as MindSpore 2.10."""
    x = _tensor("norm", "A", A)
    if dtype is not None:
        x = ops.cast(x, mstype.to_dtype(dtype, "norm"))
    elif not x.dtype.is_float:
        x = ops.cast(x, mstype.float32)
    if dim is None and (ord is None or x.ndim == 1):
        return _vector_norm(ops.reshape(x, (-1,)) if not keepdim else x, ord,
                            normalize_axis("norm", None, x.ndim if keepdim else 1), keepdim)
    axes = normalize_axis("norm", tuple(range(x.ndim)) if dim is None else dim, x.ndim)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: ord={ord!r} is a matrix norm, but one axis was given. Fix: two axes, "
                             "dim=(0, 1).")
        return _vector_norm(x, ord, axes, keepdim)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdim)
    raise ValueError(f"norm: with ord={ord!r} give one axis (a vector norm) or two (a matrix norm), but got "
                     f"dim={dim!r} for {describe(x)}.")
