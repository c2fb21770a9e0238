"""``mindspore.mint.narrow`` (issue 25, tutorial pages: compile_static_graph block 30).

Expected values: MindSpore 2.10 (CPU, the oracle) on the same calls, quoted in each test.
"""
import numpy as np
import pytest

import minims as ms
from minims import mint, nn


def _x():
    return ms.tensor(np.arange(9).reshape(3, 3).astype(np.float32))


def test_narrow_slices_an_axis():
    """Oracle: narrow(x, 1, 1, 2) is [[1, 2], [4, 5], [7, 8]]; narrow(x, 0, -2, 2) is [[3, 4, 5], [6, 7, 8]];
    narrow(x, 1, tensor(1), 2) is the first again."""
    x = _x()
    assert mint.narrow(x, 1, 1, 2).asnumpy().tolist() == [[1, 2], [4, 5], [7, 8]]
    assert mint.narrow(x, 0, -2, 2).asnumpy().tolist() == [[3, 4, 5], [6, 7, 8]]
    assert mint.narrow(x, 1, ms.tensor(1), 2).asnumpy().tolist() == [[1, 2], [4, 5], [7, 8]]


def test_narrow_gradient_and_graph_mode_agree():
    """The page's block: grad of narrow(x, 1, 1, 2) is [[0, 1, 1]] * 3 (oracle), in PyNative and in jit."""
    class Net(nn.Cell):
        def construct(self, x):
            return mint.narrow(x, 1, 1, 2)

    net, x = Net(), _x()
    want = [[0, 1, 1]] * 3
    assert ms.grad(net)(x).asnumpy().tolist() == want
    net.construct = ms.jit(net.construct, backend="ms_backend")
    assert ms.grad(net)(x).asnumpy().tolist() == want


@pytest.mark.parametrize("args, error", [((2, 0, 1), ValueError), ((1, 2, 2), ValueError), ((1, 4, 1), ValueError),
                                         ((1, 0, -1), ValueError), ((1.0, 0, 1), TypeError)])
def test_narrow_refuses_what_mindspore_refuses(args, error):
    """Oracle: dim out of range, start + length past the end, start out of range, a negative length:
    ValueError; a float dim: TypeError."""
    with pytest.raises(error, match="narrow"):
        mint.narrow(_x(), *args)


def test_a_mint_name_minims_lacks_says_so():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_function'"):
        mint.no_such_function  # noqa: B018
