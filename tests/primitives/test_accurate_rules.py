"""The rules of tanh, sigmoid, sqrt and pow keep their accuracy where the textbook rules lose it.

Each expected value is the mathematics evaluated by mpmath (or SymPy): the derivative of a saturated
tanh or sigmoid is small but not zero; the gradient primitives computed from the input are
differentiable to any order and agree with SymPy; pow's derivative keeps the exponent y - 1 exact.
"""
import mpmath
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.primitives.input_grads import SigmoidGrad, SqrtGrad, TanhGrad
from minims.testing import check_grads, reference_grad


def _ulps(got, true, dtype):
    """|got - true| in ULP of the true value (true: an mpmath number)."""
    spacing = 2.0 ** (int(mpmath.floor(mpmath.log(abs(true), 2))) - (np.finfo(dtype).nmant))
    return float(abs(mpmath.mpf(float(got)) - true) / spacing)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_gradient_of_a_saturated_tanh_is_small_but_not_zero(dtype):
    for x in (10.0, 20.0, 40.0) if dtype is np.float32 else (10.0, 40.0, 300.0):
        got = ms.grad(ops.tanh)(Tensor(np.array(x, dtype))).asnumpy()
        true = mpmath.sech(x) ** 2
        assert got > 0 and _ulps(got, true, dtype) <= 2, (x, got, true)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_and_its_gradient_are_accurate_at_both_ends(dtype):
    for x in (-80.0, -30.0, 30.0, 80.0) if dtype is np.float32 else (-700.0, -40.0, 40.0, 700.0):
        t = Tensor(np.array(x, dtype))
        with mpmath.workdps(50):
            s = 1 / (1 + mpmath.exp(-x))
            ds = mpmath.exp(-x) / (1 + mpmath.exp(-x)) ** 2
        if abs(ds) >= np.finfo(dtype).smallest_normal:
            assert _ulps(ms.grad(ops.sigmoid)(t).asnumpy(), ds, dtype) <= 2, x
        assert _ulps(ops.sigmoid(t).asnumpy(), s, dtype) <= 2, x


def test_the_second_derivative_of_sigmoid_near_zero_keeps_its_digits():
    # sigma'' = -sigma' tanh(x/2) ~ -x/8 near 0: the textbook rule's 1 - 2 sigma cancels there
    x = 6e-4
    got = ms.grad(ms.grad(ops.sigmoid))(Tensor(np.array(x))).asnumpy()
    with mpmath.workdps(50):
        true = mpmath.diff(lambda v: 1 / (1 + mpmath.exp(-v)), x, 2)
    assert _ulps(got, true, np.float64) <= 4


@pytest.mark.parametrize("fn", [ops.tanh, ops.sigmoid, ops.sqrt])
def test_the_rules_are_differentiable_to_third_order(fn):
    x = Tensor(np.array([0.3, 1.7, 2.9]))
    check_grads(fn, (x,), order=3, modes=("rev", "fwd"))


@pytest.mark.parametrize("prim", [TanhGrad(), SigmoidGrad(), SqrtGrad()])
def test_the_gradient_primitives_agree_with_sympy_in_both_inputs(prim):
    x, d = Tensor(np.array([0.4, 1.3, 3.0])), Tensor(np.array([0.7, -1.1, 2.0]))
    got = ms.grad(lambda a, b: prim(a, b), grad_position=(0, 1))(x, d)
    want = reference_grad(lambda a, b: prim(a, b), x, d, wrt=(0, 1))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-14)


def test_the_gradient_primitives_are_the_derivatives_of_the_forward_sympy_rules():
    v, d = sympy.symbols("v d", real=True)
    for prim, forward in ((TanhGrad(), sympy.tanh(v)), (SigmoidGrad(), 1 / (1 + sympy.exp(-v))),
                          (SqrtGrad(), sympy.sqrt(v))):
        rule = prim.sympy(np.array(v, dtype=object), np.array(d, dtype=object))
        assert sympy.simplify(sympy.sympify(rule[()] if hasattr(rule, "shape") else rule)
                              - d * sympy.diff(forward, v)) == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_keeps_the_exponent_y_minus_1_exact(dtype):
    # y - 1 rounds for y = -31.96; x^(y-1) is then 179 ULP off in float64 without the correction
    x, y = (575.75, -31.96) if dtype is np.float64 else (890.32, -7.054)
    x, y = dtype(x), dtype(y)
    gx, gy = ms.grad(ops.pow, grad_position=(0, 1))(Tensor(np.array(x)), Tensor(np.array(y)))
    with mpmath.workdps(50):
        X, Y = mpmath.mpf(float(x)), mpmath.mpf(float(y))
        assert _ulps(gx.asnumpy(), Y * X ** (Y - 1), dtype) <= 2
        assert _ulps(gy.asnumpy(), X ** Y * mpmath.log(X), dtype) <= 2


def test_pow_derivative_rules_still_handle_a_zero_base():
    x = Tensor(np.array([0.0, 0.0, 2.0]))
    y = Tensor(np.array([0.0, 2.5, 0.3]))
    gx, gy = ms.grad(ops.pow, grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy()[:2], [0.0, 0.0])
    np.testing.assert_array_equal(gy.asnumpy()[:2], [0.0, 0.0])
    # the correction factor 1 + r log x never sees log 0 (x = 0 takes the factor 1)
    assert np.isfinite(ms.grad(ms.grad(ops.pow))(x, y).asnumpy()[1:]).all()
