"""MindSpore's ``mindspore.train`` namespace: ``Model`` (``model.py``), callbacks (``callback/``),
metrics (``metrics/``), and the checkpoint functions (which live in ``minims/checkpoint/``)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from . import callback, metrics, serialization
from .callback import (Callback, CheckpointConfig, EpochLog, LossMonitor, ModelCheckpoint, RunContext,
                       TimeMonitor)
from .metrics import (MAE, MSE, Accuracy, Loss, Metric, Precision, Recall, Top1CategoricalAccuracy,
                      Top5CategoricalAccuracy, TopKCategoricalAccuracy, get_metric_fn, names,
                      rearrange_inputs)
from .model import Model

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "serialization", "Model", "callback",
           "metrics", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "EpochLog", "Metric", "rearrange_inputs", "Accuracy", "Loss", "MAE", "MSE",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "Precision",
           "Recall", "get_metric_fn", "names"]

from ..layout import missing_name  # noqa: E402
__getattr__ = missing_name(__name__, "mindspore.train")
