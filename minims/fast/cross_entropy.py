"""Fast softmax cross-entropy (and ``Softmax`` over the last axis, which its backward rule calls):
one pass per row instead of a chain of whole-array NumPy calls.

For each row ``z`` of the logits (the classes are the last axis), with ``m = max(z)``:

    log_softmax(z)_k = (z_k - m) - log(sum_j exp(z_j - m))

Subtracting the maximum first keeps ``exp`` from overflowing (the same stable log-sum-exp as the
NumPy path).  From ``log_softmax`` the loss is ``-sum_k labels_k * log_softmax_k`` and, as MindSpore
defines it, the second output ``dlogits = softmax - labels``.

The rows are independent, but a batch of logits is small (32 x 10 in LeNet): splitting it over two
threads would cost more than it saves, so these kernels have no parallel version.  Sums are
accumulated in float64.
"""
from __future__ import annotations

import numpy as np

from ._common import c_array, helper, kernel, same_float

__all__ = ["softmax_cross_entropy", "sparse_softmax_cross_entropy", "softmax"]


@helper()
def _log_sum_exp_shift(row):
    """``(m, log(sum_j exp(row_j - m)))`` for ``m = max(row)``: ``log_softmax_k = row_k - m - second``."""
    m = row.max()
    total = 0.0
    for k in range(row.shape[0]):
        total += np.exp(row[k] - m)
    return m, np.log(total)


@kernel()
def _softmax_xent(logits, labels):
    """``SoftmaxCrossEntropyWithLogits``: per-row loss and ``softmax - labels``."""
    n, c = logits.shape
    loss = np.empty(n, dtype=logits.dtype)
    dlogits = np.empty((n, c), dtype=logits.dtype)
    for r in range(n):
        m, lse = _log_sum_exp_shift(logits[r])
        acc = 0.0
        for k in range(c):
            lsm = (logits[r, k] - m) - lse
            acc -= labels[r, k] * lsm
            dlogits[r, k] = np.exp(lsm) - labels[r, k]
        loss[r] = acc
    return loss, dlogits


@kernel()
def _sparse_xent_loss(logits, labels):
    """``SparseSoftmaxCrossEntropyWithLogits``: the mean over rows of ``-log_softmax[r, label_r]``."""
    n = logits.shape[0]
    acc = 0.0
    for r in range(n):
        m, lse = _log_sum_exp_shift(logits[r])
        acc -= (logits[r, labels[r]] - m) - lse
    return acc / n


@kernel()
def _sparse_xent_grad(logits, labels):
    """``SparseSoftmaxCrossEntropyWithLogits(is_grad=True)``: ``(softmax - onehot(labels)) / n``."""
    n, c = logits.shape
    out = np.empty((n, c), dtype=logits.dtype)
    for r in range(n):
        m, lse = _log_sum_exp_shift(logits[r])
        for k in range(c):
            p = np.exp((logits[r, k] - m) - lse)
            out[r, k] = (p - (1.0 if k == labels[r] else 0.0)) / n
    return out


@kernel()
def _softmax_rows(x):
    """``Softmax`` over each row: the NumPy path's steps (shift by the row's maximum, exp, divide by
    the sum) in one pass per row; the sum accumulates in float64.  A NaN in a row makes the row NaN,
    as ``np.max`` does; the maximum's sign when it is zero does not matter (exp(+-0) = 1)."""
    n, c = x.shape
    out = np.empty((n, c), dtype=x.dtype)
    for r in range(n):
        m = x[r, 0]
        for k in range(1, c):
            v = x[r, k]
            if v > m or v != v:
                m = v
        total = 0.0
        for k in range(c):
            e = np.exp(x[r, k] - m)
            out[r, k] = e
            total += e
        for k in range(c):
            out[r, k] = out[r, k] / total
    return out


# ================================================================================================
# wrappers
# ================================================================================================
def softmax_cross_entropy(logits, labels):
    """``(loss, dlogits)`` or None (not float32/float64 of one dtype, or not 2-D)."""
    if not same_float(logits, labels) or logits.ndim != 2:
        return None
    return _softmax_xent(c_array(logits), c_array(labels))


def sparse_softmax_cross_entropy(logits, labels, is_grad):
    """The mean loss (0-d array) or, with ``is_grad``, its gradient; None if not ours.

    A label outside ``[0, C)`` (possible in Graph mode, where values are not checked while tracing)
    goes to the NumPy path, which handles it NumPy's way, instead of reading outside the row.
    """
    if not same_float(logits) or logits.ndim != 2 or not isinstance(labels, np.ndarray) \
            or labels.dtype.kind not in "iu" or labels.shape != logits.shape[:1]:
        return None
    n, c = logits.shape
    if n == 0 or labels.min() < 0 or labels.max() >= c:
        return None
    logits, labels = c_array(logits), np.ascontiguousarray(labels, dtype=np.int64)
    if is_grad:
        return _sparse_xent_grad(logits, labels)
    return np.asarray(_sparse_xent_loss(logits, labels), dtype=logits.dtype)


def softmax(x, axis):
    """``Softmax`` of ``x`` over ``axis`` when that is the last axis alone (a batch of logits: W3's
    256 x 10, where NumPy's row maximum and row sum cost ~30 us of ~40), else None."""
    if not same_float(x) or x.ndim == 0 or tuple(axis) != (x.ndim - 1,) or x.size == 0:
        return None
    return _softmax_rows(c_array(x).reshape(-1, x.shape[-1])).reshape(x.shape)


def _examples():
    labels = np.zeros(1, np.int64)
    return [
        ("cross_entropy.softmax", _softmax_rows, lambda dtype: _softmax_rows(np.zeros((1, 2), dtype))),
        ("cross_entropy.softmax_xent", _softmax_xent,
         lambda dtype: _softmax_xent(np.zeros((1, 2), dtype), np.zeros((1, 2), dtype))),
        ("cross_entropy.sparse_loss", _sparse_xent_loss,
         lambda dtype: _sparse_xent_loss(np.zeros((1, 2), dtype), labels)),
        ("cross_entropy.sparse_grad", _sparse_xent_grad,
         lambda dtype: _sparse_xent_grad(np.zeros((1, 2), dtype), labels)),
    ]
