"""minims: MindSpore's programming model in pure NumPy, for learning how automatic differentiation works.

``import minims as mindspore`` runs code from the MindSpore documentation and prints what it prints.
Where things live:

* ``minims/core/`` — the teaching core: the Tensor, ``bind`` and the interpreter stack, the
  primitive, the tape, forward mode, batching and staging (its ``__init__`` gives the reading order);
* ``minims/tensors/`` — the Tensor as MindSpore has it, ``Parameter``; ``minims/dtype.py`` — its dtypes;
* ``minims/primitives/`` — the rest of the primitive table, each with ``impl`` and ``bprop``;
* ``minims/autodiff/`` — ``GradOperation``/``grad``, custom bprops, hooks; ``minims/transforms/`` —
  ``jvp``, ``vjp``, ``linearize``, ``jacfwd``, ``jacrev``, ``vmap``;
* ``minims/graph/`` — ``jit`` and Graph mode; ``minims/interpreters/`` — symbolic, ``check_nan``;
* ``minims/ops/`` — MindSpore's ``ops`` namespace; ``minims/common/`` — MindSpore's module layout;
* ``minims/layout/`` — what a name missing from a namespace says (MindSpore 2.10 has it, or a misspelling);
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
                    int64, int_, single, uint8, uint32, dtype_to_nptype)
from .core.tensor import Tensor
from .tensors.convert import tensor
from . import ops                                     # installs Tensor operators
from .tensors.parameter import Parameter, ParameterTuple
from . import context
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, get_seed, set_context, set_seed
from .autodiff.grad_api import GradOperation, grad, value_and_grad
from .transforms.transforms import jacfwd, jacrev, jvp, vjp           # MindSpore's top-level names
from .transforms.vmap import vmap
from . import nn
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from . import train
from .train import Model                           # mindspore.Model
from .graph import jit, ms_function
from . import common                             # mindspore.common (dtype, initializer, Parameter ...)
from .common.api import jit_class                   # mindspore.jit_class
from . import dataset
from . import experimental                        # mindspore.experimental.optim
from . import numpy                                   # mindspore.numpy, imported eagerly as there
from .interpreters.nan_check import NonFiniteError    # raised by set_context(check_nan=True)
from . import tracebacks
from . import amp                                     # mindspore.amp (issue 26)
from .context import COMPATIBLE, LAX, STRICT          # jit_syntax_level values (MindSpore's tests set them)
from .graph.mutable import mutable                    # mindspore.mutable
from . import mint                                    # mindspore.mint (narrow)
from .checkpoint.graph_file import export, load       # mindspore.export/load: minims' own graph file

__version__ = "0.1.0"

tracebacks.install()          # printed tracebacks leave out minims' own frames (MINIMS_TRACEBACK=full)

from .layout import missing_name as _missing_name  # noqa: E402
__getattr__ = _missing_name(__name__, "mindspore")     # mindspore.Foo: says whether MindSpore 2.10 has it
from .layout import alias as _alias  # noqa: E402
_alias.install()        # sys.modules["mindspore"] = minims: `import mindspore.common.dtype` is minims.common.dtype
from .conversion import converted_source  # noqa: E402 - issue 24: capture_mode="ast" converts if/while
