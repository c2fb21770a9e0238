"""Parameter's checks and init_data as in MindSpore 2.10 (issue 25, MindSpore's own
tests/ut/python/nn/test_parameter.py). Expected types and words: MindSpore 2.10 (CPU) on the same code
(the oracle, /tmp/oracle/bin/python), quoted in each test.
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor
from minims.common.initializer import initializer


def test_parameter_of_a_python_bool_is_refused():
    """Issue 25: Parameter(True) (oracle: ValueError "Parameter data can not be `bool`"; Parameter(Tensor(True))
    is a Bool Parameter)."""
    with pytest.raises(ValueError, match="^Parameter data can not be `bool`"):
        Parameter(True, name="a")
    assert Parameter(Tensor(True), name="a").dtype == ms.bool_


def test_set_data_of_a_float_into_an_integer_parameter_is_refused():
    """Issue 25: set_data(1.2) on an Int32 Parameter truncated it to 1 silently; MindSpore 2.10 raises TypeError
    "Incoming Parameter dtype can not be converted to current dtype implicitly. Current dtype is Int32, and
    incoming is Float." (oracle); a float Tensor is converted (oracle: Int32 Parameter, Tensor(1.5) -> 1)."""
    p = Parameter(Tensor(2, ms.int32), name="i")
    with pytest.raises(TypeError, match="^Incoming Parameter dtype can not be converted to current dtype implicitly. "
                                        "Current dtype is Int32, and incoming is Float."):
        p.set_data(1.2)
    assert p.asnumpy() == 2
    p.set_data(Tensor(1.5, ms.float32))
    assert p.asnumpy() == 1 and p.dtype == ms.int32


def test_init_data_returns_the_parameter():
    """Issue 25: Parameter(initializer('One', (2,), int32)).init_data() (oracle: the Parameter itself, named 'w',
    holding [1, 1])."""
    p = Parameter(initializer("One", shape=(2,), dtype=ms.int32), name="w")
    assert p.init_data() is p
    np.testing.assert_array_equal(p.asnumpy(), np.array([1, 1], np.int32))
