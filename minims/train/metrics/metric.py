"""``mindspore.train.Metric``: the base of every metric, and the helpers the built-in ones share.

A metric accumulates over a data set: ``clear()`` starts again, ``update(*inputs)`` adds one batch
(``Model.eval`` calls it with ``(logits, labels)``, or with the loss for ``Loss``), ``eval()`` gives
the result.  ``metric(*inputs)`` does all three on one batch.  ``set_indexes([i, j])`` picks which
of the inputs ``update`` sees, for networks with more outputs than a metric needs.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import Tensor

__all__ = ["Metric", "rearrange_inputs", "EvaluationBase"]


def rearrange_inputs(update):
    """Decorate ``update`` so that it sees ``inputs[i] for i in self.indexes`` (when set)."""

    @functools.wraps(update)
    def wrapper(self, *inputs):
        if self.indexes:
            inputs = [inputs[i] for i in self.indexes]
        return update(self, *inputs)
    return wrapper


class Metric:
    """The base class: subclasses define ``clear``, ``update`` and ``eval``."""

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Which inputs ``update`` receives, by position (a list of ints); returns the metric."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                    for i in indexes):
            raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, but got "
                             f"{indexes!r}. Fix: e.g. set_indexes([0, 2]).")
        self._indexes = indexes
        return self

    def _convert_data(self, data):
        """A Tensor, list or array as a NumPy array."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, (list, np.ndarray)):
            return np.asarray(data)
        raise TypeError(f"{type(self).__name__}: the input data type must be Tensor, list or "
                        f"numpy.ndarray, but got {type(data).__name__}.")

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self):
        raise NotImplementedError(f"{type(self).__name__} must define clear().")

    def update(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__} must define update(*inputs).")

    def eval(self):
        raise NotImplementedError(f"{type(self).__name__} must define eval().")


class EvaluationBase(Metric):
    """A classification metric: ``eval_type`` is ``'classification'`` (one class per sample:
    ``y_pred`` has one more axis than the labels, or labels are one-hot) or ``'multilabel'``
    (0/1 predictions and labels of one shape)."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise TypeError(f"{type(self).__name__}: eval_type must be 'classification' or 'multilabel', "
                            f"but got {eval_type!r}.")
        self._type = eval_type

    def _labels(self, y_pred, y):
        """The labels as class indices (one-hot labels are turned into indices), shapes checked."""
        name = type(self).__name__
        if self._type == "classification":
            if y_pred.ndim == y.ndim and _is_one_hot(y):
                y = y.argmax(axis=1)
            if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"{name}: in the classification case y_pred (the predicted values) must "
                                 "have the shape of y (the labels) with the class axis added at position 1, "
                                 f"but got y_pred {list(y_pred.shape)} and y {list(y.shape)}. Fix: pass the "
                                 "logits (N, classes) and the class indices (N,).")
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"{name}: in the multilabel case y_pred and y must have one shape, but got "
                                 f"{list(y_pred.shape)} and {list(y.shape)}.")
            if not (np.isin(y_pred, (0, 1)).all() and np.isin(y, (0, 1)).all()):
                raise ValueError(f"{name}: in the multilabel case every element of y_pred and y must be 0 or 1.")
        return y

    def _check_classes(self, y_pred):
        name = type(self).__name__
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"{name}: class number not match, the last input predicted data contain "
                             f"{self._class_num} classes, but the current one {y_pred.shape[1]}.")


def _is_one_hot(data):
    """Labels that are 0/1 with exactly one 1 along axis 1."""
    if data.ndim < 2 or not np.isin(data, (0, 1)).all():
        return False
    return bool((data.sum(axis=1) == 1).all())
