"""Softmax cross-entropy losses, computed with a stable log-sum-exp; gradients in minims ops.
"""
from __future__ import annotations

from .. import functional as ops

import numpy as np
from ... import fast as _fast          # the fast-path switch: _fast.enabled
from ...core.stack import bind
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ...core.primitive import Primitive
from ..batch_rules import known_examples
from ..batch_rules import front, merged_into_first_axis
from ._geometry import _require_tensor


def _log_softmax(z: np.ndarray) -> np.ndarray:
    """Stable log-softmax over the last axis: shift by the max so exp never overflows."""
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _check_logits(op: str, logits):
    _require_tensor(op, "logits", logits)
    if logits.ndim != 2:
        raise ValueError(f"{op}: logits must be 2-D (batch_size, num_classes), but got shape "
                         f"{list(logits.shape)}.")


class SoftmaxCrossEntropyWithLogits(Primitive):
    """``ops.SoftmaxCrossEntropyWithLogits()(logits, labels)`` -> ``(loss, dlogits)``.

    ``loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]`` and, as MindSpore,
    ``dlogits = softmax(logits) - labels`` (the gradient of ``loss`` when each row of ``labels`` sums
    to 1).  The backward rule is the exact derivative of both outputs for any ``labels`` (MindSpore's
    uses ``dlogits``, which differs when rows do not sum to 1).  ``labels`` get no gradient.
    """

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    fast_kernel = "cross_entropy.softmax_cross_entropy"

    def __call__(self, logits, labels):
        _check_logits(self.name, logits)
        _require_tensor(self.name, "labels", labels)
        if tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"{self.name}: labels must have the shape of logits {list(logits.shape)}, but "
                             f"got {list(labels.shape)}. Fix: one-hot encode class indices, or use "
                             "SparseSoftmaxCrossEntropyWithLogits.")
        if labels.dtype is not logits.dtype:
            raise TypeError(f"{self.name}: labels ({labels.dtype}) must have the dtype of logits "
                            f"({logits.dtype}). Fix: labels.astype(logits.dtype).")
        return bind(self, logits, labels)

    def impl(self, logits, labels):
        if _fast.enabled:                        # Numba kernel; None = not its configuration
            out = _fast.cross_entropy.softmax_cross_entropy(logits, labels)
            if out is not None:
                return out
        lsm = _log_softmax(logits)
        loss = -(labels * lsm).sum(axis=-1)
        return loss.astype(logits.dtype), (np.exp(lsm) - labels).astype(logits.dtype)

    def batch(self, args, dims, size):
        return merged_into_first_axis(self, args, dims, size)       # every row on its own

    def jvp(self, primals, tangents):
        (logits, labels), (t, _) = primals, tangents
        out = bind(self, logits, labels)
        if t is None:           # only the labels move: they get no derivative (as in the bprop)
            return out, (None, None)
        p = ops.softmax(logits, -1)
        total = ops.sum(labels, -1, keepdim=True)
        t_loss = ops.sum(ops.mul(t, ops.sub(ops.mul(p, total), labels)), -1)   # <d loss / d logits, t>
        t_grad = ops.mul(p, ops.sub(t, ops.sum(ops.mul(t, p), -1, keepdim=True)))   # softmax's jvp
        return out, (t_loss, t_grad)

    def bprop(self, logits, labels, out, dout):
        d_loss, d_grad = dout
        p = ops.softmax(logits, -1)
        total = ops.sum(labels, -1, keepdim=True)
        # loss: d/dlogits = softmax * sum(labels) - labels, scaled by each sample's cotangent
        dl = ops.mul(ops.expand_dims(d_loss, -1), ops.sub(ops.mul(p, total), labels))
        # dlogits = softmax - labels: the softmax Jacobian-vector product
        dg = ops.mul(p, ops.sub(d_grad, ops.sum(ops.mul(d_grad, p), -1, keepdim=True)))
        return ops.add(dl, dg), None


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """``ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)``.

    ``labels`` are class indices ``(N,)``.  Returns the mean loss over the batch (a scalar), or with
    ``is_grad=True`` its gradient ``(softmax(logits) - onehot(labels)) / N``.  ``labels`` get no
    gradient.
    """

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    fast_kernel = "cross_entropy.sparse_softmax_cross_entropy"

    def __init__(self, is_grad=False):
        if not isinstance(is_grad, bool):
            raise TypeError("SparseSoftmaxCrossEntropyWithLogits: is_grad must be a bool, "
                            f"got {_describe(is_grad)}.")
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        op = self.name
        _check_logits(op, logits)
        if not isinstance(labels, Tensor) or labels.dtype.kind != "int":
            raise TypeError(f"{op}: labels must be an int32/int64 Tensor of class indices, but got "
                            f"{_describe(labels)}. Fix: Tensor(indices, mindspore.int32).")
        n, c = logits.shape
        if tuple(labels.shape) != (n,):
            raise ValueError(f"{op}: labels must have shape [{n}] (one class index per row of logits "
                             f"{list(logits.shape)}), but got {list(labels.shape)}.")
        lab = known_examples(labels)            # under vmap: every example's labels
        if lab is not None and lab.size and (lab.min() < 0 or lab.max() >= c):
            bad = int(lab.min() if lab.min() < 0 else lab.max())
            raise ValueError(f"{op}: label {bad} is out of range: with {c} classes labels must be in "
                             f"[0, {c - 1}].")
        return bind(self, logits, labels)

    @staticmethod
    def _onehot(labels, c, dtype):
        return np.eye(c, dtype=dtype)[labels]

    def impl(self, logits, labels):
        if _fast.enabled:
            out = _fast.cross_entropy.sparse_softmax_cross_entropy(logits, labels, self.is_grad)
            if out is not None:
                return out
        n, c = logits.shape
        lsm = _log_softmax(logits)
        if self.is_grad:
            return ((np.exp(lsm) - self._onehot(labels, c, logits.dtype)) / n).astype(logits.dtype)
        loss = -np.take_along_axis(lsm, labels[:, None].astype(np.int64), axis=-1).mean()
        return np.asarray(loss, dtype=logits.dtype)

    def batch(self, args, dims, size):
        """The mean over each example's rows: written in ops on the whole batch of rows."""
        (logits, labels), (dl, dlab) = args, dims
        logits, labels = front(logits, dl, size), front(labels, dlab, size)
        n, c = logits.shape[1:]
        p_or_log = ops.log_softmax(logits, -1)
        onehot = ops.one_hot(labels, c, dtype=logits.dtype)
        if self.is_grad:
            return ops.div(ops.sub(ops.exp(p_or_log), onehot), n), 0
        return ops.neg(ops.mean(ops.sum(ops.mul(onehot, p_or_log), -1), -1)), 0

    def jvp(self, primals, tangents):
        (logits, labels), (t, _) = primals, tangents
        out = bind(self, logits, labels)
        if t is None:           # only the labels move (an int tensor given a tangent): no derivative
            return out, None
        n, c = logits.shape
        p = ops.softmax(logits, -1)
        if self.is_grad:        # out = (softmax - onehot) / n: softmax's jvp, divided by n
            return out, ops.div(ops.mul(p, ops.sub(t, ops.sum(ops.mul(t, p), -1, keepdim=True))), n)
        onehot = ops.one_hot(labels, c, dtype=logits.dtype)
        return out, ops.sum(ops.mul(t, ops.div(ops.sub(p, onehot), n)))

    def bprop(self, logits, labels, out, dout):
        n, c = logits.shape
        p = ops.softmax(logits, -1)
        if self.is_grad:
            # out = (softmax - onehot) / n: the softmax Jacobian-vector product of dout / n
            g = ops.div(dout, n)
            return ops.mul(p, ops.sub(g, ops.sum(ops.mul(g, p), -1, keepdim=True))), None
        onehot = ops.one_hot(labels, c, dtype=logits.dtype)
        return ops.mul(ops.div(ops.sub(p, onehot), n), dout), None
