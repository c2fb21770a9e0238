"""Misuses of the gradient API, hooks, optimisers and casts: a clear error, or MindSpore's result.

Issue 13 (hostile-user review), second part.  Every expected value and exception type was obtained
by running the same call on MindSpore 2.10 (CPU); where minims deliberately refuses something
MindSpore accepts, the test says so.
"""
import math

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, ParameterTuple, Tensor


@pytest.fixture(autouse=True)
def pynative():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Affine(nn.Cell):
    """sum(x @ w) + sum(b): d/dw = x^T @ ones, d/db = 1, d/dx = ones @ w^T (rows of w summed)."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array([0.5], np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w).sum() + self.b.sum()


X = Tensor(np.array([[1., 1.]], np.float32))
ONES_23 = [[1.0] * 3] * 2


# ----- the structure of a gradient ----------------------------------------------------------------------
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_one_parameter_as_weights_gives_its_gradient_alone(mode):
    ms.set_context(mode=mode)
    net = Affine()
    g = ops.grad(net, grad_position=None, weights=net.w)(X)
    assert isinstance(g, Tensor) and g.tolist() == ONES_23
    assert ops.GradOperation(get_by_list=True)(net, net.w)(X).tolist() == ONES_23
    value, g = ops.value_and_grad(net, None, net.w)(X)
    assert float(value) == 21.5 and isinstance(g, Tensor)


def test_a_list_of_one_parameter_gives_a_tuple_of_one():
    net = Affine()
    for weights in ([net.w], (net.w,)):
        g = ops.grad(net, grad_position=None, weights=weights)(X)
        assert isinstance(g, tuple) and len(g) == 1 and g[0].tolist() == ONES_23
    gx, gw = ops.grad(net, 0, [net.w])(X)
    assert gx.tolist() == [[6.0, 15.0]] and isinstance(gw, tuple) and len(gw) == 1


def test_inputs_and_one_parameter_give_a_pair_of_tensors():
    net = Affine()
    gx, gw = ops.grad(net, 0, net.w)(X)
    assert gx.tolist() == [[6.0, 15.0]] and gw.tolist() == ONES_23
    value, (gx, gw) = ops.value_and_grad(net, 0, net.w)(X)
    assert float(value) == 21.5 and gx.tolist() == [[6.0, 15.0]] and isinstance(gw, Tensor)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_one_element_grad_position_gives_the_gradient_itself(mode):
    ms.set_context(mode=mode)

    def f(a, b):
        return (a * b).sum()
    a, b = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    assert ops.grad(f, grad_position=(0,))(a, b).tolist() == [3.0, 4.0]
    assert ops.grad(f, grad_position=(1,))(a, b).tolist() == [1.0, 2.0]
    ga, gb = ops.grad(f, grad_position=(0, 1))(a, b)
    assert (ga.tolist(), gb.tolist()) == ([3.0, 4.0], [1.0, 2.0])
    value, g = ops.value_and_grad(f, grad_position=(0,))(a, b)
    assert float(value) == 11.0 and g.tolist() == [3.0, 4.0]


def test_get_all_with_one_input_still_gives_a_tuple():
    g = ops.GradOperation(get_all=True)(lambda a: (a * a).sum())(Tensor([1.0, 2.0]))
    assert isinstance(g, tuple) and len(g) == 1 and g[0].tolist() == [2.0, 4.0]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_parameter_listed_twice_gets_its_whole_gradient_each_time(mode):
    """MindSpore 2.10: grad(net, None, [w, w]) = ([1, 2], [1, 2]) for net(x) = sum(x * w) + ...;
    not split in halves, not zero for the second entry."""
    ms.set_context(mode=mode)
    w = Parameter(Tensor([2.0, 3.0]), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (x * self.w).sum()
    net, x = Net(), Tensor([1.0, 2.0])
    for weights in ([w, w], ParameterTuple([w, w])):
        g1, g2 = ops.grad(net, grad_position=None, weights=weights)(x)
        assert g1.tolist() == g2.tolist() == [1.0, 2.0]
    gx, (g1, g2) = ops.grad(net, 0, [w, w])(x)
    assert gx.tolist() == [2.0, 3.0] and g1.tolist() == g2.tolist() == [1.0, 2.0]
    assert w.tolist() == [2.0, 3.0]


# ----- grad_position ------------------------------------------------------------------------------------
@pytest.mark.parametrize("position", [1.0, "0", [0, 1], True])
def test_a_grad_position_that_is_not_an_int_or_tuple_is_refused_at_once(position):
    """MindSpore: TypeError "the 'grad_position' must be int or tuple", raised by ops.grad itself."""
    with pytest.raises(TypeError, match="grad_position must be an int or a tuple"):
        ops.grad(lambda a, b: a * b, grad_position=position)
    with pytest.raises(TypeError, match="grad_position"):
        ops.value_and_grad(lambda a, b: a * b, grad_position=position)


def test_a_grad_position_element_that_is_not_an_int_is_refused():
    with pytest.raises(TypeError, match="every element of grad_position must be an int"):
        ops.grad(lambda a, b: a * b, grad_position=(0, 1.0))


@pytest.mark.parametrize("position", [(0, 0), (1, 1), (0, 1, 0)])
def test_duplicate_grad_positions_are_refused(position):
    """MindSpore: ValueError "There are duplicate positions in `grad_position`"."""
    with pytest.raises(ValueError, match="duplicate positions"):
        ops.grad(lambda a, b: (a * b).sum(), grad_position=position)


def test_a_grad_position_beyond_the_inputs_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="grad_position 5 is out of range"):
        ops.grad(lambda a, b: (a * b).sum(), grad_position=5)(Tensor([1.0]), Tensor([2.0]))


# ----- sensitivities ------------------------------------------------------------------------------------
def g_times_three(x):
    return x * 3


@pytest.mark.parametrize("sens", [2.0, 2, Tensor(2.0), np.array([2.0, 2.0], np.float32),
                                  Tensor([2.0, 2.0, 2.0])],
                         ids=["float", "int", "0-d Tensor", "ndarray", "longer Tensor"])
def test_a_sensitivity_not_shaped_like_the_output_is_refused(sens):
    """MindSpore 2.10 raises RuntimeError for each ("grad tensor should be broadcast to expected
    shape", "The given sens gradient's size should be same as out of network")."""
    grad_fn = ops.GradOperation(sens_param=True)(g_times_three)
    with pytest.raises(RuntimeError, match="sensitivity"):
        grad_fn(Tensor([1.0, 2.0]), sens)


def test_a_number_sensitivity_for_a_scalar_output_is_accepted():
    """MindSpore 2.10: GradOperation(sens_param=True)(lambda x: (x*3).sum())(x, 2.0) = [6, 6]."""
    grad_fn = ops.GradOperation(sens_param=True)(lambda x: (x * 3).sum())
    assert grad_fn(Tensor([1.0, 2.0]), 2.0).tolist() == [6.0, 6.0]
    assert ops.GradOperation(sens_param=True)(g_times_three)(Tensor([1.0, 2.0]),
                                                             Tensor([2.0, 2.0])).tolist() == [6.0, 6.0]


# ----- hooks --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ms.int32, ms.float64, ms.float16])
def test_hook_backward_replacement_of_another_dtype_is_refused(dtype):
    """MindSpore: ValueError "The output type of function: hook_fn is not consistent with the
    expected, it should be Tensor shape:[]Float32, but got ...Int32"."""
    hook = ops.HookBackward(lambda grad: (ops.cast(grad[0] if isinstance(grad, tuple) else grad, dtype),))

    def f(x, y):
        return hook(x * y) * 2
    with pytest.raises(ValueError, match=f"Float32 Tensor of shape \\[\\].*but got a {dtype} Tensor"):
        ops.GradOperation(get_all=True)(f)(Tensor(1.5), Tensor(2.0))


def test_hook_backward_replacement_of_another_shape_is_refused():
    hook = ops.HookBackward(lambda grad: (Tensor([1.0, 2.0, 3.0]),))
    with pytest.raises(ValueError, match="shape \\[\\].*shape \\[3\\]"):
        ops.GradOperation(get_all=True)(lambda x: hook(x) * 2)(Tensor(1.5))


class ReluNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(x) * 2


@pytest.mark.parametrize("make, error", [
    (lambda g: (ops.cast(g[0], ms.int32),), ValueError),
    (lambda g: (ops.cast(g[0], ms.float64),), ValueError),
    (lambda g: (Tensor([1.0, 2.0, 3.0]),), ValueError),
    (lambda g: (g[0].asnumpy(),), TypeError),
], ids=["int32", "float64", "shape", "numpy"])
def test_cell_backward_hook_replacement_must_match_the_gradient(make, error):
    """MindSpore: ValueError for dtype/shape ("not consistent with the expected"), TypeError for an
    ndarray ("should be a tensor but got ndarray")."""
    net = ReluNet()
    net.relu.register_backward_hook(lambda cell_id, grad_input, grad_output: make(grad_output))
    with pytest.raises(error, match="backward hook of ReLU\\(ReluNet.relu\\)"):
        ops.GradOperation(get_all=True)(net)(Tensor([1.0, 2.0]))


@pytest.mark.parametrize("result", [np.ones((1, 2), np.float32), "not a tensor"], ids=["ndarray", "str"])
def test_forward_hook_returning_a_non_tensor_is_refused(result):
    """minims refuses where MindSpore 2.10 passes the object on: a lone Cell returns the ndarray or
    string itself, and the next layer then fails with "For primitive[Shape], the input argument must
    be Tensor".  minims names the hook instead of the layer after it."""
    relu = nn.ReLU()
    relu.register_forward_hook(lambda cell_id, inputs, output: result)
    with pytest.raises(TypeError, match="the forward hook of ReLU.*returned .*Fix: return Tensor"):
        relu(Tensor([[1.0, -1.0]]))


def test_forward_pre_hook_returning_a_non_tensor_is_refused():
    relu = nn.ReLU()
    relu.register_forward_pre_hook(lambda cell_id, inputs: (inputs[0].asnumpy(),))
    with pytest.raises(TypeError, match="the forward pre-hook of ReLU.*returned numpy.ndarray"):
        relu(Tensor([[1.0, -1.0]]))


class TwoDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
        self.dense2 = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.dense2(ops.relu(self.dense1(x)))


def test_a_backward_hook_runs_once_when_only_weights_are_differentiated():
    """MindSpore 2.10 calls the first layer's hook once, with the output's gradient [[1, 1]] and None
    for the (undifferentiated) input.  With the pages' naming, grad_input is the output's gradient."""
    net, calls = TwoDense(), []
    net.dense1.register_backward_hook(lambda cell_id, gi, go: calls.append((gi, go)))
    grads = ops.grad(net, grad_position=None, weights=net.trainable_params())(Tensor([[1.0, 2.0]]))
    assert [g.tolist() for g in grads] == [[[1.0, 2.0], [1.0, 2.0]], [1.0, 1.0], [[3.0, 3.0]], [1.0]]
    assert len(calls) == 1
    grad_input, grad_output = calls[0]
    assert grad_input[0].tolist() == [[1.0, 1.0]] and grad_output == (None,)

    calls.clear()
    ops.grad(net, grad_position=0, weights=net.trainable_params())(Tensor([[1.0, 2.0]]))
    assert len(calls) == 1 and calls[0][1][0].tolist() == [[2.0, 2.0]]


def test_a_backward_hook_runs_once_under_train_one_step_cell():
    """MindSpore 2.10: the first layer's hook sees [[10, 10]] (MSE of 6 against 1) and None."""
    net, calls = TwoDense(), []
    net.dense1.register_backward_hook(lambda cell_id, gi, go: calls.append((gi, go)))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01))
    loss = step(Tensor([[1.0, 2.0]]), Tensor([[1.0]]))
    assert float(loss) == 25.0 and len(calls) == 1
    assert calls[0][0][0].tolist() == [[10.0, 10.0]] and calls[0][1] == (None,)


# ----- optimisers and casts -----------------------------------------------------------------------------
@pytest.mark.parametrize("lr", [math.nan, math.inf, -math.inf, 1e308 * 10])
@pytest.mark.parametrize("make", [lambda p, lr: nn.SGD(p, learning_rate=lr),
                                  lambda p, lr: nn.Momentum(p, learning_rate=lr, momentum=0.9),
                                  lambda p, lr: nn.Adam(p, learning_rate=lr)], ids=["SGD", "Momentum", "Adam"])
def test_a_learning_rate_that_is_not_finite_is_refused(make, lr):
    """MindSpore: ValueError "the 'learning rate' must be a legal value, but got 'nan'"."""
    with pytest.raises(ValueError, match="finite"):
        make([Parameter(Tensor([1.0]), name="w")], lr)


def test_a_weight_decay_that_is_not_finite_is_refused():
    with pytest.raises(ValueError, match="weight_decay must be a finite number"):
        nn.SGD([Parameter(Tensor([1.0]), name="w")], learning_rate=0.1, weight_decay=math.nan)


def test_a_schedule_with_a_nan_is_refused():
    with pytest.raises(ValueError, match="finite"):
        nn.SGD([Parameter(Tensor([1.0]), name="w")], learning_rate=[0.1, math.nan])


@pytest.mark.parametrize("dtype", ["float", "float32", "int32", np.float64, float])
def test_cast_takes_only_a_mindspore_dtype(dtype):
    """MindSpore: TypeError "For 'Cast', the input 'dtype' should be mindspore dtype"; the error
    names the dtype to write instead."""
    x = Tensor([1.0])
    with pytest.raises(TypeError, match="must be a mindspore dtype.*Fix: mindspore\\."):
        ops.cast(x, dtype)
    with pytest.raises(TypeError, match="must be a mindspore dtype"):
        ops.Cast()(x, dtype)


def test_astype_is_the_lenient_spelling():
    """MindSpore 2.10: astype('float') is Float64, astype('int') Int64, astype(np.float64) Float64."""
    x = Tensor([1.0])
    assert x.astype("float").dtype == ms.float64
    assert x.astype("int").dtype == ms.int64
    assert x.astype("bool").dtype == ms.bool_
    assert x.astype(np.float64).dtype == ms.float64


def test_a_parameter_tuple_may_hold_one_parameter_twice_but_not_two_with_one_name():
    """MindSpore 2.10 accepts ParameterTuple([w, w]) and refuses two Parameters named 'w'."""
    w = Parameter(Tensor([1.0]), name="w")
    assert len(ParameterTuple([w, w])) == 2
    with pytest.raises(ValueError, match="two different Parameters are named 'w'"):
        ParameterTuple([w, Parameter(Tensor([2.0]), name="w")])


# ----- gradients with respect to integer Tensors ---------------------------------------------------------
A_INT = Tensor(np.array([1, 2], np.int32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_whole_number_gradient_of_an_integer_input_is_kept(mode):
    """MindSpore 2.10: grad(sum(a * a)) for Int32 a = [1, 2] is the Int32 [2, 4]."""
    ms.set_context(mode=mode)

    class Square(nn.Cell):
        def construct(self, a):
            return (a * a).sum()
    g = ops.grad(Square())(A_INT)
    assert g.dtype == ms.int32 and g.tolist() == [2, 4]


@pytest.mark.parametrize("fn", [lambda a: (a * 1.5).sum(), lambda a: ops.sin(a).sum()], ids=["a*1.5", "sin"])
@pytest.mark.parametrize("compiled", [False, True])
def test_a_fractional_gradient_of_an_integer_input_is_refused(fn, compiled):
    """MindSpore 2.10 truncates: grad(sum(a * 1.5)) = [1, 1] instead of [1.5, 1.5]."""
    f = ms.jit(fn) if compiled else fn
    with pytest.raises(RuntimeError, match=r"integer Tensor \(Int32\), but it is not a whole number"):
        ops.grad(f)(A_INT)


def test_a_fractional_tangent_of_an_integer_output_is_refused():
    """2 ** a for Int32 a is an Int32; its tangent 2^a log(2) t is not."""
    with pytest.raises(RuntimeError, match=r"not a whole number: \[1.386"):
        ops.jvp(lambda a: 2 ** a, A_INT, A_INT)
    out, tangent = ops.jvp(lambda a: a * 1.5, A_INT, A_INT)      # a Float32 output carries 1.5 t
    assert tangent.tolist() == [1.5, 3.0]


@pytest.mark.parametrize("compiled", [False, True])
def test_an_integer_input_that_is_not_differentiated_costs_no_error(compiled):
    """Labels used as floats: only the float input is differentiated, so no gradient is ever cast
    into the Int32 labels (inside a compiled function as well)."""
    def loss(x, labels):
        return ((x - ops.cast(labels, ms.float32)) ** 2).sum()
    f = ms.jit(loss) if compiled else loss
    g = ops.grad(f)(Tensor([0.5, 1.0]), A_INT)
    assert g.tolist() == [-1.0, -2.0]
    g2 = ops.grad(ops.grad(f))(Tensor([0.5, 1.0]), A_INT)
    assert g2.tolist() == [2.0, 2.0]


# ----- ops.GetNext ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_get_next_is_built_but_refuses_to_run_naming_the_queue(mode):
    """The debugging page's example: GetNext constructs; calling it raises RuntimeError (MindSpore
    2.10 on the CPU: "Unsupported op [GetNext] on CPU")."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.get_next = ops.GetNext([ms.float32], [(1, 1)], 1, "test")

        def construct(self, x1):
            return self.get_next() + x1
    net = Net()
    assert net.get_next.types == [ms.float32] and net.get_next.shapes == [(1, 1)]
    with pytest.raises(RuntimeError, match="GetNext: there is no dataset pipeline .* queue 'test'.*Fix:"):
        net(Tensor(np.ones((1, 1), np.float32)))


def test_get_next_checks_its_arguments():
    with pytest.raises(TypeError, match="types must be a list of mindspore dtypes"):
        ops.GetNext(["float32"], [(1, 1)], 1, "q")
    with pytest.raises(ValueError, match="one shape per type"):
        ops.GetNext([ms.float32], [(1, 1), (2,)], 1, "q")


# ----- shape mismatches: RuntimeError as in MindSpore's ops, ValueError as in its layers ----------------------
@pytest.mark.parametrize("call", [
    lambda: ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32))),
    lambda: ops.MatMul()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32))),
    lambda: nn.Dense(4, 2)(Tensor(np.ones((1, 3), np.float32))),
    lambda: ops.conv2d(Tensor(np.ones((1, 3, 8, 8), np.float32)), Tensor(np.ones((6, 1, 3, 3), np.float32))),
    lambda: nn.Conv2d(1, 6, 5)(Tensor(np.ones((1, 3, 32, 32), np.float32))),
], ids=["ops.matmul", "ops.MatMul", "nn.Dense", "ops.conv2d", "nn.Conv2d"])
def test_a_shape_mismatch_is_caught_as_runtime_error_and_as_value_error(call):
    """MindSpore 2.10 (oracle): ops.matmul and Conv2D raise RuntimeError, ops.MatMul and nn.Dense
    ValueError; one exception type satisfies every `except` a learner may have written."""
    for kind in (RuntimeError, ValueError):
        with pytest.raises(kind, match="Fix"):
            call()


@pytest.mark.parametrize("shape", [(-1, -1), (-2, 3), (2, -3)])
def test_reshape_refuses_negative_entries_other_than_a_single_minus_one(shape):
    # MindSpore 2.10: ValueError "only one dimension can be inferred" / for -2
    with pytest.raises(ValueError, match=r"Reshape: invalid shape .*one -1"):
        ops.reshape(Tensor(np.ones((2, 3), np.float32)), shape)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("first, second, expected", [
    (np.float32, np.int64, ms.float32), (np.int32, np.int64, ms.int64), (np.float16, np.int64, ms.float16),
])
def test_concat_promotes_mixed_dtypes_as_mindspore_does(mode, first, second, expected):
    """Oracle (MindSpore 2.10, jit): f32+i64 -> Float32, i32+i64 -> Int64, f16+i64 -> Float16; the
    values are exact (the inputs are small whole numbers)."""
    ms.set_context(mode=mode)
    out = ms.jit(lambda a, b: ops.concat((a, b)))(Tensor(np.array([1, 2], first)), Tensor(np.array([3], second)))
    assert out.dtype == expected and out.asnumpy().tolist() == [1, 2, 3]


def test_concat_gradient_flows_back_to_each_input_in_its_own_dtype():
    a, b = Tensor(np.array([1.0, 2.0], np.float16)), Tensor(np.array([3.0], np.float32))
    ga, gb = ms.grad(lambda a, b: (ops.concat((a, b)) * Tensor([1.0, 2.0, 3.0])).sum(), grad_position=(0, 1))(a, b)
    assert (ga.dtype, gb.dtype) == (ms.float16, ms.float32)
    assert ga.asnumpy().tolist() == [1.0, 2.0] and gb.asnumpy().tolist() == [3.0]
