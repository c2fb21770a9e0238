"""``minims.amp``: MindSpore's ``mindspore.amp`` — mixed precision and loss scaling.

* ``auto_mixed_precision(network, "O0".."O3")``, ``get_white_list()``, ``get_black_list()``
  (``levels.py``; ``Cell.to_float`` underneath, ``minims.nn.precision``);
* ``all_finite(grads)`` (``minims.nn.loss_scale``);
* ``StaticLossScaler``, ``DynamicLossScaler`` (``loss_scaler.py``) for functional training loops;
* ``FixedLossScaleManager``, ``DynamicLossScaleManager`` (``loss_scale_manager.py``) and their update
  Cells for ``nn.TrainOneStepWithLossScaleCell``.
"""
from ..nn.loss_scale import all_finite
from .levels import auto_mixed_precision, get_black_list, get_white_list
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .loss_scaler import DynamicLossScaler, LossScaler, StaticLossScaler

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "all_finite", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager"]
