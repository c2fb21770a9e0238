"""``nn.ForwardValueAndGrad``: a Cell that returns a network's output and its gradients.

``ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False, sens_param=False)``
called on ``*inputs`` returns ``(network(*inputs), grads)``, ``grads`` structured as
``ops.GradOperation(get_all, get_by_list, sens_param)`` returns them (the first input's gradient; all
inputs'; the weights'; or both as ``(inputs', weights')``).  With ``sens_param`` the last input is the
sensitivity, the gradient the backward pass starts from.

MindSpore's ``construct`` calls the network once for the value and once more under ``GradOperation``
(PyNative reuses the recorded forward pass).  Here the network runs once, on the gradient level, and
its output is read from there: a network with dropout or BatchNorm in training mode draws one mask
and updates its moving statistics once per call.
"""
from __future__ import annotations

from types import FunctionType, MethodType

from ..autodiff.grad_api import GradOperation
from ..core.stack import Tracer
from ..tensors.convert import _describe
from .cell import Cell

__all__ = ["ForwardValueAndGrad"]


class ForwardValueAndGrad(Cell):
    """``nn.ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
    sens_param=False)`` (module docstring)."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, (Cell, FunctionType, MethodType)):
            raise TypeError(f"ForwardValueAndGrad: the argument 'network' must be a Cell, a function or a "
                            f"method, but got {_describe(network)}.")
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list)):
            if not isinstance(v, bool):
                raise TypeError(f"ForwardValueAndGrad: the type of '{name}' must be bool, but got {_describe(v)}.")
        if get_by_list and not isinstance(weights, (tuple, list)):
            raise TypeError(f"ForwardValueAndGrad: when 'get_by_list' is True, 'weights' must be a tuple or "
                            f"list of Parameters (e.g. ParameterTuple(net.trainable_params())), but got "
                            f"{_describe(weights)}.")
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = weights
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)

    def construct(self, *inputs):
        seen = {}

        def forward(*xs):
            seen["value"] = out = self.network(*xs)
            return out
        grad_fn = self.grad(forward, self.weights) if self.get_by_list else self.grad(forward)
        grads = grad_fn(*inputs)
        return _below_finished_levels(seen["value"]), grads


def _below_finished_levels(value):
    """The network's output, read on the gradient level that has finished: the values it stands for
    (the same structure, tuples for lists)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_below_finished_levels(v) for v in value)
    while isinstance(value, Tracer) and not value._trace.active:
        value = value._primal_value()
    return value
