"""``mindspore.ops.composite.base``: where MindSpore defines ``GradOperation``."""
from ...autodiff.grad_api import GradOperation
from ...layout import missing_name

__all__ = ["GradOperation"]

__getattr__ = missing_name(__name__, "mindspore.ops.composite.base")
