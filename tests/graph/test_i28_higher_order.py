"""Issue 28, item 3: the graphs of higher derivatives share their derivative factors
(``minims/graph/derivatives.py``).

Expected values come from SymPy's closed form of the derivatives of tanh and sigmoid, evaluated in
high precision (``sympy.diff``), never from minims itself; the unshared graph (``optimize(raw,
share_derivatives=False)``) is the second reference, on random inputs.
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.graph.derivatives import share_input_grads
from minims.graph.executor import Plan
from minims.graph.passes import optimize
from minims.primitives.input_grads import TanhGrad


def _third(fn):
    return ops.grad(ops.grad(ops.grad(lambda x: fn(x).sum())))


def _graphs(fn, x):
    raw = ms.jit(_third(fn)).graph(Tensor(x), optimized=False)
    return optimize(raw, share_derivatives=False), optimize(raw)


def _closed_third(expr_of, xs):
    """The third derivative by SymPy, evaluated with 30 digits at each float32 input."""
    v = sympy.Symbol("v")
    d3 = sympy.diff(expr_of(v), v, 3)
    return np.array([float(d3.subs(v, sympy.Float(float(a), 30)).evalf(30)) for a in xs])


def _run(graph, x, fast):
    before = ms.get_context("fast_path")
    ms.set_context(fast_path=fast)
    try:
        return Plan(graph).run([x])[0]
    finally:
        ms.set_context(fast_path=before)


def _count(graph, name):
    return sum(eq.prim.name == name for eq in graph.equations)


def test_third_derivative_of_tanh_computes_sech_squared_once():
    """Item 3: W4's graph has three TanhGrad before the pass (one per derivative level), one after."""
    x = np.linspace(-2.0, 2.0, 1000).astype(np.float32)
    before, after = _graphs(ops.tanh, x)
    assert _count(before, "TanhGrad") == 3 and _count(after, "TanhGrad") == 1
    assert len(after.equations) <= len(before.equations)
    assert after.removed["shared derivative factors"] == 2
    assert any(r.startswith("shared derivative factors: 2") for r in after.reports)


@pytest.mark.parametrize("name, fn, expr, prim", [
    ("tanh", ops.tanh, sympy.tanh, "TanhGrad"),
    ("sigmoid", ops.sigmoid, lambda v: 1 / (1 + sympy.exp(-v)), "SigmoidGrad"),
])
def test_shared_graph_matches_sympy_closed_form_and_the_unshared_graph(name, fn, expr, prim):
    """Item 3: on random float32 inputs the shared graph computes SymPy's third derivative to the
    accuracy of the unshared graph (a few ULP away from the zeros of the third derivative, where the
    product-rule terms cancel: minims/testing/accuracy/bounds.py), on the NumPy path and fused."""
    rng = np.random.default_rng(28)
    x = rng.uniform(-4.0, 4.0, 64).astype(np.float32)
    before, after = _graphs(fn, x)
    assert _count(after, prim) == 1 < _count(before, prim)
    want = _closed_third(expr, x)
    scale = np.max(np.abs(want))
    for fast in (False, True):
        got_before, got_after = _run(before, x, fast), _run(after, x, fast)
        assert np.max(np.abs(got_after - want)) <= 1e-6 * scale
        assert np.max(np.abs(got_after - got_before)) <= 1e-6 * scale
        assert np.max(np.abs(got_after - want)) <= 2 * np.max(np.abs(got_before - want)) + 1e-7 * scale


def test_jit_runs_the_shared_graph():
    """Item 3: what ``jit`` executes is the shared graph; its value is SymPy's closed form."""
    x = np.linspace(-3.0, 3.0, 16).astype(np.float32)
    f = ms.jit(_third(ops.tanh))
    assert _count(f.graph(Tensor(x)), "TanhGrad") == 1
    want = _closed_third(sympy.tanh, x)
    assert np.max(np.abs(f(Tensor(x)).asnumpy() - want)) <= 1e-6 * np.max(np.abs(want))


def test_broadcasting_sensitivity_is_left_alone():
    """Item 3: a rule whose sensitivity broadcasts (a scalar d) keeps its own primitive: only
    G(x, d) with x, d and the result of one shape and dtype are rewritten (derivatives.py)."""
    x = np.linspace(-1.0, 1.0, 8).astype(np.float32)

    def f(v):
        return TanhGrad()(v, Tensor(np.float32(2.0))) + TanhGrad()(v, Tensor(np.float32(3.0)))
    graph = ms.jit(f).graph(Tensor(x))
    assert share_input_grads(graph) is graph
