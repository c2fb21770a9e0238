"""Issue 24, item 1: ``Cond``, a primitive whose parameters are two branch graphs — every rule kind.

Expected values come from closed forms (the branch taken is ``2x`` or ``3x``; ``sum(x**3)`` or
``sum(x)``), SymPy (``Piecewise``) and the MindSpore 2.10 oracle (the exception type of a type join
that fails: ``TypeError`` "Type Join Failed" for Float32 against Int32).
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.control_flow import BranchShapeError, BranchTypeError, Cond, cond
from minims.graph.residuals import split_for_gradient
from minims.graph.tracing import trace_to_graph
from minims.interpreters.symbolic import symbolic_call, symbols_like
from minims.testing import check_modes

X = np.array([1.0, -2.0, 3.0], np.float32)


def _double_or_triple(x):
    return cond(x.sum() > 0, lambda a: a * 2, lambda a: a * 3, x)


def test_cond_gives_the_taken_branch_and_its_gradient_eagerly_and_in_jit():
    """Item 1 (the issue's table, first row, measured on MindSpore 2.10): values and gradients of the
    branch taken, for both predicates; closed form d(2x)/dx = 2, d(3x)/dx = 3."""
    for x, k in ((X, 2.0), (-X, 3.0)):
        for f in (_double_or_triple, ms.jit(_double_or_triple)):
            np.testing.assert_allclose(f(Tensor(x)).asnumpy(), k * x)
            g = ms.grad(lambda t: f(t).sum())(Tensor(x))
            np.testing.assert_allclose(g.asnumpy(), np.full(3, k))


def test_cond_refuses_branches_of_different_dtypes_naming_both():
    """Item 1 (abstract evaluation): MindSpore 2.10 raises TypeError "Type Join Failed: dtype1 =
    Float32, dtype2 = Int32" for an if/else returning those types (oracle run)."""
    with pytest.raises(TypeError) as info:
        cond(Tensor(X).sum() > 0, lambda a: a, lambda a: ops.cast(a, ms.int32), Tensor(X))
    assert isinstance(info.value, BranchTypeError)
    assert "Float32[3]" in str(info.value) and "Int32[3]" in str(info.value) and "Fix" in str(info.value)
    with pytest.raises(ValueError) as info:
        cond(Tensor(X).sum() > 0, lambda a: a, lambda a: ops.concat([a, a]), Tensor(X))
    assert isinstance(info.value, BranchShapeError)
    assert "Float32[3]" in str(info.value) and "Float32[6]" in str(info.value)


def test_cond_agrees_in_every_mode_up_to_second_order():
    """Item 1 (bprop staged as a Cond of backward graphs, so second order works): f, jit, grad and
    second-order compositions agree (closed form: grad of sum(x**3) is 3x**2, its grad 6x)."""
    def f(x):
        return cond(x.sum() > 0, lambda a: (a * a * a).sum(), lambda a: a.sum(), x)
    check_modes(f, (Tensor(X.astype(np.float64)),))
    gg = ms.grad(ms.grad(f))(Tensor(X.astype(np.float64)))
    np.testing.assert_allclose(gg.asnumpy(), 6 * X)


def test_cond_forward_mode_is_a_cond_of_forward_graphs():
    """Item 1 (jvp): the tangent of the branch taken (closed form: 2 * tangent)."""
    out, tangent = ms.jvp(_double_or_triple, Tensor(X), Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(out.asnumpy(), 2 * X)
    np.testing.assert_allclose(tangent.asnumpy(), np.full(3, 2.0))


def test_cond_under_vmap_with_a_predicate_per_example_selects():
    """Item 1 (batching, beyond MindSpore 2.10 whose vmap raises ValueError): each example takes its
    own branch (closed form: rows with a positive sum doubled, the others tripled)."""
    batch = np.array([[1.0, 2.0], [-1.0, -3.0], [4.0, -1.0]], np.float32)
    out = ms.vmap(lambda r: cond(r.sum() > 0, lambda a: a * 2, lambda a: a * 3, r))(Tensor(batch))
    np.testing.assert_allclose(out.asnumpy(), batch * np.array([[2.0], [3.0], [2.0]], np.float32))


def test_cond_sympy_form_is_a_piecewise():
    """Item 1 (SymPy form): Piecewise((2x, x0 + x1 > 0), (3x, True)) per entry, as SymPy writes it."""
    x = symbols_like("x", (2,))
    out = symbolic_call(_double_or_triple, x)
    s = x[0] + x[1]
    for j in range(2):
        expected = sympy.Piecewise((2 * x[j], s > 0), (3 * x[j], True))
        assert sympy.simplify(out[j] - expected) == 0


def test_cond_goes_through_the_residual_split():
    """Item 1 (residual split): a compiled graph holding a Cond splits into a forward graph and a
    backward graph (the Cond of backward graphs reading residuals); its gradient matches central
    differences of the graph."""
    def f(x):
        return (cond(x.sum() > 0, lambda a: a.sin() * a, lambda a: a * 3, x) * x).sum()
    x = Tensor(X.astype(np.float64))
    graph = trace_to_graph(f, [x])
    split = split_for_gradient(graph, (0,))
    assert split is not None
    assert any(isinstance(eq.prim, Cond) for eq in split.backward.equations)
    g = ms.grad(ms.jit(f))(x).asnumpy()
    eps, fd = 1e-6, []
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        fd.append((f(Tensor(x.asnumpy() + e)).asnumpy() - f(Tensor(x.asnumpy() - e)).asnumpy()) / (2 * eps))
    np.testing.assert_allclose(g, fd, rtol=1e-6)


def test_cond_reaches_a_captured_parameter():
    """Item 1 (closure conversion): a weight read inside a branch gets its gradient (closed form:
    d/dw sum(w * x) = sum(x) = 2)."""
    w = ms.Parameter(Tensor(np.array([1.5], np.float32)), name="w")

    def f(x):
        return cond(x.sum() > 0, lambda a: (a * w).sum(), lambda a: a.sum(), x)
    for fn in (f, ms.jit(f)):
        _, (gw,) = ms.grad(fn, grad_position=0, weights=[w])(Tensor(X))
        np.testing.assert_allclose(gw.asnumpy(), [X.sum()])


def test_cond_under_eager_grad_records_the_taken_branch_through_the_residual_split(monkeypatch):
    """Item 1 (residual split): in PyNative a gradient level records only the branch taken, as one
    GraphCall split into forward and backward graphs (closed form of the gradient: 2 per entry)."""
    from minims.graph.call import GraphCall
    seen = []
    original = GraphCall.record_node

    def spy(self, trace, args):
        seen.append(self.graph.name)
        return original(self, trace, args)
    monkeypatch.setattr(GraphCall, "record_node", spy)

    def doubled(a):
        return a * 2

    def tripled(a):
        return a * 3
    g = ms.grad(lambda t: cond(t.sum() > 0, doubled, tripled, t).sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [2.0] * 3)
    assert seen == ["doubled"]
