"""Basic layers: ``nn.Dense`` (fully connected), ``nn.Flatten`` and ``nn.MatMul``.

``Dense`` stores its weight as ``(out_channels, in_channels)`` and computes ``x @ weight.T + bias``,
as MindSpore does.  Its defaults are MindSpore 2.x's (and PyTorch's): weight ``HeUniform(sqrt(5))``,
i.e. ``U(-1/sqrt(in), 1/sqrt(in))``, and bias ``U(-1/sqrt(in), 1/sqrt(in))``.
"""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...tensors.initializer import HeUniform, Uniform, initializer
from ...tensors.parameter import Parameter
from ... import ops
from ...core.primitive import Primitive
from ...primitives.linalg import MatMul as _MatMulPrim
from ...primitives.operands import ShapeMismatchError
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ..cell import Cell
from .activation import get_activation

__all__ = ["Dense", "Flatten", "MatMul"]


def _positive_int(cls_name, name, value):
    if isinstance(value, bool) or not isinstance(value, int):      # TypeError, as MindSpore
        raise TypeError(f"{cls_name}: {name} must be an int, but got {_describe(value)}. "
                        f"Fix: pass a whole number, e.g. {name}=int(n).")
    if value <= 0:
        raise ValueError(f"{cls_name}: {name} must be a positive int, but got {value!r}.")
    return value


def _check_bool(cls_name, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{cls_name}: {name} must be a bool, but got {_describe(value)}.")
    return value


class Dense(Cell):
    """``nn.Dense(in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
    activation=None, dtype=float32)``: ``activation(x @ weight.T + bias)``.

    Inputs of rank other than 2 are flattened to ``(-1, in_channels)`` and reshaped back, so the
    layer applies to the last dimension.
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = _positive_int("Dense", "in_channels", in_channels)
        self.out_channels = _positive_int("Dense", "out_channels", out_channels)
        self.has_bias = _check_bool("Dense", "has_bias", has_bias)
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_channels, in_channels):
            raise ValueError(f"Dense: weight_init must have shape [{out_channels}, {in_channels}] "
                             f"(out_channels, in_channels), but got {list(weight_init.shape)}. Fix: "
                             "MindSpore stores the weight as (out, in); transpose an (in, out) matrix.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype), name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(f"Dense: bias_init must have shape [{out_channels}], but got "
                                 f"{list(bias_init.shape)}.")
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")
        self.matmul = _MatMulPrim(transpose_b=True)
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if activation is not None and not isinstance(self.activation, (Cell, Primitive)):
            raise TypeError(f"Dense: activation must be a str, a Cell or a Primitive, but got "
                            f"{_describe(activation)}.")
        self.activation_flag = self.activation is not None

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"{self.path}: Dense expects a Tensor input, but got {_describe(x)}. "
                            "Fix: wrap the data first, e.g. Tensor(x).")
        if x.ndim == 0 or x.shape[-1] != self.in_channels:
            got = "a scalar" if x.ndim == 0 else f"{x.shape[-1]} features"
            raise ShapeMismatchError(
                f"{self.path}: Dense(in_channels={self.in_channels}, out_channels={self.out_channels}) "
                f"expects inputs with {self.in_channels} features in the last dimension, but got shape "
                f"{list(x.shape)} ({got}). Fix: make the previous layer produce {self.in_channels} "
                f"features, or build Dense({x.shape[-1] if x.ndim else '...'}, {self.out_channels}).")
        shape = x.shape
        if len(shape) != 2:
            x = ops.reshape(x, (-1, shape[-1]))
        x = self.matmul(x, self.weight)
        if self.has_bias:
            x = ops.add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = ops.reshape(x, shape[:-1] + (self.out_channels,))
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """``nn.Flatten(start_dim=1, end_dim=-1)``: merge dimensions ``start_dim..end_dim`` into one."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for name, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Flatten: {name} must be an int, but got {_describe(v)}.")
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, self.start_dim, self.end_dim)


class MatMul(Cell):
    """``nn.MatMul(transpose_x1=False, transpose_x2=False)``: ``ops.matmul`` of the (optionally
    transposed) inputs, with NumPy's rules: vectors are allowed (``[n] x [n]`` gives a 0-d tensor)
    and batch dimensions broadcast.  Transposition swaps the last two axes of an input of rank >= 2.
    """

    def __init__(self, transpose_x1=False, transpose_x2=False, dtype=mstype.float32):
        super().__init__()
        self.transpose_x1 = _check_bool("MatMul", "transpose_x1", transpose_x1)
        self.transpose_x2 = _check_bool("MatMul", "transpose_x2", transpose_x2)

    @staticmethod
    def _swap_last(x):
        perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
        return ops.transpose(x, perm)

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim >= 2:
            x1 = self._swap_last(x1)
        if self.transpose_x2 and x2.ndim >= 2:
            x2 = self._swap_last(x2)
        return ops.matmul(x1, x2)
