"""Issue 26, item 1: hooks on Tensors and Parameters (``Tensor.register_hook``) and ``ops.InsertGradientOf``.

Every expected number was printed by MindSpore 2.10 (CPU) running the same code with ``mindspore``
in place of ``minims`` (the oracle), unless a test says otherwise; where minims departs from it on
purpose (a hook returning a gradient of another shape), the test says so.
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Parameter, ParameterTuple, Tensor, jit, ops
from minims.testing import leftover_state


def f32(*values):
    return Tensor(np.array(values, np.float32))


def times(k, log=None, name=None):
    """A hook multiplying the gradient by ``k`` (and noting what it saw in ``log``)."""
    def hook(grad):
        if log is not None:
            log.append((name, grad.asnumpy().tolist()))
        return grad * k
    return hook


@pytest.fixture(autouse=True)
def _pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def test_a_hook_on_an_op_output_replaces_the_gradient_arriving_there():
    """Item 1, the example of ``Tensor.register_hook``'s documentation: oracle (8, 6); the hook saw 2."""
    log = []

    def hook_test(x, y):
        z = x * y
        z.register_hook(times(2, log, "z"))
        return z * y

    dx, dy = ms.grad(hook_test, grad_position=(0, 1))(Tensor(1, ms.float32), Tensor(2, ms.float32))
    assert (float(dx.asnumpy()), float(dy.asnumpy())) == (8.0, 6.0)
    assert log == [("z", 2.0)]


def test_several_hooks_run_in_registration_order_and_a_handle_removes_its_hook_once():
    """Item 1, MindSpore's test_tensor_backward_hook_with_op_output_register_multi (oracle: [6, 24, 54],
    [7, 28, 63]) and ..._with_net_input_register_multi (18, then 9, then 3, removal twice harmless)."""
    log = []

    def fn(x, y):
        z = x * y
        z.register_hook(times(2, log, "first"))
        z.register_hook(times(3, log, "second"))
        return z * y

    x = f32(1.0, 2.0, 3.0)
    dx, dy = ms.grad(fn, grad_position=(0, 1))(x, x)
    np.testing.assert_array_equal(dx.asnumpy(), [6, 24, 54])
    np.testing.assert_array_equal(dy.asnumpy(), [7, 28, 63])
    assert [name for name, _ in log] == ["first", "second"]
    assert log[1][1] == [2.0, 4.0, 6.0]            # the second hook sees what the first returned

    leaf = f32(1.0)
    first, second = leaf.register_hook(times(2)), leaf.register_hook(times(3))
    assert leaf.hooks() and len(leaf.hooks()) == 2
    grad = ops.GradOperation()(lambda v: v ** 2 + (v + 1))
    assert grad(leaf).asnumpy().tolist() == [18.0]
    first.remove()
    assert grad(leaf).asnumpy().tolist() == [9.0]
    first.remove()
    second.remove()
    assert grad(leaf).asnumpy().tolist() == [3.0] and leaf.hooks() == []


def test_the_hook_sees_the_sum_over_every_use_also_when_registered_after_one():
    """Item 1: oracle, ``z`` used in ``z * 3`` before the hook and in ``z * 5`` after it: the hook saw
    [8, 8] and the gradient is [32, 64] (in PyNative and in a Graph-mode Cell alike)."""
    log = []

    def fn(x, hook=times(2, log, "z")):
        z = x * x
        u = z * 3
        z.register_hook(hook)
        return u + z * 5

    x = f32(1.0, 2.0)
    assert ms.grad(fn)(x).asnumpy().tolist() == [32.0, 64.0]
    assert log == [("z", [8.0, 8.0])]

    class AfterUse(nn.Cell):
        def construct(self, x):
            return fn(x, times(2))          # a graph's hook cannot read values (no log)

    ms.set_context(mode=ms.GRAPH_MODE)
    assert ops.GradOperation()(AfterUse())(x).asnumpy().tolist() == [32.0, 64.0]


def test_a_hook_on_an_input_sees_its_whole_gradient_and_only_when_one_reaches_it():
    """Item 1: oracle; an input used twice (c*c + c): the hook saw [3, 5] once, the gradient [6, 10];
    an input no gradient reaches: its hook does not run; registered inside the function: [4, 8]."""
    log = []
    c = f32(1.0, 2.0)
    c.register_hook(times(2, log, "c"))
    assert ms.grad(lambda c: (c * c + c).sum())(c).asnumpy().tolist() == [6.0, 10.0]
    assert log == [("c", [3.0, 5.0])]

    unused = f32(3.0, 4.0)
    unused.register_hook(times(2, log, "unused"))
    dx, dy = ms.grad(lambda x, y: (x * 2).sum(), grad_position=(0, 1))(c, unused)
    assert dy.asnumpy().tolist() == [0.0, 0.0] and [n for n, _ in log].count("unused") == 0

    def inner(x):
        x.register_hook(times(2))
        return (x * x).sum()

    assert ms.grad(inner)(f32(1.0, 2.0)).asnumpy().tolist() == [4.0, 8.0]


def test_a_parameter_hook_runs_once_per_gradient_and_on_zeros_when_nothing_reached_it():
    """Item 1: oracle, MindSpore's test_tensor_backward_hook_with_weight_not_in_grad: w1 (used twice)
    gets one call with [2, 8, 18]; w2 (its product unused) one call with zeros; a weight not
    differentiated, none; a hook returning None keeps the gradient."""
    log = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1 = Parameter(f32(1.0, 2.0, 3.0), name="w1")
            self.w2 = Parameter(f32(1.0, 2.0, 3.0), name="w2")
            self.w1.register_hook(lambda g: log.append(("w1", g.asnumpy().tolist())))
            self.w2.register_hook(lambda g: log.append(("w2", g.asnumpy().tolist())))

        def construct(self, x):
            y = x * self.w1
            z = x * self.w2           # noqa: F841 - no gradient reaches w2
            return y * self.w1

    net, x = Net(), f32(1.0, 2.0, 3.0)
    g1, g2 = ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))(x)
    assert (g1.asnumpy().tolist(), g2.asnumpy().tolist()) == ([2.0, 8.0, 18.0], [0.0, 0.0, 0.0])
    assert log == [("w1", [2.0, 8.0, 18.0]), ("w2", [0.0, 0.0, 0.0])]
    log.clear()
    ops.GradOperation()(net)(x)                          # inputs only: no weight hook runs
    assert log == []


def test_a_hook_on_a_parameter_that_needs_no_gradient_is_refused():
    """Item 1: MindSpore's test_tensor_backward_hook_leaf_error: RuntimeError with these words."""
    frozen = Parameter(f32(2.0, 3.0), requires_grad=False)
    with pytest.raises(RuntimeError, match="The tensor requires grad is false, which can not register tensor hook"):
        frozen.register_hook(times(2))
    with pytest.raises(TypeError, match="callable hook function"):    # oracle: TypeError
        f32(1.0).register_hook(3)


def test_a_hook_returning_something_else_than_a_gradient_is_an_error_naming_it():
    """Item 1: a string: RuntimeError, as the oracle ("Tensor hook should be return Tensor").  A
    Tensor of another shape: ValueError — a refusal of minims' own; MindSpore 2.10 lets the next rule
    broadcast it ([1, 2] with a hook returning g.sum() gives [12, 24] there)."""
    def fn(hook):
        def f(x):
            z = x * x
            z.register_hook(hook)
            return z * 3
        return f

    x = f32(1.0, 2.0)
    with pytest.raises(RuntimeError, match="the Tensor hook bad returned str 'abc'"):
        def bad(g):
            return "abc"
        ms.grad(fn(bad))(x)
    with pytest.raises(ValueError, match=r"shape \[\].*shape \[2\]"):
        ms.grad(fn(lambda g: g.sum()))(x)


def test_a_second_derivative_differentiates_through_the_hook():
    """Item 1: oracle, z = x^3 doubled by its hook: 2 * 3x^2 = 24 at x = 2, then d/dx 6x^2 = 24; the
    hook runs once in the second-order call (on the inner gradient)."""
    log = []

    def f(x):
        z = x * x * x
        z.register_hook(times(2, log, "z"))
        return z

    x = f32(2.0)
    assert ms.grad(f)(x).asnumpy().tolist() == [24.0]
    log.clear()
    assert ms.grad(ms.grad(f))(x).asnumpy().tolist() == [24.0]
    assert len(log) == 1


def test_forward_mode_leaves_tensor_hooks_alone():
    """Item 1: a hook acts on gradients only: jvp of 3 z with z = x * x is 6 x v (closed form)."""
    def f(x):
        z = x * x
        z.register_hook(times(10))
        return z * 3

    x, v = f32(1.0, 2.0), f32(1.0, 1.0)
    _, tangent = ops.jvp(f, (x,), (v,))
    assert tangent.asnumpy().tolist() == [6.0, 12.0]
    assert ops.grad(f)(x).asnumpy().tolist() == [60.0, 120.0]


def test_tensor_hooks_in_compiled_functions_and_graph_mode():
    """Item 1: oracle, all [12, 24] (2 * 3 * 2x): grad of a jit function whose inside registers the
    hook, jit of grad, a Graph-mode Cell; a Parameter hook with Graph mode gives (2, 4).  Inside a
    graph ``register_hook`` returns the Tensor itself and a second hook on it is refused (RuntimeError)."""
    def body(x):
        z = x * x
        assert z.register_hook(times(2)) is z
        return z * 3

    x = f32(1.0, 2.0)
    assert ms.grad(jit(body))(x).asnumpy().tolist() == [12.0, 24.0]
    assert jit(lambda x: ms.grad(lambda y: body(y).sum())(x))(x).asnumpy().tolist() == [12.0, 24.0]
    assert jit(body)(x).asnumpy().tolist() == [3.0, 12.0]                 # the forward is unchanged

    class Body(nn.Cell):
        def construct(self, x):
            return body(x)

    class Weighted(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(f32(1.0, 2.0), name="w")
            self.w.register_hook(times(2))

        def construct(self, x):
            return (x * self.w).sum()

    ms.set_context(mode=ms.GRAPH_MODE)
    assert ops.GradOperation()(Body())(x).asnumpy().tolist() == [12.0, 24.0]
    net = Weighted()
    assert ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))(x)[0] \
        .asnumpy().tolist() == [2.0, 4.0]

    class TwoHooks(nn.Cell):
        def construct(self, x):
            z = x * x
            z.register_hook(times(2))
            z.register_hook(times(3))
            return z

    with pytest.raises(RuntimeError, match="register multiple hooks for a Tensor"):
        TwoHooks()(x)


def test_insert_gradient_of_clips_the_gradient_in_pynative_and_graph_mode():
    """Item 1: ``ops.InsertGradientOf``'s documentation example: oracle (0.2, 1.0) in PyNative and
    under jit; a function returning None keeps the gradient (oracle [2, 2]); two inputs are refused
    (RuntimeError, as the oracle)."""
    lo, hi = f32(0.2), f32(1.0)
    clip = ops.InsertGradientOf(lambda dx: ops.minimum(ops.maximum(dx, lo), hi))

    def clip_test(x, y):
        return clip(x) * clip(y)

    x, y = f32(1.1), f32(0.1)
    for fn in (clip_test, jit(clip_test)):
        dx, dy = ms.grad(fn, grad_position=(0, 1))(x, y)
        np.testing.assert_allclose([dx.asnumpy()[0], dy.asnumpy()[0]], [0.2, 1.0], rtol=1e-7)
    assert jit(clip_test)(x, y).asnumpy().tolist() == clip_test(x, y).asnumpy().tolist()

    keep = ops.InsertGradientOf(lambda dx: None)
    assert ms.grad(lambda a: (keep(a) * 2).sum())(f32(1.0, 2.0)).asnumpy().tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="the number of input should be 1, but got 2"):
        keep(x, y)


def test_a_graph_keeps_each_application_of_one_insert_gradient_of():
    """Item 1: ``c(a) * c(a)`` clips each use's gradient, a (= 1.5, clipped to 1.0) twice: 2.0
    (closed form, as PyNative); common-subexpression elimination must not merge the two
    applications, which would clip their sum once (1.0)."""
    clip = ops.InsertGradientOf(lambda dx: ops.minimum(dx, f32(1.0)))

    def square(a):
        return clip(a) * clip(a)

    a = f32(1.5)
    assert ms.grad(square)(a).asnumpy().tolist() == [2.0]
    assert ms.grad(jit(square))(a).asnumpy().tolist() == [2.0]


def test_a_backward_pre_hook_sees_the_gradient_arriving_at_the_cell_before_its_backward_hook():
    """Item 1, ``Cell.register_backward_pre_hook``: oracle, ReLU in ``relu(x) * 2`` at x = [1, -1, 2]
    with a pre-hook tripling the gradient: the pre-hook saw ([2, 2, 2],) and fired before the
    backward hook; the gradient is [6, 0, 6]; after ``remove()`` [2, 0, 2]; a pre-hook returning a
    Tensor (not a tuple) replaces the gradient too ([10, 0, 10] with times 5).  (minims passes the
    Cell's path as the first argument, as its other Cell hooks do; MindSpore 2.10 passes the Cell.)"""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(x) * 2

    log, net, x = [], Net(), f32(1.0, -1.0, 2.0)

    def pre(cell_id, grad_output):
        log.append(("pre", [g.asnumpy().tolist() for g in grad_output]))
        return (grad_output[0] * 3,)

    handle = net.relu.register_backward_pre_hook(pre)
    net.relu.register_backward_hook(lambda cell_id, grad_input, grad_output: log.append(("backward",)))
    assert ms.grad(net)(x).asnumpy().tolist() == [6.0, 0.0, 6.0]
    assert log == [("pre", [[2.0, 2.0, 2.0]]), ("backward",)]
    handle.remove()
    assert ms.grad(net)(x).asnumpy().tolist() == [2.0, 0.0, 2.0]
    net.relu.register_backward_pre_hook(lambda cell_id, grad_output: grad_output[0] * 5)
    assert ms.grad(net)(x).asnumpy().tolist() == [10.0, 0.0, 10.0]
