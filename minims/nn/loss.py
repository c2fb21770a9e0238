"""Loss cells: ``nn.SoftmaxCrossEntropyWithLogits``, ``nn.MSELoss``, ``nn.L1Loss`` and their base
``nn.LossBase``.

A loss cell computes an elementwise loss and reduces it with ``reduction``: ``'mean'`` (the average
over all elements), ``'sum'`` or ``'none'`` (keep one value per element or sample).
"""
from __future__ import annotations


from ..primitives.batch_rules import known_examples
from .. import ops
from ..primitives import nn as _nn
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from .cell import Cell

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "MSELoss", "L1Loss"]

_REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """``nn.LossBase(reduction='mean')``: subclasses call ``self.get_loss(x, weights=1.0)``."""

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of {list(_REDUCTIONS)}, but got "
                             f"{reduction!r}.")
        self.reduction = reduction
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_loss(self, x, weights=1.0):
        """``x * weights``, then the mean or sum over every element (or nothing for 'none')."""
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = ops.mul(x, weights)
        if self.reduction == "mean":
            return ops.mean(x)
        if self.reduction == "sum":
            return ops.sum(x)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct(logits, labels).")


def _check_pair(cell, logits, labels):
    for name, v in (("logits", logits), ("labels", labels)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{cell.path}: '{name}' must be a Tensor, but got {_describe(v)}.")


class MSELoss(LossBase):
    """``(logits - labels) ** 2``, reduced."""

    def construct(self, logits, labels):
        _check_pair(self, logits, labels)
        return self.get_loss(ops.square(ops.sub(logits, labels)))


class L1Loss(LossBase):
    """``|logits - labels|``, reduced."""

    def construct(self, logits, labels):
        _check_pair(self, logits, labels)
        return self.get_loss(ops.abs(ops.sub(logits, labels)))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """``nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')``.

    ``loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]`` for ``(N, C)`` logits.  With
    ``sparse=True`` the labels are class indices ``(N,)`` (an int Tensor), turned into one-hot rows.
    The per-sample losses are then reduced (``'none'`` keeps them).
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: sparse must be a bool, but got {_describe(sparse)}.")
        self.sparse = sparse
        self.softmax_cross_entropy = _nn.SoftmaxCrossEntropyWithLogits()

    def _one_hot(self, logits, labels):
        n, c = logits.shape
        if labels.dtype.kind != "int":
            raise TypeError(f"{self.path}: with sparse=True the labels must be class indices (an int Tensor), "
                            f"but got {labels.dtype}. Fix: Tensor(labels, mindspore.int32).")
        if tuple(labels.shape) != (n,):
            raise ValueError(f"{self.path}: with sparse=True the labels must have shape [{n}] (one class index "
                             f"per row of logits {list(logits.shape)}), but got {list(labels.shape)}.")
        lab = known_examples(labels)            # under vmap: every example's labels
        if lab is not None:
            if lab.size and (lab.min() < 0 or lab.max() >= c):
                bad = int(lab.min() if lab.min() < 0 else lab.max())
                raise ValueError(f"{self.path}: label {bad} is out of range for {c} classes (valid: 0..{c - 1}).")
        return ops.one_hot(labels, c, dtype=logits.dtype)

    def construct(self, logits, labels):
        _check_pair(self, logits, labels)
        if self.sparse:
            labels = self._one_hot(logits, labels)
        loss, _ = self.softmax_cross_entropy(logits, labels)
        return self.get_loss(loss)
