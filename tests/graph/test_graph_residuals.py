"""Residuals: differentiating a compiled graph runs its forward equations once, and its backward
graph holds only the rules' equations (no primal primitive is evaluated twice)."""
import numpy as np
import pytest
import sympy

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor
from minims.graph.residuals import split_for_gradient
from minims.core.primitive import Primitive


class CountingSin(Primitive):
    """sin, counting how often its forward rule runs."""

    calls = 0

    def impl(self, x):
        CountingSin.calls += 1
        return np.sin(x)

    def bprop(self, x, out, dout):
        return (ops.mul(dout, ops.cos(x)),)


_sin = CountingSin()


def f(x):
    return (_sin(x) * x).sum()


class Net(nn.Cell):
    def construct(self, x):
        return f(x)


X = Tensor(np.array([0.5, 1.0, -2.0]), ms.float64)


def _calls(run):
    run()                                      # the first call traces
    CountingSin.calls = 0
    run()
    return CountingSin.calls


@pytest.fixture(autouse=True)
def pynative():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_gradient_of_a_compiled_function_evaluates_each_primitive_once():
    jitted = ms.jit(f)
    assert _calls(lambda: jitted(X)) == 1
    grad_of_jit = ms.grad(jitted)
    assert _calls(lambda: grad_of_jit(X)) == 1          # was 2: the backward graph replayed Sin
    value_and_grad = ms.value_and_grad(jitted)
    assert _calls(lambda: value_and_grad(X)) == 1


def test_a_graph_mode_cell_gradient_evaluates_each_primitive_once():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    grad = ms.grad(net)
    assert _calls(lambda: grad(X)) == 1


def test_the_backward_graph_holds_no_primal_primitive():
    jitted = ms.jit(lambda x: ops.sin(x) * ops.exp(x))
    jitted(X)
    split = split_for_gradient(jitted.graph(X), (0,))
    backward = [eq.prim.name for eq in split.backward.equations]
    assert set(backward) <= {"Mul", "Add"}, split.backward.text()
    forward = [eq.prim.name for eq in split.forward.equations]
    assert forward.count("Sin") == 1 and forward.count("Exp") == 1 and "Cos" in forward
    assert split.n_residuals >= 1


def test_gradients_through_residuals_match_sympy_to_second_order():
    t = sympy.Symbol("t")
    expr = sympy.sin(t) * t
    first, second = sympy.diff(expr, t), sympy.diff(expr, t, 2)
    values = X.asnumpy()
    jitted = ms.jit(lambda x: (ops.sin(x) * x).sum())
    np.testing.assert_allclose(ms.grad(jitted)(X).asnumpy(), [float(first.subs(t, v)) for v in values], rtol=1e-14)
    np.testing.assert_allclose(ms.grad(lambda x: ms.grad(jitted)(x).sum())(X).asnumpy(),
                               [float(second.subs(t, v)) for v in values], rtol=1e-14)


class IgnoresDout(nn.Cell):
    """A bprop that does not use dout: a zero cotangent and no cotangent differ."""

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (x + 1,)


def test_an_output_without_a_cotangent_does_not_run_a_rule_fed_only_by_it():
    cell = IgnoresDout()

    def two(x):
        return x * 3, cell(x)                   # the loss below uses the first output only
    jitted = ms.jit(two)
    eager = ms.grad(lambda x: two(x)[0].sum())(X)
    compiled = ms.grad(lambda x: jitted(x)[0].sum())(X)
    assert eager.asnumpy().tolist() == [3.0, 3.0, 3.0] == compiled.asnumpy().tolist()


def test_a_graph_that_writes_a_parameter_is_differentiated_by_replaying():
    w = ms.Parameter(Tensor(np.array([1.0, 2.0, 3.0])), name="w")

    def step(x):
        ops.assign(w, w + 1.0)
        return (_sin(x) * x).sum()
    jitted = ms.jit(step)
    jitted(X)
    assert split_for_gradient(jitted.graph(X), (0,)) is None
    g = ms.grad(jitted)(X).asnumpy()
    np.testing.assert_allclose(g, np.cos(X.asnumpy()) * X.asnumpy() + np.sin(X.asnumpy()), rtol=1e-14)
