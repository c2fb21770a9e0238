"""The built-in metrics: ``Accuracy``, ``Loss``, ``MAE``, ``MSE``, ``TopKCategoricalAccuracy``
(``Top1``/``Top5``), ``Precision``, ``Recall``; and ``get_metric_fn``/``names`` for their short names
(``Model(..., metrics={'accuracy'})``).

Results are Python floats (``Precision``/``Recall`` without ``average``: a NumPy array, one value
per class), computed as MindSpore computes them: sums in the inputs' dtype, the final division in
float64.  Each refuses ``eval()`` before any ``update`` with MindSpore's RuntimeError.
"""
from __future__ import annotations

import sys

import numpy as np

from .metric import EvaluationBase, Metric, rearrange_inputs

__all__ = ["Accuracy", "Loss", "MAE", "MSE", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "Precision", "Recall", "get_metric_fn", "names"]


def _two(name, inputs):
    if len(inputs) != 2:
        raise ValueError(f"{name}.update: it needs 2 inputs (predicted value, true value), but got "
                         f"{len(inputs)}. Fix: update(logits, labels).")


def _no_samples(name):
    return RuntimeError(f"The '{name}' can not be calculated, because the number of samples is 0: "
                        "update was not called since the last clear (or got empty inputs). Fix: call "
                        "update(y_pred, y) before eval().")


class Accuracy(EvaluationBase):
    """``Accuracy(eval_type='classification')``: the fraction of samples whose largest logit is the
    label (``'multilabel'``: whose 0/1 predictions all equal the labels)."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num, self._total_num, self._class_num = 0, 0, 0

    @rearrange_inputs
    def update(self, *inputs):
        _two("Accuracy", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        y = self._labels(y_pred, y)
        self._check_classes(y_pred)
        if self._type == "classification":
            hits = (y_pred.argmax(axis=1) == y).reshape(-1)
        else:
            moved = np.moveaxis(y_pred, 1, -1).reshape(-1, self._class_num)
            hits = (moved == np.moveaxis(y, 1, -1).reshape(-1, self._class_num)).all(axis=1)
        self._correct_num += int(hits.sum())
        self._total_num += hits.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise _no_samples("Accuracy")
        return self._correct_num / self._total_num


class Loss(Metric):
    """``Loss()``: the mean of the losses of the batches (each batch's loss averaged first)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss, self._total_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"Loss.update: it needs 1 input (the loss), but got {len(inputs)}.")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"Loss.update: the loss must be a number or 1-D, but got shape {list(loss.shape)}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise _no_samples("Loss")
        return self._sum_loss / self._total_num


class _Error(Metric):
    """The mean over samples of the summed error of each sample (``|y - y_pred|`` or its square)."""
    _name = ""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        _two(self._name, inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(f"{self._name}.update: y has {y.size} values but y_pred {y_pred.size} "
                             f"(shapes {list(y.shape)} and {list(y_pred.shape)}).")
        self._error_sum += float(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise _no_samples(self._name)
        return self._error_sum / self._samples_num


class MAE(_Error):
    """``MAE()``: mean absolute error, ``sum |y - y_pred| / number of samples``."""
    _name = "MAE"
    _error = staticmethod(np.abs)


class MSE(_Error):
    """``MSE()``: mean squared error, ``sum (y - y_pred) ** 2 / number of samples``."""
    _name = "MSE"
    _error = staticmethod(np.square)


class TopKCategoricalAccuracy(Metric):
    """``TopKCategoricalAccuracy(k)``: the fraction of samples whose label is among the ``k`` largest
    logits (ties broken by the lower index, as a stable sort of ``-logits``)."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"TopKCategoricalAccuracy: k must be an int, but got {type(k).__name__}.")
        if k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be at least 1, but got {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num, self._samples_num = 0, 0

    @rearrange_inputs
    def update(self, *inputs):
        _two("TopKCategoricalAccuracy", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and y.ndim > 1 and np.isin(y, (0, 1)).all() and (y.sum(axis=1) == 1).all():
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y_pred.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise _no_samples("TopKCategoricalAccuracy")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """``TopKCategoricalAccuracy(1)``."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """``TopKCategoricalAccuracy(5)``."""

    def __init__(self):
        super().__init__(5)


class _PerClass(EvaluationBase):
    """Precision and recall in the classification case: per class, true positives over predicted
    (precision) or actual (recall) positives; ``eval(average=True)`` averages over the classes."""
    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        if eval_type != "classification":
            raise NotImplementedError(f"{self._name}: eval_type='multilabel' is not implemented in minims.")
        self.eps = sys.float_info.min
        self.clear()

    def clear(self):
        self._class_num, self._true_positives, self._positives = 0, 0, 0

    @rearrange_inputs
    def update(self, *inputs):
        _two(self._name, inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        y = self._labels(y_pred, y)
        self._check_classes(y_pred)
        n = self._class_num
        if y.size and y.max() + 1 > n:
            raise ValueError(f"{self._name}.update: a label is {int(y.max())}, but y_pred has {n} classes.")
        truth = np.eye(n)[y.reshape(-1).astype(int)]
        guess = np.eye(n)[y_pred.argmax(axis=1).reshape(-1)]
        self._true_positives = self._true_positives + (truth * guess).sum(axis=0)
        self._positives = self._positives + self._counted(truth, guess).sum(axis=0)

    def eval(self, average=False):
        if self._class_num == 0:
            raise _no_samples(self._name)
        if not isinstance(average, bool):
            raise TypeError(f"{self._name}.eval: average must be a bool, but got {average!r}.")
        result = self._true_positives / (self._positives + self.eps)
        return float(result.mean()) if average else result


class Precision(_PerClass):
    """``Precision(eval_type='classification')``: per class, correct predictions of the class over
    all predictions of it."""
    _name = "Precision"

    @staticmethod
    def _counted(truth, guess):
        return guess


class Recall(_PerClass):
    """``Recall(eval_type='classification')``: per class, correct predictions of the class over all
    samples of it."""
    _name = "Recall"

    @staticmethod
    def _counted(truth, guess):
        return truth


_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall,
            "topk": TopKCategoricalAccuracy, "top_1_accuracy": Top1CategoricalAccuracy,
            "top_5_accuracy": Top5CategoricalAccuracy, "mae": MAE, "mse": MSE, "loss": Loss}


def names():
    """The short names ``get_metric_fn`` (and ``Model(metrics={...})``) accept, sorted."""
    return sorted(_BY_NAME)


def get_metric_fn(name, *args, **kwargs):
    """A new metric by its short name: ``get_metric_fn('accuracy')`` is ``Accuracy()``."""
    if name not in _BY_NAME:
        raise KeyError(f"get_metric_fn: unsupported metric {name!r}; minims has {names()}.")
    return _BY_NAME[name](*args, **kwargs)


def get_metrics(metrics):
    """``Model``'s ``metrics``: None, a dict ``{name: Metric}``, or a set of short names."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for key, metric in metrics.items():
            if not isinstance(key, str) or not isinstance(metric, Metric):
                raise TypeError(f"Model: in a metrics dict the keys must be strings and the values Metrics, "
                                f"but got {key!r}: {type(metric).__name__}. Fix: e.g. metrics={{'acc': Accuracy()}}.")
        return dict(metrics)
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in sorted(metrics)}    # sorted: a set has no order
    raise TypeError(f"Model: metrics must be None, a dict or a set, but got {type(metrics).__name__}. Fix: "
                    "metrics={'accuracy'} or metrics={'acc': Accuracy()}.")
