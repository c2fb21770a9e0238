"""Graph mode: jit/ms_function, GRAPH_MODE Cells, passes, effects, and agreement with PyNative.

Expected values come from the documentation pages (seed 003's ms_function examples, seed 004's
modify_parameter), from hand-counted graph contents, or from PyNative (the contract: identical
numbers for programs without hooks or prints).
"""
import warnings

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, context, jit, ms_function
from minims.graph import StaticGraphError
from minims.testing import leftover_state
from seed_cells import MatMulBpropNet as MatMulBprop
from seed_cells import TensorAddNet


@pytest.fixture(autouse=True)
def pynative_afterwards():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def ones44():
    return Tensor(np.ones([4, 4]).astype(np.float32))


def test_ms_function_on_construct_as_the_debugging_page():
    net = TensorAddNet()
    z = net(ones44(), ones44())
    res = ops.Add()(ones44(), z)
    assert str(res.asnumpy()) == "[[3. 3. 3. 3.]\n [3. 3. 3. 3.]\n [3. 3. 3. 3.]\n [3. 3. 3. 3.]]"


def test_ms_function_on_a_function_as_the_debugging_page():
    add = ops.Add()

    @ms_function
    def add_fn(x, y):
        return add(x, y)
    assert str(add_fn(ones44(), ones44()).asnumpy()) == (
        "[[2. 2. 2. 2.]\n [2. 2. 2. 2.]\n [2. 2. 2. 2.]\n [2. 2. 2. 2.]]")
    assert str(add_fn.graph(ones44(), ones44())) == (
        "graph add_fn(%0: Float32[4, 4], %1: Float32[4, 4]) {\n"
        "  %2 = Add(%0, %1) : Float32[4, 4]\n"
        "  return %2\n"
        "}")


def test_assign_inside_jit_updates_the_parameter_as_the_cell_page():
    b = Parameter(Tensor(np.array([-1.2, -0.3, 0.1]), ms.float32), name="b")

    @ms.jit
    def modify_parameter():
        b_hat = ms.Tensor([7, 8, 9])
        ops.assign(b, b_hat)
        return True
    assert modify_parameter() is True
    assert str(b.asnumpy()) == "[7. 8. 9.]"
    b.set_data(Tensor([0.0, 0.0, 0.0]))
    modify_parameter()                          # the write happens on every run, not at trace time
    assert str(b.asnumpy()) == "[7. 8. 9.]"


def test_assign_of_a_computed_value_runs_with_the_graph():
    counter = Parameter(Tensor(0.0, ms.float32), name="counter")

    @ms.jit
    def step(x):
        ops.assign(counter, counter + x)
        return counter * 1

    assert float(step(Tensor(2.0))) == 2.0       # reads after the assign see the new value
    assert float(step(Tensor(3.0))) == 5.0
    assert float(counter) == 5.0


def chain(x):
    a = ops.sin(x) * ops.sin(x)                  # one common subexpression
    unused = ops.exp(x)                          # noqa: F841 - dead code on purpose
    b = x * 2.0 + a
    return (b * ops.ones_like(b)).sum()          # ones_like folds to a constant


def test_passes_report_what_they_removed():
    x = Tensor([0.3, 0.5], ms.float64)
    f = jit(chain)
    raw, opt = f.graph(x, optimized=False), f.graph(x)
    assert raw.num_equations == 9
    assert opt.num_equations == 5               # one Sin, the Exp, the OnesLike and the Mul by it are gone
    text = "\n".join(opt.reports)
    assert "constant folding: 1" in text and "common subexpressions: 1" in text and "dead code: 1" in text
    assert "algebraic simplification: 1" in text
    assert "Exp" not in str(opt) and str(opt).count("Sin") == 1


def test_the_optimised_graph_is_what_runs_and_agrees_with_pynative():
    x = Tensor([0.3, 0.5], ms.float64)
    assert float(jit(chain)(x)) == pytest.approx(float(chain(x)), abs=1e-12)


def poly(x, y):
    return (ops.tanh(x * y) + ops.exp(-x) * y * y).sum()


@pytest.mark.parametrize("compose", [
    lambda f: ops.grad(jit(f), grad_position=(0, 1)),
    lambda f: jit(ops.grad(f, grad_position=(0, 1))),
    lambda f: jit(ops.grad(jit(f), grad_position=(0, 1))),
])
def test_gradient_compositions_agree_with_pynative(compose):
    x, y = Tensor([0.3, -0.5, 1.2], ms.float64), Tensor([1.5, 0.2, -0.7], ms.float64)
    expected = ops.grad(poly, grad_position=(0, 1))(x, y)
    got = compose(poly)(x, y)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=0, atol=1e-12)


def test_second_order_of_a_compiled_function_agrees_with_pynative():
    x = Tensor([0.3, -0.5, 1.2], ms.float64)
    f = lambda x: (ops.sin(x) * ops.exp(x)).sum()
    expected = ops.grad(ops.grad(f))(x).asnumpy()
    np.testing.assert_allclose(ops.grad(ops.grad(jit(f)))(x).asnumpy(), expected, atol=1e-12)
    np.testing.assert_allclose(ops.grad(ops.grad(ops.grad(jit(f))))(x).asnumpy(),
                               ops.grad(ops.grad(ops.grad(f)))(x).asnumpy(), atol=1e-12)


def test_backward_graph_is_printable():
    f = jit(lambda x: (x * x).sum())
    text = str(f.grad_graph(Tensor([1.0, 2.0])))
    assert text.startswith("graph ") and "_grad(" in text and "return" in text


def test_same_function_two_shapes_compiles_twice_and_reuses():
    f = jit(lambda x: x * 2)
    for _ in range(3):
        f(Tensor([1.0]))
        f(Tensor([1.0, 2.0]))
    assert f.traces == 2
    f(Tensor([1, 2], ms.int32))                 # a new dtype retraces
    assert f.traces == 3


def test_non_tensor_arguments_are_part_of_the_signature():
    f = jit(lambda x, n: x * n)
    assert f(Tensor([1.0]), 2).tolist() == [2.0]
    assert f(Tensor([1.0]), 3).tolist() == [3.0]
    assert f(Tensor([1.0]), 2).tolist() == [2.0]
    assert f.traces == 2


def test_python_control_flow_on_python_values_is_specialised():
    def f(x, flag):
        if flag:
            return x + 1
        return x - 1
    g = jit(f)
    assert g(Tensor([1.0]), True).tolist() == [2.0]
    assert g(Tensor([1.0]), False).tolist() == [0.0]


def test_a_branch_on_a_tensor_value_under_fullgraph_is_an_error_naming_the_line():
    """jit(fullgraph=True) refuses the guarded variants a Python `if` on a Tensor otherwise compiles
    (tests/graph/test_guards.py): the error names the line and says what to write instead."""
    def bad(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(StaticGraphError) as info:
        jit(bad, fullgraph=True, capture_mode="trace")(Tensor(1.0))
    message = str(info.value)
    assert "if x > 0:" in message and "test_graph_mode.py" in message and "ops.select" in message
    assert float(jit(lambda x: ops.select(x > 0, x, -x))(Tensor(-2.0))) == 2.0


def test_python_print_runs_at_trace_time_and_ops_print_at_run_time(capsys):
    """Under capture_mode="trace" print is Python's (it runs once, while tracing); the default converts
    it into a Print (tests/graph/test_conversion_print.py)."""
    print_op = ops.Print()

    @jit(capture_mode="trace")
    def f(x):
        print("tracing")
        print_op("running")
        return x * 2
    f(Tensor([1.0]))
    f(Tensor([2.0]))
    assert capsys.readouterr().out == "tracing\nrunning\nrunning\n"


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w = Parameter(Tensor(rng.standard_normal((5, 3)), ms.float32), name="w")
        self.b = Parameter(Tensor(rng.standard_normal(3), ms.float32), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def test_graph_mode_cell_agrees_with_pynative_and_switching_back_works():
    net = Network()
    x = Tensor(np.ones((2, 5), np.float32))
    grads = ops.GradOperation(get_by_list=True)
    ms.set_context(mode=ms.GRAPH_MODE)
    out_g = net(x)
    g_g = grads(net, net.trainable_params())(x)
    assert net._graph_call.traces == 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out_p = net(x)
    g_p = grads(net, net.trainable_params())(x)
    np.testing.assert_array_equal(out_g.asnumpy(), out_p.asnumpy())
    for a, b in zip(g_g, g_p):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_a_wrong_input_to_a_compiled_cell_gives_the_pynative_error():
    net = Network()
    bad = Tensor(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError) as pynative:
        net(bad)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError) as graph:
        net(bad)
    assert str(graph.value) == str(pynative.value)


def test_parameters_are_read_fresh_on_every_run():
    net = Network()
    f = jit(lambda x: net(x))
    x = Tensor(np.ones((1, 5), np.float32))
    first = f(x).asnumpy()
    net.b.set_data(net.b + 1)
    np.testing.assert_allclose(f(x).asnumpy(), first + 1, rtol=1e-6)
    assert f.traces == 1


def test_training_flag_is_part_of_a_compiled_cells_signature():
    class Flagged(nn.Cell):
        def construct(self, x):
            return x * 2 if self.training else x
    net = Flagged()
    ms.set_context(mode=ms.GRAPH_MODE)
    assert net(Tensor([1.0])).tolist() == [1.0]
    net.set_train(True)
    assert net(Tensor([1.0])).tolist() == [2.0]
    assert net._graph_call.traces == 2


def test_hooks_are_not_effective_in_graph_mode_with_one_warning(monkeypatch):
    from minims.autodiff import hooks
    monkeypatch.setattr(hooks, "_warned_graph_mode", False)
    calls = []

    class Inner(nn.Cell):
        def construct(self, x):
            return x * 3
    inner = Inner()
    inner.register_forward_hook(lambda cell_id, i, o: calls.append(cell_id))
    hook = ops.HookBackward(lambda g: calls.append("backward"))
    f = jit(lambda x: hook(inner(x)).sum())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert float(ops.grad(f)(Tensor([1.0, 2.0])).sum()) == 6.0
        f(Tensor([1.0, 2.0]))
    assert calls == []
    assert sum("not effective in Graph mode" in str(w.message) for w in caught) == 1
    inner(Tensor([1.0]))                         # PyNative still runs the hook
    assert calls == ["Inner(Inner)"]


def test_custom_bprop_is_staged_in_graph_mode():
    x = ms.Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=ms.float32)
    y = ms.Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=ms.float32)
    expected = ops.GradOperation(get_all=True)(MatMulBprop())(x, y)
    got = ops.GradOperation(get_all=True)(jit(lambda a, b: MatMulBprop()(a, b)))(x, y)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())


class NotATuple(nn.Cell):
    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return dout


class WithInternalParams(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor([2.0]), name="w")
        self.internal_params = [self.w]

    def construct(self, x):
        return self.w * x

    def bprop(self, x, out, dout):
        return (self.w * dout,), {self.w: x * dout}


def test_graph_mode_bprop_constraints():
    with pytest.raises(TypeError, match="tuple"):
        ops.grad(jit(lambda x: NotATuple()(x)))(Tensor([1.0]))
    with pytest.raises(RuntimeError, match="PyNative"):
        jit(lambda x: WithInternalParams()(x))(Tensor([1.0]))
    net = WithInternalParams()                   # PyNative keeps internal_params working
    assert ops.grad(net, grad_position=None, weights=[net.w])(Tensor([3.0]))[0].tolist() == [3.0]


def test_random_ops_are_not_merged_by_cse():
    ms.set_seed(1)
    dropout = ops.Dropout(keep_prob=0.5)
    f = jit(lambda x: (dropout(x)[0], dropout(x)[0]))
    a, b = f(Tensor(np.ones(64, np.float32)))
    assert not np.array_equal(a.asnumpy(), b.asnumpy())
    assert str(f.graph(Tensor(np.ones(64, np.float32)))).count("Dropout") == 2


def test_jit_inside_jit_is_inlined():
    inner = jit(lambda x: x * 3)
    outer = jit(lambda x: inner(x) + 1)
    assert outer(Tensor([1.0])).tolist() == [4.0]
    assert "call" not in str(outer.graph(Tensor([1.0])))


def test_batchnorm_moving_statistics_update_in_graph_mode_as_in_pynative():
    x = Tensor(np.random.default_rng(0).standard_normal((4, 2, 3, 3)).astype(np.float32))
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        bn = nn.BatchNorm2d(2)
        bn.set_train()
        outs = [bn(x).asnumpy() for _ in range(3)]        # three runs of the same compiled graph
        results[mode] = outs + [bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()]
    for pynative, graph in zip(results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]):
        np.testing.assert_array_equal(graph, pynative)
    # moving = 0.9 * moving + 0.1 * batch, three times from 0: 0.271 * batch mean
    batch_mean = x.asnumpy().mean(axis=(0, 2, 3))
    np.testing.assert_allclose(results[ms.GRAPH_MODE][3], 0.271 * batch_mean, rtol=1e-5)


def test_the_executor_runs_one_line_of_python_per_equation():
    f = jit(lambda x: (ops.sin(x) * x).sum())
    x = Tensor([1.0, 2.0])
    source = f.source(x)
    assert source.startswith("def run(v0):")
    assert source.count(" = k") == f.graph(x).num_equations == 3
    assert float(f(x)) == pytest.approx(float((ops.sin(x) * x).sum()), rel=1e-6)
