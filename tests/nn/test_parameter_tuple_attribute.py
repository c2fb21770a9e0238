"""A ParameterTuple assigned to a Cell attribute registers its Parameters, as MindSpore 2.10 does (oracle
run 2026-11-26: trainable_params ['a', 'b'], nested ['inner.a', 'inner.b'], grad with respect to them
gives (x, 0) for ``x * ps[0]``)."""
import numpy as np

import minims as ms
from minims import Parameter, ParameterTuple, Tensor, nn


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ps = ParameterTuple([Parameter(Tensor(np.ones(2, np.float32)), name="a"),
                                  Parameter(Tensor(np.zeros(3, np.float32)), name="b")])

    def construct(self, x):
        return x * self.ps[0]


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.inner(x)


def test_parameter_tuple_attribute_parameters_are_trainable_and_differentiated():
    net = Inner()
    assert [p.name for p in net.trainable_params()] == ["a", "b"]
    x = Tensor(np.array([2.0, 3.0], np.float32))
    grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(x)
    np.testing.assert_array_equal(grads[0].asnumpy(), [2.0, 3.0])      # d(sum(x*a))/da = x
    np.testing.assert_array_equal(grads[1].asnumpy(), np.zeros(3))     # b is unused


def test_parameter_tuple_in_a_sub_cell_is_named_with_the_cell_path():
    assert [name for name, _ in Outer().parameters_and_names()] == ["inner.a", "inner.b"]
