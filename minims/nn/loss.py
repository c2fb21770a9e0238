"""Loss cells: ``nn.SoftmaxCrossEntropyWithLogits``, ``nn.MSELoss``, ``nn.L1Loss``, ``nn.MAELoss``,
``nn.CrossEntropyLoss``, ``nn.NLLLoss``, ``nn.BCEWithLogitsLoss``, ``nn.BCELoss`` and their base
``nn.LossBase`` (the last five call the functional losses of ``minims.ops``).

A loss cell computes an elementwise loss and reduces it with ``reduction``: ``'mean'`` (the average
over all elements), ``'sum'`` or ``'none'`` (keep one value per element or sample).
"""
from __future__ import annotations


from .. import dtype as mstype
from ..primitives.batch_rules import known_examples
from .. import ops
from ..primitives import nn as _nn
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from .cell import Cell

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "MSELoss", "L1Loss", "MAELoss", "CrossEntropyLoss",
           "NLLLoss", "BCEWithLogitsLoss", "BCELoss"]

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


# ----- issue 25 item 2: the losses of MindSpore's beginner pages ---------------------------------------
class MAELoss(LossBase):
    """``nn.MAELoss(reduction='mean')``: the mean absolute error ``|logits - label|`` (broadcast), reduced."""

    def construct(self, logits, label):
        _check_pair(self, logits, label)
        return self.get_loss(ops.abs(ops.sub(logits, label)))


def _weight_arg(cell_name, weight):
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"{cell_name}: weight must be a Tensor (one entry per class) or None, but got "
                        f"{_describe(weight)}. Fix: weight=Tensor([...], mindspore.float32).")
    return weight


class CrossEntropyLoss(LossBase):
    """``nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)``:
    ``ops.cross_entropy`` of the logits ``(N, C)`` (or ``(C,)``, ``(N, C, d...)``) against class
    indices (Int32, as MindSpore 2.10 requires) or class probabilities shaped like the logits."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = _weight_arg("CrossEntropyLoss", weight)
        if not isinstance(label_smoothing, (int, float)) or isinstance(label_smoothing, bool) \
                or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0.0, 1.0], but got {label_smoothing!r}.")
        self.ignore_index = ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        _check_pair(self, logits, labels)
        if logits.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"{self.path}: the logits must be Float16 or Float32 (MindSpore 2.10's "
                            f"CrossEntropyLoss), but got {logits.dtype}. Fix: logits.astype(mindspore.float32), "
                            "or ops.cross_entropy, which takes Float64 too.")
        if not labels.dtype.is_float and labels.dtype is not mstype.int32:
            raise TypeError(f"{self.path}: class-index labels must be Int32, but got {labels.dtype}. Fix: "
                            "labels.astype(mindspore.int32).")
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)


class NLLLoss(LossBase):
    """``nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')``: ``ops.nll_loss`` of
    log-probabilities ``(N, C)`` against class indices."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = _weight_arg("NLLLoss", weight)
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        _check_pair(self, logits, labels)
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """``nn.BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)``:
    ``ops.binary_cross_entropy_with_logits`` of the logits against targets of the same shape."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, input, target):  # noqa: A002 - MindSpore's names
        return ops.binary_cross_entropy_with_logits(input, target, self.weight, self.pos_weight, self.reduction)


class BCELoss(LossBase):
    """``nn.BCELoss(weight=None, reduction='mean')``: ``ops.binary_cross_entropy`` of probabilities in
    [0, 1] against targets of the same shape."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)
