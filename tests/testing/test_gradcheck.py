"""check_grads and numerical_grad: they pass on correct rules and fail, with a report, on wrong ones.

The wrong rules live in small test primitives (subclasses with a broken ``bprop``), so the check is
shown to fail at exactly the order where the mistake is: a broken first derivative at order 1, a
correct first derivative whose own bprop is broken at order 2, and so on.
"""
import math
import re

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.core.primitive import Primitive
from minims.primitives.math import Mul, Sin
from minims.testing import check_grads, numerical_grad


def f64(values):
    return Tensor(np.asarray(values, dtype=np.float64))


X = f64([0.3, -0.7, 1.2])
M = f64([[0.5, -1.0, 2.0], [1.5, 0.2, -0.4]])


# ----- test primitives with wrong rules ---------------------------------------------------------------
class WrongSin(Sin):
    """sin with the derivative's sign flipped: wrong at order 1."""

    def bprop(self, x, out, dout):
        return (ops.mul(dout, ops.neg(ops.cos(x))),)


class WrongMulY(Mul):
    """x * y whose gradient for y is 2x instead of x: wrong for argument 1 only."""

    def bprop(self, x, y, out, dout):
        return ops.mul(dout, y), ops.mul(dout, ops.mul(x, 2.0))


class Poly(Primitive):
    """One primitive per derivative of x**4, the last one with a chosen mistake.

    ``Poly(0)`` is x**4, ``Poly(1)`` is 4x**3, ``Poly(2)`` is 12x**2, ``Poly(3)`` is 24x.  The bprop
    of ``Poly(k)`` multiplies ``dout`` by ``Poly(k + 1)``, except at ``wrong_at``, where it uses
    1.1 times the correct value.  So the derivative of order ``wrong_at + 1`` is the first wrong one.
    """

    COEF = (1.0, 4.0, 12.0, 24.0, 24.0)
    POWER = (4, 3, 2, 1, 0)

    def __init__(self, k=0, wrong_at=None):
        self.k, self.wrong_at = k, wrong_at

    def impl(self, x):
        return self.COEF[self.k] * x ** self.POWER[self.k]

    def bprop(self, x, out, dout):
        deriv = Poly(self.k + 1, self.wrong_at)(x)
        if self.k == self.wrong_at:
            deriv = ops.mul(deriv, 1.1)
        return (ops.mul(dout, deriv),)


def failure(f, args, order):
    with pytest.raises(AssertionError) as info:
        check_grads(f, args, order=order)
    return str(info.value)


# ----- check_grads passes on correct functions -----------------------------------------------------
@pytest.mark.parametrize("order", [1, 2, 3])
def test_passes_on_elementwise_composition(order):
    check_grads(lambda x: ops.tanh(x) * ops.exp(ops.sin(x)) / (1 + x * x), (X,), order=order)


@pytest.mark.parametrize("order", [1, 2, 3])
def test_passes_on_the_correct_poly_chain(order):
    check_grads(Poly(), (X,), order=order)


def test_passes_with_tuple_and_non_scalar_outputs():
    def f(x, m):
        return (ops.matmul(m, ops.sin(x)), x * x), ops.sum(m * m, 0)
    check_grads(f, (X, M), order=2)


def test_float32_arguments_are_checked_in_float64():
    x32 = Tensor(np.array([0.3, -0.7, 1.2], dtype=np.float32))
    check_grads(lambda x: ops.exp(x) * x, (x32,), order=2)


def test_integer_and_bool_arguments_are_held_fixed():
    idx = Tensor(np.array([2, 0, 2], dtype=np.int64))
    mask = Tensor(np.array([True, False, True]))
    check_grads(lambda x, i, m, s: ops.select(m, ops.gather(x, i, 0), x * s), (X, idx, mask, 3.0),
                order=2)


# ----- check_grads fails on wrong rules, naming the order and the argument ---------------------------
def test_fails_on_a_wrong_first_derivative():
    report = failure(lambda x: ops.sum(WrongSin()(x)), (X,), order=1)
    assert "order 1" in report and "argument 0" in report
    for word in ("analytic", "numeric", "relative error", "rtol=", "atol="):
        assert word in report


def test_report_values_are_the_analytic_and_numeric_derivatives():
    # with a scalar input and scalar output, <vjp(w), u> = w*u*(-cos x) and the numeric one w*u*cos x
    report = failure(WrongSin(), (f64(0.5),), order=1)
    analytic = float(re.search(r"analytic .*=\s+(\S+)", report).group(1))
    numeric = float(re.search(r"numeric .*=\s+(\S+)", report).group(1))
    assert analytic == pytest.approx(-numeric, rel=1e-8)
    rel = float(re.search(r"relative error (\S+):", report).group(1))
    assert rel == pytest.approx(2.0, rel=1e-6)


def test_fails_for_the_wrong_argument_only():
    report = failure(lambda x, y: WrongMulY()(x, y), (X, f64([1.0, 2.0, 3.0])), order=1)
    assert "argument 1" in report


@pytest.mark.parametrize("wrong_at", [0, 1, 2])
def test_fails_at_exactly_the_order_of_the_mistake(wrong_at):
    f = Poly(0, wrong_at)
    order = wrong_at + 1
    for lower in range(1, order):
        check_grads(f, (X,), order=lower)            # the derivatives below it are right
    report = failure(f, (X,), order=order)
    assert f"order {order}" in report


def test_second_order_report_says_it_is_the_bprop_of_bprops():
    report = failure(Poly(0, 1), (X,), order=2)
    assert "bprop of the bprops" in report


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_a_nan_gradient_fails():
    class NanBprop(Sin):
        def bprop(self, x, out, dout):
            return (ops.div(ops.mul(dout, 0.0), 0.0),)
    with pytest.raises(AssertionError, match="order 1"):
        check_grads(NanBprop(), (X,), order=1)


def test_tolerances_are_used():
    slightly_wrong = Poly(0, 0)            # first derivative 10% off
    with pytest.raises(AssertionError):
        check_grads(slightly_wrong, (X,), order=1)
    check_grads(slightly_wrong, (X,), order=1, rtol=0.2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="order"):
        check_grads(ops.sin, (X,), order=0)
    with pytest.raises(ValueError, match="float Tensor"):
        check_grads(lambda n: n * 2, (Tensor(np.array([1, 2])),))


def test_seed_makes_checks_reproducible():
    a = failure(WrongSin(), (X,), order=1)
    b = failure(WrongSin(), (X,), order=1)
    assert a == b


# ----- numerical_grad ---------------------------------------------------------------------------------
def test_numerical_grad_matches_calculus():
    g = numerical_grad(lambda x: ops.sum(ops.sin(x) * x), X)
    x = X.asnumpy()
    np.testing.assert_allclose(g, np.sin(x) + x * np.cos(x), rtol=1e-8)


def test_numerical_grad_several_arguments_and_fixed_ones():
    gx, gn, gm = numerical_grad(lambda x, n, m: ops.sum(ops.matmul(m, x * n)),
                                (X, Tensor(np.array([1, 2, 3])), M))
    assert gn is None
    np.testing.assert_allclose(gx, M.asnumpy().sum(0) * [1, 2, 3], rtol=1e-8)
    np.testing.assert_allclose(gm, np.tile(X.asnumpy() * [1, 2, 3], (2, 1)), rtol=1e-8)


def test_numerical_grad_of_a_scalar_argument():
    g = numerical_grad(lambda x: ops.exp(x), f64(0.25))
    assert g.shape == ()
    assert float(g) == pytest.approx(math.exp(0.25), rel=1e-8)


def test_check_grads_does_not_modify_its_arguments():
    x32 = Tensor(np.array([0.3, -0.7], dtype=np.float32))
    check_grads(ops.tanh, (x32,), order=1)
    assert x32.dtype is ms.float32
    np.testing.assert_array_equal(x32.asnumpy(), np.array([0.3, -0.7], dtype=np.float32))


def test_numpy_float64_scalar_makes_a_float64_tensor():
    # MindSpore 2.10 prints Float64 for Tensor(np.float64(0.1)) (np.float64 subclasses Python float)
    assert Tensor(np.float64(0.1)).dtype is ms.float64
