"""Custom Cell bprop: the documentation's examples, higher order through bprop, and every misuse.

Printed strings are the ones on the documentation pages (seeds 000, 002, 003).
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor
from minims import dtype as mstype
from minims.testing import leftover_state
from seed_cells import GradNet, NetWithParam, ReluNet
from seed_cells import MatMulBpropNet as MatMulWithBprop
from seed_cells import Relu6Net as Relu6WithBprop
from seed_cells import XYYNet as XYY


def test_matmul_bprop_example_prints_as_the_page():
    x = ms.Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=ms.float32)
    y = ms.Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=ms.float32)
    assert str(GradNet(MatMulWithBprop())(x, y)) == (
        "(Tensor(shape=[2, 3], dtype=Float32, value=\n"
        "[[ 1.50000000e+00,  1.60000002e+00,  1.39999998e+00],\n"
        " [ 2.20000005e+00,  2.29999995e+00,  2.09999990e+00]]), Tensor(shape=[3, 3], dtype=Float32, value=\n"
        "[[ 1.00999999e+00,  1.29999995e+00,  2.09999990e+00],\n"
        " [ 1.10000002e+00,  1.20000005e+00,  2.29999995e+00],\n"
        " [ 3.09999990e+00,  2.20000005e+00,  4.30000019e+00]]))")


class Relu6Plain(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu6 = ops.ReLU6()

    def construct(self, x):
        return self.relu6(x)


def test_relu6_second_order_fails_without_bprop_and_works_with_it():
    x = Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=mstype.float32)
    with pytest.raises(RuntimeError, match="ReLU6Grad"):
        ops.grad(ops.grad(Relu6Plain()))(x)
    assert str(ops.grad(ops.grad(Relu6WithBprop()))(x)) == "[[1. 1. 1.]\n [1. 1. 1.]]"


def test_third_order_through_a_bprop_that_calls_another_cell():
    # bprop returns relu(x) * dout... differentiate grad(grad(net)) once more:
    # second derivative as seen through the bprop is d/dx relu(x) = 1 (x > 0); third is 0
    x = Tensor([0.5, 2.0], mstype.float64)
    third = ops.grad(ops.grad(ops.grad(Relu6WithBprop())))(x)
    np.testing.assert_array_equal(third.asnumpy(), [0.0, 0.0])


class SquareWithBprop(nn.Cell):
    """bprop = dout * 2x: a true derivative, so orders 2 and 3 can be checked by hand."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * 2 * x,)


def test_higher_orders_through_bprop_match_calculus():
    x = Tensor([1.5, -2.0], mstype.float64)
    cube = lambda x: SquareWithBprop()(x) * x             # x^3
    np.testing.assert_allclose(ops.grad(cube)(x).asnumpy(), 3 * x.asnumpy() ** 2)
    np.testing.assert_allclose(ops.grad(ops.grad(cube))(x).asnumpy(), 6 * x.asnumpy())
    np.testing.assert_allclose(ops.grad(ops.grad(ops.grad(cube)))(x).asnumpy(), [6.0, 6.0])


def test_hook_backward_example_prints_as_the_page(capsys):
    def hook_fn(grad_out):
        print(grad_out)
    hook = ops.HookBackward(hook_fn)

    def hook_test(x, y):
        z = x * y
        z = hook(z)
        return z * y
    out = ops.GradOperation(get_all=True)(hook_test)(Tensor(1, ms.float32), Tensor(2, ms.float32))
    print(out)
    assert capsys.readouterr().out == (
        "(Tensor(shape=[], dtype=Float32, value= 2),)\n"
        "(Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 4))\n")


def test_hook_backward_can_replace_the_gradient():
    hook = ops.HookBackward(lambda g: (g[0] * 10,))
    # d/dx hook(x*y)*y with the gradient at hook scaled: dx = 10 * y * y
    gx = ops.grad(lambda x, y: hook(x * y) * y)(Tensor(1.0), Tensor(2.0))
    assert float(gx) == 40.0


def test_hook_backward_rejects_a_non_callable():
    with pytest.raises(TypeError, match="callable"):
        ops.HookBackward(3)


def test_debugging_page_custom_bprop_example():
    out = ops.GradOperation(get_all=True)(XYY())(Tensor(1, ms.float32), Tensor(2, ms.float32))
    assert str(out) == ("(Tensor(shape=[], dtype=Float32, value= 3), "
                        "Tensor(shape=[], dtype=Float32, value= 2))")


def test_internal_params_give_parameter_gradients():
    net = NetWithParam()
    ins, ws = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(
        Tensor([3.0], ms.float32))
    assert ins[0].tolist() == [2.0]       # w * dout
    assert ws[0].tolist() == [3.0]        # x * dout


class TwoWeights(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor([2.0]), name="a")
        self.b = Parameter(Tensor([5.0]), name="b")
        self.internal_params = [self.a, self.b]

    def construct(self, x):
        return self.a * x + self.b

    def bprop(self, x, out, dout):
        return (self.a * dout,), {self.a: x * dout, self.b: dout}


def test_internal_params_with_two_weights():
    net = TwoWeights()
    ga, gb = ops.grad(net, grad_position=None, weights=net.trainable_params())(Tensor([3.0]))
    assert (ga.tolist(), gb.tolist()) == ([3.0], [1.0])


class Inner(nn.Cell):
    def construct(self, x):
        return x * 3

    def bprop(self, x, out, dout):
        return (dout * 30,)          # deliberately 10x the true derivative, to be visible


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.inner(x) + x

    def bprop(self, x, out, dout):
        return (dout * 2,)           # hides the inner cell's rule entirely


class BlockNoBprop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        return self.inner(x) + x


def test_nested_cells_each_with_a_bprop_use_the_outermost_rule():
    assert float(ops.grad(Block())(Tensor(1.0))) == 2.0


def test_a_bprop_cell_inside_a_larger_network_is_used():
    assert float(ops.grad(BlockNoBprop())(Tensor(1.0))) == 31.0      # 30 from Inner.bprop + 1


class Dropout2dWithBprop(nn.Cell):
    """The custom-layers page's Dropout2d: out and dout are tuples."""

    def __init__(self, keep_prob):
        super().__init__()
        self.keep_prob = keep_prob

    def construct(self, x):
        mask = ops.gt(x, 0)
        return x * 2, mask

    def bprop(self, x, out, dout):
        _, mask = out
        dy, _ = dout
        dy = dy * (1 / self.keep_prob)
        dy = mask.astype(ms.float32) * dy
        return (dy.astype(x.dtype),)


def test_bprop_receives_tuple_out_and_dout():
    net = Dropout2dWithBprop(0.5)
    net.bprop_debug = True
    g = ops.grad(lambda x: net(x)[0].sum())(Tensor([1.0, -1.0, 2.0]))
    assert g.tolist() == [2.0, 0.0, 2.0]


def make_bad(body):
    class Bad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([1.0]), name="w")

        def construct(self, x):
            return x * 2
    ns = {}
    exec(f"def bprop(self, x, out, dout):\n    {body}", {"ms": ms}, ns)
    Bad.bprop = ns["bprop"]

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Bad()

        def construct(self, x):
            return self.block(x)
    return Outer()


@pytest.mark.parametrize("body,kind,words", [
    ("return dout", TypeError, ["Outer.block.bprop", "tuple", "return (dx,)"]),
    ("return (dout, dout)", TypeError, ["Outer.block.bprop", "2 gradients", "1 input"]),
    ("return ()", TypeError, ["Outer.block.bprop", "0 gradients"]),
    ("return (self.w * dout,)", RuntimeError, ["Outer.block.bprop", "Parameter", "internal_params"]),
    ("return (dout[0:1],)", ValueError, ["Outer.block.bprop", "[1]", "[2]"]),
    ("return (dout.astype(ms.float64),)", TypeError, ["Float64", "Float32"]),
])
def test_bprop_misuse_is_an_error_naming_the_cell_path(body, kind, words):
    net = make_bad(body)
    with pytest.raises(kind) as info:
        ops.grad(net)(Tensor([1.0, 2.0], ms.float32))
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    assert not leftover_state(), leftover_state()
    assert ops.grad(lambda x: (x * x).sum())(Tensor([1.0, 2.0])).tolist() == [2.0, 4.0]


class _ScaledByWeight(nn.Cell):
    """construct reads a Parameter, bprop ignores it (no internal_params): the oracle's case."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([2.0, 3.0]), name="w")

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return (dout * 10,)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_bprop_cell_reading_a_parameter_gives_its_input_gradient_and_a_zero_weight_gradient(mode):
    """MindSpore 2.10, PyNative and GRAPH_MODE alike: the input gradient is the bprop's 10 * dout,
    the weight gradient is zero (the bprop does not give one)."""
    ms.set_context(mode=mode)
    try:
        net = _ScaledByWeight()
        x = Tensor([1.0, 1.0])
        dx, (dw,) = ops.grad(net, grad_position=0, weights=net.trainable_params())(x)
        assert dx.asnumpy().tolist() == [10.0, 10.0] and dw.asnumpy().tolist() == [0.0, 0.0]
        assert ops.grad(net, grad_position=0)(x).asnumpy().tolist() == [10.0, 10.0]
        (dw_only,) = ops.grad(net, None, net.trainable_params())(x)
        assert dw_only.asnumpy().tolist() == [0.0, 0.0]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
