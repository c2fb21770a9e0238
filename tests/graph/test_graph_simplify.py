"""Algebraic simplification of staged graphs: each identity is removed, nothing else is, and the
numbers stay bit-for-bit those of PyNative."""
import numpy as np
import pytest

import minims as ms
import minims.ops as ops
from minims import Tensor

X = Tensor(np.array([0.5, -1.25, 3.0], np.float32))


def _graph(fn, *args):
    compiled = ms.jit(fn)
    compiled(*args)
    return compiled.graph(*args)


def _prims(graph):
    return [eq.prim.name for eq in graph.equations]


@pytest.mark.parametrize("fn", [
    lambda x: x * 1.0, lambda x: 1.0 * x, lambda x: x * Tensor(np.ones(3, np.float32)),
    lambda x: x / 1.0, lambda x: x + (-0.0), lambda x: -0.0 + x, lambda x: x - 0.0,
    lambda x: -(-x), lambda x: ops.reshape(x, (3,)), lambda x: ops.transpose(x, (0,)),
    lambda x: ops.cast(x, ms.float32), lambda x: ops.broadcast_to(x, (3,)),
], ids=["x*1", "1*x", "x*ones", "x/1", "x+(-0)", "(-0)+x", "x-0", "--x", "reshape-same", "transpose-identity",
        "cast-same", "broadcast-same"])
def test_an_identity_equation_disappears(fn):
    compiled = ms.jit(lambda x: ops.sin(fn(x)))
    compiled(X)
    graph, raw = compiled.graph(X), compiled.graph(X, optimized=False)
    assert _prims(graph) == ["Sin"], graph.text()
    if len(raw.equations) > 1:              # ops.cast to the same dtype is not even staged
        assert any("algebraic simplification" in r for r in graph.reports)


def test_transposes_that_cancel_disappear_and_others_stay():
    m = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    cancel = _graph(lambda t: ops.transpose(ops.transpose(t, (1, 2, 0)), (2, 0, 1)), m)
    assert _prims(cancel) == []
    kept = _graph(lambda t: ops.transpose(ops.transpose(t, (1, 2, 0)), (1, 2, 0)), m)
    assert _prims(kept) == ["Transpose", "Transpose"]
    np.testing.assert_array_equal(ms.jit(lambda t: ops.transpose(ops.transpose(t, (1, 2, 0)), (1, 2, 0)))(m).asnumpy(),
                                  m.asnumpy().transpose(1, 2, 0).transpose(1, 2, 0))


@pytest.mark.parametrize("fn, x", [
    (lambda x: x * 1.0, Tensor(np.array([1, 2], np.int32))),           # promotes to Float32
    (lambda x: x * Tensor(np.ones(3, np.float32)), Tensor(np.array([2.0], np.float32))),   # broadcasts
    (lambda x: x + Tensor(np.zeros((2, 1), np.float32)), X),           # broadcasts to [2, 3]
    (lambda x: x * Tensor(np.array([1.0, 1.0, 2.0], np.float32)), X),  # not all ones
    (lambda x: ops.reshape(x, (3, 1)), X),
    (lambda x: ops.cast(x, ms.float64), X),
], ids=["int*1.0", "broadcast-mul", "broadcast-add", "not-ones", "reshape-other", "cast-other"])
def test_an_equation_that_changes_shape_dtype_or_value_stays(fn, x):
    graph = _graph(fn, x)
    assert len(graph.equations) == 1, graph.text()
    np.testing.assert_array_equal(ms.jit(fn)(x).asnumpy(), fn(x).asnumpy())


def test_a_staged_gradient_has_no_multiplication_by_ones():
    """The issue's example: jit(grad(f)) of sin(x) * y + x * x used to keep Mul([1., 1.], %0)."""
    def f(x, y):
        return (ops.sin(x) * y + x * x).sum()
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    graph = _graph(ms.grad(f, grad_position=(0, 1)), x, y)
    assert "Mul([1., 1.]" not in graph.text() and _prims(graph).count("Mul") == 1, graph.text()
    dx, dy = ms.jit(ms.grad(f, grad_position=(0, 1)))(x, y)
    px, py = ms.grad(f, grad_position=(0, 1))(x, y)
    assert dx.asnumpy().tobytes() == px.asnumpy().tobytes() and dy.asnumpy().tobytes() == py.asnumpy().tobytes()
    np.testing.assert_allclose(dx.asnumpy(), np.cos([1.0, 2.0]) * [3.0, 4.0] + 2 * np.array([1.0, 2.0]), rtol=1e-6)


def test_simplified_graphs_give_pynative_bits_on_special_values():
    special = Tensor(np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3.5], np.float32))
    for fn in (lambda x: (x * 1.0 - 0.0) / 1.0, lambda x: -(-x), lambda x: ops.reshape(x, (7,)) * 1.0):
        got, want = ms.jit(fn)(special).asnumpy(), fn(special).asnumpy()
        assert got.tobytes() == want.tobytes()


def test_simplify_false_shows_the_identities_the_pass_removes():
    def f(x, y):
        return (ops.sin(x) * y + x * x).sum()
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    compiled = ms.jit(ms.grad(f, grad_position=(0, 1)))
    compiled(x, y)
    before, after = compiled.graph(x, y, simplify=False), compiled.graph(x, y)
    assert "Mul([1., 1.], %" in before.text(), before.text()
    assert "algebraic simplification" not in " ".join(before.reports)
    assert any("algebraic simplification" in r for r in after.reports)
    assert len(after.equations) < len(before.equations)
    assert compiled.graph(x, y, simplify=True) is after           # what runs: the cached graph
    from minims.graph.executor import Plan
    inputs = [x.asnumpy(), y.asnumpy()]
    for b, a in zip(Plan(before).run(inputs), Plan(after).run(inputs)):
        assert b.tobytes() == a.tobytes()
