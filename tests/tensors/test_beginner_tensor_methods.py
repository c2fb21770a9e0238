"""The Tensor methods of MindSpore's beginner pages on minims (issue 25, item 2): values, dtypes and
printing against MindSpore 2.10 (``tests/beginner_cases.py``, recorded by
``tests/data/oracle_beginner_facts.py``), and the in-place forms, whose contract is MindSpore's
documentation (MindSpore 2.10's CPU build returns a new Tensor from ``add_`` and leaves the Tensor as it
was, checked on the oracle; minims writes into the Tensor, as the documentation and the pages say).
"""
import json
from pathlib import Path

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn, ops

import beginner_cases as cases  # tests/ is on the path (tests/conftest.py)

FACTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "oracle_beginner_facts.json").read_text())
METHODS = [n for n in cases.CASES if n.startswith("t_") and n != "t_repeat"]


@pytest.mark.parametrize("name", METHODS)
def test_method_returns_what_mindspore_returns(name):
    """Issue 25 item 2: dtype, shape and values as MindSpore 2.10 (oracle run)."""
    cases.assert_outcome(cases.evaluate(ms, ops, nn, "cases", name), FACTS["cases"][name], name)


def test_repeat_tiles_as_documented():
    """Issue 25 item 2: Tensor.repeat(2, 1) repeats the whole Tensor along each axis (MindSpore's
    documentation; its 2.10 CPU build has no kernel: RuntimeError, oracle run) — NumPy's tile."""
    assert FACTS["cases"]["t_repeat"]["error"] == "RuntimeError"
    x = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]], np.float32)
    np.testing.assert_array_equal(Tensor(x).repeat(2, 1).asnumpy(), np.tile(x, (2, 1)))


def test_in_place_methods_write_into_the_tensor_and_return_it():
    """Issue 25 item 2: add_, sub_, mul_, div_, clamp_, fill_, zero_, copy_, masked_fill_ change the
    Tensor and return it (MindSpore's documentation); values by hand."""
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], ms.float32)
    assert x.add_(Tensor(1.0, ms.float32)) is x
    np.testing.assert_array_equal(x.asnumpy(), [[2, 3], [4, 5]])
    x.sub_(Tensor([1.0, 2.0], ms.float32), alpha=2).mul_(Tensor(2.0, ms.float32)).div_(Tensor(4.0, ms.float32))
    np.testing.assert_array_equal(x.asnumpy(), [[0, -0.5], [1, 0.5]])
    x.clamp_(0.0, 0.75)
    np.testing.assert_array_equal(x.asnumpy(), [[0, 0], [0.75, 0.5]])
    x.masked_fill_(Tensor([[True, False], [False, True]]), 9.0)
    np.testing.assert_array_equal(x.asnumpy(), [[9, 0], [0.75, 9]])
    x.copy_(Tensor([1.0, 2.0], ms.float32))
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [1, 2]])
    x.fill_(3.0)
    np.testing.assert_array_equal(x.asnumpy(), [[3, 3], [3, 3]])
    x.zero_()
    assert x.dtype == ms.float32 and not x.asnumpy().any()


def test_in_place_update_of_a_parameter_is_an_assignment():
    """Issue 25 item 2: w.add_(delta) inside a training step updates the Parameter (what the pages'
    hand-written optimizers do); a later read sees the new value."""
    w = Parameter(Tensor([1.0, 2.0], ms.float32), name="w")
    w.add_(Tensor([0.5, -0.5], ms.float32), alpha=-2)
    np.testing.assert_array_equal(w.asnumpy(), [0.0, 3.0])


def test_in_place_refuses_a_wider_shape_or_a_float_into_integers():
    """Issue 25 item 2: an in-place op keeps shape and dtype; a result broadcast wider is refused with
    MindSpore's ValueError (oracle: AddExt's broadcast error), a float result into an Int32 Tensor with a
    TypeError (MindSpore 2.10's CPU build returns a new Float32 Tensor there)."""
    x = Tensor([[1.0, 2.0], [3.0, 4.0]], ms.float32)
    with pytest.raises(ValueError, match="keeps the shape"):
        x.add_(Tensor([[1.0], [2.0], [3.0]], ms.float32).reshape(3, 1, 1))
    with pytest.raises(TypeError, match="Fix"):
        Tensor([1, 2], ms.int32).add_(Tensor(0.5, ms.float32))


def test_contiguity_follows_views():
    """Issue 25 item 2: a swapped-axes view is not contiguous and contiguous() makes a copy that is
    (MindSpore 2.10: False, True; oracle run); from_numpy shares the array's memory (oracle: a change
    to the array shows in the Tensor)."""
    t = Tensor([[1.0, 2.0], [3.0, 4.0]], ms.float32).swapaxes(0, 1)
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    np.testing.assert_array_equal(t.contiguous().asnumpy(), [[1, 3], [2, 4]])
    a = np.arange(4, dtype=np.float32)
    shared = Tensor.from_numpy(a)
    a[0] = 9
    np.testing.assert_array_equal(shared.asnumpy(), [9, 1, 2, 3])


def test_in_place_under_grad_follows_the_value():
    """Issue 25 item 2: an in-place op on an intermediate inside a differentiated function is part of
    the computation: d/dx sum((x * 2).add_(x) ** 2) = 18 x (closed form), in PyNative and under jit."""
    def f(x):
        y = x * 2
        y.add_(x)
        return (y ** 2).sum()
    x = Tensor([1.0, -2.0], ms.float32)
    np.testing.assert_allclose(ms.grad(f)(x).asnumpy(), [18.0, -36.0])
    np.testing.assert_allclose(ms.jit(ms.grad(f))(x).asnumpy(), [18.0, -36.0])
