"""Clipping: ``ops.clip_by_value``/``ops.clamp``, ``ops.clip_by_norm`` and ``ops.clip_by_global_norm``
(no rows of their own).

Both are compositions of the functional operators, so they are differentiable, traced by ``jit`` and
batched by ``vmap`` like any other function, and their formulas are MindSpore 2.10's, step by step
(the dtypes of the intermediate values included, which fix the rounding):

* ``clamp(input, min=None, max=None)`` (``clip_by_value(x, clip_value_min, clip_value_max)`` also
  takes a tuple or list of Tensors): ``max(x, min)`` then ``min(., max)``, written as two ``select``s
  so that MindSpore's choices hold: an element equal to a bound is the input's (its gradient goes to
  ``x``), a bound gets the gradient only where ``x`` lies strictly beyond it, ``min > max`` gives
  ``max``, and a NaN element becomes the bound (``min`` if given, else ``max``);
* ``clip_by_norm(x, max_norm, norm_type=2.0)``: the total norm of all the Tensors of ``x`` together,
  ``coef = max_norm / (total + 1e-6)``, and every Tensor times ``coef`` when ``coef < 1``;
* ``clip_by_global_norm(x, clip_norm=1.0)``: ``g = sqrt(sum of the squares of every Tensor)``, each
  sum of squares taken in the Tensor's dtype and added in Float32; every Tensor times
  ``clip_norm / max(g, clip_norm)``, cast back to its own dtype.

One difference, on purpose: MindSpore 2.10 sums ``x ** p`` without taking absolute values, so an odd
``norm_type`` gives a wrong (even negative, or NaN) norm for negative entries and clips wrongly or
not at all.  minims sums ``|x| ** p``, the p-norm; for ``norm_type=2`` and ``inf`` the two agree.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from . import composite_math as _shared_ties
from . import functional as F
from .operands import _promote

__all__ = ["clamp", "clip", "clip_by_value", "clip_by_norm", "clip_by_global_norm"]


def _tensors(x, where: str):
    """``(list of Tensors, was a single Tensor)``."""
    if isinstance(x, Tensor):
        return [x], True
    if isinstance(x, (tuple, list)) and x and all(isinstance(t, Tensor) for t in x):
        return list(x), False
    raise TypeError(f"{where}: x must be a Tensor, or a non-empty tuple or list of Tensors, but got "
                    f"{_describe(x)}. Fix: pass the gradients as a tuple, e.g. {where}(grads, 1.0).")


def _bounded(x, bound, keep, op, where):
    """``x`` where ``keep(x, bound)``, else ``bound`` (broadcast, in the promoted dtype)."""
    if isinstance(bound, bool) or not isinstance(bound, (Tensor, numbers.Real)):
        raise TypeError(f"{where}: the bounds must be Tensors or numbers (or None), but got {_describe(bound)}.")
    x, bound = _promote(op, x, bound, False)
    if not isinstance(bound, Tensor):
        bound = Tensor(bound, x.dtype)
    try:
        shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(bound.shape)))
    except ValueError:
        raise ValueError(f"{where}: a bound of shape {list(bound.shape)} cannot be broadcast to the input's shape "
                         f"{list(x.shape)}. Fix: a bound of the input's shape, or one that broadcasts to it "
                         "(a number, shape [])") from None
    if tuple(x.shape) != shape:
        x = F.broadcast_to(x, shape)
    if tuple(bound.shape) != shape:
        bound = F.broadcast_to(bound, shape)
    return F.select(keep(x, bound), x, bound)


def clamp(input, min=None, max=None):  # noqa: A002 - MindSpore's parameter names
    """``ops.clamp(input, min=None, max=None)``: ``input`` clipped to ``[min, max]`` (module
    docstring); the dtype is the promotion of ``input``'s and the bounds' (a float bound makes an
    integer input Float32)."""
    if min is None and max is None:
        raise ValueError("For Clamp, at least one of 'min' or 'max' must not be None. Fix: give a bound, "
                         "e.g. ops.clamp(x, min=0.0).")
    if not isinstance(input, Tensor):
        raise TypeError(f"clamp: input must be a Tensor, but got {_describe(input)}.")
    out = input
    if min is not None:
        out = _bounded(out, min, F.ge, "Clamp", "clamp")
    if max is not None:
        out = _bounded(out, max, F.le, "Clamp", "clamp")
    return out


clip = clamp       # ops.clip: MindSpore's other name for clamp


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``ops.clip_by_value(x, clip_value_min=None, clip_value_max=None)``: :func:`clamp` on a Tensor,
    or on each Tensor of a tuple or list (a tuple comes back, as in MindSpore)."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("For 'clip_by_value', at least one of 'clip_value_min' or 'clip_value_max' must not be "
                         "None. Fix: give a bound, e.g. ops.clip_by_value(x, -1.0, 1.0).")
    xs, single = _tensors(x, "clip_by_value")
    out = [_by_value(t, clip_value_min, clip_value_max) for t in xs]
    return out[0] if single else tuple(out)


def _by_value(t, low, high):
    """MindSpore's clip_by_value on one Tensor: maximum then minimum, so where ``t`` equals a bound the
    gradient is shared between them (1/2 each); a NaN becomes the bound, as in :func:`clamp`."""
    shared = _shared_ties.clip_by_value(t, low, high)
    return F.select(_shared_ties.isnan(t), clamp(t, low, high), shared)


def _p_norm(x, p):
    """``(sum |x|^p)^(1/p)`` over all elements, in ``x``'s dtype (MindSpore's ``_old_norm``, with |x|)."""
    return F.cast(F.pow(F.sum(F.pow(F.abs(x), p)), 1.0 / p), x.dtype)


def _total_norm(xs, p):
    if p == float("inf"):
        return F.amax(F.stack([F.amax(F.abs(x)) for x in xs], 0))
    return _p_norm(F.stack([_p_norm(x, p) for x in xs], 0), p)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``ops.clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)``: ``x`` (a Tensor, or
    a tuple or list of them) scaled so that the norm of all its elements together is at most
    ``max_norm`` (module docstring).  A non-finite total norm raises RuntimeError when
    ``error_if_nonfinite``; otherwise, as MindSpore, it clips nothing (NaN) or gives NaN (inf)."""
    xs, single = _tensors(x, "clip_by_norm")
    for name, v in (("max_norm", max_norm), ("norm_type", norm_type)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"clip_by_norm: {name} must be a float or an int, but got {_describe(v)}.")
    total = _total_norm(xs, float(norm_type))
    if error_if_nonfinite and not bool(F.lt(F.abs(total), float("inf"))):
        raise RuntimeError(f"clip_by_norm: the total norm of order {float(norm_type)} from the input is "
                           "non-finite (inf or NaN). Fix: look for the inf or NaN in the input first (e.g. "
                           "amp.all_finite(grads)), or pass error_if_nonfinite=False.")
    coef = F.div(max_norm, F.add(total, 1e-6))
    # MindSpore branches in Python (``if coef < 1``); a select gives the same values and gradients,
    # and also runs where the value is not known yet (jit, vmap)
    clip = F.lt(coef, 1)
    out = [F.select(clip, F.mul(t, coef), t) for t in xs]
    return out[0] if single else tuple(out)        # a tuple for a list too, as MindSpore


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """``ops.clip_by_global_norm(x, clip_norm=1.0, use_norm=None)``: every Tensor of ``x`` times
    ``clip_norm / max(global_norm, clip_norm)``, where the global norm is that of all the Tensors
    together; a tuple (a Tensor for a Tensor).  ``use_norm`` must be None (as in MindSpore)."""
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, numbers.Real):
        raise TypeError(f"clip_by_global_norm: clip_norm must be a float or an int, but got {_describe(clip_norm)}.")
    if not clip_norm > 0:
        raise ValueError(f"clip_by_global_norm: the argument 'clip_norm' must be > 0.0, but got {clip_norm}. "
                         "Fix: the largest global norm to allow, e.g. clip_norm=1.0.")
    if use_norm is not None:
        raise ValueError(f"clip_by_global_norm: use_norm only supports None (as in MindSpore 2.10), but got "
                         f"{_describe(use_norm)}.")
    xs, single = _tensors(x, "clip_by_global_norm")
    limit = Tensor([float(clip_norm)], mstype.float32)
    squares = [F.expand_dims(F.cast(F.sum(F.square(t)), mstype.float32), 0) for t in xs]
    total = squares[0]
    for s in squares[1:]:
        total = F.add(total, s)
    norm = F.sqrt(total)
    norm = F.select(F.ge(norm, limit), norm, limit)
    out = [F.cast(F.div(F.mul(t, limit), norm), t.dtype) for t in xs]
    return out[0] if single else tuple(out)
