"""Parameter and ParameterTuple basics, with the outputs printed on the 'Cell and Parameter' page."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, ParameterTuple, Tensor, ops


def test_parameter_repr_as_printed_by_the_page():
    w = Parameter(Tensor(np.ones((5, 3)), ms.float32), name="w")
    assert repr(w) == "Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)"
    assert str([w]) == "[Parameter (name=w, shape=(5, 3), dtype=Float32, requires_grad=True)]"


def test_index_assignment_then_set_data_with_ints_keeps_float32():
    b = Parameter(Tensor(np.array([-1.2, -0.3, 0.09]), ms.float32), name="b")
    b[0] = 1.0
    assert b.asnumpy()[0] == 1.0
    b.set_data(Tensor([3, 4, 5]))
    # the page prints [3. 4. 5.]
    assert str(b.asnumpy()) == "[3. 4. 5.]" and b.dtype is ms.float32


def test_assign_writes_the_value():
    b = Parameter(Tensor(np.zeros(3), ms.float32), name="b")
    ops.assign(b, ms.Tensor([7, 8, 9]))
    assert str(b.asnumpy()) == "[7. 8. 9.]"      # printed by the page


def test_assign_rejects_a_plain_tensor_and_a_wrong_shape():
    with pytest.raises(TypeError, match="Parameter"):
        ops.assign(Tensor([1.0]), Tensor([2.0]))
    b = Parameter(Tensor(np.zeros(3), ms.float32), name="b")
    with pytest.raises(ValueError, match=r"\[3\]"):
        ops.assign(b, Tensor([1.0, 2.0]))


def test_parameter_tuple_clone_prefixes_names_as_the_page_prints():
    x = Parameter(default_input=ms.Tensor(np.arange(2 * 3).reshape((2, 3))), name="x")
    z = Parameter(default_input=2.0, name="z")
    params = ParameterTuple((x, z))
    copy = params.clone("params_copy")
    assert str(params) == ("(Parameter (name=x, shape=(2, 3), dtype=Int64, requires_grad=True), "
                           "Parameter (name=z, shape=(), dtype=Float32, requires_grad=True))")
    assert str(copy) == ("(Parameter (name=params_copy.x, shape=(2, 3), dtype=Int64, requires_grad=True), "
                         "Parameter (name=params_copy.z, shape=(), dtype=Float32, requires_grad=True))")
    copy[0][0, 0] = 100
    assert x.asnumpy()[0, 0] == 0


@pytest.mark.parametrize("init, expected", [("same", ([1.0, 2.0], [[3.0, 4.0]])),
                                            ("zeros", ([0.0, 0.0], [[0.0, 0.0]])),
                                            ("ones", ([1.0, 1.0], [[1.0, 1.0]]))])
def test_parameter_tuple_clone_initialises_as_mindspore(init, expected):
    """MindSpore 2.10: clone('m', init='zeros') gives zeros named m.w1, m.w2; the originals stay."""
    w1 = Parameter(Tensor([1.0, 2.0]), name="w1")
    w2 = Parameter(Tensor([[3.0, 4.0]]), name="w2")
    clones = ParameterTuple([w1, w2]).clone("m", init=init)
    assert [c.name for c in clones] == ["m.w1", "m.w2"]
    assert [c.tolist() for c in clones] == list(expected)
    assert all(c.dtype == ms.float32 for c in clones)
    assert (w1.tolist(), w2.tolist()) == ([1.0, 2.0], [[3.0, 4.0]])
    assert w1.clone(init="zeros").tolist() == [0.0, 0.0] and w1.clone(init="zeros").name == "w1"
