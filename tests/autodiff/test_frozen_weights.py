"""A Parameter with requires_grad=False listed among the weights: gradient zero in PyNative mode, its
gradient in Graph mode, as MindSpore 2.10 (issue 25, MindSpore's own
tests/st/pynative/grad/test_common_grad.py::test_pynative_requires_grad_*). Expected values: the
oracle (/tmp/oracle/bin/python) on net = p1 * x * p2 + p3 with p1 = 2, p2 = 3 frozen, x = 1.
"""
import numpy as np

import minims as ms
from minims import Parameter, Tensor, nn, ops


class Frozen(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p1 = Parameter(Tensor(np.array([2.0], np.float32)), name="p1", requires_grad=False)
        self.p2 = Parameter(Tensor(np.array([3.0], np.float32)), name="p2", requires_grad=False)
        self.p3 = Parameter(Tensor(np.array([1.0], np.float32)), name="p3")

    def construct(self, x):
        return self.p1 * x * self.p2 + self.p3


def weight_grads(net):
    x = Tensor([1.0], ms.float32)
    ins, ws = ops.GradOperation(get_all=True, get_by_list=True)(net, [net.p1, net.p2, net.p3])(x)
    return [g.asnumpy().tolist() for g in ins], [g.asnumpy().tolist() for g in ws]


def test_frozen_weights_get_gradient_zero_in_pynative_mode():
    """Issue 25: PyNative (oracle): inputs [[6.0]], weights [[0.0], [0.0], [1.0]]; ms.grad(weights=[p1, p3])
    [[0.0], [1.0]]."""
    net = Frozen()
    assert weight_grads(net) == ([[6.0]], [[0.0], [0.0], [1.0]])
    got = ms.grad(net, grad_position=None, weights=[net.p1, net.p3])(Tensor([1.0], ms.float32))
    assert [g.asnumpy().tolist() for g in got] == [[0.0], [1.0]]


def test_frozen_weights_are_differentiated_in_graph_mode(graph_mode):
    """Issue 25: Graph mode (oracle): weights [[3.0], [2.0], [1.0]] (d/dp1 = x p2, d/dp2 = p1 x)."""
    assert weight_grads(Frozen()) == ([[6.0]], [[3.0], [2.0], [1.0]])
