"""MindSpore's functional transforms: output structures, custom bprops, modes and errors.

Expected structures, exception types and the custom-bprop numbers were recorded by running
MindSpore 2.10 (the oracle); expected derivatives are worked out by hand (d/dx sin = cos, ...).
Where MindSpore 2.10 accepts less than minims (float64 Jacobians, a 1-tuple for both ``inputs`` and
``v`` in ``jvp``) the comment says so.
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.tensors import lending
from minims.primitives import math as M
from minims.testing import leftover_state


def f32(*values):
    return Tensor(np.array(values, np.float32))


X = f32(1.0, 2.0, 3.0)
ONES = f32(1.0, 1.0, 1.0)


@pytest.fixture(autouse=True)
def clean():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


# ----- where the functions live (oracle: mindspore.X for five, ops.X for all seven) ---------------------
def test_names_where_mindspore_has_them():
    for name in ("jvp", "vjp", "jacfwd", "jacrev", "vmap"):
        assert getattr(ms, name) is getattr(ops, name)
    for name in ("jvp", "vjp", "linearize", "jacfwd", "jacrev", "vmap", "derivative"):
        assert getattr(ops.functional, name) is getattr(ops, name)
    assert not hasattr(ms, "linearize") and not hasattr(ms, "derivative")     # as in MindSpore 2.10


# ----- jvp -----------------------------------------------------------------------------------------------
def test_jvp_returns_output_and_tangent():
    out, t = ops.jvp(ops.sin, X, ONES)
    np.testing.assert_allclose(out.asnumpy(), np.sin([1, 2, 3]), rtol=1e-6)
    np.testing.assert_allclose(t.asnumpy(), np.cos([1, 2, 3]), rtol=1e-6)
    (o1, o2), (t1, t2) = ops.jvp(lambda a: (ops.sin(a), a * a), X, ONES)
    np.testing.assert_allclose(t2.asnumpy(), [2, 4, 6])
    y = f32(4.0, 5.0, 6.0)
    _, t = ops.jvp(lambda a, b: a * b, (X, y), (f32(1, 0, 0), f32(0, 1, 0)))
    np.testing.assert_allclose(t.asnumpy(), [4.0, 2.0, 0.0])            # y*va + x*vb


def test_jvp_with_aux_is_flat():
    """Oracle: (out0, jvp0, aux) — aux the bare second output, a tuple from three outputs on."""
    out, t, aux = ops.jvp(lambda a: (ops.sin(a), a * 2), X, ONES, has_aux=True)
    np.testing.assert_allclose(aux.asnumpy(), [2, 4, 6])
    out, t, aux = ops.jvp(lambda a: (ops.sin(a), a * 2, a * 3), X, ONES, has_aux=True)
    assert isinstance(aux, tuple) and len(aux) == 2
    with pytest.raises(ValueError, match="more than one output"):
        ops.jvp(ops.sin, X, ONES, has_aux=True)


def test_jvp_checks_its_tangents():
    with pytest.raises(ValueError, match="invalid length: should be 2, but got 1"):
        ops.jvp(lambda a, b: a * b, (X, X), ONES)
    with pytest.raises(TypeError, match="dtype"):
        ops.jvp(ops.sin, X, Tensor(np.ones(3)))                       # float64 tangent for float32
    with pytest.raises(ValueError, match="shape"):      # MindSpore: silently wrong for some fn
        ops.jvp(ops.sin, X, f32(1.0, 1.0))
    with pytest.raises(TypeError, match="Tensor"):
        ops.jvp(ops.sin, np.ones(3), ONES)


def test_jvp_of_a_one_tuple_works():
    """MindSpore 2.10 rejects (x,) with (v,) ("Type Join Failed"); it is the same as x with v."""
    out, t = ops.jvp(ops.sin, (X,), (ONES,))
    np.testing.assert_allclose(t.asnumpy(), np.cos([1, 2, 3]), rtol=1e-6)


def test_int_inputs_keep_their_dtype():
    """Oracle: int32 x*x with an int32 tangent gives int32 ([1,4,9], [2,4,6])."""
    x = Tensor(np.array([1, 2, 3], np.int32))
    out, t = ops.jvp(lambda a: a * a, x, Tensor(np.ones(3, np.int32)))
    assert out.dtype == ms.int32 and t.dtype == ms.int32
    assert t.tolist() == [2, 4, 6]


# ----- vjp -----------------------------------------------------------------------------------------------
def test_vjp_fn_returns_a_tuple_and_can_be_called_again():
    out, vjp_fn = ops.vjp(ops.sin, X)
    (g,) = vjp_fn(ONES)
    np.testing.assert_allclose(g.asnumpy(), np.cos([1, 2, 3]), rtol=1e-6)
    (g2,) = vjp_fn(f32(2.0, 0.0, 1.0))                                    # another cotangent, same tape
    np.testing.assert_allclose(g2.asnumpy(), np.cos([1, 2, 3]) * [2, 0, 1], rtol=1e-6)


def test_vjp_several_outputs_and_aux():
    out, vjp_fn = ops.vjp(lambda a, b: (a * b, a + b), X, f32(4, 5, 6))
    assert [g.tolist() for g in vjp_fn(ONES, ONES)] == [g.tolist() for g in vjp_fn((ONES, ONES))] == \
        [[5.0, 6.0, 7.0], [2.0, 3.0, 4.0]]
    out, vjp_fn, aux = ops.vjp(lambda a: (a * a, a + 1), X, has_aux=True)
    assert aux.tolist() == [2.0, 3.0, 4.0] and vjp_fn(ONES)[0].tolist() == [2.0, 4.0, 6.0]


def test_vjp_with_weights():
    """Oracle: weights=list -> ((dx,), (dw, db)); a single Parameter -> ((dx,), dw)."""
    net = nn.Dense(3, 1)
    x = f32(1.0, 2.0, 3.0).reshape((1, 3))
    out, vjp_fn = ops.vjp(net, x, weights=net.trainable_params())
    (dx,), (dw, db) = vjp_fn(ops.ones_like(out))
    np.testing.assert_allclose(dx.asnumpy(), net.weight.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(dw.asnumpy(), x.asnumpy(), rtol=1e-6)
    assert db.tolist() == [1.0]
    out, vjp_fn = ops.vjp(net, x, weights=net.weight)
    (dx,), dw = vjp_fn(ops.ones_like(out))
    assert isinstance(dw, Tensor) and dw.shape == (1, 3)


def test_vjp_checks_its_cotangents():
    out, vjp_fn = ops.vjp(ops.sin, X)
    with pytest.raises(ValueError, match="shape"):
        vjp_fn(f32(1.0))
    with pytest.raises(TypeError, match="dtype"):
        vjp_fn(Tensor(np.ones(3)))
    with pytest.raises(RuntimeError, match="cotangent"):
        vjp_fn(ONES, ONES)


# ----- linearize -----------------------------------------------------------------------------------------
def test_linearize_runs_no_primal_operation(monkeypatch):
    """The jvp_fn of linearize runs only the linear part: sin, exp and cos are never evaluated again."""
    out, jvp_fn = ops.linearize(lambda a: ops.sin(a) * ops.exp(a), X)
    calls = []
    for cls in (M.Sin, M.Cos, M.Exp):
        original = cls.impl
        monkeypatch.setattr(cls, "impl", lambda self, *a, original=original: calls.append(1) or original(self, *a))
    v = f32(1.0, -1.0, 0.5)
    t = jvp_fn(v)
    t2 = jvp_fn(ONES)
    assert calls == []
    d = np.exp([1, 2, 3]) * (np.sin([1, 2, 3]) + np.cos([1, 2, 3]))        # d/dx e^x sin x
    np.testing.assert_allclose(t.asnumpy(), d * [1, -1, 0.5], rtol=1e-5)
    np.testing.assert_allclose(t2.asnumpy(), d, rtol=1e-5)
    assert {eq.prim.name for eq in jvp_fn.graph.equations} <= {"Mul", "Add"}


def test_linearize_takes_one_argument_per_call():
    """Oracle: jvp_fn takes one Tensor for one input, one tuple for several."""
    out, jvp_fn = ops.linearize(lambda a, b: a * b, (X, f32(4, 5, 6)))
    assert jvp_fn((ONES, f32(0, 0, 0))).tolist() == [4.0, 5.0, 6.0]
    out, jvp_fn = ops.linearize(ops.sin, X)
    with pytest.raises(TypeError, match="one Tensor"):
        jvp_fn((ONES,))


# ----- Jacobians ----------------------------------------------------------------------------------------
def test_jacobian_shapes_and_structure():
    """Oracle: out.shape + in.shape; output-major for several outputs and positions."""
    a, b = f32(1, 2, 3), f32(4, 5)
    f = lambda a, b: (a * ops.sum(b), b * b)                              # noqa: E731
    for jac in (ops.jacfwd, ops.jacrev):
        (ja, jb), (ka, kb) = jac(f, (0, 1))(a, b)
        assert (ja.shape, jb.shape, ka.shape, kb.shape) == ((3, 3), (3, 2), (2, 3), (2, 2))
        np.testing.assert_allclose(ja.asnumpy(), 9 * np.eye(3))
        np.testing.assert_allclose(jb.asnumpy(), np.repeat([[1.0], [2.0], [3.0]], 2, axis=1))
        np.testing.assert_allclose(kb.asnumpy(), np.diag([8.0, 10.0]))
        assert not ka.asnumpy().any()
        m = Tensor(np.ones((2, 2), np.float32))
        assert jac(lambda x: x * x)(m).shape == (2, 2, 2, 2)
        assert jac(lambda x: ops.sum(x, 1))(m).shape == (2, 2, 2)
        assert isinstance(jac(f, (1,))(a, b), tuple)                      # one block per output
        assert isinstance(jac(lambda x: x * 2, (0,))(a), Tensor)          # a 1-tuple: a bare Tensor


def test_jacobians_of_float64_inputs():
    """MindSpore 2.10 computes Jacobians of float32 inputs only; minims takes any float dtype."""
    x = Tensor(np.array([0.5, 1.5]))
    for jac in (ops.jacfwd, ops.jacrev):
        np.testing.assert_allclose(jac(ops.tanh)(x).asnumpy(), np.diag(1 - np.tanh([0.5, 1.5]) ** 2),
                                   rtol=1e-14)


def test_hessians_four_ways():
    """d^2/dx^2 sum(x^3) = diag(6x), by every composition of forward and reverse mode."""
    h = lambda x: ops.sum(x * x * x)                                       # noqa: E731
    for outer in (ops.jacfwd, ops.jacrev):
        for inner in (ops.jacfwd, ops.jacrev):
            np.testing.assert_allclose(outer(inner(h))(X).asnumpy(), np.diag([6.0, 12.0, 18.0]), rtol=1e-6)


def test_jacobian_errors():
    with pytest.raises(ValueError, match="out of range"):
        ops.jacfwd(ops.sin, 1)(X)
    with pytest.raises(ValueError, match=">= 0"):
        ops.jacrev(ops.sin, -1)(X)
    with pytest.raises(ValueError, match="duplicate"):
        ops.jacrev(lambda a, b: a * b, (0, 0))(X, X)
    with pytest.raises(TypeError, match="grad_position"):
        ops.jacfwd(ops.sin, [0])(X)


# ----- derivative ---------------------------------------------------------------------------------------
def test_derivative_orders():
    """Oracle values: x^3 at [0.5, 1, 2], orders 1..4: 3x^2, 6x, 6, 0."""
    x = f32(0.5, 1.0, 2.0)
    expected = {1: [0.75, 3, 12], 2: [3, 6, 12], 3: [6, 6, 6], 4: [0, 0, 0]}
    for order, values in expected.items():
        out, series = ops.derivative(lambda a: a * a * a, x, order)
        np.testing.assert_allclose(series.asnumpy(), values, rtol=1e-6)
    outs, series = ops.derivative(lambda a: (ops.sin(a), ops.exp(a)), x, 2)
    assert isinstance(outs, list) and isinstance(series, list)
    np.testing.assert_allclose(series[0].asnumpy(), -np.sin([0.5, 1, 2]), rtol=1e-6)


def test_derivative_conventions():
    """Oracle: every primal moves with tangent 1 (a*b -> a+b), ints become float32, order 0 fails."""
    a, b = f32(1, 2), f32(3, 4)
    assert ops.derivative(lambda p, q: p * q, (a, b), 1)[1].tolist() == [4.0, 6.0]
    out, s = ops.derivative(lambda p: p * p * p, Tensor(np.array([1, 2, 3], np.int32)), 1)
    assert s.dtype == ms.float32 and s.tolist() == [3.0, 12.0, 27.0]
    with pytest.raises(ValueError, match="less than 1"):
        ops.derivative(ops.sin, a, 0)
    with pytest.raises(TypeError, match="int"):
        ops.derivative(ops.sin, a, 1.0)
    with pytest.raises(TypeError, match="list"):
        ops.derivative(lambda p, q: p * q, [a, b], 1)


# ----- a Cell with a custom bprop (oracle: forward mode follows the bprop) ----------------------------------
class Scaled(nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return 2 * dout, 3 * dout


def test_forward_mode_follows_a_custom_bprop():
    """Oracle numbers: x=[1,2], y=[10,20]; jvp with (1s,0s) -> [2,2], (0s,1s) -> [3,3]."""
    net, x, y = Scaled(), f32(1, 2), f32(10, 20)
    one, zero = f32(1, 1), f32(0, 0)
    assert ops.jvp(net, (x, y), (one, zero))[1].tolist() == [2.0, 2.0]
    assert ops.jvp(net, (x, y), (zero, one))[1].tolist() == [3.0, 3.0]
    ja, jb = ops.jacfwd(net, (0, 1))(x, y)
    np.testing.assert_allclose(ja.asnumpy(), 2 * np.eye(2))
    np.testing.assert_allclose(jb.asnumpy(), 3 * np.eye(2))
    assert ops.linearize(net, (x, y))[1]((one, zero)).tolist() == [2.0, 2.0]
    assert [g.tolist() for g in ops.vjp(net, x, y)[1](one)] == [[2.0, 2.0], [3.0, 3.0]]


def test_derivative_differentiates_construct_past_the_custom_bprop():
    """MindSpore 2.10's Taylor-mode derivative ignores the bprop: [11, 22] = x + y (issue 25 item 6:
    minims' does the same, where jvp and vjp follow the bprop: 2 + 3 = 5)."""
    assert ops.derivative(Scaled(), (f32(1, 2), f32(10, 20)), 1)[1].tolist() == [11.0, 22.0]


# ----- both modes --------------------------------------------------------------------------------------
class Transforms(nn.Cell):
    def construct(self, a, t):
        f = ops.sin
        return (ops.jvp(f, a, t)[1], ops.vjp(f, a)[1](t)[0], ops.vmap(f)(ops.reshape(a, (3, 1))),
                ops.jacfwd(f)(a), ops.jacrev(f)(a), ops.derivative(f, a, 2)[1], ops.linearize(f, a)[1](t))


def test_every_transform_gives_the_same_numbers_in_graph_mode_and_jit():
    """Oracle: identical values in PyNative, GRAPH_MODE, jit and a Graph-mode Cell's construct."""
    expected = Transforms()(X, ONES)
    for run in (lambda: jit(lambda a, t: Transforms()(a, t))(X, ONES),):
        for e, g in zip(expected, run()):
            np.testing.assert_array_equal(e.asnumpy(), g.asnumpy())
    ms.set_context(mode=ms.GRAPH_MODE)
    for e, g in zip(expected, Transforms()(X, ONES)):
        np.testing.assert_array_equal(e.asnumpy(), g.asnumpy())
    np.testing.assert_allclose(expected[0].asnumpy(), np.cos([1, 2, 3]), rtol=1e-6)
    np.testing.assert_allclose(expected[5].asnumpy(), -np.sin([1, 2, 3]), rtol=1e-6)


def test_a_parameter_is_a_constant_for_jvp():
    """Oracle: jvp of (a * w).sum() for a Cell's Parameter w is w . v."""
    w = Parameter(f32(2, 3, 4), name="w")
    assert float(ops.jvp(lambda a: ops.sum(a * w), X, ONES)[1]) == 9.0
    assert lending.lent() == {}
