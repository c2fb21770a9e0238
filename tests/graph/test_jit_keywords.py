"""jit takes keyword arguments, as MindSpore 2.10 (issue 25, MindSpore's own
tests/ut/python/parameter_feature/test_parameter.py::test_jit_kwargs, test_jit_mixed_arguments); before,
minims refused them. Expected values: the oracle (/tmp/oracle/bin/python) on the same code, which gives
them in Graph and PyNative mode alike.
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, jit, nn


@jit
def varargs(*args, **kwargs):
    return args[0] + args[1] - kwargs["d"]


@jit
def mixed(a, *args, b, c=5, **kwargs):
    return a + args[0] - args[1] + b - c + kwargs["d"]


@jit
def scaled(x, scale=2.0):
    return x * scale


@pytest.fixture(params=[ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=request.param)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_jit_function_takes_keywords(mode):
    """Issue 25: oracle: -1 -1 -1 -1; 5 5 6; [3, 6] [4, 8] [2, 4]; the gradient through a keyword call [3, 3]."""
    assert [varargs(1, 2, c=3, d=4), varargs(1, 2, d=4), varargs(1, 2, d=4, e=5),
            varargs(1, 2, 2.1, 2.2, d=4, e=5, f=6)] == [-1, -1, -1, -1]
    assert [mixed(1, 2, 3, b=4, c=5, d=6), mixed(1, 2, 3, b=4, d=6), mixed(1, 2, 3, 4, b=5, c=6, d=7)] == [5, 5, 6]
    t = Tensor(np.array([1.0, 2.0], np.float32))
    assert scaled(t, scale=Tensor(3.0, ms.float32)).asnumpy().tolist() == [3.0, 6.0]
    assert scaled(t, scale=4.0).asnumpy().tolist() == [4.0, 8.0]
    assert scaled(x=t).asnumpy().tolist() == [2.0, 4.0]
    grad = ms.grad(lambda x: scaled(x, scale=Tensor(3.0, ms.float32)).sum())(t)
    assert grad.asnumpy().tolist() == [3.0, 3.0]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0], np.float32)), name="w")

    @jit
    def construct(self, x, scale=1.0):
        return x * self.w * scale


def test_jit_construct_takes_keywords():
    """Issue 25: a @jit construct called with scale=3.0 (oracle: [6.], and the weight's gradient [3.])."""
    net, x = Net(), Tensor(np.array([1.0], np.float32))
    assert net(x, scale=3.0).asnumpy().tolist() == [6.0]
    (dw,) = ms.grad(net, grad_position=None, weights=net.trainable_params())(x, scale=3.0)
    assert dw.asnumpy().tolist() == [3.0]
