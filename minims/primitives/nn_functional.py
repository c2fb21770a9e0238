"""MindSpore 2.x's functional neural-network API: ``ops.conv2d``, ``ops.max_pool2d``, ``ops.batch_norm``,
``ops.dropout``, ``ops.cross_entropy`` and the simple losses.

Each function checks its arguments, then calls the primitives of ``minims.primitives.nn`` (or, for
the losses, composes existing minims ops), so everything here is differentiable — to any order —
without a backward rule of its own.  Signatures and defaults follow MindSpore 2.x (which follows
PyTorch's functional API).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from .batch_rules import known_examples
from . import nn as _nn
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from . import functional as ops

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "dropout", "dropout2d",
           "cross_entropy", "nll_loss", "mse_loss", "l1_loss"]


def _tensor(op: str, name: str, v):
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}: '{name}' must be a Tensor, but got {_describe(v)}.")


def _bool(op: str, name: str, v):
    if not isinstance(v, bool):
        raise TypeError(f"{op}: '{name}' must be a bool, but got {_describe(v)}.")


def _padding_hw(op: str, padding) -> tuple:
    """``padding``: an int, ``(pad_h, pad_w)`` (both sides) or ``(top, bottom, left, right)``."""
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        pads = (int(padding),) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) == 2 and all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in padding):
        pads = (int(padding[0]),) * 2 + (int(padding[1]),) * 2
    elif isinstance(padding, (tuple, list)) and len(padding) == 4 and all(
            isinstance(p, (int, np.integer)) and not isinstance(p, bool) for p in padding):
        pads = tuple(int(p) for p in padding)
    else:
        raise TypeError(f"{op}: padding must be an int, a tuple of 2 ints (height, width) or of 4 ints "
                        f"(top, bottom, left, right), but got {_describe(padding)}.")
    if any(p < 0 for p in pads):
        raise ValueError(f"{op}: padding must not be negative, but got {padding!r}.")
    return pads


# ----- convolution ------------------------------------------------------------------------------
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """``ops.conv2d``: 2-D cross-correlation of ``input (N, C, H, W)`` with ``weight (O, C/groups, kh, kw)``.

    ``pad_mode`` "valid", "same" or "pad"; with "pad", ``padding`` is an int, ``(pad_h, pad_w)``
    (applied to both sides) or ``(top, bottom, left, right)``.  ``bias`` (shape ``(O,)``) is added
    per output channel.
    """
    _tensor("conv2d", "input", input)
    _tensor("conv2d", "weight", weight)
    if weight.ndim != 4:
        raise ValueError(f"conv2d: weight must be 4-D (out_channels, in_channels/groups, kh, kw), "
                         f"but got shape {list(weight.shape)}.")
    pads = _padding_hw("conv2d", padding)
    out_channel = weight.shape[0]
    conv = _nn.Conv2D(out_channel, tuple(weight.shape[2:]), 1, pad_mode, pads, stride, dilation, groups)
    out = conv(input, weight)
    if bias is None:
        return out
    _tensor("conv2d", "bias", bias)
    if tuple(bias.shape) != (out_channel,):
        raise ValueError(f"conv2d: bias must have shape [{out_channel}] (one entry per output channel of "
                         f"weight {list(weight.shape)}), but got {list(bias.shape)}.")
    return ops.add(out, ops.reshape(bias, (1, out_channel, 1, 1)))


# ----- pooling ----------------------------------------------------------------------------------
def _check_pool_padding(op, kernel, pads):
    # PyTorch's and MindSpore's rule: a window may never lie entirely in the padding
    if pads[0] > kernel[0] // 2 or pads[1] > kernel[0] // 2 or pads[2] > kernel[1] // 2 \
            or pads[3] > kernel[1] // 2:
        raise ValueError(f"{op}: padding {list(pads)} must be at most half the kernel size "
                         f"{list(kernel)} on every side.")


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """``ops.max_pool2d``: the maximum of each window; padding counts as -inf.

    ``stride`` defaults to ``kernel_size``.  With ``return_indices=True`` also returns the int64 index
    ``h * W + w`` (in the unpadded input) of each window's first maximum.
    """
    _tensor("max_pool2d", "x", x)
    _bool("max_pool2d", "return_indices", return_indices)
    _bool("max_pool2d", "ceil_mode", ceil_mode)
    kernel = _nn._pair("max_pool2d", "kernel_size", kernel_size, allow4=False)
    strides = kernel if stride is None else _nn._pair("max_pool2d", "stride", stride, allow4=False)
    dil = _nn._pair("max_pool2d", "dilation", dilation, allow4=False)
    pads = _padding_hw("max_pool2d", padding)
    _check_pool_padding("max_pool2d", kernel, pads)
    pool = _nn.MaxPool._configured(kernel, strides, pads, dil, ceil_mode)
    out = pool(x)
    if return_indices:
        return out, _nn.MaxPoolArgmax._configured(kernel, strides, pads, dil, ceil_mode)(x)
    return out


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """``ops.avg_pool2d``: the mean of each window.

    ``padding`` is an int or ``(top, bottom, left, right)``; ``count_include_pad`` decides whether
    padded zeros count in the mean; ``divisor_override`` (if non-zero) replaces the count.
    """
    _tensor("avg_pool2d", "input_x", input_x)
    _bool("avg_pool2d", "ceil_mode", ceil_mode)
    _bool("avg_pool2d", "count_include_pad", count_include_pad)
    if not isinstance(divisor_override, (int, np.integer)) or isinstance(divisor_override, bool) \
            or divisor_override < 0:
        raise ValueError(f"avg_pool2d: divisor_override must be a non-negative int (0: no override), "
                         f"but got {divisor_override!r}.")
    kernel = _nn._pair("avg_pool2d", "kernel_size", kernel_size, allow4=False)
    strides = _nn._pair("avg_pool2d", "stride", stride, allow4=False)
    pads = _padding_hw("avg_pool2d", padding)
    _check_pool_padding("avg_pool2d", kernel, pads)
    pool = _nn.AvgPool._configured(kernel, strides, pads, (1, 1), ceil_mode, count_include_pad,
                                   divisor_override)
    return pool(input_x)


# ----- batch normalisation ----------------------------------------------------------------------
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """``ops.batch_norm``: normalise per channel, then scale by ``weight`` and shift by ``bias``.

    In training the batch statistics are used and, as in MindSpore, ``running_mean``/``running_var``
    are updated in place: ``new = (1 - momentum) * old + momentum * batch`` (the unbiased batch
    variance for ``running_var``).  The update writes new data into them; it is bookkeeping, not
    part of the computation, so no gradient flows through it.
    """
    _bool("batch_norm", "training", training)
    for name, v in (("input_x", input_x), ("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _tensor("batch_norm", name, v)
    # in training the primitive updates running_mean/running_var itself, as MindSpore's does
    return _nn.BatchNorm(training, eps, momentum)(input_x, weight, bias, running_mean, running_var)[0]


# ----- dropout ----------------------------------------------------------------------------------
def _drop_p(op: str, p) -> float:
    if not isinstance(p, (float, int)) or isinstance(p, bool):
        raise TypeError(f"{op}: p must be a float, but got {_describe(p)}.")
    if not 0 <= p < 1:
        raise ValueError(f"{op}: p (the probability of dropping an element) must be in [0, 1), but got {p}.")
    return float(p)


def dropout(input, p=0.5, training=True, seed=None):  # noqa: A002
    """``ops.dropout``: zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    Returns ``input`` unchanged when ``training`` is False.  ``seed`` (an int) makes the draw
    reproducible; otherwise ``mindspore.set_seed``'s stream is used.
    """
    _bool("dropout", "training", training)
    p = _drop_p("dropout", p)
    if not training:
        return input
    _tensor("dropout", "input", input)
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        raise ValueError(f"dropout: seed must be None or a non-negative int, but got {seed!r}.")
    return _nn.Dropout(1.0 - p, 0 if seed is None else seed, 0)(input)[0]


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    """``ops.dropout2d``: zero whole channels of ``(N, C, H, W)`` input with probability ``p``."""
    _bool("dropout2d", "training", training)
    p = _drop_p("dropout2d", p)
    if not training:
        return input
    return _nn.Dropout2D(1.0 - p)(input)[0]


# ----- losses -----------------------------------------------------------------------------------
_REDUCTIONS = ("none", "mean", "sum")


def _reduction(op: str, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {list(_REDUCTIONS)}, but got {reduction!r}.")


def _reduce(x, reduction):
    if reduction == "mean":
        return ops.mean(x)
    if reduction == "sum":
        return ops.sum(x)
    return x


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """``ops.nll_loss``: ``-inputs[n, target[n]]`` (inputs are log-probabilities), averaged.

    ``inputs`` is ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``; ``target`` holds class indices with the
    other dimensions.  Targets equal to ``ignore_index`` contribute nothing.  With class ``weight``
    the mean divides by the summed weights of the counted targets.  ``label_smoothing`` mixes in
    the mean over all classes (PyTorch's formula).
    """
    return _nll_loss("nll_loss", inputs, target, weight, ignore_index, reduction, label_smoothing)


def _nll_loss(op, inputs, target, weight, ignore_index, reduction, label_smoothing):
    """nll_loss's body; ``op`` names the public function in error messages."""
    _tensor(op, "inputs", inputs)
    _tensor(op, "target", target)
    _reduction(op, reduction)
    if target.dtype.kind != "int":
        raise TypeError(f"{op}: target must hold class indices (an int Tensor), but got {target.dtype}.")
    if not isinstance(label_smoothing, (int, float)) or not 0 <= label_smoothing <= 1:
        raise ValueError(f"{op}: label_smoothing must be a float in [0, 1], but got {label_smoothing!r}.")
    class_dim = 0 if inputs.ndim == 1 else 1
    c = inputs.shape[class_dim]
    want = inputs.shape[:class_dim] + inputs.shape[class_dim + 1:]
    if tuple(target.shape) != tuple(want):
        raise ValueError(f"{op}: target must have shape {list(want)} (inputs {list(inputs.shape)} without "
                         f"the class dimension {class_dim}), but got {list(target.shape)}.")
    t = known_examples(target)             # under vmap: every example's targets
    if t is not None:
        bad = t[(t != ignore_index) & ((t < 0) | (t >= c))]
        if bad.size:
            raise ValueError(f"{op}: target {int(bad.flat[0])} is out of range: with {c} classes targets "
                             f"must be in [0, {c - 1}] (or equal ignore_index={ignore_index}).")
    # the target as a one-hot mask along the class dimension (zero rows where ignored), built with
    # ops so that a compiled graph uses each call's targets
    valid = ops.ne(target, ignore_index)
    onehot = ops.one_hot(ops.select(valid, target, ops.zeros_like(target)), c, axis=class_dim,
                       dtype=inputs.dtype)
    valid_t = ops.cast(valid, inputs.dtype)
    onehot = ops.mul(onehot, ops.expand_dims(valid_t, class_dim))
    neg_onehot = ops.neg(onehot)
    if weight is not None:
        _tensor(op, "weight", weight)
        if tuple(weight.shape) != (c,):
            raise ValueError(f"{op}: weight must have shape [{c}] (one per class), got {list(weight.shape)}.")
        w = ops.reshape(weight, (c,) + (1,) * (inputs.ndim - 1 - class_dim))
        weighted = ops.mul(inputs, w)
        loss_weights = ops.sum(ops.mul(onehot, w), class_dim)            # weight[target], 0 where ignored
    else:
        weighted = inputs
        loss_weights = valid_t
    loss = ops.sum(ops.mul(weighted, neg_onehot), class_dim)
    if reduction == "none":
        out = loss
    elif reduction == "sum":
        out = ops.sum(loss)
    else:
        out = ops.div(ops.sum(loss), ops.sum(loss_weights))
    if label_smoothing:
        smooth = ops.mul(ops.neg(ops.sum(weighted, class_dim)), valid_t)
        if reduction == "sum":
            smooth = ops.sum(smooth)
        elif reduction == "mean":
            smooth = ops.div(ops.sum(smooth), ops.sum(loss_weights))
        out = ops.add(ops.mul(out, 1.0 - label_smoothing), ops.mul(smooth, label_smoothing / c))
    return out


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  label_smoothing=0.0):
    """``ops.cross_entropy``: ``nll_loss(log_softmax(input))`` for class indices, or
    ``-sum_c target_c * log_softmax(input)_c`` for class probabilities (a float ``target`` shaped
    like ``input``).  The class dimension is 1 (0 for a 1-D input).
    """
    op = "cross_entropy"
    _tensor(op, "input", input)
    _tensor(op, "target", target)
    _reduction(op, reduction)
    if not input.dtype.is_float:
        raise TypeError(f"{op}: input must be a float Tensor of logits, but got {input.dtype}.")
    class_dim = 0 if input.ndim == 1 else 1
    logp = ops.log_softmax(input, class_dim)
    if not target.dtype.is_float:
        return _nll_loss(op, logp, target, weight, ignore_index, reduction, label_smoothing)
    # probability targets
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"{op}: probability targets must have the shape of input {list(input.shape)}, but "
                         f"got {list(target.shape)}. Fix: pass class indices as an int Tensor instead.")
    if not isinstance(label_smoothing, (int, float)) or not 0 <= label_smoothing <= 1:
        raise ValueError(f"{op}: label_smoothing must be a float in [0, 1], but got {label_smoothing!r}.")
    c = input.shape[class_dim]
    target = ops.cast(target, input.dtype)
    if label_smoothing:
        target = ops.add(ops.mul(target, 1.0 - label_smoothing), label_smoothing / c)
    prod = ops.mul(logp, target)
    if weight is not None:
        _tensor(op, "weight", weight)
        if tuple(weight.shape) != (c,):
            raise ValueError(f"{op}: weight must have shape [{c}] (one per class), got {list(weight.shape)}.")
        prod = ops.mul(prod, ops.reshape(weight, (c,) + (1,) * (input.ndim - 1 - class_dim)))
    if reduction == "mean":
        # the mean is over samples (every position but the class one), not over classes
        return ops.div(ops.neg(ops.sum(prod)), input.size // c)
    if reduction == "sum":
        return ops.neg(ops.sum(prod))
    return ops.neg(ops.sum(prod, class_dim))


def _pointwise_loss(op, input, target, reduction, fn):  # noqa: A002
    _tensor(op, "input", input)
    _tensor(op, "target", target)
    _reduction(op, reduction)
    try:
        np.broadcast_shapes(input.shape, target.shape)
    except ValueError:
        raise ValueError(f"{op}: input {list(input.shape)} and target {list(target.shape)} cannot be "
                         "broadcast together.") from None
    diff = ops.sub(input, target)
    if not diff.dtype.is_float:
        diff = ops.cast(diff, mstype.float32)         # MindSpore computes integer losses in float32
    return _reduce(fn(diff), reduction)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.mse_loss``: ``(input - target) ** 2``, reduced by ``reduction`` ('mean', 'sum', 'none')."""
    return _pointwise_loss("mse_loss", input, target, reduction, ops.square)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.l1_loss``: ``|input - target|``, reduced by ``reduction`` ('mean', 'sum', 'none')."""
    return _pointwise_loss("l1_loss", input, target, reduction, ops.abs)
