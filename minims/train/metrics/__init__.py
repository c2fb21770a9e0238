"""Metrics (MindSpore's ``mindspore.train`` metrics): the ``Metric`` base (``metric.py``) and the
built-in ones (``builtin.py``)."""
from .builtin import (MAE, MSE, Accuracy, Loss, Precision, Recall, Top1CategoricalAccuracy,
                      Top5CategoricalAccuracy, TopKCategoricalAccuracy, get_metric_fn, get_metrics, names)
from .metric import EvaluationBase, Metric, rearrange_inputs

__all__ = ["Metric", "rearrange_inputs", "EvaluationBase", "Accuracy", "Loss", "MAE", "MSE",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Precision",
           "Recall", "get_metric_fn", "names", "get_metrics"]
