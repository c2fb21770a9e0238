"""Tensor ``+`` and ``-`` take a list or tuple operand, as MindSpore's do (issue 25, tutorial pages).

tensor_and_parameter block 17 runs ``tensor_y[[1], ...] -= [4, 3, 2, 1]``. Expected values: MindSpore
2.10 (CPU) on the same expressions (the oracle, /tmp/oracle/bin/python), quoted in each test.
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops


def test_tensor_minus_a_list_converts_the_list():
    """Issue 25, tensor_and_parameter:17. Oracle: ``Tensor(np.arange(4.)) - [4, 3, 2, 1]`` is
    ``[-4, -2, 0, 2]``, ``[4, 3, 2, 1] - t`` is ``[4, 2, 0, -2]``, ``t + (1, 2, 3, 4)`` is ``[1, 3, 5, 7]``."""
    t = Tensor(np.arange(4).astype(np.float32))
    assert (t - [4, 3, 2, 1]).asnumpy().tolist() == [-4, -2, 0, 2]
    assert ([4, 3, 2, 1] - t).asnumpy().tolist() == [4, 2, 0, -2]
    assert (t + (1, 2, 3, 4)).asnumpy().tolist() == [1, 3, 5, 7]
    assert ([1, 2, 3, 4] + t).asnumpy().tolist() == [1, 3, 5, 7]


def test_the_list_takes_the_tensors_dtype():
    """Oracle: ``Tensor([1, 2]) + [1.5, 2.5]`` is ``Tensor(shape=[2], dtype=Int64, value= [2, 4])``
    (the list becomes Int64 first); ``Tensor([1, 2], float16) - [0.1, 0.2]`` is Float16 ``[0.8999, 1.7998]``."""
    assert repr(Tensor([1, 2]) + [1.5, 2.5]) == "Tensor(shape=[2], dtype=Int64, value= [2, 4])"
    assert repr(Tensor([1, 2], ms.float16) - [0.1, 0.2]) == \
        "Tensor(shape=[2], dtype=Float16, value= [ 8.9990e-01,  1.7998e+00])"


def test_augmented_subtraction_of_a_list_into_an_indexed_row():
    """The page's block: oracle prints ``[[0, 1, 2, 3], [0, 2, 4, 6], [8, 9, 10, 11]]``."""
    y = Tensor(np.arange(12).reshape(3, 4).astype(np.float32))
    y[[1], ...] -= [4, 3, 2, 1]
    assert y.asnumpy().tolist() == [[0, 1, 2, 3], [0, 2, 4, 6], [8, 9, 10, 11]]


def test_other_operators_and_ops_still_refuse_a_list():
    """Oracle: ``t * [1, 2, 3, 4]``, ``t > [...]`` and ``ops.sub(t, [...])`` raise TypeError."""
    t = Tensor(np.arange(4).astype(np.float32))
    for bad in (lambda: t * [1, 2, 3, 4], lambda: t > [0, 1, 2, 3], lambda: ops.sub(t, [1, 2, 3, 4])):
        with pytest.raises(TypeError):
            bad()


def test_gradient_flows_through_the_tensor_operand():
    """d/dt sum(t - c) = 1 for every entry (closed form)."""
    t = Tensor(np.arange(4).astype(np.float32))
    assert ms.grad(lambda x: (x - [1, 2, 3, 4]).sum())(t).asnumpy().tolist() == [1, 1, 1, 1]
