"""MindSpore's module layout over minims (issue 25, item 1).

MindSpore programs and its own tests import ``mindspore.ops.operations as P``, ``ops.composite as C``,
``ops.functional as F``, ``mindspore.common.dtype as mstype``, ``mindspore.common.api.jit`` ...; with
``import mindspore`` importing minims (tools/mindspore_alias.py, as tools/run_mindspore_tests.py
runs MindSpore's test files) each path must resolve. Expected values: MindSpore 2.10 (CPU) run on
the same code (the oracle, /tmp/oracle/bin/python), quoted in each test.
"""
import importlib
import sys

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn, ops
from minims.layout.alias import SubmoduleAlias


@pytest.fixture
def mindspore():
    """``import mindspore`` imports minims for the test, and nothing of it is left afterwards."""
    before = set(sys.modules)
    finder = SubmoduleAlias(always=True)        # as tools/mindspore_alias.py installs it
    sys.meta_path.insert(0, finder)
    try:
        yield importlib.import_module("mindspore")
    finally:
        sys.meta_path.remove(finder)
        for name in set(sys.modules) - before:
            if name == "mindspore" or name.startswith("mindspore."):
                del sys.modules[name]


def test_mindspore_submodule_paths_import_as_the_minims_objects(mindspore):
    """Issue 25 item 1: the import lines of MindSpore's own tests (tools/mindspore_tests/suite) run."""
    from mindspore.ops import operations as P
    from mindspore.ops import composite as C
    from mindspore.ops import functional as F
    import mindspore.common.dtype as mstype
    from mindspore.common.api import jit, _pynative_executor
    from mindspore.common.initializer import Normal, initializer
    from mindspore.common.tensor import Tensor as CommonTensor
    from mindspore.train.serialization import load_checkpoint, save_checkpoint
    from mindspore.ops.primitive import PrimitiveWithInfer, prim_attr_register
    from mindspore.ops.composite.base import GradOperation
    import mindspore.ops.operations as op
    assert mindspore is ms and op is P and P.Mul is ops.Mul and P.ReLU is ops.ReLU
    assert C.GradOperation is GradOperation is ops.GradOperation and C.zeros_like is ops.zeros_like
    assert F.grad is ops.grad and F.value_and_grad is ops.value_and_grad and F.vmap is ops.vmap
    assert mstype.float32 is ms.float32 and jit is ms.jit and CommonTensor is Tensor
    assert save_checkpoint is ms.save_checkpoint and load_checkpoint is ms.load_checkpoint
    assert initializer(Normal(), [2]).shape == (2,) and PrimitiveWithInfer is ops.PrimitiveWithInfer
    assert callable(prim_attr_register) and _pynative_executor.sync() is None


def test_aliasing_by_hand_imports_submodule_paths_as_the_minims_modules():
    """Issue 25 item 1: after ``sys.modules["mindspore"] = minims`` (``import minims as mindspore`` for
    every later import), ``import mindspore.common.dtype as mstype`` is minims' module, so
    ``mstype.float32 is minims.float32`` (Python would otherwise load a second copy of minims)."""
    before = set(sys.modules)
    sys.modules["mindspore"] = ms
    try:
        import mindspore.common.dtype as mstype
        from mindspore.ops import operations as P
        assert mstype is ms.common.dtype and mstype.float32 is ms.float32 and P is ms.ops.operations
        assert not [m for m in sys.modules if m.startswith("mindspore.") and not sys.modules[m].__name__.startswith("minims")]
    finally:
        for name in set(sys.modules) - before:
            if name == "mindspore" or name.startswith("mindspore."):
                del sys.modules[name]


def test_operations_hold_the_primitive_classes_of_ops():
    """Issue 25 item 1: ``P.Add()(x, y)``; MindSpore 2.10 gives [4., 6.] for [1, 2] + [3, 4]."""
    from minims.ops import operations as P
    out = P.Add()(Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32)))
    assert out.tolist() == [4.0, 6.0]
    assert "Mul" in dir(P) and "add" not in dir(P)        # classes only; ops.add is the function


def test_prim_attr_register_makes_the_init_arguments_attributes():
    """Issue 25 item 1: MindSpore 2.10 prints ``P1 3.0 False`` and ``Prim[P1]<alpha=3.0, keep=False>``."""
    from minims.ops.primitive import PrimitiveWithInfer, prim_attr_register

    class P1(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, alpha=2.0, keep=False):
            """init"""

    p = P1(3.0)
    assert (p.name, p.alpha, p.keep) == ("P1", 3.0, False)
    assert repr(p) == "Prim[P1]<alpha=3.0, keep=False>"


def test_a_mindspore_name_minims_lacks_says_so_and_names_the_closest():
    """Issue 25 item 1: MindSpore 2.10 has ``ops.operations.AddN`` (its dir(), recorded in
    minims/layout/mindspore_names.json); minims does not, and names ``Add`` (difflib)."""
    from minims.ops import operations as P
    with pytest.raises(AttributeError) as info:
        P.AddN
    text = str(info.value)
    assert text.startswith("module 'minims.ops.operations' has no attribute 'AddN'")
    assert "MindSpore 2.10 has mindspore.ops.operations.AddN" in text and "ops.operations.Add" in text
    assert "Fix:" in text


def test_a_misspelt_name_names_the_closest_minims_spelling():
    """Issue 25 item 1: ``nn.Dens`` is in neither MindSpore 2.10's nn (its dir()) nor minims'."""
    with pytest.raises(AttributeError, match=r"neither has MindSpore 2.10's mindspore.nn\. Did you mean nn\.Dense\?"):
        nn.Dens
    with pytest.raises(AttributeError, match=r"Did you mean ops\.ReLU"):
        ops.Relu
    assert not hasattr(ms.ops, "__wrapped__")            # Python's own probes get a plain AttributeError


def test_parameter_data_and_value():
    """Issue 25 item 1: MindSpore 2.10 (oracle): ``p.data`` and ``p.value()`` are Tensors (not the
    Parameter); ``value()`` keeps the value it read ([1, 2]) after ``set_data``; a gradient with
    respect to ``w`` reaches it through ``w.value()`` ([1.]) and not through ``w.data`` ([0.])."""
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")
    data, value = p.data, p.value()
    assert type(data) is Tensor and type(value) is Tensor and data.tolist() == [1.0, 2.0]
    p.set_data(Tensor(np.array([3.0, 4.0], np.float32)))
    assert p.data.tolist() == [3.0, 4.0] and value.tolist() == [1.0, 2.0]
    p.data = Tensor(np.array([7.0, 8.0], np.float32))
    assert p.asnumpy().tolist() == [7.0, 8.0]
    w = Parameter(Tensor(np.array([2.0], np.float32)), name="w")
    t = Tensor(np.array([1.0], np.float32))
    assert ops.grad(lambda x: (x * w.value()).sum(), None, w)(t).tolist() == [1.0]
    assert ops.grad(lambda x: (x * w.data).sum(), None, w)(t).tolist() == [0.0]


def test_nn_grad_jvp_and_vjp_cells():
    """Issue 25 item 1: ``from mindspore.nn.grad import Jvp, Vjp``. MindSpore 2.10 at x = [[1, 2], [3, 4]],
    v = ones: ``Jvp(x^3)(x, v)`` and ``Vjp(x^3)(x, v)`` are (x^3, 3x^2) = ([[1, 8], [27, 64]],
    [[3, 12], [27, 48]]); ``Vjp((2x, y^3))(x, x, (v, v))`` gives the tuple (2, 3y^2); a tuple v
    for one input, or one Tensor for two, is a TypeError."""
    from minims.nn.grad import Jvp, Vjp

    class Cube(nn.Cell):
        def construct(self, x):
            return x ** 3

    class Two(nn.Cell):
        def construct(self, x, y):
            return 2 * x, y ** 3

    x = Tensor(np.array([[1, 2], [3, 4]], np.float32))
    v = ops.ones_like(x)
    for cell in (Jvp(Cube()), Vjp(Cube())):
        out, d = cell(x, v)
        assert out.tolist() == [[1, 8], [27, 64]] and d.tolist() == [[3, 12], [27, 48]]
    (a, b), (dx, dy) = Vjp(Two())(x, x, (v, v))
    assert dx.tolist() == [[2, 2], [2, 2]] and dy.tolist() == [[3, 12], [27, 48]]
    for call in (lambda: Jvp(Cube())(x, (v, v)), lambda: Jvp(Two())(x, x, v), lambda: Vjp(Cube())(x, (v,)),
                 lambda: Jvp(Two())((x, x), (v, v))):
        with pytest.raises(TypeError, match="Fix"):
            call()


def test_jit_class_returns_the_class():
    """Issue 25 item 1: ``from mindspore.common.api import jit_class``; MindSpore 2.10: ``@jit_class``
    leaves a class usable (``A().x == 1``) and raises TypeError for a function."""
    from minims.common.api import jit_class

    @jit_class
    class A:
        def __init__(self):
            self.x = 1

    assert isinstance(A, type) and A().x == 1
    with pytest.raises(TypeError, match="Fix"):
        jit_class(lambda x: x)
