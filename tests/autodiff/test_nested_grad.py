"""Nested gradient levels: higher order, no perturbation confusion, clean state after errors.

Expected values are derivatives worked out by hand (stated next to each assertion).
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, ops
from minims.testing import leftover_state


def t64(v):
    return Tensor(np.asarray(v, np.float64))


def test_no_perturbation_confusion():
    # d/dx [ x * d/dy (x + y) ] = d/dx [ x * 1 ] = 1  (a confused implementation gives 2)
    one = t64(1.0)
    assert float(ops.grad(lambda x: x * ops.grad(lambda y: x + y)(one))(one)) == 1.0


def test_inner_grad_closing_over_outer_variable():
    # f(x) = x * d/dy (x*y)|y=2 = x*x  ->  f'(x) = 2x
    out = ops.grad(lambda x: x * ops.grad(lambda y: x * y)(t64(2.0)))(t64(3.0))
    assert float(out) == 6.0


def test_third_derivative_of_cube():
    # d^3/dx^3 x^3 = 6
    g3 = ops.grad(ops.grad(ops.grad(lambda x: x * x * x)))
    assert float(g3(t64(1.7))) == pytest.approx(6.0)


def test_second_derivative_through_exp_and_sin():
    # d^2/dx^2 exp(sin x) = exp(sin x) (cos^2 x - sin x)
    x = 0.3
    g2 = ops.grad(ops.grad(lambda x: ops.exp(ops.sin(x))))
    expected = np.exp(np.sin(x)) * (np.cos(x) ** 2 - np.sin(x))
    assert float(g2(t64(x))) == pytest.approx(expected, rel=1e-12)


def test_gradient_of_a_function_that_calls_grad_inside():
    # f(x) = x * g'(x) with g = x^3  ->  f = 3x^3, f' = 9x^2
    def f(x):
        return x * ops.grad(lambda z: z * z * z)(x)
    assert float(ops.grad(f)(t64(2.0))) == pytest.approx(36.0)


def test_second_order_with_respect_to_weights():
    # f = sum(x * w^2); df/dx = w^2; d/dw sum(w^2) = 2w
    w = Parameter(Tensor([1.0, 2.0], ms.float32), name="w")
    x = Tensor([3.0, 4.0], ms.float32)
    f = lambda x: (x * w * w).sum()
    (gw,) = ops.grad(lambda x: ops.grad(f)(x).sum(), grad_position=None, weights=[w])(x)
    np.testing.assert_allclose(gw.asnumpy(), [2.0, 4.0])


def test_reused_intermediate_accumulates():
    # a = x*x; d/dx sum(a + a) = 4x
    x = t64([1.0, -2.0])
    out = ops.grad(lambda x: (lambda a: (a + a).sum())(x * x))(x)
    np.testing.assert_allclose(out.asnumpy(), [4.0, -8.0])


def test_relu6_has_no_second_order_rule():
    x = Tensor([[0.5, 0.6], [1.2, 7.0]], ms.float32)
    first = ops.grad(ops.relu6)(x)
    np.testing.assert_array_equal(first.asnumpy(), [[1, 1], [1, 0]])
    with pytest.raises(RuntimeError, match="ReLU6Grad"):
        ops.grad(ops.grad(ops.relu6))(x)
    assert not leftover_state(), leftover_state()
    np.testing.assert_array_equal(ops.grad(ops.relu6)(x).asnumpy(), [[1, 1], [1, 0]])


def test_relu_can_be_differentiated_twice():
    # relu'' = 0 away from the kink
    x = Tensor([-1.0, 2.0], ms.float32)
    np.testing.assert_array_equal(ops.grad(ops.grad(ops.relu))(x).asnumpy(), [0.0, 0.0])


def test_a_failed_gradient_leaves_nothing_behind():
    w = Parameter(Tensor([1.0, 2.0]), name="w")

    def bad(x):
        return ops.matmul(x * w, Tensor(np.ones((3, 3), np.float32)))
    with pytest.raises(ValueError, match="MatMul"):
        ops.grad(bad, weights=[w])(Tensor(np.ones((2, 2), np.float32)))
    assert not leftover_state(), leftover_state()
    np.testing.assert_allclose(ops.grad(lambda x: (x * w).sum())(Tensor([1.0, 1.0])).asnumpy(), [1, 2])


def test_a_failure_inside_an_inner_grad_pops_both_levels():
    def inner_fails(x):
        return ops.grad(lambda y: ops.reshape(y, (5,)))(x)
    with pytest.raises(ValueError, match="Reshape"):
        ops.grad(lambda x: inner_fails(x).sum())(t64([1.0, 2.0]))
    assert not leftover_state(), leftover_state()
    assert float(ops.grad(lambda x: x * x)(t64(3.0))) == 6.0


def test_a_tracer_that_escapes_its_level_is_just_its_value():
    saved = []

    def f(x):
        saved.append(x * 2)
        return x.sum()
    ops.grad(f)(t64([1.0, 2.0]))
    np.testing.assert_allclose((saved[0] + 1).asnumpy(), [3.0, 5.0])
    # an escaped tracer used inside a new level is a constant there
    out = ops.grad(lambda y: (y * saved[0]).sum())(t64([1.0, 1.0]))
    np.testing.assert_allclose(out.asnumpy(), [2.0, 4.0])
