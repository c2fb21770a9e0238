"""Source conversion, MindSpore's route (issue 24 item 3): ``jit`` (capture_mode="ast", the default)
and Graph-mode ``construct`` rewrite ``if``/``elif``/ternaries/``while`` on Tensors into ``Cond``/``While``,
so ONE graph serves inputs that take different branches or trip counts (``minims/conversion/``).

Expected values: MindSpore 2.10 run on the oracle (``/tmp/oracle/bin/python``; the issue's table for
x = [1, -2, 3]), closed forms (each branch is a polynomial), and PyNative runs of the same function.
"""
from __future__ import annotations

import linecache

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.control_flow import BranchTypeError, Cond, While
from minims.graph import StaticGraphError

A = np.array([1.0, -2.0, 3.0], np.float32)      # sum 2 > 0
B = np.array([-1.0, -2.0, 3.0], np.float32)     # sum 0: not > 0


def t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def primitives(graph) -> set:
    return {type(eq.prim) for eq in graph.equations}


def scale_by_sign(x):
    if x.sum() > 0:
        return x * 2
    else:
        return x * 3


def test_an_if_on_a_tensor_is_one_graph_with_a_cond_serving_both_branches():
    """Issue 24 item 3, the table's first row. MindSpore 2.10 oracle: [2, -4, 6] with grad [2, 2, 2]
    at x = [1, -2, 3]; [-3, 6, -9] with grad [3, 3, 3] at -x; here with one trace for both."""
    for f in (jit(scale_by_sign), jit(scale_by_sign, fullgraph=True)):
        np.testing.assert_array_equal(f(t(A)).asnumpy(), [2, -4, 6])
        np.testing.assert_array_equal(ms.grad(f)(t(A)).asnumpy(), [2, 2, 2])
        np.testing.assert_array_equal(f(t(-A)).asnumpy(), [-3, 6, -9])
        np.testing.assert_array_equal(ms.grad(f)(t(-A)).asnumpy(), [3, 3, 3])
        assert f.traces == 1 and f.guards(t(A)) == []
        assert Cond in primitives(f.graph(t(A)))


def test_a_ternary_and_any_of_a_comparison_are_one_graph():
    """Issue 24 item 3 (table row 2). MindSpore 2.10 oracle: tern(x, y) = [15, 15, 15] (y*3) and
    tern(y, x) = [10, 10, 10] (x*2) for x = [1, -2, 3], y = [5, 5, 5]; grads (0, [3, 3, 3])."""
    @jit
    def tern(x, y):
        return x * 2 if (x > y).any() else y * 3
    x, y = t(A), t([5, 5, 5])
    np.testing.assert_array_equal(tern(x, y).asnumpy(), [15, 15, 15])
    np.testing.assert_array_equal(tern(y, x).asnumpy(), [10, 10, 10])
    gx, gy = ms.grad(tern, grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(gy.asnumpy(), [3, 3, 3])
    assert tern.traces == 1


def test_an_elif_chain_with_and_and_not_of_tensor_predicates():
    """Issue 24 item 3 (elif, boolean operators). MindSpore 2.10 oracle, value and grad per input:
    [3,3,3] -> [3,3,3], [1,1,1]; [1,-2,3] -> [2,-4,6], [2,2,2]; [-5,0,0] -> [-15,0,0], [3,3,3];
    [-1,0,0] -> [-4,0,0], [4,4,4]."""
    @jit(fullgraph=True)
    def elifs(x):
        s = x.sum()
        if s > 5:
            y = x * 1
        elif s > 0 and x[0] > 0:
            y = x * 2
        elif not (s > -3):
            y = x * 3
        else:
            y = x * 4
        return y
    cases = [([3, 3, 3], [3, 3, 3], 1), ([1, -2, 3], [2, -4, 6], 2), ([-5, 0, 0], [-15, 0, 0], 3),
             ([-1, 0, 0], [-4, 0, 0], 4)]
    for x, value, slope in cases:
        np.testing.assert_array_equal(elifs(t(x)).asnumpy(), value)
        np.testing.assert_array_equal(ms.grad(elifs)(t(x)).asnumpy(), [slope] * 3)
    assert elifs.traces == 1


def test_a_while_on_a_tensor_is_one_graph_for_every_trip_count():
    """Issue 24 item 3 (table row 3). MindSpore 2.10 oracle: 128 and grad [64, 64, 64] at [1, -2, 3];
    closed form at 16 x: sum 32 doubles twice, 128 and grad [4, 4, 4] — from the same graph."""
    @jit(fullgraph=True)
    def doubling(x):
        while x.sum() < 100:
            x = x * 2
        return x.sum()
    assert float(doubling(t(A))) == 128.0
    np.testing.assert_array_equal(ms.grad(doubling)(t(A)).asnumpy(), [64, 64, 64])
    assert float(doubling(t(A * 16))) == 128.0
    np.testing.assert_array_equal(ms.grad(doubling)(t(A * 16)).asnumpy(), [4, 4, 4])
    assert doubling.traces == 1 and While in primitives(doubling.graph(t(A)))


def test_a_while_with_tensor_counters_differentiates():
    """Issue 24 item 3 (table row 4). MindSpore 2.10 oracle: two steps of x*x + 1 from [1, -2, 3]
    give sum 132 and grad 4x(x^2 + 1) = [8, -40, 120]; one step (closed form) x^2 + 1, grad 2x."""
    @jit(fullgraph=True)
    def counters(x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * x + 1
            i = i + 1
        return x.sum()
    two, one = Tensor(2, ms.int32), Tensor(1, ms.int32)
    assert float(counters(t(A), two)) == 132.0
    np.testing.assert_array_equal(ms.grad(counters)(t(A), two).asnumpy(), [8, -40, 120])
    assert float(counters(t(A), one)) == float((A * A + 1).sum())
    np.testing.assert_array_equal(ms.grad(counters)(t(A), one).asnumpy(), 2 * A)
    assert counters.traces == 1


def test_conditions_on_python_values_fold_and_python_loops_unroll():
    """Issue 24 item 3: a Python condition folds at trace time, `for i in range(n)` and `for row in x`
    unroll (as MindSpore does): no Cond or While in the graph. Closed form: 3 steps of x + row sum."""
    @jit
    def f(x, n, flag):
        if flag:
            x = x * 2
        else:
            x = x * 3
        for _ in range(n):
            x = x + 1
        total = x[0] * 0
        for row in x:
            total = total + row
        return total
    assert float(f(t(A), 3, True)) == float((A * 2 + 3).sum())
    assert float(f(t(A), 3, False)) == float((A * 3 + 3).sum())
    assert not primitives(f.graph(t(A), 3, True)) & {Cond, While}


def cubed_or_squared(x):
    if x.sum() > 0:
        return x * x * x
    return x * x


def test_second_order_through_a_converted_if_and_while():
    """Issue 24 item 3 (second order, where MindSpore 2.10's CPU build fails for the if). Closed forms:
    d2/dx2 sum(x^3) = 6x, of sum(x^2) = 2; 1.5 squared three times is x^8, d2/dx2 = 56 x^6 = 637.875
    (the MindSpore 2.10 oracle gives 637.875 too)."""
    f = jit(cubed_or_squared)
    second = ms.grad(ms.grad(lambda x: f(x).sum()))
    np.testing.assert_allclose(second(t(A)).asnumpy(), 6 * A, rtol=1e-6)
    np.testing.assert_allclose(second(t(B)).asnumpy(), [2, 2, 2], rtol=1e-6)
    assert f.traces == 1

    @jit
    def squaring(x):
        while x < 10:
            x = x * x
        return x
    x = Tensor(1.5, ms.float32)
    np.testing.assert_allclose(float(squaring(x)), 1.5 ** 8, rtol=1e-6)
    np.testing.assert_allclose(float(ms.grad(ms.grad(squaring))(x)), 637.875, rtol=1e-5)


def test_vmap_over_a_converted_if_selects_per_example():
    """Issue 24 item 3 (vmap with a batched predicate: MindSpore 2.10 raises ValueError; here both
    branches run and select picks per example). Closed form: row A cubed, row B squared."""
    out = ms.vmap(jit(cubed_or_squared))(Tensor(np.stack([A, B])))
    np.testing.assert_array_equal(out.asnumpy(), np.stack([A ** 3, B ** 2]))


class SignGate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t([0.5, 0.5, 0.5]), name="w")

    def construct(self, x):
        if (self.w * x).sum() > 0:
            return x * self.w
        return x - self.w


def test_a_graph_mode_cell_with_a_parameter_in_the_condition_is_one_graph():
    """Issue 24 item 3 (GRAPH_MODE construct). MindSpore 2.10 oracle: at [1, -2, 3] the value [0.5, -1, 1.5],
    grads (x: [0.5]*3, w: [1, -2, 3]); at -x the value [-1.5, 1.5, -3.5], grads ([1]*3, [-1]*3)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = SignGate()
        grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
        for x, value, gx, gw in ((A, [0.5, -1, 1.5], [0.5] * 3, A), (-A, [-1.5, 1.5, -3.5], [1] * 3, [-1] * 3)):
            np.testing.assert_array_equal(net(t(x)).asnumpy(), value)
            dx, (dw,) = grad(t(x))
            np.testing.assert_array_equal(dx.asnumpy(), gx)
            np.testing.assert_array_equal(dw.asnumpy(), gw)
        assert net._graph_call.traces == 1
        assert "ms_cond((self.w * x).sum() > 0" in ms.converted_source(net.construct)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
