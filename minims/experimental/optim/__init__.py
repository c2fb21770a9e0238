"""``mindspore.experimental.optim``: PyTorch-like optimizers — ``Optimizer`` (``optimizer.py``),
``SGD``, ``Adam``, ``AdamW`` (``algorithms.py``) — and ``lr_scheduler``."""
from . import lr_scheduler
from .algorithms import SGD, Adam, AdamW
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
