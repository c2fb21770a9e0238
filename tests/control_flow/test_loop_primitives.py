"""Issue 24, item 1: ``While`` and ``Scan``, loops whose bodies are graphs — every rule kind.

Expected values: the issue's table and the MindSpore 2.10 oracle (``while x.sum() < 100: x = x * 2``
on [1, -2, 3] gives [64, -128, 192] and gradient [64, 64, 64]; the oracle's ``ops.Scan`` of
``(c + x, c * x)`` from ones over [[0, 1], [2, 3], [4, 5]] gives carry [7, 10]), closed forms,
SymPy and central differences.
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.control_flow import (CarryShapeError, CarryTypeError, LoopVjp, SymbolicLoopError, scan,
                                 while_loop)
from minims.graph.residuals import split_for_gradient
from minims.graph.tracing import trace_to_graph
from minims.interpreters.symbolic import symbolic_call, symbols_like
from minims.testing import check_modes

X = np.array([1.0, -2.0, 3.0], np.float32)
XS = np.arange(6, dtype=np.float32).reshape(3, 2)


def _doubling(x):
    return while_loop(lambda v: v.sum() < 100, lambda v: v * 2, x)


def _central_differences(f, x, eps=1e-6):
    out = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.append((f(x + e) - f(x - e)) / (2 * eps))
    return np.array(out).reshape(x.shape)


def test_while_value_and_gradient_match_mindspore_eagerly_and_in_jit():
    """Item 1 (issue table, MindSpore 2.10 oracle): [64, -128, 192] and gradient [64, 64, 64]."""
    for f in (_doubling, ms.jit(_doubling)):
        np.testing.assert_allclose(f(Tensor(X)).asnumpy(), [64.0, -128.0, 192.0])
        np.testing.assert_allclose(ms.grad(lambda t: f(t).sum())(Tensor(X)).asnumpy(), [64.0, 64.0, 64.0])


def test_while_keeps_its_carry_types():
    """Item 1 (abstract evaluation): MindSpore 2.10 raises TypeError (Type Join Failed) for a body
    changing the dtype and ValueError ("should maintain the same type and shape") for a body
    changing the shape (oracle runs of ops.WhileLoop under jit)."""
    with pytest.raises(TypeError) as info:
        while_loop(lambda v: v.sum() < 100, lambda v: ops.cast(v, ms.int32), Tensor(X))
    assert isinstance(info.value, CarryTypeError) and "Float32[3]" in str(info.value) and "Int32[3]" in str(info.value)
    with pytest.raises(ValueError) as info:
        while_loop(lambda v: v.sum() < 100, lambda v: ops.concat([v, v]), Tensor(X))
    assert isinstance(info.value, CarryShapeError) and "Float32[6]" in str(info.value)


def test_while_agrees_in_every_mode_up_to_second_order():
    """Item 1 (loop gradient as the reverse loop, itself a loop primitive: second order): all ten
    mode compositions agree; closed form f = sum((64x)**2), grad 8192x, grad of its sum 8192."""
    def f(x):
        return (_doubling(x) ** 2).sum()
    x = Tensor(X.astype(np.float64))
    check_modes(f, (x,))
    np.testing.assert_allclose(ms.grad(ms.grad(f))(x).asnumpy(), np.full(3, 8192.0))


def test_while_gradient_in_a_graph_is_a_loop_vjp_node_on_residuals():
    """Item 1 (residual split): the compiled graph splits; the backward graph holds the loop's vjp,
    reading the loop's operands as residuals; the gradient matches central differences."""
    def f(v):
        return (_doubling(v) * v).sum()
    graph = trace_to_graph(f, [Tensor(X)])
    split = split_for_gradient(graph, (0,))
    assert split is not None
    assert any(isinstance(eq.prim, LoopVjp) for eq in split.backward.equations)
    x64 = X.astype(np.float64)
    g = ms.grad(ms.jit(f))(Tensor(x64)).asnumpy()
    np.testing.assert_allclose(g, _central_differences(lambda a: f(Tensor(a)).asnumpy(), x64), rtol=1e-6)


def test_while_forward_mode_carries_tangents():
    """Item 1 (jvp): closed form, the tangent is multiplied by 2 per iteration (64 here)."""
    out, tangent = ms.jvp(_doubling, Tensor(X), Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [64.0, -128.0, 192.0])
    np.testing.assert_allclose(tangent.asnumpy(), np.full(3, 64.0))


def test_while_under_vmap_runs_while_any_example_continues():
    """Item 1 (batching with a condition per example, beyond MindSpore): each row doubles until its
    own sum reaches 100 (closed form: 6 -> 192 is 5 doublings, 60 -> 120 is 1)."""
    batch = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]], np.float32)
    out = ms.vmap(_doubling)(Tensor(batch))
    np.testing.assert_allclose(out.asnumpy(), batch * np.array([[32.0], [2.0]], np.float32))


def test_while_sympy_form_is_unrolled_or_refused():
    """Item 1 (SymPy): with a concrete trip count the loop unrolls (x**8 after three squarings); a
    symbolic condition has no trip count and is refused."""
    x = symbols_like("x", (2,))
    out = symbolic_call(lambda t: while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * c[1]),
                                             (Tensor(np.array(0, np.int64)), t))[1], x)
    assert [sympy.simplify(o - xi ** 8) for o, xi in zip(out, x)] == [0, 0]
    with pytest.raises(SymbolicLoopError, match="trip count"):
        symbolic_call(_doubling, x)


def _scan_fn(c, xs):
    return scan(lambda carry, x: (carry + x, carry * x), c, xs)


def test_scan_values_and_gradients_match_mindspore():
    """Item 1 (oracle: ops.Scan of (c + x, c * x) from ones gives carry [7, 10], ys [[0, 1], [2, 6],
    [12, 25]]; the gradient of ys[2].sum() is [4, 5] for c and [[4, 5], [4, 5], [3, 5]] for xs)."""
    c0, xs = Tensor(np.ones(2, np.float32)), Tensor(XS)
    for f in (_scan_fn, ms.jit(_scan_fn)):
        carry, ys = f(c0, xs)
        np.testing.assert_allclose(carry.asnumpy(), [7.0, 10.0])
        np.testing.assert_allclose(ys.asnumpy(), [[0.0, 1.0], [2.0, 6.0], [12.0, 25.0]])
        gc, gx = ms.grad(lambda c, x: f(c, x)[1][2].sum(), grad_position=(0, 1))(c0, xs)
        np.testing.assert_allclose(gc.asnumpy(), [4.0, 5.0])
        np.testing.assert_allclose(gx.asnumpy(), [[4.0, 5.0], [4.0, 5.0], [3.0, 5.0]])


def test_scan_agrees_in_every_mode_up_to_second_order():
    """Item 1 (Scan's gradient, first and second order, in every mode composition); the gradient is
    checked against central differences."""
    def f(c, xs):
        return (scan(lambda carry, x: (carry * x + 1, carry.sin()), c, xs)[1] ** 2).sum()
    c, xs = np.array([0.5, 1.5]), XS.astype(np.float64)
    check_modes(f, (Tensor(c), Tensor(xs)))
    g = ms.grad(f)(Tensor(c), Tensor(xs)).asnumpy()
    np.testing.assert_allclose(g, _central_differences(lambda a: f(Tensor(a), Tensor(xs)).asnumpy(), c), rtol=1e-6)


def test_scan_forward_mode_and_vmap():
    """Item 1 (jvp, batching): closed forms — the tangent of ys with carry tangent 1 is x per step
    (the carry tangent stays 1); vmap over the initial carry equals the loop per example."""
    c0, xs = Tensor(np.ones(2, np.float32)), Tensor(XS)
    (carry, ys), (dc, dys) = ms.jvp(lambda c: _scan_fn(c, xs), c0, Tensor(np.ones(2, np.float32)))
    np.testing.assert_allclose(dc.asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(dys.asnumpy(), XS)
    batch = np.array([[1.0, 2.0], [10.0, 20.0]], np.float32)
    carry, ys = ms.vmap(lambda c: _scan_fn(c, xs))(Tensor(batch))
    for b in range(2):
        c, rows = batch[b].copy(), []
        for x in XS:
            rows.append(c * x)
            c = c + x
        np.testing.assert_allclose(carry.asnumpy()[b], c)
        np.testing.assert_allclose(ys.asnumpy()[b], rows)


def test_scan_sympy_form_is_unrolled():
    """Item 1 (SymPy): three steps of c*x + 1 over rows [0, 1], [2, 3], [4, 5] give [13, 15 c1 + 21]."""
    c = symbols_like("c", (2,))
    out = symbolic_call(lambda t: scan(lambda carry, x: (carry * x + 1, carry), t, Tensor(XS))[0], c)
    assert sympy.simplify(out[0] - 13) == 0 and sympy.simplify(out[1] - (15 * c[1] + 21)) == 0


def test_while_under_eager_grad_records_each_iteration_through_the_residual_split(monkeypatch):
    """Item 1 (stack of carries, residual split): in PyNative a gradient level records one GraphCall
    of the body per iteration (5 doublings from sum 6 to 192: closed form), each split into forward
    and backward graphs; the gradient is 32 per entry (closed form)."""
    from minims.graph.call import GraphCall
    seen = []
    original = GraphCall.record_node

    def spy(self, trace, args):
        seen.append(self.graph.name)
        return original(self, trace, args)
    monkeypatch.setattr(GraphCall, "record_node", spy)
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g = ms.grad(lambda t: while_loop(lambda v: v.sum() < 100, lambda v: v * 2, t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [32.0] * 3)
    assert len(seen) == 5


def test_vmap_over_a_value_the_loop_body_reads_from_outside():
    """Item 1 (batching with closure conversion): a batched value captured by the body (not carried)
    is batched inside the loop; closed forms: v = v * y from [1, 2, 3] until sum >= 100 gives
    [1, 32, 243] for y = [1, 2, 3] and [16, 50, 108] for y = [4, 5, 6]; c = c * y + x over the rows
    gives [6, 17, 42] and [24, 65, 132]."""
    x = Tensor(np.array([1.0, 2.0, 3.0]))
    ys = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    out = ms.vmap(lambda y: while_loop(lambda v: v.sum() < 100, lambda v: v * y, x))(ys)
    np.testing.assert_allclose(out.asnumpy(), [[1.0, 32.0, 243.0], [16.0, 50.0, 108.0]])
    out = ms.vmap(lambda y: scan(lambda c, xi: (c * y + xi, c), x, ys)[0])(ys)
    np.testing.assert_allclose(out.asnumpy(), [[6.0, 17.0, 42.0], [24.0, 65.0, 132.0]])


def test_vmap_with_a_condition_per_example_batches_a_shared_carry():
    """Item 1 (batching: while any example continues): a counter that starts the same for every
    example ends per example (closed form: 5 doublings from sum 6, 1 from sum 60)."""
    start = Tensor(np.array(0, np.int64))
    batch = Tensor(np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]))
    count, out = ms.vmap(lambda x: while_loop(lambda c: c[1].sum() < 100, lambda c: (c[0] + 1, c[1] * 2),
                                              (start, x)))(batch)
    np.testing.assert_array_equal(count.asnumpy(), [5, 1])
    np.testing.assert_allclose(out.asnumpy(), [[32.0, 64.0, 96.0], [20.0, 40.0, 60.0]])
