"""A Tensor assigned to a Cell's Parameter attribute becomes that Parameter's data (found at the issue-25 merge).

MindSpore 2.10 (oracle): after ``net.w = Tensor([3., 4.])`` on a Cell whose ``w`` is a Parameter, ``net.w``
is still that Parameter (``net.w is p``), it holds ``[3. 4.]`` and ``trainable_params()`` still lists
``w``.  minims replaced the Parameter by the Tensor, which dropped it from the parameters an optimizer
updates and a checkpoint saves, without a word."""
import numpy as np

from minims import Parameter, Tensor, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        return x * self.w


def test_a_tensor_given_to_a_parameter_attribute_is_the_parameters_new_data():
    net = Net()
    p = net.w
    net.w = Tensor(np.array([3.0, 4.0], np.float32))
    assert net.w is p and isinstance(net.w, Parameter)
    np.testing.assert_array_equal(net.w.asnumpy(), [3.0, 4.0])
    assert [q.name for q in net.trainable_params()] == ["w"]
    np.testing.assert_array_equal(net(Tensor(np.ones(2, np.float32))).asnumpy(), [3.0, 4.0])


def test_a_plain_value_still_replaces_a_parameter_attribute():
    """Not a Tensor (here None): the attribute becomes that value, as before (MindSpore: the same)."""
    net = Net()
    net.w = None
    assert net.w is None and net.trainable_params() == []
