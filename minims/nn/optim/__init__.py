"""Optimizers (MindSpore's ``mindspore.nn.optim``): ``Optimizer``, ``SGD``, ``Momentum``, ``Adam``,
and the schedule helpers (``piecewise_constant_lr`` and the other dynamic LR functions)."""
from .adam import Adam
from .dynamic_lr import (cosine_decay_lr, exponential_decay_lr, inverse_decay_lr, natural_exp_decay_lr,
                         piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .momentum import Momentum
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "piecewise_constant_lr", "exponential_decay_lr",
           "natural_exp_decay_lr", "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]
