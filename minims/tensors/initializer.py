"""Initializers: how Parameters get their first values (MindSpore's ``mindspore.common.initializer``).

``initializer(init, shape, dtype)`` returns a Tensor.  ``init`` may be

* a name: ``'normal'``, ``'truncatedNormal'``, ``'uniform'``, ``'xavier_uniform'``, ``'xavier_normal'``,
  ``'he_uniform'``, ``'he_normal'``, ``'ones'``, ``'zeros'``, ``'identity'`` (any case);
* an :class:`Initializer` instance, e.g. ``TruncatedNormal(0.02)`` or ``HeUniform(math.sqrt(5))``;
* a number (a :class:`Constant`);
* a Tensor, returned as it is (its shape must match ``shape``).

Every random initializer draws from ``minims.context.global_rng()``, so ``mindspore.set_seed(n)``
makes network construction reproducible.  The numbers are not MindSpore's (it uses its own C++
generator), only the distributions are.

Fan-in and fan-out follow MindSpore and PyTorch: for a weight of shape ``(out, in)`` they are ``in``
and ``out``; for a convolution weight ``(out, in/group, kh, kw)`` both are multiplied by the
receptive field ``kh * kw``.
"""
from __future__ import annotations

import difflib
import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..context import global_rng
from .memory import check_allocation
from ..core.tensor import Tensor
from .convert import _describe

__all__ = ["Initializer", "initializer", "Zero", "One", "Constant", "Normal", "TruncatedNormal",
           "Uniform", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal", "Identity"]

_ALIASES: dict = {}


def _register(*aliases):
    """Make a class reachable by its lower-case name and by ``aliases`` (MindSpore's table)."""
    def add(cls):
        for key in (cls.__name__.lower(),) + aliases:
            _ALIASES.setdefault(key, cls)
        return cls
    return add


class Initializer:
    """Base class: ``init(arr)`` fills the NumPy array ``arr`` in place (subclasses define ``_initialize``)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _initialize(self, arr: np.ndarray) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define _initialize(arr).")

    def __call__(self, arr: np.ndarray) -> None:
        self._initialize(arr)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


def _fill(arr: np.ndarray, values) -> None:
    """Write ``values`` into ``arr`` (casting to its dtype; works for 0-d arrays too)."""
    arr[...] = np.asarray(values).astype(arr.dtype, copy=False)


# ----- fan-in / fan-out -------------------------------------------------------------------------
def _calculate_fan_in_and_fan_out(shape) -> tuple:
    """``(fan_in, fan_out)`` of a weight: ``(in, out)`` for 2-D, times ``kh * kw * ...`` for conv weights."""
    if len(shape) < 2:
        raise ValueError(f"initializer: fan_in and fan_out cannot be computed for a tensor with fewer than "
                         f"2 dimensions (shape {list(shape)}). Fix: use 'zeros', 'normal' or 'uniform' for "
                         "1-D tensors such as biases.")
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"initializer: mode must be 'fan_in' or 'fan_out', but got {mode!r}.")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


def _calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain of a non-linearity (PyTorch's ``calculate_gain``, as MindSpore)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"initializer: negative_slope must be a number, but got {_describe(param)}.")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"initializer: nonlinearity must be one of 'sigmoid', 'tanh', 'relu', 'leaky_relu' "
                     f"or a linear layer name, but got {nonlinearity!r}.")


# ----- constants ----------------------------------------------------------------------------------
@_register("zeros")
class Zero(Initializer):
    """All zeros (``'zeros'``)."""

    def _initialize(self, arr):
        arr.fill(0)


@_register("ones")
class One(Initializer):
    """All ones (``'ones'``)."""

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Every element ``value`` (what a number passed to ``initializer`` becomes)."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        _fill(arr, self.value)


@_register()
class Identity(Initializer):
    """The 2-D identity matrix (``np.eye``)."""

    def _initialize(self, arr):
        if arr.ndim != 2:
            raise ValueError(f"Identity initializer: the tensor must be 2-D, but got shape {list(arr.shape)}.")
        _fill(arr, np.eye(*arr.shape))


# ----- random distributions -----------------------------------------------------------------------
def _check_sigma(name, sigma):
    if not isinstance(sigma, numbers.Real) or sigma < 0:
        raise ValueError(f"{name}: sigma must be a non-negative number, but got {sigma!r}.")


@_register()
class Normal(Initializer):
    """``N(mean, sigma**2)``."""

    def __init__(self, sigma=0.01, mean=0.0):
        _check_sigma("Normal", sigma)
        super().__init__(sigma=sigma, mean=mean)
        self.sigma, self.mean = sigma, mean

    def _initialize(self, arr):
        _fill(arr, global_rng().normal(self.mean, self.sigma, arr.shape))


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@_register()
class TruncatedNormal(Initializer):
    """``N(mean, sigma**2)`` conditioned on ``a <= x <= b``.

    As in MindSpore 2.x (and PyTorch's ``trunc_normal_``), ``a`` and ``b`` are absolute bounds, not
    multiples of ``sigma``: ``TruncatedNormal(0.02)`` is cut at +-2, which a draw of standard deviation
    0.02 practically never reaches.
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        _check_sigma("TruncatedNormal", sigma)
        if not a < b:
            raise ValueError(f"TruncatedNormal: the bounds must satisfy a < b, but got a={a}, b={b}.")
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _initialize(self, arr):
        _fill(arr, self._sample(arr.size).reshape(arr.shape))

    def _sample(self, n: int) -> np.ndarray:
        """Rejection sampling: draw normals, keep those inside [a, b], draw again for the rest."""
        mean, sigma, a, b = self.mean, self.sigma, self.a, self.b
        if sigma == 0:
            return np.full(n, min(max(mean, a), b), dtype=np.float64)
        accept = _normal_cdf((b - mean) / sigma) - _normal_cdf((a - mean) / sigma)
        if accept < 1e-6:
            raise ValueError(f"TruncatedNormal: the interval [{a}, {b}] holds almost none of N({mean}, "
                             f"{sigma}**2) (probability {accept:.2e}). Fix: choose bounds near the mean.")
        rng = global_rng()
        out = np.empty(n, dtype=np.float64)
        filled = 0
        while filled < n:
            # draw enough that one round usually suffices: (what is missing) / (acceptance rate)
            want = n - filled
            draw = rng.normal(mean, sigma, int(want / accept * 1.1) + 16)
            keep = draw[(draw >= a) & (draw <= b)][:want]
            out[filled:filled + keep.size] = keep
            filled += keep.size
        return out


@_register()
class Uniform(Initializer):
    """``U(-scale, scale)``."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _fill(arr, global_rng().uniform(-self.scale, self.scale, arr.shape))


@_register("xavier_uniform")
class XavierUniform(Initializer):
    """Glorot uniform: ``U(-bound, bound)`` with ``bound = gain * sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _fill(arr, global_rng().uniform(-bound, bound, arr.shape))


@_register("xavier_normal")
class XavierNormal(Initializer):
    """Glorot normal: ``N(0, sigma**2)`` with ``sigma = gain * sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        sigma = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        _fill(arr, global_rng().normal(0.0, sigma, arr.shape))


class _He(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _std(self, shape) -> float:
        fan = _calculate_correct_fan(shape, self.mode)
        return _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_register("he_uniform")
class HeUniform(_He):
    """Kaiming uniform: ``U(-bound, bound)``, ``bound = sqrt(3) * gain / sqrt(fan)``.

    ``HeUniform(math.sqrt(5))`` is the default weight of ``nn.Dense`` and ``nn.Conv2d``: with the
    leaky-ReLU gain ``sqrt(2 / (1 + 5))`` the bound is ``1 / sqrt(fan_in)`` (PyTorch's default).
    """

    def _initialize(self, arr):
        bound = math.sqrt(3.0) * self._std(arr.shape)
        _fill(arr, global_rng().uniform(-bound, bound, arr.shape))


@_register("he_normal")
class HeNormal(_He):
    """Kaiming normal: ``N(0, sigma**2)``, ``sigma = gain / sqrt(fan)``."""

    def _initialize(self, arr):
        _fill(arr, global_rng().normal(0.0, self._std(arr.shape), arr.shape))


# ----- the entry point ----------------------------------------------------------------------------
def _shape_tuple(shape) -> tuple:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"initializer: shape must be an int, a tuple or a list of ints, but got {_describe(shape)}.")
    for v in shape:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"initializer: every entry of shape must be a positive int, but got {list(shape)}. "
                             "Fix: give the tensor's size along each axis, e.g. (out_channels, in_channels).")
    return tuple(int(v) for v in shape)


def initializer(init, shape=None, dtype=mstype.float32) -> Tensor:
    """A Tensor of ``shape`` and ``dtype`` filled by ``init`` (a name, an Initializer, a number or a Tensor)."""
    if isinstance(init, Tensor):
        if shape is not None and tuple(init.shape) != _shape_tuple(shape):
            raise ValueError(f"initializer: the Tensor given as init has shape {list(init.shape)}, but shape "
                             f"{list(_shape_tuple(shape))} was asked for. Fix: pass a Tensor of that shape, "
                             "or an initializer name such as 'normal'.")
        return init
    if isinstance(init, str):
        cls = _ALIASES.get(init.lower())
        if cls is None:
            close = difflib.get_close_matches(init.lower(), sorted(_ALIASES), n=1)
            raise ValueError(f"initializer: unknown initializer name {init!r}; known names: "
                             f"{sorted(_ALIASES)}. Fix: use one of these names"
                             + (f" (did you mean {close[0]!r}?)." if close else ", e.g. 'normal'."))
        init = cls()
    elif isinstance(init, numbers.Number) and not isinstance(init, bool):
        init = Constant(init)
    elif not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be a Tensor, a number, a name or an Initializer, but got "
                        f"{_describe(init)}.")
    if shape is None:
        raise ValueError("initializer: shape is required unless init is a Tensor.")
    np_dtype = mstype.to_dtype(dtype, "initializer(dtype)").np_dtype
    check_allocation(f"initializer({type(init).__name__})", _shape_tuple(shape), np_dtype)
    arr = np.zeros(_shape_tuple(shape), dtype=np_dtype)
    init(arr)
    return Tensor._make(arr)
