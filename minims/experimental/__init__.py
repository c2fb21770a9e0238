"""``mindspore.experimental``: the PyTorch-like optimizers of ``mindspore.experimental.optim``."""
from . import optim

__all__ = ["optim"]
