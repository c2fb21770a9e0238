"""A Python float given with a dtype is converted once to that dtype (found writing chapter 11).

``Tensor(0.9, mstype.float64)`` went through float32 first and held 0.8999999761581421; MindSpore 2.10
holds 0.9 exactly (checked on the oracle: ``Tensor(0.9, ms.float64).asnumpy() == 0.9``).  Without a
dtype a Python float is still Float32, as in MindSpore."""
import numpy as np

import minims as ms
from minims import Tensor


def test_a_python_float_with_float64_keeps_its_value():
    assert float(Tensor(0.9, ms.float64).asnumpy()) == 0.9


def test_a_python_float_with_float16_is_rounded_once_from_the_exact_value():
    # 0.1 rounded straight to float16 (IEEE 754 nearest), not via float32
    assert Tensor(0.1, ms.float16).asnumpy() == np.float16(0.1)


def test_a_python_float_without_dtype_is_float32():
    t = Tensor(0.9)
    assert t.dtype == ms.float32 and t.asnumpy() == np.float32(0.9)
