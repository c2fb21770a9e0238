"""Python control flow on a Tensor's value inside ``jit`` and GRAPH_MODE: guarded variants (issue 24, item 4).

``minims/graph/guards.py``: the trace computes the value of the call being compiled, takes the branch
it chooses and records a guard; ``jit`` keeps one variant per way the branches go and checks the guards
at every call.  Expected values: closed forms (each branch is a polynomial), the figures MindSpore 2.10
gives for the same code (issue 24's table: ``while x.sum() < 100: x = x * 2`` at [1, -2, 3] gives 128
and the gradient [64, 64, 64]), and the PyNative run of the same function, which has no guards.

The default ``capture_mode="ast"`` converts a plain ``if``/``while`` on a Tensor into one graph with a
``Cond``/``While`` (``minims/conversion/``, tests/control_flow/test_source_conversion.py); the tests
of the guards themselves compile with ``capture_mode="trace"``, which keeps the function as written.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.graph import StaticGraphError
from minims.graph import guards as guards_module
from minims.graph.jit import RETRACE_WARNING_AFTER, RetraceWarning

A = np.array([1.0, -2.0, 3.0], np.float32)      # sum 2 > 0
B = np.array([-1.0, -2.0, 3.0], np.float32)     # sum 0: not > 0


def t(values):
    return Tensor(np.array(values, np.float32))


def branchy(x):
    if x.sum() > 0:
        return x * x * x
    return x * x


def test_an_if_on_a_tensor_takes_the_branch_of_each_call_and_compiles_each_branch_once():
    f = jit(branchy, capture_mode="trace")
    for _ in range(2):
        np.testing.assert_array_equal(f(t(A)).asnumpy(), A ** 3)
        np.testing.assert_array_equal(f(t(B)).asnumpy(), B ** 2)
    assert f.traces == 2                     # one variant per branch, each reused


def test_gradients_through_an_if_are_those_of_the_branch_taken():
    """d/dx sum(x^3) = 3x^2 where sum(x) > 0, else d/dx sum(x^2) = 2x; second order 6x and 2."""
    f = jit(branchy)
    grad = ops.grad(lambda x: f(x).sum())
    np.testing.assert_allclose(grad(t(A)).asnumpy(), 3 * A ** 2)
    np.testing.assert_allclose(grad(t(B)).asnumpy(), 2 * B)
    second = ops.grad(lambda x: ops.grad(lambda y: f(y).sum())(x).sum())
    np.testing.assert_allclose(second(t(A)).asnumpy(), 6 * A)
    np.testing.assert_allclose(second(t(B)).asnumpy(), [2.0, 2.0, 2.0])
    inside = jit(ops.grad(lambda x: branchy(x).sum()))      # the gradient compiled, the if inside it
    np.testing.assert_allclose(inside(t(A)).asnumpy(), 3 * A ** 2)
    np.testing.assert_allclose(inside(t(B)).asnumpy(), 2 * B)


def test_a_while_on_a_tensor_unrolls_as_many_times_as_this_call_needs():
    """MindSpore 2.10 (issue 24's table): 128 and the gradient [64, 64, 64] at [1, -2, 3]."""
    @jit(capture_mode="trace")
    def doubling(x):
        while x.sum() < 100:
            x = x * 2
        return x.sum()
    assert float(doubling(t(A))) == 128.0
    np.testing.assert_array_equal(ops.grad(doubling)(t(A)).asnumpy(), [64.0, 64.0, 64.0])
    assert float(doubling(t(A * 16))) == 128.0       # sum 32: two doublings, another variant
    np.testing.assert_array_equal(ops.grad(doubling)(t(A * 16)).asnumpy(), [4.0, 4.0, 4.0])
    assert doubling.traces == 2


def test_a_ternary_and_any_of_a_comparison_of_two_inputs():
    @jit
    def pick(x, y):
        z = x * y if (x > y).any() else x + y
        return z.sum()
    x, y = t([1.0, 2.0]), t([3.0, 1.0])             # 2 > 1: the product
    assert float(pick(x, y)) == 5.0
    gx, gy = ops.grad(pick, grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [3.0, 1.0])
    np.testing.assert_array_equal(gy.asnumpy(), [1.0, 2.0])
    assert float(pick(y - 5, y)) == 2 * float(y.sum()) - 10     # never greater: the sum
    np.testing.assert_array_equal(ops.grad(pick)(y - 5, y).asnumpy(), [1.0, 1.0])


def test_a_while_with_tensor_counters():
    @jit
    def power(x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * 1.5
            i = i + 1
        return x.sum()
    x = t([2.0])
    assert float(power(x, Tensor(3, ms.int32))) == pytest.approx(2 * 1.5 ** 3)
    assert float(ops.grad(power)(x, Tensor(4, ms.int32))) == pytest.approx(1.5 ** 4)
    assert float(power(x, Tensor(0, ms.int32))) == 2.0


class Gate(nn.Cell):
    """A Cell whose construct branches on its Parameter and loops on its input."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(t([1.0, 2.0, 3.0]), name="w")

    def construct(self, x):
        while x.sum() < 10:
            x = x * self.w
        if (self.w > 2).any():
            return (x * self.w).sum()
        return x.sum()


@pytest.mark.parametrize("x", [A, B, 2 * A])
def test_a_graph_mode_cell_with_an_if_and_a_while_equals_pynative(x):
    net = Gate()
    grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
    expected_value, (expected_gx, (expected_gw,)) = net(t(x)), grad(t(x))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        value, (gx, (gw,)) = net(t(x)), grad(t(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert float(value) == float(expected_value)
    np.testing.assert_array_equal(gx.asnumpy(), expected_gx.asnumpy())
    np.testing.assert_array_equal(gw.asnumpy(), expected_gw.asnumpy())


def test_a_branch_on_a_parameter_follows_its_value_at_each_call():
    w = Parameter(t([1.0]), name="w")

    @jit(capture_mode="trace")
    def f(x):
        return x * 2 if w.sum() > 0 else x * 3
    assert f(t([1.0])).tolist() == [2.0]
    w.set_data(t([-1.0]))
    assert f(t([1.0])).tolist() == [3.0]
    w.set_data(t([5.0]))
    assert f(t([1.0])).tolist() == [2.0] and f.traces == 2


def test_a_guarded_function_called_inside_another_compiled_function():
    inner = jit(lambda x: x * 2 if x.sum() > 0 else x * 3)
    outer = jit(lambda x: inner(x) + 1)
    for x in (A, B, A):
        np.testing.assert_array_equal(outer(t(x)).asnumpy(), (2 if x.sum() > 0 else 3) * x + 1)
    assert outer.traces == 2


def test_the_guards_name_the_line_and_the_value_and_the_graph_shows_them():
    f = jit(branchy, capture_mode="trace")
    (where, value), = f.guards(t(A))
    assert "test_guards.py" in where and "if x.sum() > 0:" in where and value is True
    assert f.guards(t(B))[0][1] is False
    assert "Guard[expects=True]" in str(f.graph(t(A)))
    assert jit(lambda x: x * 2).guards(t(A)) == []


def test_capture_mode_trace_never_keeps_the_first_calls_branch():
    """MindSpore 2.10's capture_mode="trace" returns the first call's branch for every input (issue 24);
    minims compiles a guarded variant whatever the capture mode."""
    f = jit(branchy, capture_mode="trace")
    f(t(A))
    np.testing.assert_array_equal(f(t(B)).asnumpy(), B ** 2)


def test_fullgraph_refuses_a_value_read_and_says_why():
    with pytest.raises(StaticGraphError, match=r"fullgraph=True\) refuses this"):
        jit(branchy, fullgraph=True, capture_mode="trace")(t(A))


def test_vmap_over_a_branch_on_a_batched_value_is_an_error_naming_select():
    with pytest.raises(StaticGraphError, match=r"differ between the examples of a vmap.*ops\.select"):
        ms.vmap(jit(branchy, capture_mode="trace"))(Tensor(np.stack([A, B])))


def test_a_value_from_a_random_draw_is_refused():
    with pytest.raises(StaticGraphError, match="Dropout, which gives other values each run"):
        jit(lambda x: x * 2 if ops.dropout(x, p=0.5).sum() > 0 else x)(t(A))


def test_a_variant_whose_guard_fails_when_it_runs_is_compiled_again(monkeypatch):
    """The guard equation inside the graph is the safety net: make the choice before the run wrong
    (every variant 'holds'), and the run's own check still gives the right branch."""
    f = jit(branchy, capture_mode="trace")
    f(t(A))
    monkeypatch.setattr(sys.modules["minims.graph.jit"], "guards_hold", lambda *args: True)
    np.testing.assert_array_equal(f(t(B)).asnumpy(), B ** 2)
    assert f.traces == 2
    with pytest.raises(guards_module.GuardFailed, match="compiled for the value True"):
        guards_module.Guard(np.True_, "here").impl(np.False_)


def test_a_new_variant_on_every_call_warns_once_with_the_fix():
    @jit(capture_mode="trace")
    def halve_until_small(x):
        while x.sum() > 1:
            x = x / 2
        return x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(RETRACE_WARNING_AFTER + 2):
            halve_until_small(t([2.0 ** k + 0.5]))
    messages = [str(w.message) for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(messages) == 1 and "variants" in messages[0] and "ops.select" in messages[0]


@pytest.mark.parametrize("options, error, words", [
    # MindSpore 2.10's types and words, checked on the oracle
    (dict(capture_mode="xx"), ValueError, "'capture_mode' must be str and must be in"),
    (dict(jit_level="O2"), ValueError, "'jit_level' must be str and must be in '['O0', 'O1']'"),
    (dict(fullgraph="yes"), TypeError, "'fullgraph' must be a bool, but got str"),
    (dict(dynamic=2), ValueError, "'dynamic' must be in range of [0, 1], but got 2"),
    (dict(backend="xx"), RuntimeError, "Invalid backend name"),
])
def test_jit_options_are_checked_as_mindspore_checks_them(options, error, words):
    with pytest.raises(error) as info:
        jit(branchy, **options)
    assert words in str(info.value) and "Fix:" in str(info.value)


def test_an_unknown_jit_option_warns_and_the_known_ones_are_accepted():
    with pytest.warns(UserWarning, match="'speed' is not recognized"):
        jit(branchy, speed=3)
    for options in (dict(jit_level="O1"), dict(capture_mode="bytecode"), dict(backend="ms_backend"),
                    dict(exec_order="dfs"), dict(dynamic=1)):
        np.testing.assert_array_equal(jit(branchy, **options)(t(A)).asnumpy(), A ** 3)
    with pytest.raises(ValueError, match="exec_order"):
        jit(branchy, exec_order="random")


def test_a_value_check_inside_an_op_is_no_branch_and_compiles_once():
    """A loss checks that sparse labels are in range, reading their values where it can; inside a
    graph being compiled that check runs when the graph runs, and reads no value through a guard
    (a variant per label batch would recompile every step: the soak test found this)."""
    loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    f = jit(lambda logits, labels: loss(logits, labels))
    logits = t(np.arange(6.0).reshape(2, 3))
    for labels in ([0, 2], [1, 1], [2, 0]):
        value = f(logits, Tensor(np.array(labels, np.int32)))
        rows = np.arange(6.0).reshape(2, 3)
        expected = np.mean(np.log(np.exp(rows).sum(1)) - rows[[0, 1], labels])     # closed form
        assert float(value) == pytest.approx(expected, rel=1e-6)
    assert f.traces == 1 and f.guards(logits, Tensor(np.array([0, 2], np.int32))) == []
    assert jit(lambda x: x * 2 if x.is_contiguous() else x)(t(A)).tolist() == (2 * A).tolist()
