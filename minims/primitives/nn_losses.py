"""Binary cross-entropy, MindSpore 2.10's functional spelling: ``ops.binary_cross_entropy_with_logits``
and ``ops.binary_cross_entropy``, compositions of minims ops (differentiable to any order).

With logits ``x`` and targets ``y`` MindSpore computes ``(1 - y) x + lw (log(1 + exp(-x)))`` with
``lw = (pos_weight - 1) y + 1``.  The same function is written here as
``(1 - y) softplus(x) + pos_weight y softplus(-x)`` (as ``softplus(x) = softplus(-x) + x``): its
gradient, ``(1 - y) σ(x) - pos_weight y σ(-x)``, keeps its digits for 0/1 targets, where the first
form's autodiff would compute ``σ(x)`` as ``1 - σ(-x)`` and lose them for negative logits.  As in
MindSpore, ``weight`` and ``pos_weight`` get no gradient (its rule returns zeros for them).

For probabilities ``p``: ``-w (y log p + (1 - y) log(1 - p))``, each logarithm's argument clamped
at 1e-12, as MindSpore's kernel does (so a probability of exactly 0 or 1 gives 27.63, not inf).
At a clamped entry the gradient is 0 here; MindSpore's rule divides by the clamped ``p (1 - p)``.
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..tensors.convert import describe
from . import functional as ops
from .batch_rules import known_examples
from .composite_math import softplus

__all__ = ["binary_cross_entropy_with_logits", "binary_cross_entropy", "reduced"]

_REDUCTIONS = ("none", "mean", "sum")
_EPSILON = 1e-12


def check_reduction(op: str, reduction) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {list(_REDUCTIONS)}, but got {reduction!r}.")


def reduced(loss: Tensor, reduction: str) -> Tensor:
    """The elementwise ``loss`` averaged, summed or kept (``reduction``)."""
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    return loss


def _pair(op: str, first: str, x, second: str, y) -> None:
    for name, v in ((first, x), (second, y)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{op}: '{name}' must be a Tensor, but got {describe(v)}. Fix: Tensor(data, "
                            "mindspore.float32).")
        if not v.dtype.is_float:
            raise TypeError(f"{op}: '{name}' must be a float Tensor, but got {describe(v)}. Fix: "
                            f"{name}.astype(mindspore.float32).")
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"{op}: '{first}' {list(x.shape)} and '{second}' {list(y.shape)} must have the same shape.")


def _constant_factor(op: str, name: str, value, like: Tensor):
    """``weight``/``pos_weight``: a Tensor broadcast against the loss, held constant (no gradient)."""
    if value is None:
        return None
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}: '{name}' must be a Tensor or None, but got {describe(value)}.")
    return ops.stop_gradient(ops.cast(value, like.dtype))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):  # noqa: A002
    """``ops.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction='mean')``: the binary cross-entropy of ``sigmoid(input)`` against ``target``, computed
    from the logits without forming the sigmoid.  ``weight`` scales each entry's loss, ``pos_weight``
    the positive term (both broadcast)."""
    op = "binary_cross_entropy_with_logits"
    _pair(op, "input", input, "target", target)
    check_reduction(op, reduction)
    weight = _constant_factor(op, "weight", weight, input)
    pos_weight = _constant_factor(op, "pos_weight", pos_weight, input)
    target = ops.cast(target, input.dtype)
    positive = ops.mul(target, softplus(ops.neg(input)))
    if pos_weight is not None:
        positive = ops.mul(positive, pos_weight)
    loss = ops.add(ops.mul(ops.sub(1.0, target), softplus(input)), positive)
    if weight is not None:
        loss = ops.mul(loss, weight)
    return reduced(loss, reduction)


class ProbabilityOutOfRange(RuntimeError, ValueError):
    """A probability outside [0, 1] given to binary_cross_entropy (MindSpore 2.10: RuntimeError)."""


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``ops.binary_cross_entropy(logits, labels, weight=None, reduction='mean')``: the binary
    cross-entropy of the probabilities ``logits`` (in [0, 1]) against ``labels``; ``weight`` scales
    each entry's loss."""
    op = "binary_cross_entropy"
    _pair(op, "logits", logits, "labels", labels)
    check_reduction(op, reduction)
    values = known_examples(logits)
    if values is not None and values.size and not ((values >= 0) & (values <= 1)).all():
        bad = values[~((values >= 0) & (values <= 1))].flat[0]
        raise ProbabilityOutOfRange(f"{op}: 'logits' must be probabilities in [0, 1], but it holds {bad}. Fix: "
                                    "apply ops.sigmoid first, or use ops.binary_cross_entropy_with_logits.")
    labels = ops.cast(labels, logits.dtype)
    log_p = ops.log(ops.maximum(logits, _EPSILON))
    log_q = ops.log(ops.maximum(ops.sub(1.0, logits), _EPSILON))
    loss = ops.neg(ops.add(ops.mul(labels, log_p), ops.mul(ops.sub(1.0, labels), log_q)))
    weight = _constant_factor(op, "weight", weight, logits)
    if weight is not None:
        loss = ops.mul(loss, weight)
    return reduced(loss, reduction)
