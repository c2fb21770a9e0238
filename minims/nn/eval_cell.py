"""``nn.WithEvalCell(network, loss_fn)``: the network ``Model.eval`` runs — ``(loss, logits, label)``
for one batch, from which the metrics read."""
from __future__ import annotations

from ..tensors.convert import _describe
from .cell import Cell

__all__ = ["WithEvalCell"]


class WithEvalCell(Cell):
    """``construct(data, label)`` returns ``(loss_fn(network(data), label), network(data), label)``."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        for name, v in (("network", network), ("loss_fn", loss_fn)):
            if not isinstance(v, Cell):
                raise TypeError(f"WithEvalCell: {name} must be a Cell, but got {_describe(v)}.")
        self._network = network
        self._loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self._network(data)
        return self._loss_fn(outputs, label), outputs, label
