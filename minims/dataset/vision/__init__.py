"""``mindspore.dataset.vision``: ``Rescale``, ``Normalize``, ``HWC2CHW``, ``Resize`` and ``Inter``
(defined in ``transforms.py``, as in MindSpore's ``vision.transforms``)."""
from . import transforms
from .transforms import HWC2CHW, Inter, Normalize, Rescale, Resize

__all__ = ["Rescale", "Normalize", "HWC2CHW", "Resize", "Inter", "transforms"]
