"""Dropout layers: ``nn.Dropout`` (elements) and ``nn.Dropout2d`` (whole channels).

In training mode each element (channel) is zeroed with probability ``p`` and the rest scaled by
``1 / (1 - p)``, so the expected output equals the input; in predict mode (a Cell's default) the
layer is the identity.  Masks are drawn from ``mindspore.set_seed``'s stream.
"""
from __future__ import annotations

import numbers

from ... import ops
from ..cell import Cell

__all__ = ["Dropout", "Dropout2d"]


def _check_p(cls_name, p):
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"{cls_name}: p must be a float, but got {type(p).__name__} {p!r}.")
    if not 0 <= p < 1:
        raise ValueError(f"{cls_name}: p (the probability of dropping) must be in [0, 1), but got {p}.")
    return float(p)


class Dropout(Cell):
    """``nn.Dropout(keep_prob=None, p=None)``: ``p`` is the drop rate (0.5 when neither is given); the
    older ``keep_prob`` (used when ``p`` is None) is the keep rate, ``1 - p``.  Printed with the one
    given, as MindSpore 2.10 prints it."""

    def __init__(self, keep_prob=None, p=None, dtype=None):
        super().__init__()
        self._shows_keep_prob = p is None and keep_prob is not None
        if p is None and keep_prob is None:
            p = 0.5
        if p is None:
            if not isinstance(keep_prob, float):
                raise TypeError(f"Dropout: keep_prob must be a float, but got {type(keep_prob).__name__} "
                                f"{keep_prob!r}.")
            if not 0 < keep_prob <= 1:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], but got {keep_prob}. It is the "
                                 "probability of KEEPING an element; prefer p=, the drop rate.")
            self.p = 1.0 - keep_prob
        else:
            self.p = _check_p("Dropout", p)
        self.keep_prob = keep_prob if self._shows_keep_prob else 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout(x, p=self.p, training=True)

    def extend_repr(self):
        return f"keep_prob={self.keep_prob}" if self._shows_keep_prob else f"p={self.p}"


class Dropout2d(Cell):
    """``nn.Dropout2d(p=0.5)``: zero whole channels of an ``(N, C, H, W)`` input."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = _check_p("Dropout2d", p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout2d(x, p=self.p, training=True)

    def extend_repr(self):
        return f"p={self.p}"
