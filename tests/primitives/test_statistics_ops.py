"""``ops.var``, ``ops.std`` and ``ops.mm``: values from NumPy and MindSpore 2.10, gradients from SymPy."""
import numpy as np
import pytest
import sympy

import minims as ms
import minims.ops as ops
from minims import Tensor

X = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])


@pytest.mark.parametrize("axis, ddof, keepdims", [(None, 0, False), (0, 0, False), (1, 1, True), ((0, 1), 1, False)])
def test_var_and_std_agree_with_numpy(axis, ddof, keepdims):
    x = Tensor(X, ms.float64)
    np.testing.assert_allclose(ops.var(x, axis, ddof, keepdims).asnumpy(), np.var(X, axis, ddof=ddof, keepdims=keepdims))
    np.testing.assert_allclose(ops.std(x, axis, ddof, keepdims).asnumpy(), np.std(X, axis, ddof=ddof, keepdims=keepdims))


def test_var_defaults_to_the_population_variance_as_mindspore():
    # MindSpore 2.10 (oracle): ops.var / Tensor.var of [1, 2, 3, 4] is 1.25, std 1.11803
    x = Tensor([1.0, 2.0, 3.0, 4.0])
    assert ops.var(x).item() == 1.25 and x.var().item() == 1.25
    assert abs(x.std().item() - 1.1180340) < 1e-6


def test_var_and_std_gradients_match_sympy():
    syms = sympy.symbols("a0:4")
    mean = sum(syms) / 4
    variance = sum((s - mean) ** 2 for s in syms) / 3              # ddof = 1
    point = dict(zip(syms, [1.0, 2.0, 4.0, 7.0]))
    want_var = [float(sympy.diff(variance, s).subs(point)) for s in syms]
    want_std = [float(sympy.diff(sympy.sqrt(variance), s).subs(point)) for s in syms]
    x = Tensor([1.0, 2.0, 4.0, 7.0], ms.float64)
    np.testing.assert_allclose(ms.grad(lambda t: ops.var(t, ddof=1))(x).asnumpy(), want_var, rtol=1e-12)
    np.testing.assert_allclose(ms.grad(lambda t: ops.std(t, ddof=1))(x).asnumpy(), want_std, rtol=1e-12)


def test_var_refuses_a_ddof_that_is_not_a_count():
    with pytest.raises(TypeError, match="ddof must be an int >= 0"):
        ops.var(Tensor([1.0, 2.0]), ddof=-1)


def test_mm_multiplies_matrices_and_refuses_vectors():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(ops.mm(Tensor(a), Tensor(b)).asnumpy(), a @ b)
    with pytest.raises(ValueError, match="mm: 'mat2' must be a 2-D matrix.*ops.matmul"):
        ops.mm(Tensor(a), Tensor(np.ones(3)))
