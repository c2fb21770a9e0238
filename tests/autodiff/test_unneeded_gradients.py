"""The backward pass computes only the gradients somebody will read.

A gradient level knows, for every recorded primitive, which inputs are its own tracers; the others
(a batch of data, labels, a constant) get no gradient.  The tape tells the running rule
(``minims.core.base.wants_grad``) and MatMul and the convolution family then skip the product
for such an input: for a convolution over the data that is a whole transposed convolution.

Each test counts the primitives the backward pass binds (an observer on the interpreter stack) and
checks that the gradients that *are* computed still equal central differences.
"""
import contextlib
import inspect

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor
from minims.core import stack
from minims.primitives import base
from minims.primitives import table
from minims.testing import check_grads


@contextlib.contextmanager
def bound_primitives():
    """Collect the names of every primitive bound inside the block."""
    names = []

    def observe(prim, args):
        names.append(prim.name)

    stack.add_rewriter(observe)
    try:
        yield names
    finally:
        stack.remove_rewriter(observe)


def rng_tensor(shape, seed):
    return Tensor(np.random.default_rng(seed).standard_normal(shape))


def test_conv_over_constant_data_computes_no_input_gradient():
    x, w = rng_tensor((2, 3, 6, 6), 0), rng_tensor((4, 3, 3, 3), 1)
    conv = ops.Conv2D(out_channel=4, kernel_size=3)
    with bound_primitives() as names:
        ops.grad(lambda w_: conv(x, w_).sum())(w)
    assert "Conv2DBackpropFilter" in names
    assert "Conv2DBackpropInput" not in names
    with bound_primitives() as names:
        ops.grad(lambda x_, w_: conv(x_, w_).sum(), grad_position=(0, 1))(x, w)
    assert {"Conv2DBackpropFilter", "Conv2DBackpropInput"} <= set(names)


def test_matmul_with_one_constant_operand_does_one_product():
    x, y = rng_tensor((3, 4), 2), rng_tensor((4, 5), 3)
    for ta, tb in [(False, False), (True, False), (False, True), (True, True)]:
        mm = ops.MatMul(ta, tb)
        a = x.T if ta else x
        b = y.T if tb else y
        with bound_primitives() as names:
            ops.grad(lambda b_: mm(a, b_).sum())(b)
        assert names.count("MatMul") == 2, (ta, tb, names)     # forward + the one needed product
        check_grads(lambda b_: mm(a, b_), (b,), order=2, seed=4)       # a constant: skipped
        check_grads(lambda a_: mm(a_, b), (a,), order=2, seed=5)       # b constant: skipped


def test_elementwise_ops_with_a_constant_operand_compute_one_gradient():
    """``x * 2.0``, ``x * mask`` (a constant Tensor), ``x / c``, ``x ** 3``: the backward pass computes the
    gradient of ``x`` only; d/dx sum(x*c) = c, sum(x/c) = 1/c, sum(x**3) = 3x**2."""
    x, c = rng_tensor((3,), 13), rng_tensor((3,), 14)
    # the primitive, how often it is bound (forward + the one gradient), what only the constant's
    # gradient would need, the function and its derivative
    cases = [("Mul", 2, "-", lambda x_: x_ * 2.0, np.full(3, 2.0)),
             ("Mul", 2, "-", lambda x_: x_ * c, c.asnumpy()),
             ("Div", 2, "Neg", lambda x_: x_ / c, 1 / c.asnumpy()),
             ("Pow", 2, "Log", lambda x_: x_ ** 3.0, 3 * x.asnumpy() ** 2)]
    for name, count, unneeded, f, expected in cases:
        with bound_primitives() as names:
            g = ops.grad(lambda x_: f(x_).sum())(x)
        assert names.count(name) == count and unneeded not in names, (name, names)
        np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-12)
        check_grads(f, (x,), order=2, seed=15)


def test_get_by_list_does_not_differentiate_the_inputs():
    """GradOperation(get_by_list=True) returns the weights' gradients only, so the data input is a
    constant: a network's first layer computes no gradient for its input."""
    net = nn.Dense(4, 3)
    x = rng_tensor((5, 4), 5).astype(ms.float32)
    grad_fn = ops.GradOperation(get_by_list=True)(lambda x_: net(x_).sum(), net.trainable_params())
    with bound_primitives() as names:
        dw, db = grad_fn(x)
    assert names.count("MatMul") == 2          # forward, and x^T @ dout for the weight only
    np.testing.assert_allclose(dw.asnumpy(), np.ones((3, 5)) @ x.asnumpy(), rtol=1e-5)   # float32 sums
    np.testing.assert_allclose(db.asnumpy(), np.full(3, 5.0), rtol=1e-6)


def test_skipping_is_invisible_to_higher_orders():
    """grad of grad through a convolution: the inner level's skipped gradients are ones the outer
    level never needed either; both orders still match central differences."""
    x, w = rng_tensor((1, 2, 5, 5), 6), rng_tensor((3, 2, 3, 3), 7)
    conv = ops.Conv2D(out_channel=3, kernel_size=3, pad_mode="same")
    check_grads(lambda w_: ops.tanh(conv(x, w_)), (w,), order=2, seed=8)
    check_grads(lambda x_: ops.tanh(conv(x_, w)), (x,), order=2, seed=9)


def test_a_rule_called_by_hand_computes_every_gradient():
    """Outside a backward pass the mask is unset: calling bprop directly gives every gradient."""
    assert base.needed_mask() is None and base.wants_grad(0) and base.wants_grad(1)
    x, y = rng_tensor((2, 3), 10), rng_tensor((3, 2), 11)
    mm = ops.MatMul()
    dx, dy = mm.bprop(x, y, mm(x, y), ops.ones((2, 2), ms.float64))
    assert dx is not None and dy is not None


def test_the_mask_is_restored_after_a_failing_rule():
    class Bad(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        ops.grad(lambda x_: Bad()(x_).sum())(rng_tensor((2,), 12))
    assert base.needed_mask() is None
    w = Parameter(Tensor(np.ones((2, 2))), name="w")
    (dw,) = ops.GradOperation(get_by_list=True)(lambda x_: ops.matmul(x_, w).sum(), [w])(
        rng_tensor((3, 2), 13))
    assert dw.shape == (2, 2)


def test_every_rule_that_asks_declares_it():
    """The tape builds the mask only for primitives with ``skips_unneeded_grads``; a rule that calls
    ``wants_grad`` without the flag would read an unset (None: "all needed") mask and skip nothing."""
    askers = [row.cls for row in table()
              if row.bprop and "wants_grad" in inspect.getsource(row.cls.bprop)]
    assert {c.__name__ for c in askers} >= {"MatMul", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                                            "Mul", "Div", "Pow", "Sub", "Maximum", "Minimum"}
    assert all(c.skips_unneeded_grads for c in askers), [c.__name__ for c in askers if not c.skips_unneeded_grads]
