"""GradOperation's and a custom bprop's refusals carry MindSpore 2.10's words, which MindSpore's own
tests assert on (issue 25, tests criterion: tools/mindspore_tests/suite/tests/ut/python/optimizer/
test_auto_grad.py). Each message opens with MindSpore's sentence, then minims' explanation and fix.
Expected type and sentence: MindSpore 2.10 (CPU) on the same code (the oracle, /tmp/oracle/bin/python;
Graph mode where its sentence differs by mode, as in those tests).
"""
import numpy as np
import pytest

from minims import Parameter, Tensor, nn, ops

X = Tensor(np.array([2.0], np.float32))


class Mul(nn.Cell):
    def construct(self, x, y):
        return x * y


@pytest.mark.parametrize("name", ["get_all", "get_by_list", "sens_param"])
def test_grad_operation_flag_not_a_bool(name):
    """Issue 25: GradOperation(get_all=2) (oracle: TypeError "For 'GradOperation', the 'get_all' should be
    bool, but got int")."""
    with pytest.raises(TypeError) as info:
        ops.GradOperation(**{name: 2})
    assert str(info.value).startswith(f"For 'GradOperation', the '{name}' should be bool, but got int")


def test_grad_operation_without_a_function():
    """Issue 25: GradOperation()() (oracle, Graph mode: "'GradOperation' requires a forward network or function
    as an input, while the input is empty."; PyNative: Python's TypeError for the missing 'fn')."""
    with pytest.raises(TypeError) as info:
        ops.GradOperation()()
    message = str(info.value)
    assert message.startswith("'GradOperation' requires a forward network or function as an input, while the "
                              "input is empty.")
    assert "missing 1 required positional argument: 'fn'" in message


def test_grad_operation_of_none():
    """Issue 25: GradOperation()(None) (oracle, Graph mode: "For 'GradOperation', the first argument must be a
    'Function' or 'Cell', but got ...")."""
    with pytest.raises(TypeError, match="^For 'GradOperation', the first argument must be a 'Function' or 'Cell', "
                                        "but got NoneType"):
        ops.GradOperation()(None)


class OnlyOut(Mul):
    def bprop(self, out):
        return out, out


class NoDout(Mul):
    def bprop(self, x, y, out):
        return out, out


def test_bprop_without_out_and_dout():
    """Issue 25: bprop(self, out) (oracle, Graph mode: "The function 'bprop' of Primitive or Cell requires at
    least 2 params 'out' and 'dout', but got only 1.")."""
    with pytest.raises(TypeError, match=r"^The function 'bprop' of Primitive or Cell requires at least 2 params "
                                        r"'out' and 'dout', but got only 1\."):
        ops.GradOperation(get_all=True)(OnlyOut())(X, X)


def test_bprop_without_dout():
    """Issue 25: bprop(self, x, y, out) (oracle, Graph mode: TypeError "The params of function 'bprop' of
    Primitive or Cell requires the forward inputs as well as the 'out' and 'dout'.")."""
    with pytest.raises(TypeError, match=r"^The params of function 'bprop' of Primitive or Cell requires the "
                                        r"forward inputs as well as the 'out' and 'dout'\."):
        ops.GradOperation(get_all=True)(NoDout())(X, X)


class ReadsParameter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return x * self.z * y

    def bprop(self, x, y, out, dout):
        return x * self.z, y


def test_bprop_reading_a_parameter():
    """Issue 25: a bprop using a Parameter it was not given (MindSpore's words in its PyNative test: "The user
    defined 'bprop' function does not support using Parameter"; Graph mode raises RuntimeError so worded)."""
    with pytest.raises(RuntimeError, match="^The user defined 'bprop' function does not support using Parameter"):
        ops.GradOperation(get_all=True)(ReadsParameter())(X, X)
