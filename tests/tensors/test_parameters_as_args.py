"""with_parameters_as_args: check_grads with respect to a Cell's Parameters, in float64."""
import numpy as np
import pytest
import sympy

import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor
from minims.testing import check_grads, symbols_like, with_parameters_as_args


def small_net():
    net = nn.Dense(3, 2, weight_init=Tensor(np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], np.float32)),
                   bias_init=Tensor(np.array([0.1, -0.2], np.float32)))
    return net, nn.WithLossCell(net, nn.MSELoss())


X = Tensor(np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]], np.float32))
Y = Tensor(np.array([[0.5, 0.0], [-1.0, 1.0]], np.float32))


def test_check_grads_differentiates_the_parameters_in_float64_and_leaves_them_unchanged():
    net, loss = small_net()
    params = net.trainable_params()
    before = [(p.dtype, p.asnumpy().copy()) for p in params]
    check_grads(with_parameters_as_args(loss, params), (X, Y, *params), order=2, rtol=1e-7, atol=1e-10)
    assert [(p.dtype, p.asnumpy().tolist()) for p in params] == [(d, a.tolist()) for d, a in before]


def test_its_gradients_are_those_of_ops_grad_with_weights_and_of_sympy():
    net, loss = small_net()
    params = net.trainable_params()
    by_weights = ops.grad(loss, None, params)(X, Y)
    by_args = ops.grad(with_parameters_as_args(loss, params), grad_position=(2, 3))(X, Y, *params)
    for a, b in zip(by_weights, by_args):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    w = symbols_like("w", (2, 3))                 # SymPy: the mean of (x w^T + b - y)^2
    x, y, b = X.asnumpy().astype(float), Y.asnumpy().astype(float), params[1].asnumpy().astype(float)
    residual = sympy.Matrix(x) * sympy.Matrix(w).T + sympy.Matrix([list(b)] * 2) - sympy.Matrix(y)
    mse = sum(e ** 2 for e in residual) / residual.shape[0] / residual.shape[1]
    at = dict(zip(w.flat, params[0].asnumpy().astype(float).flat))
    reference = np.array([[float(sympy.diff(mse, s).subs(at)) for s in row] for row in w])
    np.testing.assert_allclose(by_args[0].asnumpy(), reference, rtol=1e-6)


def test_a_wrong_rule_for_a_weight_is_caught():
    class Scale(nn.Cell):                         # returns the weight's gradient with the wrong sign
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([1.5, -0.5, 2.0])), name="w")
            self.internal_params = [self.w]

        def construct(self, x):
            return self.w * x

        def bprop(self, x, out, dout):
            return (dout * self.w,), {self.w: -dout * x}

    net = Scale()
    with pytest.raises(AssertionError, match="argument 1"):
        check_grads(with_parameters_as_args(net, [net.w]), (Tensor(np.array([1.0, 2.0, -1.0])), net.w), order=1)


def test_too_few_values_are_refused():
    net, loss = small_net()
    with pytest.raises(TypeError, match="one per Parameter"):
        with_parameters_as_args(loss, net.trainable_params())(X)
