"""Issue 26 item 5: ``nn.ForwardValueAndGrad`` (``minims/nn/value_and_grad.py``).  Expected values:
MindSpore 2.10 oracle runs on the same Cell (quoted per test), also the closed form of
sum(w * x * y)."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, ParameterTuple, Tensor, nn


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2., 3.], np.float32)), name="w")

    def construct(self, x, y):
        return (self.w * x * y).sum()


def _args():
    return Tensor(np.array([1., 2.], np.float32)), Tensor(np.array([3., 4.], np.float32))


def _flat(tree):
    if isinstance(tree, (tuple, list)):
        return [v for t in tree for v in _flat(t)]
    return [tree.asnumpy().tolist()]


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_forward_value_and_grad_structures(mode):
    """Item 5.  MindSpore 2.10: value 30; default: dx [6, 12]; get_all: ([6, 12], [2, 6]); get_by_list:
    ([3, 8],); both: (([6, 12], [2, 6]), ([3, 8],)); get_all with sens 2: ([12, 24], [4, 12])."""
    net = _Net()
    x, y = _args()
    w = ParameterTuple(net.trainable_params())
    ms.set_context(mode=getattr(ms, mode))
    try:
        cases = [
            (nn.ForwardValueAndGrad(net), (x, y), [[6, 12]]),
            (nn.ForwardValueAndGrad(net, get_all=True), (x, y), [[6, 12], [2, 6]]),
            (nn.ForwardValueAndGrad(net, weights=w, get_by_list=True), (x, y), [[3, 8]]),
            (nn.ForwardValueAndGrad(net, weights=w, get_all=True, get_by_list=True), (x, y),
             [[6, 12], [2, 6], [3, 8]]),
            (nn.ForwardValueAndGrad(net, get_all=True, sens_param=True), (x, y, Tensor(2.0, ms.float32)),
             [[12, 24], [4, 12]]),
        ]
        for cell, args, grads in cases:
            value, got = cell(*args)
            assert float(value.asnumpy()) == 30.0
            assert _flat(got) == grads
        value, (gx, gy) = nn.ForwardValueAndGrad(net, get_all=True)(x, y)
        assert isinstance(gx, ms.Tensor) and not isinstance(value, ms.Parameter)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_forward_value_and_grad_needs_weights_for_get_by_list():
    """Item 5.  MindSpore 2.10: get_by_list=True without weights raises TypeError "'weights' must be
    Parameters array"."""
    with pytest.raises(TypeError, match="'weights' must be a tuple or list of Parameters"):
        nn.ForwardValueAndGrad(_Net(), get_by_list=True)
