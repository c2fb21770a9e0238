"""``mindspore.dataset.transforms``: ``TypeCast``, ``Compose`` (defined in ``transforms.py``, where
MindSpore defines them too)."""
from . import transforms
from .transforms import Compose, TypeCast

__all__ = ["TypeCast", "Compose", "transforms"]
