"""No broken state: after an error raised anywhere — a custom bprop, a hook, a jit trace, a forward
pass under grad or grad of grad, a GRAPH_MODE Cell call, an optimizer step — the interpreter stack is
clean, hooks, jit caches and the execution mode are as the user left them, no Parameter was changed
by the failed call, and the next correct call gives the right answer.

Expected values are derivatives worked out by hand (d/dx x^2 = 2x, d^2/dx^2 x^3 = 6x, d/dw sum(w*x)
= x) and one SGD/Momentum step written out from its formula.
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.graph import StaticGraphError
from minims.interpreters import nan_check
from minims.testing import leftover_state

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


class Boom(Exception):
    """The user's own error, raised from inside the code minims runs."""


def assert_clean():
    assert not leftover_state(), leftover_state()


@pytest.fixture(autouse=True)
def clean_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, check_nan=False)
    assert_clean()


def f64(*values):
    return Tensor(np.array(values, np.float64))


X = (1.0, -2.0, 3.0)


class Switch:
    """A flag the user's code reads: on, it raises."""

    def __init__(self):
        self.on = True

    def check(self, *_):
        if self.on:
            raise Boom("the user's code failed")


# ----- custom bprop ------------------------------------------------------------------------------------
class Square(nn.Cell):
    def __init__(self, switch):
        super().__init__()
        self.switch = switch

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        self.switch.check()
        return (dout * 2 * x,)


@pytest.mark.parametrize("order", [1, 2])
def test_an_error_in_a_custom_bprop(order):
    switch = Switch()
    net = Square(switch)
    f = lambda x: net(x).sum()
    g = ms.grad(f) if order == 1 else ms.grad(lambda x: ms.grad(f)(x).sum())
    with pytest.raises(Boom):
        g(f64(*X))
    assert_clean()
    switch.on = False
    expected = 2 * np.array(X) if order == 1 else np.full(3, 2.0)     # 2x, then 2
    np.testing.assert_allclose(g(f64(*X)).asnumpy(), expected)


# ----- hooks -------------------------------------------------------------------------------------------
class Linear(nn.Cell):
    """sum(w * x): d/dw = x, d/dx = w."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(f64(0.5, 1.5, -1.0), name="w")

    def construct(self, x):
        return (self.w * x).sum()


@pytest.mark.parametrize("kind", ["forward", "forward_pre", "backward"])
def test_an_error_in_a_cell_hook(kind):
    net, switch, calls = Linear(), Switch(), []

    def hook(*args):
        calls.append(args[0])
        switch.check()
    handle = getattr(net, f"register_{kind}_hook")(hook)
    hooks = getattr(net, f"_{kind}_hooks")
    w_before = net.w.asnumpy().copy()
    grad_fn = ms.grad(net, grad_position=0, weights=net.trainable_params())
    with pytest.raises(Boom):
        grad_fn(f64(*X))
    assert_clean()
    assert list(hooks.values()) == [hook]                      # still registered, as the user left it
    np.testing.assert_array_equal(net.w.asnumpy(), w_before)
    switch.on = False
    dx, (dw,) = grad_fn(f64(*X))
    np.testing.assert_allclose(dx.asnumpy(), w_before)
    np.testing.assert_allclose(dw.asnumpy(), X)
    assert len(calls) == 2                                       # it ran again on the good call
    handle.remove()
    assert len(hooks) == 0
    grad_fn(f64(*X))
    assert len(calls) == 2


def test_an_error_in_a_hook_backward_hook():
    switch, seen = Switch(), []

    def hook_fn(grad):
        seen.append(grad[0].asnumpy())
        switch.check()
    hook = ops.HookBackward(hook_fn)
    g = ms.grad(lambda x: hook(x * x).sum())
    with pytest.raises(Boom):
        g(f64(*X))
    assert_clean()
    switch.on = False
    np.testing.assert_allclose(g(f64(*X)).asnumpy(), 2 * np.array(X))
    np.testing.assert_allclose(seen[-1], np.ones(3))            # d sum / d (x*x) = 1


# ----- jit ---------------------------------------------------------------------------------------------
def test_a_static_graph_error_caches_nothing_and_the_good_signature_compiles():
    @jit(fullgraph=True, capture_mode="trace")      # as written, no guarded variants: a branch on a
    # Tensor's value is an error
    def f(x, branch_on_value):
        if branch_on_value and x.sum() > 0:       # a Python branch on a Tensor's value
            return x
        return x * x
    with pytest.raises(StaticGraphError):
        f(f64(*X), True)
    assert_clean()
    assert f.traces == 0 and f._cache == {}
    np.testing.assert_allclose(f(f64(*X), False).asnumpy(), np.square(X))
    with pytest.raises(StaticGraphError):
        f(f64(*X), True)                           # still an error: nothing half-built was kept
    assert f.traces == 1 and len(f._cache) == 1
    np.testing.assert_allclose(ms.grad(lambda x: f(x, False).sum())(f64(*X)).asnumpy(), 2 * np.array(X))


def test_an_exception_while_tracing_then_the_same_signature_compiles():
    switch = Switch()

    @jit
    def f(x):
        y = x * x * x
        switch.check()
        return y
    with pytest.raises(Boom):
        f(f64(*X))
    with pytest.raises(Boom):
        ms.grad(lambda x: f(x).sum())(f64(*X))
    assert_clean()
    assert f.traces == 0
    switch.on = False
    np.testing.assert_allclose(ms.grad(lambda x: f(x).sum())(f64(*X)).asnumpy(), 3 * np.square(X))
    np.testing.assert_allclose(f(f64(*X)).asnumpy(), np.power(X, 3))
    assert f.traces == 1                           # one signature, traced once


# ----- forward passes under grad -----------------------------------------------------------------------
def cube_with_a_check(switch):
    def f(x):
        switch.check()
        return (x * x * x).sum()
    return f


@pytest.mark.parametrize("levels", [1, 2])
def test_an_error_in_the_forward_pass_under_grad(levels):
    switch = Switch()
    f = cube_with_a_check(switch)
    g = ms.grad(f) if levels == 1 else ms.grad(lambda x: ms.grad(f)(x).sum())
    with pytest.raises(Boom):
        g(f64(*X))
    assert_clean()
    with pytest.raises(ValueError, match="Mul"):            # a shape error, this time
        g(f64(*X) * f64(1.0, 2.0))
    assert_clean()
    switch.on = False
    expected = 3 * np.square(X) if levels == 1 else 6 * np.array(X)
    np.testing.assert_allclose(g(f64(*X)).asnumpy(), expected)


def test_an_error_in_an_inner_grad_with_weights_under_an_outer_grad():
    net, switch = Linear(), Switch()

    def inner(x):
        switch.check()
        return net(x * x)
    outer = ms.grad(lambda x: ms.grad(inner, grad_position=0, weights=net.trainable_params())(x)[0].sum())
    with pytest.raises(Boom):
        outer(f64(*X))
    assert_clean()
    switch.on = False
    # d/dx sum(w * x^2) = 2 w x; summed and differentiated again: 2 w
    np.testing.assert_allclose(outer(f64(*X)).asnumpy(), 2 * net.w.asnumpy())


# ----- GRAPH_MODE Cells --------------------------------------------------------------------------------
class GraphCell(nn.Cell):
    def __init__(self, switch):
        super().__init__()
        self.switch = switch
        self.w = Parameter(f64(2.0, 3.0, 4.0), name="w")

    def construct(self, x):
        self.switch.check()
        return (self.w * x * x).sum()


def test_an_error_in_a_graph_mode_cell_call_keeps_the_mode_and_caches_nothing():
    switch = Switch()
    net = GraphCell(switch)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(Boom):
        net(f64(*X))
    with pytest.raises(Boom):
        ms.grad(net)(f64(*X))
    assert_clean()
    assert ms.get_context("mode") == ms.GRAPH_MODE               # the user's choice, kept
    assert net._graph_call.traces == 0
    switch.on = False
    w = net.w.asnumpy()
    np.testing.assert_allclose(net(f64(*X)).asnumpy(), np.sum(w * np.square(X)))
    np.testing.assert_allclose(ms.grad(net)(f64(*X)).asnumpy(), 2 * w * np.array(X))
    assert net._graph_call.traces == 1


def test_a_static_graph_error_in_a_graph_mode_cell():
    class Branchy(nn.Cell):
        def construct(self, x):
            # a random draw's value read by Python (float: not converted into the graph): no guard holds it
            if float(ops.dropout(x, p=0.5).abs().sum()) >= 0:
                return x
            return -x
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(StaticGraphError):
        Branchy()(f64(*X))
    assert_clean()
    assert ms.get_context("mode") == ms.GRAPH_MODE


# ----- Parameters are not changed by a failed step -----------------------------------------------------
def momentum_net(hook=None):
    """Two weights, loss sum(w1 * x) + sum(w2 * x[:1]), Momentum(lr=0.1, momentum=0.9); the loss
    passes through ops.HookBackward(hook) if given, so that the hook runs in the backward pass."""
    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w1 = Parameter(f64(1.0, 2.0, 3.0), name="w1")
            self.w2 = Parameter(f64(-1.0), name="w2")

        def construct(self, x):
            loss = (self.w1 * x).sum() + (self.w2 * x[:1]).sum()
            return ops.HookBackward(hook)(loss) if hook else loss
    net = Two()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return net, opt


def state_of(*cells):
    seen, out = set(), {}
    for cell in cells:
        for p in cell.get_parameters():
            if id(p) not in seen:
                seen.add(id(p))
                out[p.name] = p.asnumpy().copy()
        for name, value in vars(cell).items():
            if isinstance(value, ms.ParameterTuple):
                for p in value:
                    out[p.name] = p.asnumpy().copy()
    return out


def assert_same_state(before, after):
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def test_an_optimizer_step_that_fails_half_way_changes_no_parameter():
    w1 = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w1")
    w2 = Parameter(Tensor(np.array([1.0], np.float32)), name="w2")
    opt = nn.Momentum([w1, w2], learning_rate=1e10, momentum=0.9)
    before = state_of(opt) | {"w1": w1.asnumpy().copy(), "w2": w2.asnumpy().copy()}
    ms.set_context(check_nan=True)
    # w1's update is finite and written first; w2's, 1e10 * 1e30, overflows float32 (max 3.4e38)
    grads = (Tensor(np.array([1.0, 1.0], np.float32)), Tensor(np.array([1e30], np.float32)))
    with pytest.raises(nan_check.NonFiniteError, match="Mul produced"):
        opt(grads)
    assert_clean()
    after = state_of(opt) | {"w1": w1.asnumpy(), "w2": w2.asnumpy()}
    assert_same_state(before, after)        # w1, both moments and global_step: as before the step
    opt((grads[0], Tensor(np.array([1.0], np.float32))))
    np.testing.assert_allclose(w1.asnumpy(), [1.0 - 1e10, 2.0 - 1e10])   # w - lr * g on the first step
    assert opt.global_step.asnumpy().tolist() == [1]


def test_a_failed_forward_pass_does_not_move_batchnorm_statistics():
    switch = Switch()

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2)

        def construct(self, x):
            y = self.bn(x)
            switch.check()
            return y.sum()
    model = Model()
    model.set_train(True)
    x = Tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))
    for call in (lambda: model(x), lambda: ms.grad(model)(x)):
        with pytest.raises(Boom):
            call()
        assert model.bn.moving_mean.asnumpy().tolist() == [0.0, 0.0]
        assert model.bn.moving_variance.asnumpy().tolist() == [1.0, 1.0]
    assert_clean()
    switch.on = False
    model(x)
    # MindSpore: moving_mean = momentum * moving_mean + (1 - momentum) * batch mean, momentum 0.9
    np.testing.assert_allclose(model.bn.moving_mean.asnumpy(), [0.1 * 2.0, 0.1 * 4.0], rtol=1e-6)


def test_a_graph_mode_training_step_stopped_by_check_nan_writes_nothing():
    class LogLoss(nn.Cell):
        """sum(log(w * x)): d/dw = 1 / w."""

        def __init__(self):
            super().__init__()
            self.w = Parameter(f64(0.5, 2.0), name="w")

        def construct(self, x):
            return ops.log(self.w * x).sum()
    net = LogLoss()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    step = nn.TrainOneStepCell(net, opt)
    before = state_of(net, opt)
    ms.set_context(mode=ms.GRAPH_MODE, check_nan=True)
    with pytest.raises(nan_check.NonFiniteError, match="Log produced -Inf"):
        step(f64(0.0, 1.0))
    assert_clean()
    assert_same_state(state_of(net, opt), before)
    step(f64(1.0, 1.0))
    np.testing.assert_allclose(net.w.asnumpy(), [0.5 - 0.1 / 0.5, 2.0 - 0.1 / 2.0])


def test_a_parameter_written_with_set_data_before_an_error_gets_its_value_back():
    switch = Switch()

    class Writer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(f64(1.0, 2.0), name="w")

        def construct(self, x):
            self.w.set_data(Tensor(np.array([9.0, 9.0])))
            ops.assign(self.w, self.w * 2.0)
            switch.check()
            return x
    net = Writer()
    with pytest.raises(Boom):
        net(f64(0.0))
    assert net.w.asnumpy().tolist() == [1.0, 2.0]
    switch.on = False
    net(f64(0.0))
    assert net.w.asnumpy().tolist() == [18.0, 18.0]


def test_a_training_step_that_fails_leaves_every_parameter_as_it_was():
    switch = Switch()
    net, opt = momentum_net(hook=switch.check)          # fails in the backward pass
    step = nn.TrainOneStepCell(net, opt)
    x = f64(1.0, 2.0, 3.0)
    before = state_of(net, opt)
    with pytest.raises(Boom):
        step(x)
    assert_clean()
    assert_same_state(state_of(net, opt), before)
    switch.on = False
    step(x)
    # Momentum's first step: accum = g, w = w - lr * g; g(w1) = x, g(w2) = x[0]
    np.testing.assert_allclose(net.w1.asnumpy(), [1.0 - 0.1 * 1, 2.0 - 0.1 * 2, 3.0 - 0.1 * 3])
    np.testing.assert_allclose(net.w2.asnumpy(), [-1.0 - 0.1 * 1])
    np.testing.assert_allclose(opt.moments[0].asnumpy(), [1.0, 2.0, 3.0])
    assert opt.global_step.asnumpy().tolist() == [1]


def test_the_mode_check_harness_puts_the_mode_back_after_a_graph_error():
    class Branchy(nn.Cell):
        def construct(self, x):
            # a random draw's value read by Python (float: not converted into the graph): no guard holds it
            if float(ops.dropout(x, p=0.5).abs().sum()) >= 0:
                return x * x
            return x
    from minims.testing import check_modes
    with pytest.raises(AssertionError, match="StaticGraphError"):
        check_modes(Branchy(), (f64(*X),), order=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE        # it switched to GRAPH_MODE and back
    assert_clean()
    np.testing.assert_allclose(ms.grad(Branchy())(f64(*X)).asnumpy(), 2 * np.array(X))  # sum(x) = 2 > 0: x*x
