"""``minims.ops``: MindSpore's operator namespace, in both spellings.

* functional: ``ops.add(x, y)``, ``ops.matmul``, ``ops.gt``, ``ops.fill(dtype, shape, value)`` ...
* Primitive classes with MindSpore's constructor arguments: ``ops.MatMul(transpose_b=True)(x, y)``,
  ``ops.ReLU()(x)``, ``ops.ReduceSum(keep_dims=True)(x, axis)`` ...
* differentiation: ``ops.GradOperation``, ``ops.grad``, ``ops.value_and_grad``, and the functional
  transforms ``ops.jvp``, ``ops.vjp``, ``ops.linearize``, ``ops.jacfwd``, ``ops.jacrev``,
  ``ops.vmap``, ``ops.derivative``, ``ops.jet``.

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
from ..primitives.depend import Depend, depend  # noqa: E402
from ..autodiff.tensor_hooks import InsertGradientOf  # noqa: E402
from ..primitives.clip import clip_by_global_norm, clip_by_norm  # noqa: E402 - issue 26
from ..autodiff.custom_op import Custom  # noqa: E402 - issue 26: a user's row of the primitive table
from ..fast.hybrid import kernel  # noqa: E402 - issue 26: MindSpore's Hybrid DSL for ops.Custom
from ..primitives.trig import tan  # noqa: E402 - issue 26: MindSpore's jet tests use it
from ..control_flow.public_ops import ForiLoop, Scan, WhileLoop  # noqa: E402 - issue 24: structured loops
# issue 25 item 2 (the beginner path): creation, random draws, compositions, sorting, special functions
from ..primitives.creation import arange, eye, linspace
from ..primitives.random import (StandardNormal, UniformInt, UniformReal, rand, randint, randn,
                                 standard_normal)
from ..primitives.clip import clamp, clip, clip_by_value  # noqa: E402 - issue 26: MindSpore's NaN and tie rules
from ..primitives.composite_math import (cumsum, gelu, isnan, leaky_relu, logsumexp,
                                         masked_fill, norm, prod, round, softplus)
from ..primitives.composite_array import (BiasAdd, Flatten, Shape, bias_add, bmm, chunk, dense, diag, partial,
                                          repeat_interleave, shape, split, swapaxes, tensor_dot, tile)
from ..primitives.sorting import sort, topk
from ..primitives.special import Erf, erf
from ..primitives.nn_losses import binary_cross_entropy, binary_cross_entropy_with_logits
from ..primitives import more_tensor_methods  # noqa: F401,E402 - installs the methods of issue 25 item 2

from ..autodiff.grad_api import get_grad
from .optimizer_steps import ApplyMomentum
from . import composite, operations, primitive      # mindspore.ops.composite (C), .operations (P), .primitive
from ..layout import missing_name
__getattr__ = missing_name(__name__, "mindspore.ops")     # a missing name says whether MindSpore has it
