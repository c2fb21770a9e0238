"""``mindspore.mutable`` (issue 25, tutorial pages: compile_static_graph blocks 3 and 7).

Expected values: MindSpore 2.10 (CPU) on the pages' code and on the refusals (the oracle,
/tmp/oracle/bin/python), quoted in each test.
"""
import pytest

import minims as ms
from minims import nn


def test_mutable_tensors_in_a_list_and_tuple_pass_through_jit():
    """compile_static_graph:3; the oracle prints the list, the Tensor and the tuple as given."""
    a = ms.mutable([ms.tensor([1]), ms.tensor([2])])

    class Net(nn.Cell):
        @ms.jit
        def construct(self, a):
            b = ms.mutable(ms.tensor([3]))
            c = ms.mutable((ms.tensor([1]), ms.tensor([2])))
            return a, b, c

    assert str(Net()(a)) == (
        "([Tensor(shape=[1], dtype=Int64, value= [1]), Tensor(shape=[1], dtype=Int64, value= [2])], "
        "Tensor(shape=[1], dtype=Int64, value= [3]), (Tensor(shape=[1], dtype=Int64, value= [1]), "
        "Tensor(shape=[1], dtype=Int64, value= [2])))")


def test_mutable_scalars_add_in_jit():
    """compile_static_graph:7: ``net(mutable(1), mutable(2))`` of ``x + y``; the oracle prints 3."""
    class Net(nn.Cell):
        @ms.jit
        def construct(self, x, y):
            return x + y

    assert Net()(ms.mutable(1), ms.mutable(2)) == 3


@pytest.mark.parametrize("bad", ["s", None, [1, "a"]])
def test_mutable_refuses_what_mindspore_refuses(bad):
    """Oracle: ``mutable('s')``, ``mutable(None)``, ``mutable([1, 'a'])`` raise TypeError "For 'mutable',
    the 'input_data' should be one of (bool, int, float, Tensor, tuple, list, dict) ..."."""
    with pytest.raises(TypeError, match=r"should be one of \(bool, int, float, Tensor, tuple, list, dict\)"):
        ms.mutable(bad)


def test_mutable_refuses_a_self_referencing_list_and_dynamic_len_of_a_scalar():
    """Oracle: a list containing itself and ``mutable(1, dynamic_len=True)`` raise TypeError."""
    loop = [1]
    loop.append(loop)
    with pytest.raises(TypeError, match="no self-reference"):
        ms.mutable(loop)
    with pytest.raises(TypeError, match="dynamic_len"):
        ms.mutable(1, dynamic_len=True)
