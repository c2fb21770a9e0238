"""Batch normalisation layers: ``nn.BatchNorm2d`` (NCHW input) and ``nn.BatchNorm1d`` ((N, C) input).

``y = gamma * (x - mean) / sqrt(var + eps) + beta`` per channel.  Which mean and variance:

* training (``set_train()``) or ``use_batch_statistics=True``: those of the batch, and the moving
  statistics are updated with MindSpore's convention
  ``moving = momentum * moving + (1 - momentum) * batch`` (``momentum=0.9``: mostly the old value;
  the moving variance takes the unbiased batch variance);
* predict mode (a Cell's default) or ``use_batch_statistics=False``: the moving statistics.

The moving statistics are Parameters with ``requires_grad=False``: saved with the network, listed by
``untrainable_params()``, never given to an optimizer.  Their update is bookkeeping done by
``ops.batch_norm`` on values, so it is not part of any gradient.
"""
from __future__ import annotations

import numbers

from ... import dtype as mstype
from ...tensors.initializer import initializer
from ...tensors.parameter import Parameter
from ... import ops
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ..cell import Cell
from .basic import _check_bool, _positive_int

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Cell):
    _rank = 4
    _layout = "(N, C, H, W)"

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.num_features = _positive_int(name, "num_features", num_features)
        if not isinstance(eps, numbers.Real) or isinstance(eps, bool) or eps <= 0:
            raise ValueError(f"{name}: eps must be a positive float, but got {eps!r}.")
        if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool) or not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be a float in [0, 1], but got {momentum!r}.")
        self.affine = _check_bool(name, "affine", affine)
        if use_batch_statistics is not None:
            _check_bool(name, "use_batch_statistics", use_batch_statistics)
        if data_format != "NCHW":
            raise ValueError(f"{name}: minims supports data_format='NCHW' only, but got {data_format!r}.")
        self.eps, self.momentum = float(eps), float(momentum)
        self.use_batch_statistics = use_batch_statistics
        self.data_format = data_format
        shape = [num_features]
        # Registered in MindSpore's order.  MindSpore names these two "mean" and "variance" but a
        # parent cell lists them as "bn.moving_mean"/"bn.moving_variance"; minims names a Parameter
        # once, so it uses the attribute names, which give the same names inside a network.
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype), name="moving_mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype), name="moving_variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), name="gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), name="beta", requires_grad=affine)

    def _check_input(self, x):
        if not isinstance(x, Tensor) or x.ndim != self._rank:
            got = f"shape {list(x.shape)}" if isinstance(x, Tensor) else _describe(x)
            raise ValueError(f"{self.path}: {type(self).__name__} expects a {self._rank}-D input "
                             f"{self._layout}, but got {got}.")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{self.path}: {type(self).__name__}(num_features={self.num_features}) got an "
                             f"input with {x.shape[1]} channels (shape {list(x.shape)}).")

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        # ops.batch_norm weighs the *batch* by its momentum (PyTorch's convention): pass 1 - momentum
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                             training=use_batch, momentum=1.0 - self.momentum, eps=self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm2d(_BatchNorm):
    """``nn.BatchNorm2d(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None,
    data_format='NCHW')``: statistics over ``N, H, W`` for each of the ``C`` channels."""


class BatchNorm1d(_BatchNorm):
    """``nn.BatchNorm1d(num_features, ...)`` (same arguments as BatchNorm2d) for ``(N, C)`` input:
    statistics over the batch for each feature."""

    _rank = 2
    _layout = "(N, C)"
