"""Found by the lead while merging issue 22. Remainders: ``ops.Mod``/``ops.fmod`` truncate, ``ops.floor_mod``/``%`` floor, and both are
differentiated (found while fixing issue 22: ``Mod`` was an alias of ``FloorMod``, silently the
other sign, and both had gradient 0).

Forward values: MindSpore 2.10 on the CPU (``ops.Mod()(x, y)`` and ``ops.fmod`` give [-1, 1, -1.5,
1.5], ``ops.FloorMod``, ``ops.remainder`` and ``%`` give [1, -1, 0.5, -0.5] for the inputs below).
Derivatives: d/dx = 1 and d/dy = -q(x / y), with q = floor or trunc, checked against central
differences and SymPy (``test_symbolic.py``).
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.testing import check_grads

X = np.array([-7.0, 7.0, -7.5, 7.5])
Y = np.array([2.0, -2.0, 2.0, -2.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mod_truncates_and_floor_mod_floors_as_in_mindspore(dtype):
    x, y = Tensor(X.astype(dtype)), Tensor(Y.astype(dtype))
    assert ops.Mod()(x, y).tolist() == ops.fmod(x, y).tolist() == [-1.0, 1.0, -1.5, 1.5]
    assert ops.FloorMod()(x, y).tolist() == ops.floor_mod(x, y).tolist() == [1.0, -1.0, 0.5, -0.5]
    assert ops.remainder(x, y).tolist() == (x % y).tolist() == [1.0, -1.0, 0.5, -0.5]
    xi, yi = Tensor(X.astype(np.int32) // 1), Tensor(Y.astype(np.int32))
    assert ops.Mod()(xi, yi).tolist() == [-1, 1, -1, 1]          # MindSpore 2.10: Int32 [-1, 1, -1, 1]


def test_remainders_have_the_derivatives_of_their_formulas():
    """d(x mod y)/dx = 1; d/dy = -floor(x/y) for floor_mod (4, -3, 4, -3 here; MindSpore 2.10 agrees)
    and -trunc(x/y) for fmod (3, 3, 3, 3; MindSpore 2.10's Mod gives floor's 4, -3, 4, -3)."""
    x, y = Tensor(X), Tensor(Y)
    for f, dy in ((ops.floor_mod, -np.floor(X / Y)), (ops.fmod, -np.trunc(X / Y))):
        gx, gy = ms.grad(lambda a, b: f(a, b).sum(), (0, 1))(x, y)
        assert gx.tolist() == [1.0] * 4 and gy.tolist() == dy.tolist()
        _, tangent = ops.jvp(f, (x, y), (Tensor(np.ones(4)), Tensor(np.full(4, 0.5))))
        assert tangent.tolist() == (1 + 0.5 * dy).tolist()
        check_grads(f, (x, y), order=2, modes=("fwd", "rev"))


def test_a_python_int_converts_to_a_bool_tensor():
    """Found with issue 22's review: NumPy's raw "Invalid integer data type 'b'" came out.
    MindSpore 2.10: Tensor(1, bool_), Tensor(5, bool_) and Tensor(-1, bool_) are True, Tensor(0, bool_) False."""
    assert [Tensor(v, ms.bool_).item() for v in (1, 5, -1, 0)] == [True, True, True, False]
    assert Tensor(1, ms.bool_).dtype == ms.bool_
