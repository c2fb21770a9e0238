"""The grad API's conveniences MindSpore's own tests rely on (issue 25, item 6).

Every expected value and exception type is what MindSpore 2.10 (CPU, the oracle
/tmp/oracle/bin/python) gives for the same code, quoted in each test; the gradients are also the
closed forms written beside them.
"""
import numpy as np
import pytest

from minims import Parameter, Tensor, nn, ops


def f32(*values):
    return Tensor(np.array(values, np.float32))


class Net(nn.Cell):
    """x * w * y + b with w trainable and b frozen."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(f32(2.0), name="w")
        self.b = Parameter(f32(3.0), name="b", requires_grad=False)

    def construct(self, x, y=1.0):
        return x * self.w * y + self.b


def test_get_by_list_without_weights_takes_the_trainable_params():
    """Issue 25 item 6: MindSpore 2.10 (PyNative): ``GradOperation(get_by_list=True)(net)(x)`` is
    ``([5.],)`` (d/dw = x y, the frozen b left out), with get_all ``(([2.],), ([5.],))``; a plain
    function has no weights: ``()``."""
    net, x = Net(), f32(5.0)
    assert [g.tolist() for g in ops.GradOperation(get_by_list=True)(net)(x)] == [[5.0]]
    ins, ws = ops.GradOperation(get_all=True, get_by_list=True)(net)(x)
    assert [g.tolist() for g in ins] == [[2.0]] and [g.tolist() for g in ws] == [[5.0]]
    assert ops.GradOperation(get_by_list=True)(lambda a: a * 2)(x) == ()


def test_keyword_arguments_are_inputs_after_the_positional_ones():
    """Issue 25 item 6: MindSpore 2.10: ``GradOperation()(net)(x, y=4)`` is [8.] (w y); with get_all
    ``([8.], [10.])`` (w y, x w); ``grad(net)`` the same [8.]; ``sens`` by name is the sensitivity
    (gradient [4.] of 2x at sens [2.]); a str keyword is passed, not differentiated."""
    net, x, y = Net(), f32(5.0), f32(4.0)
    assert ops.GradOperation()(net)(x, y=y).tolist() == [8.0]
    assert [g.tolist() for g in ops.GradOperation(get_all=True)(net)(x, y=y)] == [[8.0], [10.0]]
    assert ops.grad(net)(x, y=y).tolist() == [8.0]
    assert ops.GradOperation(sens_param=True)(lambda a: a * 2)(x, sens=f32(2.0)).tolist() == [4.0]
    scaled = lambda a, scale=2.0, mode="x": a * scale        # noqa: E731
    assert [g.tolist() for g in ops.GradOperation(get_all=True)(scaled)(x, mode="y")] == [[2.0]]


def test_python_numbers_among_the_inputs_are_not_differentiated():
    """Issue 25 item 6: MindSpore 2.10: get_all over ``(x, 3.0)`` is ``([3.],)``; the default (first
    input) when it is a number is ``()``; ``grad(f, (0, 1))(2.0, x)`` is [2.] alone (one Tensor);
    ``grad(f, 1)(x, 3.0)`` is ``()``."""
    x = f32(5.0)
    mul = lambda a, b: a * b        # noqa: E731
    assert [g.tolist() for g in ops.GradOperation(get_all=True)(mul)(x, 3.0)] == [[3.0]]
    assert ops.GradOperation()(mul)(3.0, x) == ()
    assert ops.grad(mul, (0, 1))(2.0, x).tolist() == [2.0]
    assert ops.grad(mul, 1)(x, 3.0) == ()
    value, grads = ops.value_and_grad(mul, 1)(x, 3)
    assert value.tolist() == [15.0] and grads == ()


def test_non_tensor_outputs_are_passed_over():
    """Issue 25 item 6: MindSpore 2.10: ``(2x, 'aaa')`` gives [2., 2.]; a dict ``{'a': 2x, 'b': 3x}``
    [5., 5.] (its values summed), and value_and_grad returns the dict; ``(2x, None)`` [2., 2.];
    a str alone [0., 0.]."""
    x = f32(5.0, 1.0)
    grad = ops.GradOperation()
    assert grad(lambda a: (a * 2, "aaa"))(x).tolist() == [2.0, 2.0]
    assert grad(lambda a: {"a": a * 2, "b": a * 3})(x).tolist() == [5.0, 5.0]
    assert grad(lambda a: (a * 2, None))(x).tolist() == [2.0, 2.0]
    assert grad(lambda a: "aaa")(x).tolist() == [0.0, 0.0]
    value, g = ops.value_and_grad(lambda a: {"a": a * 2, "b": a * 3})(x)
    assert value["a"].tolist() == [10.0, 2.0] and value["b"].tolist() == [15.0, 3.0] and g.tolist() == [5.0, 5.0]


def test_an_empty_or_negative_grad_position_raises_as_mindspore():
    """Issue 25 item 6: MindSpore 2.10: ``grad(net, (), weights)(x)`` raises RuntimeError when
    called ("grad_position should not be empty"), with or without weights, for value_and_grad too;
    ``grad(f, -1)`` raises ValueError when created ("grad_position must be >= 0")."""
    net, x = Net(), f32(5.0)
    for make in (lambda: ops.grad(net, (), net.trainable_params()), lambda: ops.grad(net, ()),
                 lambda: ops.value_and_grad(net, (), net.trainable_params())):
        grad_fn = make()
        with pytest.raises(RuntimeError, match=r"grad_position is the empty tuple.*Fix"):
            grad_fn(x)
    with pytest.raises(ValueError, match=r"grad_position -1 is negative.*Fix"):
        ops.grad(lambda a, b: a * b, -1)


def test_out_of_range_positions_raise_runtime_error():
    """Issue 25 item 6: MindSpore 2.10: ``grad(f, 2)(x, x)`` and ``value_and_grad(f, (0, 5))(x, x)``
    raise RuntimeError ("Position index 2 is exceed input size.")."""
    x = f32(5.0)
    with pytest.raises(RuntimeError, match="grad_position 2 is out of range"):
        ops.grad(lambda a, b: a * b, 2)(x, x)
    with pytest.raises(RuntimeError, match="grad_position 5 is out of range"):
        ops.value_and_grad(lambda a, b: a * b, (0, 5))(x, x)


def test_get_grad_finds_a_gradient_by_position_or_parameter():
    """Issue 25 item 6: MindSpore 2.10, net = w x y with w = 2, x = 5, y = 7:
    ``grad(net, (0, 1), weights, return_ids=True)`` then ``get_grad(out, 0)`` [14.], ``(out, 1)``
    [10.], ``(out, net.w)`` [35.]; position 3 RuntimeError; a Tensor or str as the key TypeError."""
    class Mul3(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(f32(2.0), name="w")

        def construct(self, x, y):
            return self.w * x * y

    net = Mul3()
    out = ops.grad(net, (0, 1), net.trainable_params(), return_ids=True)(f32(5.0), f32(7.0))
    assert ops.get_grad(out, 0).tolist() == [14.0] and ops.get_grad(out, 1).tolist() == [10.0]
    assert ops.get_grad(out, net.w).tolist() == [35.0]
    with pytest.raises(RuntimeError, match=r"no gradient for position 3.*Fix"):
        ops.get_grad(out, 3)
    with pytest.raises(RuntimeError, match="no gradient for Parameter 'zz'"):
        ops.get_grad(out, Parameter(Tensor(1.0), name="zz"))
    for wrong in (f32(5.0), "w"):
        with pytest.raises(TypeError, match="an int .* or a Parameter"):
            ops.get_grad(out, wrong)


def test_derivative_of_a_cell_with_a_bprop_differentiates_construct():
    """Issue 25 item 6: a Cell x^3 whose bprop returns 100 dout. MindSpore 2.10: ``derivative`` at
    x = 2 gives 12 for order 1 (3x^2) and 12 for order 2 (6x): the forward primitives; ``grad``,
    ``jvp`` and ``vmap(grad)`` give 100: the bprop."""
    class Cube(nn.Cell):
        def construct(self, x):
            return x * x * x

        def bprop(self, x, out, dout):
            return (dout * 100,)

    net, x = Cube(), f32(2.0)
    assert ops.derivative(net, x, 1)[1].tolist() == [12.0]
    assert ops.derivative(net, x, 2)[1].tolist() == [12.0]
    assert ops.grad(net)(x).tolist() == [100.0]
    assert ops.jvp(net, x, ops.ones_like(x))[1].tolist() == [100.0]
    assert ops.vmap(ops.grad(net))(Tensor(np.array([[2.0], [3.0]], np.float32))).tolist() == [[100.0], [100.0]]
