"""MindSpore's data types under their public name (``minims.dtype``, ``mindspore.common.dtype``): the
core's (``minims.core.dtype``), where a Tensor's dtype lives."""
from .core.dtype import *  # noqa: F401,F403
from .core.dtype import __all__  # noqa: F401
