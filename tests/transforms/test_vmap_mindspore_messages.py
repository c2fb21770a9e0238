"""vmap's refusals carry MindSpore 2.10's words, which MindSpore's own tests assert on (issue 25,
tests criterion: tools/mindspore_tests/suite/tests/ut/python/vmap/test_vmap.py).

Each message starts with MindSpore's sentence and goes on with minims' explanation and fix. Expected
type and sentence: MindSpore 2.10 (CPU) running the same call, PyNative and Graph mode alike (the
oracle, /tmp/oracle/bin/python).
"""
import numpy as np
import pytest

from minims import Parameter, Tensor, nn, ops


class ThreeInputsTwoOutputs(nn.Cell):
    def construct(self, x, y, z):
        return x + y, z


class TwoInputs(nn.Cell):
    def construct(self, x, y):
        return x + y


def three_inputs(x, y, z):
    return x + y, z


X = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
NET = ThreeInputsTwoOutputs

CASES = [
    (lambda: ops.vmap(NET(), in_axes=None, out_axes=0)(X, X, 1), RuntimeError,
     "The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=None)(X, X, 1), RuntimeError,
     "The 'out_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=(None, None, None, (None, None)))(X, X, 1), RuntimeError,
     "The 'out_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got "
     "(None, None, None, (None, None))."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=(0, 0, 0))(X, X, 1), RuntimeError,
     "The size of vmap's 'out_axes' should be equal to the number of results of 'fn': 2, but got size: 3."),
    (lambda: ops.vmap(NET(), in_axes=(1., 1., None), out_axes=0)(X, X, 1), RuntimeError,
     "The axis in vmap's 'in_axes' should be a None or a scalar of type Int64Imm, but got a 1."),
    (lambda: ops.vmap(NET(), in_axes=(1.5, 1, None), out_axes=0)(X, X, 1), RuntimeError,
     "The axis in vmap's 'in_axes' should be a None or a scalar of type Int64Imm, but got a 1.5."),
    (lambda: ops.vmap(NET(), in_axes=(-3, 1, None), out_axes=0)(X, X, 1), RuntimeError,
     "The axis: -3 in 'in_axes' is out of bounds for array of dimension [-2,2)."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=(None, 0))(X, X, 1), RuntimeError,
     "It is invalid that source is not None and dst is None."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=0)(X, X), TypeError,
     "The parameters number of the function is 3, but the number of provided arguments is 2."),
    (lambda: ops.vmap(three_inputs, in_axes=(1, 1, None), out_axes=0)(X, X), TypeError,
     "The parameters number of the function is 3, but the number of provided arguments is 2."),
    (lambda: ops.vmap(TwoInputs(), in_axes=(1, 1, None), out_axes=0)(X, X), RuntimeError,
     "When vmap`s 'in_axes' is a tuple or list, and its size must be equal to the number of arguments of "
     "'fn': 2, but got size: 3."),
    (lambda: ops.vmap(NET(), in_axes=(1, 0, None), out_axes=0)(X, X, 1), RuntimeError,
     "The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got 3 and 2."),
    (lambda: ops.vmap(NET(), in_axes=(None, None, None), out_axes=0)(X, X, 1), RuntimeError,
     "The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got (None, None, None)."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=(0, 1))(X, X, 1), RuntimeError,
     "The axis: 1 in 'out_axes' is out of bounds for array of dimension [-1,1)."),
    (lambda: ops.vmap(NET(), in_axes=(1, 1, None), out_axes=(-3, 0))(X, X, 1), RuntimeError,
     "The axis: -3 in 'out_axes' is out of bounds for array of dimension [-2,2)."),
]


@pytest.mark.parametrize("call, error, sentence", CASES, ids=[c[2][:50] for c in CASES])
def test_vmap_refusal_starts_with_mindspores_sentence(call, error, sentence):
    """Issue 25 (tests criterion): the misuse raises MindSpore's type, its message opening with MindSpore's
    sentence (oracle, both modes)."""
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(sentence)


def test_vmap_of_a_cell_without_inputs_has_no_axis_size():
    """Issue 25: vmap of a Cell called without inputs (oracle: RuntimeError "Failed to get 'axis_size' within
    the scope of vmap.")."""
    class NoInput(nn.Cell):
        def construct(self):
            return 1

    with pytest.raises(RuntimeError, match="^Failed to get 'axis_size' within the scope of vmap."):
        ops.vmap(NoInput())()


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([0.0, 1.0, 2.0]), name="w")

    def construct(self, x):
        return x * self.w


class ScaleTwo(Scale):
    def construct(self, x, y):
        return x * self.w, y


def test_cell_list_ensemble_needs_one_example_per_cell():
    """Issue 25: vmap of a CellList of 2 Cells over 3 examples raised nothing and dropped the third example;
    MindSpore 2.10 raises ValueError "... but we get axis_size: 3 and the cell size: 2." (oracle)."""
    with pytest.raises(ValueError, match="but we get axis_size: 3 and the cell size: 2."):
        ops.vmap(nn.CellList([Scale(), Scale()]), in_axes=0)(Tensor(np.ones((3, 3), np.float32)))


def test_cell_list_ensemble_needs_two_cells_of_one_signature():
    """Issue 25: a CellList of one Cell, or of Cells taking different inputs (oracle: RuntimeError, these words)."""
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(RuntimeError, match=r"the size of 'CellList' must be greater than 1, but got 1\."):
        ops.vmap(nn.CellList([Scale()]), in_axes=0)(x)
    with pytest.raises(RuntimeError, match="whose elements's inputs should be consistent"):
        ops.vmap(nn.CellList([Scale(), ScaleTwo()]), in_axes=0)(x)
