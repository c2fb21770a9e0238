"""Training wrappers: ``nn.WithLossCell`` (network + loss) and ``nn.TrainOneStepCell`` (one
optimisation step: loss, gradients, update).

``TrainOneStepCell(network, optimizer, sens=1.0)(*inputs)`` runs the network once on a gradient
level with ``ops.value_and_grad`` to get the loss and the gradient of every parameter the optimizer
updates (scaled by ``sens``, the gradient of the loss the backward pass starts from), hands the
gradients to the optimizer, and returns the loss.
"""
from __future__ import annotations

from ..autodiff.grad_api import value_and_grad
from .. import ops
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from .cell import Cell

__all__ = ["WithLossCell", "TrainOneStepCell"]


class WithLossCell(Cell):
    """``nn.WithLossCell(backbone, loss_fn)``: ``construct(data, label) = loss_fn(backbone(data), label)``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)      # parameter names stay the backbone's own
        for name, v in (("backbone", backbone), ("loss_fn", loss_fn)):
            if not isinstance(v, Cell):
                raise TypeError(f"WithLossCell: {name} must be a Cell, but got {_describe(v)}.")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class TrainOneStepCell(Cell):
    """``nn.TrainOneStepCell(network, optimizer, sens=1.0, return_grad=False)``.

    ``network`` returns the loss (e.g. a WithLossCell); ``optimizer.parameters`` are differentiated.
    With ``return_grad=True`` the call returns ``(loss, grads)``.
    """

    def __init__(self, network, optimizer, sens=1.0, return_grad=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepCell: network must be a Cell, but got {_describe(network)}.")
        if not hasattr(optimizer, "parameters") or not callable(optimizer):
            raise TypeError(f"TrainOneStepCell: optimizer must be an nn.Optimizer, but got {_describe(optimizer)}.")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad

    def construct(self, *inputs):
        # One run of the network gives both the loss and its gradients (value_and_grad); a second
        # forward pass would draw new dropout masks and update BatchNorm's moving statistics twice.
        # The backward pass starts from ones; a sensitivity other than 1 scales the objective, which
        # scales every gradient by it, the same as starting the backward pass from sens.
        sens = self.sens

        def objective(*xs):
            loss = self.network(*xs)
            scaled = loss if _is_one(sens) else ops.mul(loss, sens)
            return scaled, loss

        grad_fn = value_and_grad(objective, grad_position=None, weights=self.weights, has_aux=True)
        (_, loss), grads = grad_fn(*inputs)
        self.optimizer(grads)
        if self.return_grad:
            return loss, grads
        return loss


def _is_one(sens) -> bool:
    return not isinstance(sens, Tensor) and sens == 1.0
