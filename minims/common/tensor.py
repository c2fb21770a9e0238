"""``mindspore.common.tensor``: the module where MindSpore defines ``Tensor``."""
from ..core.tensor import Tensor
from ..layout import missing_name
from ..tensors.convert import tensor

__all__ = ["Tensor", "tensor"]

__getattr__ = missing_name(__name__, "mindspore.common.tensor")
