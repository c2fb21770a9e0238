"""``mindspore.common``, MindSpore's module layout for what minims keeps elsewhere: ``Tensor`` (the
core's, ``minims.core.tensor``, with MindSpore's surface from ``minims.tensors``), ``Parameter``,
``dtype`` and ``initializer`` — so ``from mindspore.common.initializer import Normal`` and
``import mindspore.common.dtype as mstype`` run unchanged."""
from .. import dtype
from ..core.tensor import Tensor
from ..tensors import initializer
from ..tensors.convert import tensor
from ..tensors.parameter import Parameter, ParameterTuple

__all__ = ["Tensor", "tensor", "Parameter", "ParameterTuple", "dtype", "initializer"]

from . import api, tensor  # noqa: E402 - mindspore.common.api (jit), mindspore.common.tensor

# The classes' public homes are these modules, as in MindSpore: ``type(t)`` prints
# ``<class 'minims.common.tensor.Tensor'>`` (MindSpore: ``mindspore.common.tensor.Tensor``), and pickle
# finds them there. Set here, not in the submodules, because ``import minims`` does not import those.
Tensor.__module__ = f"{__name__}.tensor"
Parameter.__module__ = f"{__name__}.parameter"

from ..layout import missing_name  # noqa: E402
__getattr__ = missing_name(__name__, "mindspore.common")
