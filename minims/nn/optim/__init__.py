"""Optimizers (MindSpore's ``mindspore.nn.optim``): ``Optimizer``, ``SGD``, ``Momentum``, ``Adam``,
and the schedule helper ``piecewise_constant_lr``."""
from .adam import Adam
from .dynamic_lr import piecewise_constant_lr
from .momentum import Momentum
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "piecewise_constant_lr"]
