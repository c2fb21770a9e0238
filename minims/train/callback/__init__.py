"""Callbacks (MindSpore's ``mindspore.train.callback``): the ``Callback`` base and ``RunContext``
(``callback.py``), ``LossMonitor``, ``TimeMonitor`` and minims' ``EpochLog`` (``monitors.py``),
``ModelCheckpoint`` and ``CheckpointConfig`` (``checkpoint.py``)."""
from .callback import Callback, CallbackList, CallbackParams, RunContext
from .checkpoint import CheckpointConfig, ModelCheckpoint
from .monitors import EpochLog, LossMonitor, TimeMonitor
from .checkpoint_files import _CheckpointManager  # noqa: F401 - private, as in MindSpore

__all__ = ["Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "EpochLog", "CallbackList", "CallbackParams"]
