"""Batch normalisation (MindSpore's five-output ``BatchNorm``), its backward rule in minims ops.
"""
from __future__ import annotations

import numpy as np
from .. import functional as ops
from ... import fast as _fast          # the fast-path switch: _fast.enabled
from ...core import stack
from ...tensors import undo
from ...core.stack import MinimsError
from ...core.stack import Tracer, bind
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from .. import tangents as T
from ...core.primitive import Primitive
from ..batch_rules import loop, merged_into_first_axis
from ._geometry import _data_format, _require_tensor


class BatchNorm(Primitive):
    """``ops.BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW")
    (x, scale, bias, mean, variance)`` -> ``(y, batch_mean, batch_variance, reserve_space_1,
    reserve_space_2)``.

    * training: ``y`` is normalised with the batch statistics (biased variance);
      ``batch_mean``/``batch_variance`` are the batch mean and the *unbiased* batch variance (what
      the moving average uses: MindSpore's ``new = (1 - momentum) * old + momentum * batch``), and
      the reserve spaces hold the batch mean and the biased variance used for ``y``.
    * inference: ``y`` uses the given ``mean``/``variance``; the other four outputs are
      ``mean, variance, mean, variance`` (the documented values of the reserve spaces).

    In training, as MindSpore's kernel, a call also updates ``mean`` and ``variance`` in place:
    ``new = (1 - momentum) * old + momentum * batch``, with the *unbiased* batch variance (checked on
    MindSpore 2.10: momentum 0.1 takes a variance of 1 to 0.9 on constant data).  A Parameter is
    written with ``ops.assign`` (an effect of a compiled graph, undone if the call fails); a plain
    Tensor gets new data in PyNative.  What cannot be written — a plain Tensor inside a compiled
    graph, a value being differentiated, a batch inside ``vmap`` (MindSpore refuses that too) — is
    refused (``_write``).  The update is bookkeeping, done by ``__call__`` after the primitive is
    applied (``bind`` itself computes without writing): no gradient flows through it.
    Gradients flow to ``x``, ``scale`` and ``bias`` (and through every output that depends on
    them); ``mean`` and ``variance`` get none.
    """

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    fast_kernel = "batch_norm.batch_norm"

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        if not isinstance(is_training, bool):
            raise TypeError(f"BatchNorm: is_training must be a bool, but got {_describe(is_training)}.")
        for name, v, lo_open in (("epsilon", epsilon, True), ("momentum", momentum, False)):
            if not isinstance(v, (float, int)) or isinstance(v, bool):
                raise TypeError(f"BatchNorm: {name} must be a float, but got {_describe(v)}.")
            if not ((0 < v <= 1) if lo_open else (0 <= v <= 1)):
                rng = "(0, 1]" if lo_open else "[0, 1]"
                raise ValueError(f"BatchNorm: {name} must be in {rng}, but got {v}.")
        self.is_training = is_training
        self.epsilon = float(epsilon)
        self.momentum = float(momentum)
        self.data_format = _data_format("BatchNorm", data_format)

    def __call__(self, x, scale, bias, mean, variance):
        names = ("input_x", "scale", "bias", "mean", "variance")
        for name, v in zip(names, (x, scale, bias, mean, variance)):
            _require_tensor("BatchNorm", name, v)
        if x.ndim not in (2, 4):
            raise ValueError(f"BatchNorm: input_x must be 2-D (N, C) or 4-D (N, C, H, W), but got shape "
                             f"{list(x.shape)}.")
        c = x.shape[1]
        for name, v in zip(names[1:], (scale, bias, mean, variance)):
            if tuple(v.shape) != (c,):
                raise ValueError(f"BatchNorm: '{name}' must have shape [{c}] (one entry per channel of "
                                 f"input_x, shape {list(x.shape)}), but got {list(v.shape)}.")
        if self.is_training and x.size // c < 2:
            raise ValueError(f"BatchNorm: training needs more than one value per channel to compute a "
                             f"variance, but input_x has shape {list(x.shape)}. Fix: use a batch of at "
                             "least 2, or is_training=False.")
        outs = bind(self, x, scale, bias, mean, variance)
        if self.is_training:
            for name, stat, batch in (("mean", mean, outs[1]), ("variance", variance, outs[2])):
                new = ops.add(ops.mul(ops.stop_gradient(stat), 1.0 - self.momentum),
                              ops.mul(ops.stop_gradient(batch), self.momentum))
                _write(name, stat, ops.cast(new, stat.dtype))
        return outs

    @staticmethod
    def _axes(x):
        return (0,) if x.ndim == 2 else (0, 2, 3)

    @staticmethod
    def _bshape(x):
        return (1, x.shape[1]) + (1,) * (x.ndim - 2)

    def impl(self, x, scale, bias, mean, variance):
        if _fast.enabled:                        # Numba kernel; None = not its configuration
            out = _fast.batch_norm.batch_norm(self, x, scale, bias, mean, variance)
            if out is not None:
                return out
        axes, bshape = self._axes(x), self._bshape(x)
        if self.is_training:
            m = x.size // x.shape[1]
            mu = x.mean(axis=axes)
            var = x.var(axis=axes)
            stats = (mu, var * (m / (m - 1)), mu, var)
        else:
            mu, var = mean, variance
            stats = (mean.copy(), variance.copy(), mean.copy(), variance.copy())
        rstd = 1.0 / np.sqrt(var.astype(x.dtype) + np.asarray(self.epsilon, x.dtype))
        y = (x - mu.astype(x.dtype).reshape(bshape)) * (rstd * scale.astype(x.dtype)).reshape(bshape) \
            + bias.astype(x.dtype).reshape(bshape)
        return (y.astype(x.dtype, copy=False),) + tuple(s.astype(scale.dtype, copy=False) for s in stats)

    def batch(self, args, dims, size):
        """Inference normalises every image by the given statistics: the vmap batch joins N.  Training
        computes statistics per example's batch, so each example runs on its own (loop)."""
        if self.is_training or any(d is not None for d in dims[1:]):
            return loop(self, args, dims, size)
        return merged_into_first_axis(self, args, dims, size, tensor_positions=[0])

    def jvp(self, primals, tangents):
        """Tangents of ``y`` and of the four statistics; ``mean``/``variance`` are constants, as in
        the backward rule.  In training, ``xhat = (x - mu) / sigma`` with the batch's statistics:
        ``d xhat = (dx - mean(dx)) / sigma - xhat * mean(xhat * dx) / sigma``."""
        x, scale, bias, mean, variance = primals
        tx, ts, tb = tangents[:3]
        out = bind(self, *primals)
        axes, bshape = self._axes(x), self._bshape(x)

        def per_channel(v):
            return ops.cast(ops.reshape(v, bshape), x.dtype)
        s = per_channel(scale)
        if self.is_training:
            m = x.size // x.shape[1]
            mu = ops.mean(x, axes, keep_dims=True)
            xc = ops.sub(x, mu)
            rstd = ops.reciprocal(ops.sqrt(ops.add(ops.mean(ops.mul(xc, xc), axes, keep_dims=True), self.epsilon)))
            xhat = ops.mul(xc, rstd)
        else:
            rstd = ops.reciprocal(ops.sqrt(ops.add(per_channel(variance), self.epsilon)))
            xhat = ops.mul(ops.sub(x, per_channel(mean)), rstd)
        dy = T.mul(None if ts is None else per_channel(ts), xhat)
        dy = T.add(dy, None if tb is None else per_channel(tb))
        stats = (None,) * 4
        if tx is not None:
            if self.is_training:
                centered = ops.sub(tx, ops.mean(tx, axes, keep_dims=True))
                dxhat = ops.mul(ops.sub(centered, ops.mul(xhat, ops.mean(ops.mul(xhat, tx), axes, keep_dims=True))),
                                rstd)
                d_mu = ops.cast(ops.mean(tx, axes), scale.dtype)
                d_var = ops.mul(ops.mean(ops.mul(xc, tx), axes), 2.0)          # of the biased variance
                stats = (d_mu, ops.cast(ops.mul(d_var, m / (m - 1)), scale.dtype), d_mu,
                         ops.cast(d_var, scale.dtype))
            else:
                dxhat = ops.mul(tx, rstd)
            dy = T.add(dy, ops.mul(s, dxhat))
        return out, (T.fit(dy, out[0]), *stats)

    def bprop(self, x, scale, bias, mean, variance, out, dout):
        dy, d_mean, d_var, d_r1, d_r2 = dout
        axes, bshape = self._axes(x), self._bshape(x)
        s = ops.cast(ops.reshape(scale, bshape), x.dtype)
        if not self.is_training:
            rstd = ops.reciprocal(ops.sqrt(ops.add(ops.cast(ops.reshape(variance, bshape), x.dtype), self.epsilon)))
            xhat = ops.mul(ops.sub(x, ops.cast(ops.reshape(mean, bshape), x.dtype)), rstd)
            dx = ops.mul(dy, ops.mul(s, rstd))
            # the four statistics outputs are copies of mean/variance: no gradient to x, scale, bias
        else:
            m = x.size // x.shape[1]
            mu = ops.mean(x, axes, keep_dims=True)
            xc = ops.sub(x, mu)
            var = ops.mean(ops.mul(xc, xc), axes, keep_dims=True)
            rstd = ops.reciprocal(ops.sqrt(ops.add(var, self.epsilon)))
            xhat = ops.mul(xc, rstd)
            g = ops.mul(dy, s)
            # d/dx of (x - mu) * rstd: subtract the mean of g and its projection on xhat
            inner = ops.sub(ops.sub(g, ops.mean(g, axes, keep_dims=True)),
                          ops.mul(xhat, ops.mean(ops.mul(g, xhat), axes, keep_dims=True)))
            dx = ops.mul(rstd, inner)
            # the statistics outputs depend on x too: d mean/dx = 1/m, d var/dx = 2 (x - mu) / m
            # (the mean's own derivative cancels), unbiased variance: 2 (x - mu) / (m - 1)
            c_mean = ops.div(ops.cast(ops.reshape(ops.add(d_mean, d_r1), bshape), x.dtype), m)
            c_var = ops.add(ops.mul(ops.cast(ops.reshape(d_var, bshape), x.dtype), 2.0 / (m - 1)),
                          ops.mul(ops.cast(ops.reshape(d_r2, bshape), x.dtype), 2.0 / m))
            dx = ops.add(dx, ops.add(c_mean, ops.mul(xc, c_var)))
        dscale = ops.cast(ops.sum(ops.mul(dy, xhat), axes), scale.dtype)
        dbias = ops.cast(ops.sum(dy, axes), bias.dtype)
        return ops.cast(dx, x.dtype), dscale, dbias, None, None


class BatchNormWriteError(MinimsError, ValueError):
    """``BatchNorm(is_training=True)`` cannot write its moving statistics into ``mean``/``variance``
    (MindSpore raises ValueError for the one case it refuses, a batch inside ``vmap``)."""


def _write(name: str, stat, new) -> None:
    """Write the updated moving statistic ``new`` into ``stat`` (``BatchNorm``'s docstring)."""
    if stack.context_level() < 0 and new._has_no_value():
        raise BatchNormWriteError(
            f"BatchNorm: in training the moving statistics are updated in place, so a batch inside vmap "
            f"(one new '{name}' per example) cannot be written into one Tensor (MindSpore: \"does not "
            "support Vmap during training\"). Fix: stack the examples into the batch (N) axis and call "
            "BatchNorm once, or use is_training=False inside vmap.")
    if getattr(stat, "_is_parameter", False):
        ops.assign(stat, new)
    elif type(stat) is Tensor and stack.context_level() < 0:
        undo.write(stat, new._concrete()._data if isinstance(new, Tracer) else new._data, logged=False)
    else:
        where = ("a Tensor inside a compiled graph (jit or Graph mode), which keeps only Parameters' "
                 "writes" if type(stat) is Tensor else f"a value being differentiated or traced ({_describe(stat)})")
        raise BatchNormWriteError(
            f"BatchNorm: in training the moving statistics are written back into '{name}' (as MindSpore "
            f"does), but '{name}' is {where}. Fix: pass a Parameter (requires_grad=False), as "
            "nn.BatchNorm2d's moving_mean and moving_variance are, or use is_training=False.")
