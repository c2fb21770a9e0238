"""A Parameter made from a Python int is Int32, as MindSpore 2.10's (issue 25; oracle run 2026-11-26:
``Parameter(1).dtype`` is Int32, ``Parameter(2**40).asnumpy()`` is 0)."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor


def test_parameter_of_a_python_int_is_int32():
    p = Parameter(-5, name="count")
    assert p.dtype == ms.int32 and p.asnumpy().dtype == np.int32 and int(p) == -5


def test_parameter_of_an_int_outside_int32_raises_instead_of_wrapping():
    """MindSpore 2.10 keeps 2**40 as 0 without a word; minims refuses and names the 64-bit spelling."""
    with pytest.raises(ValueError, match=r"Int32.*Fix: Parameter\(Tensor\(1099511627776, ms.int64\)\)"):
        Parameter(2 ** 40, name="big")
    assert Parameter(Tensor(2 ** 40, ms.int64)).asnumpy() == 2 ** 40
