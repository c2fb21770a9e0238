"""Activation layers: ``nn.ReLU``, ``nn.ReLU6``, ``nn.Sigmoid``, ``nn.Tanh``, ``nn.Softmax``, ``nn.LogSoftmax``,
``nn.LeakyReLU``, ``nn.GELU``.

Each is a Cell without parameters whose ``construct`` calls one op, so a hook registered on it sees
exactly that op's inputs and outputs.  ``get_activation(name)`` turns the names accepted by
``nn.Dense(activation='relu')`` into these cells.
"""
from __future__ import annotations

from ... import ops
from ..cell import Cell

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LeakyReLU", "GELU", "get_activation"]


def _check_axis(cls_name, axis):
    if isinstance(axis, bool) or not isinstance(axis, (int, tuple)):
        raise TypeError(f"{cls_name}: axis must be an int, but got {type(axis).__name__} {axis!r}.")


class ReLU(Cell):
    """``max(x, 0)``."""

    def construct(self, x):
        return ops.relu(x)


class ReLU6(Cell):
    """``min(max(x, 0), 6)``."""

    def construct(self, x):
        return ops.relu6(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))``."""

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """``tanh(x)``."""

    def construct(self, x):
        return ops.tanh(x)


class Softmax(Cell):
    """``exp(x) / sum(exp(x), axis)``, along ``axis`` (the last one by default)."""

    def __init__(self, axis=-1):
        super().__init__()
        _check_axis("Softmax", axis)
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    """``log(softmax(x, axis))``, computed stably."""

    def __init__(self, axis=-1):
        super().__init__()
        _check_axis("LogSoftmax", axis)
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class LeakyReLU(Cell):
    """``nn.LeakyReLU(alpha=0.2)``: ``x`` for ``x > 0``, ``alpha * x`` below (``ops.leaky_relu``)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"LeakyReLU: alpha must be a float, but got {type(alpha).__name__} {alpha!r}.")
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class GELU(Cell):
    """``nn.GELU(approximate=True)``: ``x * Φ(x)``, by default with MindSpore's tanh approximation
    (``approximate=False``: the exact form with erf)."""

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"GELU: approximate must be a bool, but got {type(approximate).__name__} {approximate!r}.")
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, "tanh" if self.approximate else "none")


_ACTIVATIONS = {"relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
                "logsoftmax": LogSoftmax, "leakyrelu": LeakyReLU, "gelu": GELU}


def get_activation(name):
    """The activation Cell called ``name`` (``'relu'``, ``'relu6'``, ``'sigmoid'``, ``'tanh'``, ``'softmax'``)."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"get_activation: name must be a str, but got {type(name).__name__} {name!r}.")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"get_activation: unknown activation {name!r}; known: {sorted(_ACTIVATIONS)}.")
    return cls()
