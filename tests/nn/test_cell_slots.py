"""What may replace a Cell's Parameter or sub-cell attribute, insert_param_to_cell's and
insert_child_to_cell's checks, Cell.apply and mindspore.dtype_to_nptype, as MindSpore 2.10 (issue 25,
MindSpore's own tests/ut/python/nn/test_cell.py). Expected types and words: MindSpore 2.10 (CPU) on the
same code (the oracle, /tmp/oracle/bin/python), quoted in each test.
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn

T = Tensor(np.ones((2, 3), np.float32))


class Holder(nn.Cell):
    def __init__(self, *values):
        super().__init__()
        for make in values:
            self.a = make()


def param():
    return Parameter(T, name="w")


def cell():
    return nn.ReLU()


@pytest.mark.parametrize("steps, error, words", [
    ((param, cell), KeyError, "For 'insert_child_to_cell', the a child cell already exists in the network."),
    ((param, lambda: None, cell), KeyError, "For 'insert_child_to_cell', the a child cell already exists"),
    ((cell, param), KeyError, "For 'insert_param_to_cell', the a parameter already exists in the network."),
    ((cell, lambda: None, param), KeyError, "For 'insert_param_to_cell', the a parameter already exists"),
    ((cell, lambda: T), TypeError, "Sub cell 'a' already exists in network, can not assign this type"),
    ((cell, lambda: None, lambda: 3), TypeError, "Sub cell 'a' already exists in network"),
    ((param, lambda: 3), TypeError, "Parameter 'a' already exists in network, can not assign this type"),
], ids=["param-cell", "param-None-cell", "cell-param", "cell-None-param", "cell-tensor", "cell-None-int",
        "param-int"])
def test_a_slot_keeps_its_kind(steps, error, words):
    """Issue 25: a Parameter attribute cannot become a Cell, nor a sub-cell a Parameter or a plain value,
    also after None was assigned (oracle: these types and words; before, minims replaced it silently)."""
    with pytest.raises(error, match=words):
        Holder(*steps)


def test_a_slot_takes_its_own_kind_again():
    """Issue 25: Parameter, None, Parameter and Cell, None, Cell are accepted (oracle: parameters ['w'], and
    ['a.weight'] for a Dense)."""
    assert list(Holder(param, lambda: None, param).parameters_dict()) == ["w"]
    assert list(Holder(lambda: nn.Dense(2, 2), lambda: None, lambda: nn.Dense(2, 2)).parameters_dict()) == \
        ["a.weight", "a.bias"]


def test_insert_param_to_cell_checks_the_name():
    """Issue 25: insert_param_to_cell('' or 'a.b' or the name of a plain attribute) raises KeyError (oracle)."""
    m = nn.Cell()
    for name in ("", "a.b", "training"):
        with pytest.raises(KeyError):
            m.insert_param_to_cell(name, Parameter(T, name="p"))
    m.insert_param_to_cell("weight", Parameter(T, name="weight"))
    assert list(m.parameters_dict()) == ["weight"]


def test_insert_child_to_cell_checks_the_name():
    """Issue 25: insert_child_to_cell(3, cell) raises TypeError, onto a plain attribute KeyError (oracle)."""
    m = nn.Cell()
    with pytest.raises(TypeError):
        m.insert_child_to_cell(3, nn.ReLU())
    with pytest.raises(KeyError, match="the training child cell already exists"):
        m.insert_child_to_cell("training", nn.ReLU())


def test_apply_visits_children_before_their_parent():
    """Issue 25: Cell.apply(fn) (oracle: SequentialCell(Dense, Dense) visits Dense, Dense, SequentialCell and
    returns the Cell itself)."""
    net = nn.SequentialCell(nn.Dense(2, 2), nn.Dense(2, 2))
    seen = []
    assert net.apply(lambda c: seen.append(type(c).__name__)) is net
    assert seen == ["Dense", "Dense", "SequentialCell"]


def test_dtype_to_nptype():
    """Issue 25: mindspore.dtype_to_nptype (oracle: float32 -> numpy.float32, int64 -> numpy.int64; 'float32'
    -> KeyError)."""
    assert ms.dtype_to_nptype(ms.float32) is np.float32 and ms.dtype_to_nptype(ms.int64) is np.int64
    with pytest.raises(KeyError):
        ms.dtype_to_nptype("float32")


def test_add_flags_recursive_sets_attributes_on_every_cell():
    """Issue 25: Cell.add_flags_recursive(sink_mode=True) (MindSpore 2.10's documented example, oracle:
    net.sink_mode and net.relu.sink_mode are True; it returns the Cell)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(x)

    net = Net()
    assert net.add_flags_recursive(sink_mode=True) is net
    assert net.sink_mode is True and net.relu.sink_mode is True


def test_a_compiled_construct_may_write_a_parameter_slot():
    """Issue 25: in a @jit construct, self.weight = x (x the number 1) is allowed (MindSpore's static-graph
    page, block 27, oracle: prints ret:1); outside compilation the same assignment raises TypeError."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(Tensor(3.0, ms.float32), name="w")

        @ms.jit
        def construct(self, x, y):
            self.weight = x
            return x

    assert Net()(1, 2) == 1
