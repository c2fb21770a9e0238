"""``Cell.set_inputs`` and ``Tensor(shape=[None, ...], dtype=...)`` (issue 25: 12 of MindSpore's own grad and
hook tests declare their inputs this way).  Facts from MindSpore 2.10 (oracle runs): the placeholder's
shape has -1 for an unknown dimension and it prints ``Tensor(shape=[-1, 3], dtype=Float32, value=``;
reading or computing with it raises ValueError; ``set_inputs`` changes nothing in PyNative, and
``get_inputs`` returns what it declared."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn, ops


class Double(nn.Cell):
    def construct(self, x):
        return x * 2


def test_a_placeholder_has_a_shape_with_minus_one_and_no_values():
    t = Tensor(shape=[None, 3], dtype=ms.float32)
    assert t.shape == (-1, 3) and t.dtype == ms.float32
    assert repr(t).startswith("Tensor(shape=[-1, 3], dtype=Float32, value=")
    for use in (lambda: t + 1, lambda: t.asnumpy(), lambda: float(t), lambda: t[0]):
        with pytest.raises(ValueError, match="unknown size"):
            use()
    with pytest.raises(TypeError):
        ops.add(t, 1)
    # a Tensor with data, one from an initializer and a Parameter are built as before
    assert Tensor(np.ones(2, np.float32)).tolist() == [1.0, 1.0]
    assert Tensor(shape=(2,), dtype=ms.float32, init="ones").tolist() == [1.0, 1.0]
    assert Parameter(Tensor(np.ones(2, np.float32)), "w").name == "w"


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_set_inputs_is_kept_and_the_cell_runs_on_every_size(mode):
    net = Double()
    declared = Tensor(shape=[None], dtype=ms.float32)
    net.set_inputs(declared)
    assert net.get_inputs() == (declared,)
    ms.set_context(mode=mode)
    try:
        for n in (2, 5):
            assert net(Tensor(np.ones(n, np.float32))).tolist() == [2.0] * n
        grad = ops.GradOperation()(net)(Tensor(np.ones(3, np.float32)))
        assert grad.tolist() == [2.0, 2.0, 2.0]                     # d(2x)/dx
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert Double().get_inputs() is None
