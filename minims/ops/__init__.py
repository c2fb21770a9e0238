"""``minims.ops``: MindSpore's operator namespace, in both spellings.

* functional: ``ops.add(x, y)``, ``ops.matmul``, ``ops.gt``, ``ops.fill(dtype, shape, value)`` ...
* Primitive classes with MindSpore's constructor arguments: ``ops.MatMul(transpose_b=True)(x, y)``,
  ``ops.ReLU()(x)``, ``ops.ReduceSum(keep_dims=True)(x, axis)`` ...
* differentiation: ``ops.GradOperation``, ``ops.grad``, ``ops.value_and_grad``, and the functional
  transforms ``ops.jvp``, ``ops.vjp``, ``ops.linearize``, ``ops.jacfwd``, ``ops.jacrev``,
  ``ops.vmap``, ``ops.derivative``.

A namespace only: it is the top of the layers (``minims.primitives`` below it holds the functions,
and the rules call those, never this module).
"""
from ..autodiff.grad_api import GradOperation, grad, value_and_grad
from ..autodiff.hooks import HookBackward
from ..primitives.activation import LogSoftmax, ReLU, ReLU6, ReLU6Grad, ReluGrad, Softmax
from ..primitives.array import (BroadcastTo, Cast, Concat, ExpandDims, Fill, GetItem, Identity,
                                OnesLike, Reshape, Squeeze, Stack, StopGradient, Transpose,
                                ZerosLike)
from ..core.primitive import Primitive
from ..primitives.base import PrimitiveWithInfer
from ..primitives.compare import (Equal, Greater, GreaterEqual, Less, LessEqual, LogicalAnd,
                                  LogicalNot, LogicalOr, NotEqual, Select)
from ..primitives.linalg import BatchMatMul, MatMul
from ..primitives.math import (Abs, Add, Cos, Div, Exp, Floor, FloorDiv, FloorMod, Log, Maximum,
                               Minimum, Mod, Mul, Neg, Pow, RealDiv, Reciprocal, Sigmoid, Sign, Sin,
                               Sqrt, Square, Sub, Tanh)
from ..primitives.reduce import Argmax, Argmin, ReduceMax, ReduceMean, ReduceMin, ReduceSum
from ..primitives.state import Assign
from ..primitives.debug import Print
from ..primitives.dataset import GetNext
from . import functional
from .functional import *  # noqa: F401,F403 - the functional API is the namespace
from ..primitives import tensor_methods  # noqa: F401 - installs Tensor operators


class Gather(Primitive):
    """``ops.Gather()(input_params, input_indices, axis)`` (an index expression underneath)."""

    def __call__(self, input_params, input_indices, axis, batch_dims=0):
        return functional.gather(input_params, input_indices, axis, batch_dims)


class Ones(Primitive):
    """``ops.Ones()(shape, type)``."""

    def __call__(self, shape, type=None):  # noqa: A002
        return functional.ones(shape, type)


class Zeros(Primitive):
    """``ops.Zeros()(shape, type)``."""

    def __call__(self, shape, type=None):  # noqa: A002
        return functional.zeros(shape, type)


TensorAdd = Add  # MindSpore 1.x name

from ..primitives.nn import (AvgPool, BatchNorm, Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput,
                             Conv2DTranspose, Dropout, Dropout2D, MaxPool, SoftmaxCrossEntropyWithLogits,
                             SparseSoftmaxCrossEntropyWithLogits)
from ..primitives.nn_functional import (avg_pool2d, batch_norm, conv2d, cross_entropy, dropout, dropout2d, l1_loss,
                            max_pool2d, mse_loss, nll_loss)

from ..autodiff.grad_api import get_grad
from . import composite, operations, primitive      # mindspore.ops.composite (C), .operations (P), .primitive
from ..layout import missing_name
__getattr__ = missing_name(__name__, "mindspore.ops")     # a missing name says whether MindSpore has it
