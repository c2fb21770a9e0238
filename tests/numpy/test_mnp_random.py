"""``mnp.randn``/``rand``/``randint`` (issue 25: MindSpore's vmap page draws its minibatches with them).

Shapes, dtypes and the meaning of ``randint``'s arguments are MindSpore 2.10's (oracle: ``randn(2, 3)``
and ``rand(2)`` are Float32, ``randint(1, 10, (2,))`` and ``randint(5)`` Int32, the latter a scalar);
the draws themselves are minims' and repeat under ``set_seed``."""
import numpy as np
import pytest

import minims as ms
import minims.numpy as mnp


def test_shapes_and_dtypes_are_mindsporess():
    assert mnp.randn(3, 1, 32, 32).shape == (3, 1, 32, 32) and mnp.randn(2, 3).dtype == ms.float32
    assert mnp.rand(2).dtype == ms.float32 and mnp.randn((2, 3)).shape == (2, 3)
    assert mnp.randint(1, 10, (4, 3)).dtype == ms.int32 and mnp.randint(1, 10, (4, 3)).shape == (4, 3)
    assert mnp.randint(5).shape == () and mnp.randn(2, dtype=ms.float64).dtype == ms.float64


def test_draws_lie_in_their_ranges_and_repeat_after_set_seed():
    ms.set_seed(3)
    first = [mnp.rand(1000).asnumpy(), mnp.randint(1, 10, (1000,)).asnumpy(), mnp.randint(4, shape=(500,)).asnumpy()]
    ms.set_seed(3)
    again = [mnp.rand(1000).asnumpy(), mnp.randint(1, 10, (1000,)).asnumpy(), mnp.randint(4, shape=(500,)).asnumpy()]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    u, ints, below = first
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05     # mean of U[0, 1): 1/2
    assert set(np.unique(ints)) == set(range(1, 10)) and set(np.unique(below)) == set(range(4))
    z = mnp.randn(20000).asnumpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1.0) < 0.05                  # N(0, 1)


def test_an_empty_range_is_refused():
    with pytest.raises((ValueError, RuntimeError)):
        mnp.randint(3, 3, (2,))
