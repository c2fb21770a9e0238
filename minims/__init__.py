"""minims: MindSpore's programming model in pure NumPy, for learning how automatic differentiation works.

``import minims as mindspore`` runs code from the MindSpore documentation and prints what it prints.
Where things live:

* ``minims/common/tensor.py``, ``minims/dtype.py`` — the Tensor (and ``tensor(...)``) and its dtypes;
* ``minims/interpreters/`` — ``bind`` and the interpreter stack (eval, symbolic);
* ``minims/autodiff/`` — gradient levels (the tape) and ``GradOperation``/``grad``;
* ``minims/primitives/`` — the primitive table, each with ``impl`` and ``bprop``;
* ``minims/ops/`` — MindSpore's ``ops`` namespace; ``minims/common/`` — Tensor, Parameter;
* ``minims/checkpoint/`` — ``save_checkpoint``/``load_checkpoint`` in MindSpore's ``.ckpt`` format;
* ``minims/testing/`` — ``check_grads`` and friends.
"""
import sys as _sys

# As ``import mindspore`` does (it calls sys.setrecursionlimit(10000)): a network of Cells nested a
# thousand deep runs a few Python frames per level, more than Python's default limit of 1000 allows.
# Only ever raised: a program that set a higher limit keeps it.
if _sys.getrecursionlimit() < 10000:
    _sys.setrecursionlimit(10000)

from . import dtype  # noqa: E402 - after the limit, which nothing below depends on
from .dtype import (bool_, double, float16, float32, float64, float_, half, int8, int16, int32,
                    int64, int_, single, uint8)
from .common.tensor import Tensor, tensor        # mindspore.tensor is a function, as in 2.x
from . import ops                                     # installs Tensor operators
from .common.parameter import Parameter, ParameterTuple
from . import context
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, get_seed, set_context, set_seed
from .autodiff.grad_api import GradOperation, grad, value_and_grad
from .autodiff.transforms import jacfwd, jacrev, jvp, vjp           # MindSpore's top-level names
from .batching.vmap import vmap
from . import nn
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from . import train
from .graph import jit, ms_function
from .common import initializer as _initializer  # noqa: F401 - mindspore.common.initializer
from . import dataset
from . import numpy                                   # mindspore.numpy, imported eagerly as there
from .interpreters.nan_check import NonFiniteError    # raised by set_context(check_nan=True)
from . import tracebacks

__version__ = "0.1.0"

tracebacks.install()          # printed tracebacks leave out minims' own frames (MINIMS_TRACEBACK=full)
