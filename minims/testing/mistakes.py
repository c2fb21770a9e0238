"""The catalogue of common mistakes: what a learner writes, the exception minims raises, and its words.

Each :class:`Mistake` is one wrong use of a public entry point (a Tensor, an op, a Cell call, a custom
bprop, a hook, ``grad``, a Parameter, an initializer, an optimizer, ``jit``, the data set).  Its
``code`` runs after :data:`PRELUDE`; ``error`` is the built-in exception type MindSpore raises for the
same code (minims raises that type or a subclass of it); ``words`` must all appear in the message.
``mindspore`` records what MindSpore 2.10 (CPU) does with the same code, checked by running it —
the type name it raises, or ``None`` where it runs without an error — and ``note`` says why minims
differs where it does.

The same data drives ``tests/testing/test_error_catalogue.py`` (every entry raises its type with its words,
and leaves no interpreter state behind) and the chapter ``chapters/08_common_mistakes.ipynb``
(written by ``tools/make_mistakes_chapter.py``), so the page cannot drift from the tests.
"""
from __future__ import annotations

import builtins
import contextlib
import linecache
import textwrap
import warnings
from dataclasses import dataclass

from ..context import get_context, set_context

__all__ = ["Mistake", "MISTAKES", "SECTIONS", "PRELUDE", "run", "describe", "builtin_types", "by_id",
           "show_error"]

#: What every snippet may use, as in the chapters (with ``minims`` spelled ``ms``).
PRELUDE = ("import minims as ms; import minims.nn as nn; import minims.ops as ops; import numpy as np; "
           "from minims import Tensor, Parameter")

#: The entry points, in the order of the chapter: (key, heading).
SECTIONS = (
    ("tensor", "Tensor construction"),
    ("ops", "Functional ops"),
    ("primitive", "Primitive classes"),
    ("cell", "Calling a Cell"),
    ("bprop", "Custom bprop"),
    ("hooks", "Hooks"),
    ("grad", "GradOperation, grad and value_and_grad"),
    ("parameter", "Parameter and ParameterTuple"),
    ("initializer", "Initializers"),
    ("optimizer", "Optimizers"),
    ("graph", "jit and Graph mode"),
    ("transforms", "Functional transforms: jvp, vjp, vmap, Jacobians, derivative"),
    ("checkpoint", "Checkpoints"),
    ("dataset", "The data set (minims.dataset)"),
    ("train", "Model, callbacks and metrics"),
    ("numpy", "The NumPy-like namespace (minims.numpy, MindSpore's mindspore.numpy)"),
)


@dataclass(frozen=True)
class Mistake:
    id: str
    section: str
    title: str
    code: str
    error: type
    words: tuple
    mindspore: str | None            # MindSpore 2.10's exception type name for the same code, None: no error
    note: str = ""                   # why minims differs from MindSpore, where it does


def _m(id, section, title, code, error, words, mindspore="same", note=""):
    return Mistake(id, section, title, code.strip("\n"), error, tuple(words),
                   error.__name__ if mindspore == "same" else mindspore, note)


# A small network with a custom bprop, used by several entries (kept inline so each snippet runs alone).
_NET = '''
class Net(nn.Cell):
    def construct(self, x):
        return x * 2
'''

# Two Parameters of one name in one Cell, used by the entries on duplicate names.
_TWO_W = '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor([1.0]), name="w")
        self.b = Parameter(Tensor([2.0]), name="w")

    def construct(self, x):
        return x * self.a * self.b
'''

MISTAKES = (
    # ----- Tensor construction ---------------------------------------------------------------------
    _m("tensor-from-string", "tensor", "Building a Tensor from a string",
       'Tensor("1.5")', TypeError, ["Tensor", "str '1.5'", "Fix"]),
    _m("tensor-ragged-list", "tensor", "A nested list whose rows differ in length",
       'Tensor([[1.0, 2.0], [3.0]])', TypeError, ["Tensor", "ragged", "[2, 1]", "Fix"]),
    _m("tensor-item-of-many", "tensor", "item() on a tensor with more than one element",
       'Tensor([1.0, 2.0]).item()', ValueError, ["item()", "shape [2]", "Fix"]),
    _m("tensor-if-on-many", "tensor", "A Python `if` on a comparison of many elements",
       '''
x = Tensor([1.0, -2.0])
if x > 0:
    print("positive")
''', ValueError, ["truth value", "shape [2]", "ambiguous", ".any()"]),
    _m("tensor-index-out-of-range", "tensor", "Indexing past the end of an axis",
       'Tensor(np.ones((2, 3), np.float32))[5]', IndexError, ["GetItem", "[2, 3]", "out of bounds", "Fix"]),
    _m("tensor-int-too-large", "tensor", "An integer no integer dtype holds",
       'Tensor(10 ** 30)', RuntimeError, ["integer", "31 digits", "Int64", "Tensor(float(x))"]),
    _m("tensor-int-outside-its-dtype", "tensor", "An integer outside the dtype asked for",
       'Tensor(300, ms.int8)', RuntimeError, ["300", "Int8", "-128..127", "Fix"], None,
       "MindSpore 2.10 wraps it silently: Tensor(300, int8) holds 44 (and Tensor(-1, uint8) 255)."),
    _m("tensor-backward", "tensor", "Calling loss.backward() (a PyTorch habit)",
       '''
loss = (Tensor([1.0, 2.0]) ** 2).sum()
loss.backward()
''', AttributeError, ["backward", "PyTorch", "mindspore.grad(fn)(x)"]),

    # ----- functional ops --------------------------------------------------------------------------
    _m("matmul-inner-dims", "ops", "Matrix product of shapes that do not fit",
       'ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))',
       RuntimeError, ["MatMul", "[2, 3]", "3 columns", "2 rows", "Fix"], "RuntimeError",
       "The ops.MatMul primitive and nn.Dense raise ValueError in MindSpore 2.10; minims raises one "
       "ShapeMismatchError for all three, which except RuntimeError and except ValueError both catch."),
    _m("matmul-float64", "ops", "Mixing float32 and float64 (NumPy's default) in one op",
       'ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2))))',
       TypeError, ["MatMul", "Float32", "Float64", "Fix"]),
    _m("integer-division-by-zero", "ops", "An integer division by zero",
       'Tensor([7, -7, 0]) // Tensor([0, 0, 0])',
       ZeroDivisionError, ["FloorDiv", "integer division by zero", "Int64", "Fix"], None,
       "MindSpore 2.10 on the CPU gives numbers that are no answer: [9223372036854775807, "
       "-9223372036854775808, 0] here, and -9223372036854775808 for each x % 0 (NumPy gives 0); minims "
       "refuses, as Python does for 7 // 0."),
    _m("add-broadcast", "ops", "Adding shapes that do not broadcast",
       'Tensor(np.ones((2, 3), np.float32)) + Tensor(np.ones(2, np.float32))',
       ValueError, ["Add", "[2, 3]", "[2]", "broadcast", "Fix"]),
    _m("op-on-a-list", "ops", "A Python list where a Tensor is needed",
       'ops.matmul([[1.0, 2.0]], Tensor(np.ones((2, 1), np.float32)))',
       TypeError, ["matmul", "'input'", "list", "Fix"]),
    _m("numpy-scalar-on-the-left", "ops", "A NumPy number on the left of a Tensor being differentiated",
       'ms.grad(lambda a: (np.float32(2) * a).sum())(Tensor([1.0]))',
       TypeError, ["numpy.multiply", "no gradient", "ops.mul(x, y)", "Tensor on the left"], None,
       "MindSpore 2.10 lets NumPy compute an ndarray, a constant, and returns the gradient [0.], a "
       "silently wrong number; minims refuses NumPy on a value being differentiated."),
    _m("reshape-size", "ops", "Reshaping to a different number of elements",
       'ops.reshape(Tensor(np.ones((2, 3), np.float32)), (4, 2))',
       ValueError, ["Reshape", "[2, 3]", "6 elements", "[4, 2]", "-1"]),
    _m("reshape-two-unknowns", "ops", "Two -1 entries in a reshape",
       'ops.reshape(Tensor(np.ones((2, 3), np.float32)), (-1, -1))',
       ValueError, ["Reshape", "[-1, -1]", "one -1", "Fix"]),
    _m("unary-op-on-a-number", "ops", "A Python number into an elementwise op",
       'ops.sin(0.5)',
       TypeError, ["Sin", "float 0.5", "Tensor(0.5)"]),
    _m("op-on-an-asnumpy-array", "ops", "Mixing a NumPy array from .asnumpy() back into ops",
       'x = Tensor([1.0, 2.0])\nops.exp(x.asnumpy() * 2)',
       TypeError, ["Exp", "numpy.ndarray", "no gradient", "Fix"]),
    _m("concat-shapes", "ops", "Concatenating along the wrong axis",
       'ops.concat((Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 4), np.float32))), 0)',
       ValueError, ["Concat", "axis 0", "dimension 1", "[2, 3]", "[2, 4]", "Fix"]),
    _m("concat-not-a-tuple", "ops", "Passing the tensors to concat one by one",
       'x = Tensor(np.ones((2, 3), np.float32))\nops.concat(x, x)',
       TypeError, ["Concat", "tuple", "Tensor(shape=[2, 3]", "ops.concat((x, y)"]),
    _m("select-float-condition", "ops", "A float mask as the condition of select",
       'ops.select(Tensor([1.0, 0.0]), Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))',
       TypeError, ["Select", "Bool", "Float32", "Fix"]),
    _m("gather-index-out-of-range", "ops", "Gathering with an index past the end of the axis",
       'ops.gather(Tensor([3.0, 4.0, 5.0]), Tensor([5]), 0)',
       RuntimeError, ["Gather", "index 5", "out of range", "[-3, 3)", "Fix"]),

    # ----- Primitive classes -----------------------------------------------------------------------
    _m("primitive-input-to-constructor", "primitive", "Giving the input to the Primitive's constructor",
       'ops.ReLU(Tensor([1.0, -1.0]))', TypeError, ["ReLU", "created first", "ops.ReLU()(x)"]),
    _m("primitive-missing-input", "primitive", "Calling a binary Primitive with one input",
       'ops.Mul()(Tensor([1.0]))', TypeError, ["Mul", "2 inputs", "called with 1", "ops.Mul()(x, y)"]),
    _m("primitive-extra-input", "primitive", "Calling a unary Primitive with two inputs",
       'ops.ReLU()(Tensor([1.0]), Tensor([2.0]))', TypeError, ["ReLU", "1 input", "called with 2"]),
    _m("primitive-attribute-type", "primitive", "An attribute of the wrong type",
       'ops.ReduceSum(keep_dims="yes")(Tensor([1.0, 2.0]))',
       TypeError, ["ReduceSum", "keep_dims", "bool", "str 'yes'", "Fix"]),
    _m("primitive-batchnorm-training-in-vmap", "primitive",
       "A training BatchNorm inside vmap (it writes its moving statistics)",
       '''
bn = ops.BatchNorm(is_training=True)
scale, bias = Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32))
mean, var = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
def f(x):
    return bn(x, scale, bias, mean, var)[0]
ms.vmap(f)(Tensor(np.ones((2, 4, 3), np.float32)))
''', ValueError, ["BatchNorm", "vmap", "in place", "Fix", "is_training=False"]),
    _m("primitive-batchnorm-training-tensor-in-jit", "primitive",
       "A training BatchNorm writing its moving statistics into plain Tensors inside jit",
       '''
bn = ops.BatchNorm(is_training=True)
scale, bias = Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32))
mean, var = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
@ms.jit
def f(x):
    return bn(x, scale, bias, mean, var)[0]
f(Tensor(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.float32)))
''', ValueError, ["BatchNorm", "written back into 'mean'", "compiled graph", "Fix", "Parameter"],
       mindspore=None,
       note="MindSpore writes the new statistics into the Tensors (mean becomes [0.2, 0.2, 0.2]); a minims "
            "graph keeps only Parameters' writes, so it refuses rather than leave them unchanged."),

    # ----- calling a Cell --------------------------------------------------------------------------
    _m("cell-without-construct", "cell", "A Cell with no construct method",
       '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()

Net()(Tensor([1.0]))
''', AttributeError, ["Net", "does not define construct", "Fix"]),
    _m("cell-forward-instead-of-construct", "cell", "Naming the method forward (a PyTorch habit)",
       '''
class Net(nn.Cell):
    def forward(self, x):
        return x * 2

Net()(Tensor([1.0]))
''', AttributeError, ["construct", "forward()", "rename it"]),
    _m("cell-without-super-init", "cell", "Forgetting super().__init__()",
       '''
class Net(nn.Cell):
    def __init__(self):
        self.w = Parameter(Tensor([1.0]), name="w")

Net()
''', AttributeError, ["Net.__init__", "super().__init__()", "Fix"]),
    _m("cell-wrong-input-count", "cell", "Calling a Cell with more inputs than construct takes",
       _NET + '\nNet()(Tensor([1.0]), Tensor([2.0]))',
       TypeError, ["Net", "construct(x)", "2 inputs", "Fix"]),
    _m("dense-in-features", "cell", "A Dense layer fed the wrong number of features",
       '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)

    def construct(self, x):
        return self.fc(x)

Net()(Tensor(np.ones((2, 5), np.float32)))
''', ValueError, ["Net.fc", "in_channels=3", "[2, 5]", "5 features", "Fix"]),
    _m("dense-float64-input", "cell", "Float64 data (NumPy's default) into a float32 layer",
       'nn.Dense(3, 4)(Tensor(np.random.default_rng(0).normal(size=(2, 3))))',
       TypeError, ["Dense", "MatMul", "Float64", "Float32", "Fix: cast the input", "x.astype(mindspore.float32)"]),
    _m("conv-missing-batch-axis", "cell", "One image without its batch axis into Conv2d",
       'nn.Conv2d(1, 6, 5)(Tensor(np.ones((1, 32, 32), np.float32)))',
       ValueError, ["Conv2d", "4-D", "[1, 32, 32]", "batch dimension"]),
    _m("conv-channels", "cell", "An RGB image into a Conv2d built for one channel",
       'nn.Conv2d(1, 6, 5)(Tensor(np.ones((1, 3, 32, 32), np.float32)))',
       RuntimeError, ["Conv2d", "3 channels", "[1, 3, 32, 32]", "Fix"]),
    _m("cell-contains-itself", "cell", "Two Cells holding each other (a cycle of children)",
       '''
class Block(nn.Cell):
    def construct(self, x):
        return x

a, b = Block(), Block()
a.b = b
b.a = a
''', ValueError, ["Block.b.a", "cannot contain itself", "left unchanged", "Fix"], None,
       "MindSpore 2.10 stores the cycle; its repr and Graph mode then fail with a RecursionError far from "
       "the assignment. minims refuses the assignment, where the mistake is, and leaves both Cells as "
       "they were."),
    _m("loss-float-labels", "cell", "Float labels for a sparse cross-entropy",
       'nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(np.ones((2, 3), np.float32)), Tensor([0.0, 2.0]))',
       TypeError, ["SoftmaxCrossEntropyWithLogits", "sparse=True", "Float32", "Fix"]),

    # ----- custom bprop ----------------------------------------------------------------------------
    _m("bprop-single-tensor", "bprop", "bprop returning a Tensor instead of a tuple",
       _NET + '''
    def bprop(self, x, out, dout):
        return dout * 2

ms.grad(Net())(Tensor([1.0]))
''', TypeError, ["Net.bprop", "tuple", "return (dx,)"], None,
       "MindSpore 2.10 accepts a bare Tensor for a one-input Cell in PyNative mode; in Graph mode it "
       "raises TypeError (\"output should be a tuple\"), as its documentation asks. minims insists on "
       "the tuple in both modes."),
    _m("bprop-gradient-count", "bprop", "bprop returning fewer gradients than inputs",
       '''
class Net(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return (dout * y,)

ms.grad(Net())(Tensor([1.0]), Tensor([2.0]))
''', RuntimeError, ["Net.bprop", "1 gradient", "2 inputs", "Fix"]),
    _m("bprop-gradient-shape", "bprop", "bprop returning a gradient of the wrong shape",
       '''
class Net(nn.Cell):
    def construct(self, x):
        return x.sum()

    def bprop(self, x, out, dout):
        return (dout,)

ms.grad(Net())(Tensor([1.0, 2.0]))
''', RuntimeError, ["Net.bprop", "shape []", "[2]", "Fix"]),
    _m("bprop-signature", "bprop", "bprop without the out and dout parameters",
       _NET + '''
    def bprop(self, dout):
        return (dout * 2,)

ms.grad(Net())(Tensor([1.0]))
''', TypeError, ["Net.bprop", "bprop(x, out, dout)", "bprop(dout)", "Fix"]),
    _m("bprop-reads-parameter", "bprop", "bprop reading a Parameter it was not given",
       '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([3.0]), name="w")

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return (dout * self.w,)

ms.grad(Net())(Tensor([1.0]))
''', RuntimeError, ["Net.bprop", "Parameter 'w'", "internal_params", "Fix"], None,
       "The documentation forbids it (a bprop sees only its inputs, out and dout); MindSpore 2.10 "
       "lets it through in PyNative mode and raises RuntimeError in Graph mode, as minims does in both."),

    # ----- hooks -----------------------------------------------------------------------------------
    _m("hook-not-callable", "hooks", "Registering something that is not a function",
       'nn.ReLU().register_forward_pre_hook("print")',
       TypeError, ["register_forward_pre_hook", "callable", "str 'print'", "Fix"]),
    _m("forward-pre-hook-signature", "hooks", "A forward pre-hook without the cell_id parameter",
       '''
def show(inputs):
    print(inputs)

net = nn.ReLU()
net.register_forward_pre_hook(show)
net(Tensor([1.0]))
''', TypeError, ["forward pre-hook of ReLU(ReLU)", "hook_fn(cell_id, inputs)", "show(inputs)", "Fix"]),
    _m("backward-hook-shape", "hooks", "A backward hook returning a gradient of another shape",
       '''
def hook(cell_id, grad_input, grad_output):
    return (Tensor([1.0, 2.0]),)

net = nn.ReLU()
net.register_backward_hook(hook)
ms.grad(net)(Tensor([1.0]))
''', ValueError, ["backward hook of ReLU(ReLU)", "shape [1]", "[2]", "Fix"]),
    _m("backward-hook-count", "hooks", "A backward hook returning more gradients than flow through",
       '''
def hook(cell_id, grad_input, grad_output):
    return (grad_output[0], grad_output[0])

net = nn.ReLU()
net.register_backward_hook(hook)
ms.grad(net)(Tensor([1.0]))
''', TypeError, ["backward hook of ReLU(ReLU)", "2 gradients", "1 flow", "Fix"]),
    _m("hookbackward-shape", "hooks", "ops.HookBackward's function returning the wrong shape",
       '''
def hook_fn(grad):
    return (Tensor([1.0, 2.0]),)

hook = ops.HookBackward(hook_fn)
ms.grad(lambda x: hook(x) * 2)(Tensor([1.0]))
''', ValueError, ["HookBackward", "shape [1]", "[2]", "Fix"]),

    # ----- GradOperation, grad, value_and_grad -----------------------------------------------------
    _m("grad-position-out-of-range", "grad", "grad_position past the last input",
       'ms.grad(lambda x, y: x * y, grad_position=2)(Tensor([1.0]), Tensor([2.0]))',
       RuntimeError, ["grad_position 2", "2 inputs", "0..1", "Fix"]),
    _m("grad-position-twice", "grad", "The same input twice in grad_position",
       'ms.grad(lambda x, y: x * y, grad_position=(0, 0))(Tensor([1.0]), Tensor([2.0]))',
       ValueError, ["grad_position", "(0, 0)", "duplicate", "Fix"]),
    _m("grad-into-an-int-input", "grad", "Differentiating with respect to an integer Tensor",
       'ms.grad(lambda x: x * 0.5)(Tensor([3]))',
       RuntimeError, ["integer", "Int64", "[0.5]", "float32", "Fix"], None,
       "MindSpore 2.10 runs it and truncates the gradient 0.5 to the integer 0, a silently wrong "
       "number; minims refuses a fractional gradient into an integer Tensor (a whole one passes)."),
    _m("sens-param-without-sens", "grad", "sens_param=True but no sensitivity passed",
       'ops.GradOperation(sens_param=True)(lambda x: x * 2)(Tensor([1.0]))',
       TypeError, ["sens_param=True", "sensitivity", "Fix"]),
    _m("sens-wrong-shape", "grad", "A sensitivity shaped unlike the output",
       'ops.GradOperation(sens_param=True)(lambda x: x * 2)(Tensor([1.0, 2.0]), Tensor([1.0]))',
       ValueError, ["sensitivity", "shape [1]", "shape [2]", "Fix"]),
    _m("weights-not-parameters", "grad", "Plain Tensors as weights",
       '''
w = Tensor([2.0])
ms.grad(lambda x: x * w, grad_position=None, weights=[w])(Tensor([1.0]))
''', TypeError, ["weights must be Parameters", "Tensor(shape=[1]", "Fix"], None,
       "MindSpore 2.10 returns zero gradients for Tensors given as weights, silently."),
    _m("grad-of-a-value", "grad", "Giving grad the result fn(x) instead of fn",
       'x = Tensor([3.0])\nms.grad(ops.square(x))(x)',
       TypeError, ["grad", "function", "grad(fn)(x)", "grad(fn(x))"]),
    _m("has-aux-single-output", "grad", "has_aux=True on a function with one output",
       'ms.grad(lambda x: (x * x).sum(), has_aux=True)(Tensor([1.0, 2.0]))',
       ValueError, ["has_aux=True", "tuple", "Fix"]),
    _m("grad-of-numpy-result", "grad", "A function that leaves minims with .asnumpy()",
       'ms.grad(lambda x: (x * x).sum().asnumpy())(Tensor([1.0, 2.0]))',
       TypeError, ["must return Tensors", "numpy.ndarray", "Fix"], None,
       "MindSpore 2.10 returns a zero gradient: the computation after .asnumpy() is invisible to it."),

    # ----- Parameter and ParameterTuple ------------------------------------------------------------
    _m("parameter-name-not-string", "parameter", "A Parameter name that is not a string",
       'Parameter(Tensor([1.0]), name=3)', ValueError, ["Parameter", "name", "string", "int 3", "Fix"]),
    _m("parametertuple-of-tensors", "parameter", "A ParameterTuple of plain Tensors",
       'ms.ParameterTuple([Tensor([1.0])])', TypeError, ["ParameterTuple", "Parameter", "Fix"]),
    _m("parametertuple-duplicate-names", "parameter", "Two Parameters with one name in a ParameterTuple",
       'ms.ParameterTuple([Parameter(Tensor([1.0]), name="w"), Parameter(Tensor([2.0]), name="w")])',
       ValueError, ["ParameterTuple", "'w'", "two different Parameters", "Fix"]),
    _m("network-duplicate-names", "parameter", "Two Parameters of a network named alike, then an optimizer",
       _TWO_W + '\nnn.SGD(Net().trainable_params(), learning_rate=0.1)',
       ValueError, ["SGD", "['w']", "more than once", "Fix"]),
    _m("network-duplicate-names-check", "parameter", "Two Parameters of a network named alike, checked",
       _TWO_W + '\nNet().check_names()', ValueError, ["The value of b", "its name 'w' already exists", "Fix"]),

    # ----- initializers ----------------------------------------------------------------------------
    _m("initializer-misspelt", "initializer", "A misspelt initializer name",
       'nn.Dense(3, 4, weight_init="xavier_unifrom")',
       ValueError, ["initializer", "'xavier_unifrom'", "did you mean 'xavier_uniform'"]),
    _m("initializer-negative-shape", "initializer", "A negative size in the shape",
       'ms.common.initializer.initializer("normal", (2, -3))',
       ValueError, ["initializer", "positive int", "[2, -3]", "Fix"]),
    _m("initializer-fan-of-a-vector", "initializer", "Xavier initialization of a 1-D tensor (a bias)",
       'Parameter(ms.common.initializer.initializer("xavier_uniform", (5,)), name="b")',
       ValueError, ["fan_in", "fewer than 2 dimensions", "[5]", "Fix"]),
    _m("dense-weight-transposed", "initializer", "A Dense weight given as (in, out)",
       'nn.Dense(3, 4, weight_init=Tensor(np.zeros((3, 4), np.float32)))',
       ValueError, ["Dense", "[4, 3]", "[3, 4]", "Fix"]),

    # ----- optimizers ------------------------------------------------------------------------------
    _m("optimizer-of-tensors", "optimizer", "An optimizer given Tensors instead of Parameters",
       'nn.SGD([Tensor([1.0])], learning_rate=0.1)', TypeError, ["SGD", "Parameters", "['Tensor']", "Fix"]),
    _m("optimizer-uncalled-method", "optimizer", "net.trainable_params without the parentheses",
       'net = nn.Dense(2, 1)\nnn.SGD(net.trainable_params, learning_rate=0.1)',
       TypeError, ["SGD", "trainable_params", "parentheses"]),
    _m("optimizer-lr-string", "optimizer", "A learning rate given as a string",
       'nn.SGD(nn.Dense(2, 1).trainable_params(), learning_rate="0.1")',
       TypeError, ["SGD", "learning_rate", "float", "str '0.1'", "Fix"], "ValueError",
       "MindSpore 2.10 takes the string for a schedule (an iterable) and fails converting '.' to a "
       "float; a value of the wrong type is a TypeError in Python and for MindSpore's other checks."),
    _m("optimizer-used-generator", "optimizer", "A parameter generator that was already used up",
       '''
net = nn.Dense(2, 1)
params = net.get_parameters()
print(len(list(params)), "parameters")
nn.SGD(params, learning_rate=0.1)
''', ValueError, ["SGD", "empty", "generator"]),
    _m("optimizer-gradient-count", "optimizer", "Fewer gradients than parameters",
       '''
net = nn.Dense(2, 1)
opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
opt((Tensor(np.ones((1, 2), np.float32)),))
''', ValueError, ["SGD", "1 gradients for 2 parameters", "['weight', 'bias']", "Fix"], "RuntimeError",
       "MindSpore 2.10 fails inside its compiled update (HyperMap: tuples of different lengths)."),
    _m("optimizer-gradient-shape", "optimizer", "A gradient shaped unlike its parameter",
       '''
net = nn.Dense(2, 1, has_bias=False)
opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
opt((Tensor(np.ones((2, 1), np.float32)),))
''', ValueError, ["SGD", "'weight'", "[2, 1]", "[1, 2]", "order"], "RuntimeError",
       "MindSpore 2.10 fails when it builds the SGD kernel (\"resize failed\")."),

    # ----- jit and Graph mode ----------------------------------------------------------------------
    _m("jit-fullgraph-if-on-tensor", "graph",
       "A Python if on a Tensor's value inside @jit(fullgraph=True, capture_mode=\"trace\")",
       '''
@ms.jit(fullgraph=True, capture_mode="trace")
def f(x):
    if x.sum() > 0:
        return x
    return -x

f(Tensor([1.0]))
''', RuntimeError, ["Graph mode cannot read the value", "'f'", "line 3", "if x.sum() > 0:", "ops.select",
                    "fullgraph=True) refuses this"], None,
       "MindSpore 2.10's capture_mode=\"trace\" runs the function once and keeps the branch it took: after "
       "f(Tensor([1.0])), f(Tensor([-1.0])) returns [-1.] instead of [1.] (oracle run), silently. minims "
       "never reuses a branch: without fullgraph it compiles one guarded variant per way the branch "
       "goes; fullgraph=True refuses those. The default capture_mode=\"ast\" converts the if into a Cond "
       "(one graph for every input)."),
    _m("vmap-jit-branch-on-batched-value", "graph", "vmap over a compiled (capture_mode=\"trace\") if whose "
       "condition is batched",
       '''
def f(x):
    if x.sum() > 0:
        return x
    return -x

ms.vmap(ms.jit(f, capture_mode="trace"))(Tensor(np.ones((2, 3), np.float32)))
''', ValueError, ["'f'", "if x.sum() > 0:", "differ between the examples of a vmap", "ops.select"],
       "RuntimeError", "MindSpore 2.10 fails to vmap a trace-captured function ('VmapOperation' ... "
       "TraceGraph cast to 'FuncGraphAbstractClosure' failed); with its default capture mode it refuses a "
       "Switch whose predicate is batched (ValueError, \"the source axis of args in Switch must be None\"). "
       "minims converts the default case into a Cond that vmap batches as a select; traced as written, "
       "each example would take its own branch, which one graph cannot."),
    _m("jit-set-data", "graph", "Parameter.set_data with a value computed inside @jit",
       '''
w = Parameter(Tensor([1.0, 2.0]), name="w")

@ms.jit
def f(x):
    w.set_data(x * 2)
    return x

f(Tensor([3.0, 4.0]))
''', RuntimeError, ["set_data", "'w'", "compiled graph", "ops.assign"]),
    _m("grad-write-into-input", "grad", "Writing into an input of the function being differentiated",
       '''
def f(a):
    a[0] = 0.0
    return a.sum()

ms.grad(f)(Tensor([1.0, 2.0]))
''', RuntimeError, ["__setitem__", "input of the function being differentiated", "Fix"]),
    _m("mode-as-string", "graph", "mode='graph' instead of the constant",
       'ms.set_context(mode="graph")', TypeError, ["set_context", "mode", "str 'graph'", "GRAPH_MODE"]),
    _m("context-misspelt-keyword", "graph", "A misspelt keyword in set_context",
       'ms.set_context(devcie_target="CPU")', ValueError,
       ["set_context", "'devcie_target'", "not recognized", "Did you mean 'device_target'?"]),

    # ----- functional transforms -----------------------------------------------------------------
    _m("jvp-tangent-count", "transforms", "One tangent for a function of two inputs",
       'x = Tensor([1.0, 2.0])\nops.jvp(ops.mul, (x, x), x)', ValueError,
       ["jvp", "invalid length: should be 2, but got 1", "Fix"]),
    _m("jvp-tangent-dtype", "transforms", "A float64 tangent (NumPy's default) for a float32 input",
       'ops.jvp(ops.sin, Tensor([1.0, 2.0]), Tensor(np.ones(2)))', TypeError,
       ["jvp", "Float64", "Float32", "Fix"]),
    _m("jvp-tangent-shape", "transforms", "A tangent shaped unlike its input",
       'ops.jvp(ops.sin, Tensor([1.0, 2.0, 3.0]), Tensor([1.0, 1.0]))', ValueError,
       ["jvp", "[2]", "[3]", "direction", "Fix"], "same",
       "MindSpore 2.10 does not check the tangent's shape: here a ValueError comes from inside Mul's "
       "rule, and for some functions a tangent of the wrong shape is returned without an error."),
    _m("jvp-of-a-value", "transforms", "Giving jvp the result fn(x) instead of fn",
       'x = Tensor([1.0, 2.0])\nops.jvp(ops.sin(x), x, ops.ones_like(x))', ValueError,
       ["jvp", "function", "jvp(fn, inputs, v)", "jvp(fn(x), inputs, v)"]),
    _m("vjp-of-a-value", "transforms", "Giving vjp the result fn(x) instead of fn",
       'x = Tensor([1.0, 2.0])\nops.vjp(ops.sin(x), x)', TypeError,
       ["vjp", "function", "vjp(fn, x)", "vjp(fn(x), x)"]),
    _m("vjp-cotangent-shape", "transforms", "A cotangent shaped unlike the output",
       'out, vjp_fn = ops.vjp(ops.sin, Tensor([1.0, 2.0, 3.0]))\nvjp_fn(Tensor([1.0]))', ValueError,
       ["vjp_fn", "[1]", "[3]", "Fix"]),
    _m("vmap-axis-out-of-range", "transforms", "An in_axes entry past the last axis",
       'ops.vmap(ops.sin, in_axes=2)(Tensor(np.ones((2, 3), np.float32)))', RuntimeError,
       ["vmap", "axis 2", "out of bounds", "[2, 3]"]),
    _m("vmap-list-argument", "transforms", "A Python list of numbers as the batched argument",
       'def double(r):\n    return r * 2\n\nops.vmap(double)([1.0, 2.0, 3.0])', RuntimeError,
       ["vmap", "must be a Tensor", "float 1.0", "Fix"]),
    _m("vmap-sizes-differ", "transforms", "Batched arguments with different numbers of examples",
       'ops.vmap(ops.add)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 3), np.float32)))',
       RuntimeError, ["vmap", "different sizes", "[2, 3]"]),
    _m("vmap-float-of-batch", "transforms", "float() of a value inside vmap",
       'ops.vmap(lambda r: float(r.sum()))(Tensor(np.ones((2, 3), np.float32)))', RuntimeError,
       ["vmap", "no single value", "batch of 2", "Fix"], "n/a",
       "MindSpore compiles the vmapped function, so float() of a Tensor fails while compiling with a "
       "message of the graph compiler; minims says what a batched value is."),
    _m("jacobian-position", "transforms", "grad_position past the last input",
       'ops.jacfwd(ops.sin, grad_position=1)(Tensor([1.0, 2.0]))', ValueError,
       ["jacfwd", "grad_position 1", "out of range", "1 input"]),
    _m("derivative-order-zero", "transforms", "order=0 in derivative",
       'ops.derivative(ops.sin, Tensor([1.0, 2.0]), 0)', ValueError,
       ["derivative", "less than 1", "Fix"]),

    # ----- checkpoints -----------------------------------------------------------------------------
    _m("load-integer-out-of-range", "checkpoint", "Loading an integer its Parameter's dtype cannot hold",
       '''
class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.steps = Parameter(Tensor(0, ms.int32), name="steps")

    def construct(self, x):
        return x

ms.load_param_into_net(Counter(), {"steps": Parameter(Tensor(5_000_000_000), name="steps")})
''', RuntimeError, ["load_param_into_net", "5000000000", "Int32", "705032704", "Fix"], None,
       "MindSpore 2.10 wraps the Int64 value around into the Int32 Parameter and loads 705032704 without "
       "a word (only strict_load=True refuses the dtypes, with a RuntimeError); minims refuses the value."),
    _m("checkpoint-cut-short", "checkpoint", "crc_check=True on a copy cut short between two entries",
       '''
import os

params = [Parameter(Tensor([1.0]), name="a"), Parameter(Tensor([2.0]), name="b")]
ms.save_checkpoint(params, "cut.ckpt", crc_check=True)
whole = open("cut.ckpt", "rb").read()
open("cut.ckpt", "wb").write(whole[:2 + whole[1]])     # a copy that stopped after the first entry
try:
    ms.load_checkpoint("cut.ckpt", crc_check=True)
finally:
    os.remove("cut.ckpt")
''', ValueError, ["load_checkpoint", "'cut.ckpt'", "crc_check=True", "cut short", "Fix"], None,
       "MindSpore 2.10 warns that the file has no CRC and loads the one entry left, ['a']; minims "
       "refuses to load unverified what it was asked to verify."),
    _m("checkpoint-name-lone-surrogate", "checkpoint", "A Parameter name that is not valid text",
       '''ms.save_checkpoint([Parameter(Tensor([1.0]), name="w\\ud800")], "w.ckpt")''',
       TypeError, ["save_checkpoint", r"'w\ud800'", "lone surrogate", "Fix"], "same",
       "MindSpore 2.10 raises the TypeError already in Parameter(...) (\"incompatible function "
       "arguments\"); minims refuses the name where it cannot be stored, when saving, with an error "
       "that is a TypeError and a ValueError (MindSpore's type for such a name in append_dict)."),

    # ----- the data set ----------------------------------------------------------------------------
    _m("dataset-unknown-split", "dataset", "Asking for a split that does not exist",
       'ms.dataset.load_digits("val")', ValueError, ["load_digits", "'train', 'test' or 'all'", "'val'", "Fix"],
       "n/a", "minims' own data set (MindSpore has no load_digits)."),
    _m("dataset-numpy-into-network", "dataset", "Feeding the NumPy arrays straight into a network",
       'images, labels = ms.dataset.load_digits("test")\nnn.Conv2d(1, 6, 5)(images[:4])',
       TypeError, ["Conv2d", "Tensor input", "numpy.ndarray(shape=[4, 1, 32, 32]", "Fix"], "n/a",
       "minims' own data set; a NumPy array given to MindSpore's Conv2d is a TypeError there too."),
    _m("dataset-length-mismatch", "dataset", "Images and labels of different lengths",
       '''
images, labels = ms.dataset.load_digits("test")
next(ms.dataset.batches(images, labels[:100], batch_size=32))
''', ValueError, ["batches", "359 images", "100 labels", "Fix"], "n/a", "minims' own data set."),
    _m("getnext-without-pipeline", "dataset", "ops.GetNext with no dataset pipeline behind it",
       'ops.GetNext([ms.float32], [(32, 1, 32, 32)], 1, "queue")()',
       RuntimeError, ["GetNext", "no dataset pipeline", "queue", "Fix", "net(x)"]),
    _m("dataset-map-unknown-column", "dataset", "map on a column the data set does not have",
       '''
data = ms.dataset.NumpySlicesDataset((np.zeros((4, 2)), np.arange(4)), column_names=["image", "label"])
data = data.map(lambda x: x * 2, input_columns="img")
list(data)
''', RuntimeError, ["map", "'img'", "doesn't exist", "['image', 'label']", "Fix"], "same",
       "MindSpore 2.10 raises when the pipeline runs (list(data)); minims already in map."),
    _m("dataset-batch-ragged", "dataset", "Batching rows of different shapes",
       '''
data = ms.dataset.GeneratorDataset(lambda: ((np.zeros(n),) for n in (2, 3)), column_names=["data"])
list(data.batch(2))
''', RuntimeError, ["batch", "different shapes", "[2]", "[3]", "Fix"]),
    _m("dataset-generator-without-names", "dataset", "GeneratorDataset without column_names",
       'ms.dataset.GeneratorDataset([np.array(1), np.array(2)])', ValueError, ["column_names", "Fix"]),
    _m("dataset-iterator-second-epoch", "dataset", "A second loop over a one-epoch iterator",
       '''
rows = ms.dataset.NumpySlicesDataset([1, 2, 3]).create_tuple_iterator(num_epochs=1)
for row in rows:
    pass
for row in rows:
    pass
''', RuntimeError, ["num_epochs=1", "Fix"]),
    _m("dataset-transform-on-tensor", "dataset", "A vision transform called on a Tensor",
       'ms.dataset.vision.Rescale(1 / 255, 0)(Tensor(np.ones((2, 2, 1), np.float32)))',
       TypeError, ["Rescale", "NumPy or PIL", "Tensor", "Fix"]),

    # ----- Model, callbacks, metrics -------------------------------------------------------------------
    _m("lr-schedule-int-rate", "optimizer", "An int learning rate for a schedule",
       'nn.ExponentialDecayLR(1, 0.9, 4)', TypeError, ["ExponentialDecayLR", "'learning_rate' must be float", "Fix"]),
    _m("optimizer-weight-decay-function", "optimizer", "A plain function as weight_decay",
       'nn.Momentum(nn.Dense(2, 1).trainable_params(), 0.1, 0.9, weight_decay=lambda step: 0.01)',
       TypeError, ["Momentum", "int, float or Cell", "Fix"]),
    _m("model-metrics-without-loss", "train", "Metrics for a Model with no loss function",
       'ms.train.Model(nn.Dense(2, 1), metrics={"accuracy"})', ValueError,
       ["Model", "metrics", "loss_fn", "eval_network", "Fix"]),
    _m("model-callback-class", "train", "A callback class where an object belongs",
       '''
net = nn.Dense(3, 2)
model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), nn.SGD(net.trainable_params()))
data = ms.dataset.NumpySlicesDataset((np.zeros((4, 3), np.float32), np.zeros(4, np.int32)), column_names=["x", "y"])
model.train(1, data.batch(2), callbacks=[ms.train.LossMonitor])
''', TypeError, ["callbacks", "class LossMonitor", "LossMonitor()", "Fix"]),
    _m("model-three-columns", "train", "A loss_fn with batches of three columns",
       '''
net = nn.Dense(3, 2)
model = ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True), nn.SGD(net.trainable_params()))
x, y = np.zeros((4, 3), np.float32), np.zeros(4, np.int32)
model.train(1, ms.dataset.NumpySlicesDataset((x, y, y), column_names=["x", "y", "z"]).batch(2))
''', ValueError, ["Model.train", "(data, label)", "two columns", "3", "Fix"]),
    _m("metric-eval-before-update", "train", "A metric evaluated before any update",
       'ms.train.Accuracy().eval()', RuntimeError, ["Accuracy", "number of samples is 0", "Fix"]),

    # ----- mindspore.numpy -------------------------------------------------------------------------
    _m("mnp-numpy-array", "numpy", "Giving mindspore.numpy a NumPy array",
       'import minims.numpy as mnp\nmnp.array(np.ones(3))',
       TypeError, ["mindspore.numpy.array", "numpy.ndarray", "Fix", "Tensor(array)"]),
    _m("mnp-exp-of-integers", "numpy", "exp (or log, floor) of an integer Tensor",
       'import minims.numpy as mnp\nmnp.exp(mnp.arange(3))',
       TypeError, ["mindspore.numpy.exp", "Int32", "float Tensors only", "Fix", "astype(mnp.float32)"]),
    _m("mnp-split-unequal", "numpy", "Splitting into sections that do not divide the axis",
       'import minims.numpy as mnp\nmnp.split(mnp.arange(4), 3)',
       ValueError, ["mindspore.numpy.split", "size 4", "3 equal sections", "Fix", "mnp.array_split"]),
    _m("mnp-where-one-argument", "numpy", "where(condition) with no x and y",
       'import minims.numpy as mnp\nmnp.where(mnp.array([1, 0, 2]) > 0)',
       TypeError, ["mindspore.numpy.where", "x and y must both be given", "Fix"]),

    # ----- issue 26: Tensor hooks, InsertGradientOf, recompute ----------------------------------------
    _m("tensor-hook-not-callable", "hooks", "Tensor.register_hook with something that is not a function",
       'Tensor([1.0]).register_hook(3)',
       TypeError, ["register_hook", "callable", "int 3", "Fix"]),
    _m("tensor-hook-returns-not-a-tensor", "hooks", "A Tensor hook returning something else than a Tensor",
       '''
def hook(grad):
    return "doubled"

def f(x):
    y = x * x
    y.register_hook(hook)
    return y * 3

ms.grad(f)(Tensor([1.0, 2.0]))
''', RuntimeError, ["Tensor hook hook", "str 'doubled'", "Tensor", "Fix"]),
    _m("tensor-hook-shape", "hooks", "A Tensor hook returning a gradient of another shape",
       '''
def f(x):
    y = x * x
    y.register_hook(lambda grad: grad.sum())
    return y * 3

ms.grad(f)(Tensor([1.0, 2.0]))
''', ValueError, ["Tensor hook", "shape []", "shape [2]", "Fix"], None,
       "MindSpore 2.10 runs it and the next rule broadcasts the scalar, a silently different "
       "gradient; minims refuses a gradient of another shape, as for Cell hooks."),
    _m("parameter-hook-no-grad", "hooks", "A hook on a Parameter that needs no gradient",
       '''
w = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
w.register_hook(lambda grad: grad * 2)
''', RuntimeError, ["'w'", "requires grad is false", "Fix"]),
    _m("tensor-hook-twice-in-graph", "hooks", "Two hooks on one Tensor inside a compiled graph",
       '''
class Net(nn.Cell):
    def construct(self, x):
        y = x * x
        y.register_hook(lambda grad: grad * 2)
        y.register_hook(lambda grad: grad * 3)
        return y

ms.set_context(mode=ms.GRAPH_MODE)
ms.grad(Net())(Tensor([1.0, 2.0]))
''', RuntimeError, ["multiple hooks for a Tensor", "Fix"]),
    _m("insert-gradient-of-two-inputs", "hooks", "ops.InsertGradientOf applied to two Tensors",
       '''
def keep(dout):
    return dout

clip = ops.InsertGradientOf(keep)
clip(Tensor([1.0]), Tensor([2.0]))
''', RuntimeError, ["InsertGradientOf", "should be 1, but got 2", "Fix"]),
    _m("recompute-unknown-keyword", "cell", "Cell.recompute with a keyword it does not know",
       'nn.Dense(2, 2).recompute(use_reentrnt=False)',
       ValueError, ["recompute", "'use_reentrnt' is not recognized", "Fix"]),
    # ----- issue 26: ops.Custom, jet, clipping, mixed precision ---------------------------------------
    _m("custom-op-without-bprop", "grad", "Differentiating an ops.Custom that has no bprop",
       'c = ops.Custom(np.sin, lambda x: x, lambda x: x, "pyfunc")\n'
       'ms.grad(lambda x: c(x))(Tensor([0.5, 1.0]))',
       RuntimeError, ["ops.Custom(sin)", "bprop not defined", "Fix", "bprop=fn"]),
    _m("custom-op-wrong-dtype", "primitive", "An ops.Custom whose function returns another dtype",
       'c = ops.Custom(lambda a: a.astype(np.float64), lambda x: x, lambda x: x, "pyfunc")\n'
       'c(Tensor(np.array([1.0, 2.0], np.float32)))',
       RuntimeError, ["output 0", "Float64", "out_dtype declares Float32", "Fix"], "same",
       "MindSpore 2.10 raises RuntimeError \"memcpy failed.\" without saying which output or why."),
    _m("custom-op-wrong-shape", "primitive", "An ops.Custom whose function returns another shape",
       'c = ops.Custom(lambda a: a[:1], lambda x: x, lambda x: x, "pyfunc")\n'
       'c(Tensor(np.array([1.0, 2.0], np.float32)))',
       RuntimeError, ["output 0", "shape [1]", "out_shape declares [2]", "Fix"], None,
       "MindSpore 2.10 returns a Tensor of the declared shape [2] padded with whatever its buffer "
       "held ([1. 0.]): a silently wrong answer."),
    _m("jet-series-dtype", "transforms", "A jet series of another dtype than its primal",
       'ops.jet(ops.sin, Tensor(np.array([0.5], np.float32)), Tensor(np.array([[1]], np.int32)))',
       TypeError, ["jet", "must be the same", "Float32", "Int32", "Fix"]),
    _m("clamp-without-bounds", "ops", "clamp with neither min nor max",
       'ops.clamp(Tensor([1.0, 2.0]))',
       ValueError, ["Clamp", "at least one of 'min' or 'max'", "Fix"]),
    _m("amp-unknown-level", "train", "An amp level that does not exist",
       'ms.amp.auto_mixed_precision(nn.Dense(2, 2), "O4")',
       ValueError, ["amp level 'O4' is not supported", "Fix", "O0, O1, O2, O3"]),
    # ----- control flow in a graph (issue 24) ---------------------------------------------------------
    _m("whileloop-carry-dtype", "graph", "A WhileLoop body that changes the carry's dtype, inside @jit",
       '''
@ms.jit
def f(x):
    return ops.WhileLoop()(lambda v: v.sum() < 100, lambda v: ops.cast(v * 2, ms.int32), x)

f(Tensor([1.0, 2.0]))
''', TypeError, ["carry leaf 0", "Float32", "Int32", "one type for all iterations", "Fix"]),
    _m("whileloop-carry-shape", "graph", "A WhileLoop body that changes the carry's shape, inside @jit",
       '''
@ms.jit
def f(x):
    return ops.WhileLoop()(lambda v: v.sum() < 100, lambda v: ops.concat([v, v]), x)

f(Tensor([1.0, 2.0]))
''', ValueError, ["carry leaf 0", "Float32[2]", "Float32[4]", "Fix"]),
    _m("loop-body-writes-parameter", "graph", "A loop body that writes a Parameter, inside @jit",
       '''
w = Parameter(Tensor([1.0]), name="w")

def body(i, v):
    ops.assign(w, v)
    return v * 2

@ms.jit
def f(x, n):
    return ops.ForiLoop()(0, n, body, x, unroll=False)

f(Tensor([1.0]), Tensor(3))
''', RuntimeError, ["writes the Parameter 'w'", "once", "Fix", "after the loop"], "TypeError",
       "MindSpore 2.10 fails while compiling the loop with an unrelated TypeError about the number of "
       "arguments; minims names the write."),
    _m("scan-xs-tensor", "graph", "ops.Scan given a Tensor as xs",
       '''
ops.Scan()(lambda c, x: (c + x, c), Tensor(np.zeros(2, np.float32)), Tensor(np.ones((3, 2), np.float32)))
''', TypeError, ["'Scan'", "'xs'", "list", "Tensor", "Fix"], "same",
       "MindSpore 2.10's own check fails with a TypeError from isinstance; minims says what xs may be."),
    # ----- the beginner path (issue 25 item 2) ---------------------------------------------------------
    _m("cross-entropy-int64-labels", "cell", "Int64 class labels for nn.CrossEntropyLoss",
       'nn.CrossEntropyLoss()(Tensor(np.ones((2, 3), np.float32)), Tensor([0, 1]))',
       TypeError, ["CrossEntropyLoss", "Int32", "Int64", "Fix", "astype(mindspore.int32)"]),
    _m("lstm-input-size", "cell", "An LSTM fed features of another size",
       'nn.LSTM(3, 2)(Tensor(np.ones((4, 2, 2), np.float32)))',
       ValueError, ["LSTM", "input_size=3", "Fix"]),
    _m("arange-step-away", "ops", "A range whose step leads away from its end",
       'ops.arange(5, 0, 1)', ValueError, ["arange", "step", "Fix", "ops.arange(5, 0, -1)"]),
    _m("randint-empty-range", "ops", "randint from an empty range",
       'ops.randint(3, 3, (2,))', RuntimeError, ["maxval", "minval", "Fix"]),
    _m("bce-probabilities-out-of-range", "ops", "binary_cross_entropy given logits instead of probabilities",
       'ops.binary_cross_entropy(Tensor([1.5, 0.5]), Tensor([1.0, 0.0]))',
       RuntimeError, ["binary_cross_entropy", "[0, 1]", "Fix", "binary_cross_entropy_with_logits"]),
    _m("in-place-float-into-int", "tensor", "An in-place op whose result is float, on an integer Tensor",
       'Tensor([1, 2], ms.int32).add_(Tensor(0.5, ms.float32))',
       TypeError, ["add_", "Float32", "keeps its dtype", "Fix"], mindspore=None,
       note="MindSpore 2.10's CPU build returns a new Float32 Tensor from add_ and leaves the Tensor as it "
            "was; its documentation (and minims) write the result into the Tensor, which cannot hold 0.5"),
    # ----- MindSpore's module layout, the grad API (issue 25, items 1 and 6) ---------------------
    _m("name-misspelt-in-namespace", "ops", "A misspelt operator name (ops.Relu for ops.ReLU)",
       'ops.Relu()(Tensor([1.0]))', AttributeError, ["has no attribute 'Relu'", "Did you mean ops.ReLU"]),
    _m("name-minims-lacks", "ops", "A MindSpore operator minims does not implement",
       'ms.ops.operations.AddN()((Tensor([1.0]), Tensor([2.0])))',
       AttributeError, ["has no attribute 'AddN'", "MindSpore 2.10 has mindspore.ops.operations.AddN",
                        "ops.operations.Add", "Fix"], None,
       "MindSpore 2.10 has P.AddN (it adds the tensors); minims says it lacks it and names the closest."),
    _m("grad-position-empty", "grad", "grad_position=() (no input to differentiate)",
       'ms.grad(lambda x: x * 2, grad_position=())(Tensor([1.0]))',
       RuntimeError, ["grad_position is the empty tuple", "Fix", "grad_position=None with weights"]),
    _m("get-grad-not-asked-for", "grad", "get_grad of an input the gradients were not computed for",
       'ops.get_grad(ms.grad(lambda x, y: x * y, 0, return_ids=True)(Tensor([1.0]), Tensor([2.0])), 1)',
       RuntimeError, ["get_grad", "no gradient for position 1", "return_ids=True", "Fix"]),
    # ----- MindSpore's tutorial pages (issue 25) ----------------------------------------------------
    _m("mutable-of-a-string", "graph", "mutable() of a value that is no Tensor, number or container of them",
       'ms.mutable([1, "a"])', TypeError, ["mutable", "(bool, int, float, Tensor, tuple, list, dict)", "Fix"]),
    _m("narrow-past-the-end", "ops", "mint.narrow taking more entries than the axis has after start",
       'ms.mint.narrow(Tensor(np.zeros((3, 3), np.float32)), 1, 2, 2)',
       ValueError, ["narrow", "start (2), + length (2) exceeds dimension size (3)", "Fix"]),
    _m("graph-cell-of-no-graph", "checkpoint", "nn.GraphCell given something that is not a loaded graph",
       'nn.GraphCell("model.mindir")', TypeError, ["GraphCell", "graph", "Fix", "load("]),
    # ----- MindSpore's own unit tests (issue 25, tests criterion) ------------------------------------
    _m("vmap-cell-list-examples", "transforms", "vmap of a CellList over more examples than Cells",
       '''
cells = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])
ops.vmap(cells)(Tensor(np.ones((3, 1, 3), np.float32)))
''', ValueError, ["axis_size: 3", "cell size: 2", "Fix"]),
    _m("vmap-arity", "transforms", "vmap of a two-input function called with one argument",
       '''
def add(x, y):
    return x + y

ops.vmap(add)(Tensor(np.ones((2, 3), np.float32)))
''', TypeError, ["parameters number of the function is 2", "provided arguments is 1", "Fix"]),
    _m("cell-parameter-replaced-by-cell", "cell", "A Parameter attribute assigned a Cell",
       '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([1.0]), name="w")
        self.w = nn.ReLU()

Net()
''', KeyError, ["the w child cell already exists", "Net.w is a Parameter", "Fix"]),
    _m("cell-sub-cell-replaced-by-tensor", "cell", "A sub-cell attribute assigned a Tensor",
       '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.act = Tensor([1.0])

Net()
''', TypeError, ["Sub cell 'act' already exists", "as a cell", "Fix"]),
    _m("parameter-set-data-float-into-int", "parameter", "set_data of a float into an integer Parameter",
       'p = Parameter(Tensor(2, ms.int32), name="p")\np.set_data(1.5)',
       TypeError, ["Current dtype is Int32, and incoming is Float", "'p'", "Fix"]),
    _m("parameter-of-bool", "parameter", "A Parameter made from True",
       'Parameter(True, name="flag")', ValueError, ["can not be `bool`", "Parameter(Tensor(True))", "Fix"]),
    _m("jit-print-keyword", "graph", "print with sep= inside a compiled function (print is a Print operator there)",
       '''
@ms.jit
def f(x):
    print("a", "b", sep="-")
    return x

f(Tensor([1.0]))
''', RuntimeError, ["unexpected keyword argument 'sep'", "Print operator", "Fix", "f-string"]),
    _m("parameter-int-outside-int32", "parameter", "A Parameter made from a Python int too large for Int32",
       'Parameter(2 ** 40, name="big")', ValueError, ["stored as Int32", "ms.int64", "Fix"], None,
       "MindSpore 2.10 stores a Python int Parameter as Int32 and keeps 2**40 as 0, without a word (oracle run)."),
)


def by_id(mistake_id: str) -> Mistake:
    for m in MISTAKES:
        if m.id == mistake_id:
            return m
    raise KeyError(f"no mistake with id {mistake_id!r}")


def run(mistake) -> BaseException | None:
    """Run a mistake's snippet (or a code string) after ``PRELUDE`` in a fresh namespace.

    Returns the exception it raised, or None.  The execution mode is restored afterwards (a snippet
    may switch to Graph mode); nothing else is reset, so a test can check that the error itself
    left the interpreter stack clean.  The snippet is registered with ``linecache`` under
    ``<mistake ID>``, so messages that quote the user's line (Graph mode) show it.
    """
    code = mistake.code if isinstance(mistake, Mistake) else str(mistake)
    name = mistake.id if isinstance(mistake, Mistake) else "snippet"
    filename = f"<mistake {name}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    namespace = {"__name__": f"mistake_{name.replace('-', '_')}"}
    exec(PRELUDE, namespace)
    mode = get_context("mode")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # e.g. "hooks are skipped in Graph mode"
            exec(compile(code, filename, "exec"), namespace)
    except Exception as exc:                         # the point: hand the error back
        return exc
    finally:
        set_context(mode=mode)
    return None


@contextlib.contextmanager
def show_error(width=100):
    """``with show_error(): <wrong code>`` prints the error the block raises, as :func:`describe`
    gives it (wrapped at ``width`` columns), instead of a traceback; the chapter's cells use it.
    Warnings are silenced and the execution mode is restored, as in :func:`run`."""
    mode = get_context("mode")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    except Exception as exc:                         # shown, not raised: the cell goes on
        print(textwrap.fill(describe(exc), width, break_long_words=False, break_on_hyphens=False))
    else:
        print("(no error)")
    finally:
        set_context(mode=mode)


def builtin_types(exc: BaseException) -> list:
    """The built-in exception classes ``exc`` is an instance of, most specific first (no bases that
    are implied by another one listed, no ``Exception``)."""
    found = []
    for cls in type(exc).__mro__:
        if cls.__module__ != "builtins" or cls in (Exception, BaseException, object):
            continue
        if getattr(builtins, cls.__name__, None) is not cls:
            continue
        if not any(issubclass(f, cls) for f in found):
            found.append(cls)
    return found


def describe(exc: BaseException) -> str:
    """``TypeError: message`` — or ``BpropError(TypeError, RuntimeError): message`` for a minims
    class, naming the built-in types an ``except`` clause can catch it by."""
    name = type(exc).__name__
    if type(exc).__module__ != "builtins":
        name += "(" + ", ".join(c.__name__ for c in builtin_types(exc)) + ")"
    return f"{name}: {exc}"
