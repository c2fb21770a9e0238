"""Issue 24, item 2: MindSpore 2.10's ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan``, in PyNative,
under ``jit`` and in a GRAPH_MODE Cell.

Every expected value was printed by the MindSpore 2.10 oracle for the same code (PyNative, and
``@ms.jit`` for the values: its CPU build fails to differentiate a jit-compiled WhileLoop, so the
gradients under jit are the PyNative ones), or is a closed form where stated.
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, nn, ops
from minims.graph.tracing import trace_to_graph
from minims.control_flow import Scan as ScanPrimitive, While

X = np.array([1.0, -2.0, 3.0], np.float32)
XS = np.arange(6, dtype=np.float32).reshape(3, 2)


def cond_func(v):
    return v.sum() < 100


def double(v):
    return v * 2


def step(i, v):
    return v * 2 + i


def scan_body(c, x):
    return c + x, c * x


def test_whileloop_values_and_gradients():
    """Item 2 (oracle): ops.WhileLoop()(cond, x*2, [1, -2, 3]) is [64, -128, 192], gradient of its sum
    [64, 64, 64]; under jit the loop is one While primitive (not unrolled)."""
    def f(x):
        return ops.WhileLoop()(cond_func, double, x)
    for fn in (f, ms.jit(f)):
        np.testing.assert_allclose(fn(Tensor(X)).asnumpy(), [64.0, -128.0, 192.0])
        np.testing.assert_allclose(ms.grad(lambda t: fn(t).sum())(Tensor(X)).asnumpy(), [64.0] * 3)
    graph = trace_to_graph(f, [Tensor(X)])
    assert [type(eq.prim) for eq in graph.equations] == [While]


def test_foriloop_values_and_gradients_with_python_and_tensor_bounds():
    """Item 2 (oracle): ForiLoop()(0, 3, 2v + i, [1, -2, 3]) is [12, -12, 28], gradient of its sum
    [8, 8, 8]; the same with a Tensor bound and unroll=False under jit (oracle: [12, -12, 28])."""
    def f(x):
        return ops.ForiLoop()(0, 3, step, x)

    @ms.jit
    def g(x, n):
        return ops.ForiLoop()(0, n, step, x, unroll=False)
    np.testing.assert_allclose(f(Tensor(X)).asnumpy(), [12.0, -12.0, 28.0])
    np.testing.assert_allclose(ms.grad(lambda t: f(t).sum())(Tensor(X)).asnumpy(), [8.0] * 3)
    np.testing.assert_allclose(g(Tensor(X), Tensor(3)).asnumpy(), [12.0, -12.0, 28.0])
    np.testing.assert_allclose(ms.grad(lambda t: g(t, Tensor(3)).sum())(Tensor(X)).asnumpy(), [8.0] * 3)
    # closed form for another trip count of the same compiled graph: 32 x + sum of i * 2**(4 - i)
    expected = X * 32 + sum(i * 2 ** (4 - i) for i in range(5))
    np.testing.assert_allclose(g(Tensor(X), Tensor(5)).asnumpy(), expected)


def test_scan_values_gradients_and_ys_as_a_list():
    """Item 2 (oracle): Scan()(c + x, c * x) from ones over the rows of [[0, 1], [2, 3], [4, 5]] gives
    ([7, 10], [[0, 1], [2, 6], [12, 25]]) as a carry and a list; the gradient of ys[2].sum() is [4, 5]
    and [[4, 5], [4, 5], [3, 5]]; unroll=False under jit gives the same, from one Scan primitive."""
    c0, xs = Tensor(np.ones(2, np.float32)), Tensor(XS)

    def eager(c, x):
        return ops.Scan()(scan_body, c, [x[0], x[1], x[2]])

    @ms.jit
    def staged(c, x):
        return ops.Scan()(scan_body, c, [x[0], x[1], x[2]], unroll=False)
    for fn in (eager, staged):
        carry, ys = fn(c0, xs)
        assert isinstance(ys, list) and len(ys) == 3
        np.testing.assert_allclose(carry.asnumpy(), [7.0, 10.0])
        np.testing.assert_allclose([y.asnumpy() for y in ys], [[0.0, 1.0], [2.0, 6.0], [12.0, 25.0]])
        gc, gx = ms.grad(lambda c, x: fn(c, x)[1][2].sum(), grad_position=(0, 1))(c0, xs)
        np.testing.assert_allclose(gc.asnumpy(), [4.0, 5.0])
        np.testing.assert_allclose(gx.asnumpy(), [[4.0, 5.0], [4.0, 5.0], [3.0, 5.0]])
    graph = trace_to_graph(lambda c, x: ops.Scan()(scan_body, c, [x[0], x[1], x[2]], unroll=False), [c0, xs])
    assert any(isinstance(eq.prim, ScanPrimitive) for eq in graph.equations)


def test_scan_with_no_xs_runs_length_steps():
    """Item 2: xs=None with length=n runs n steps with x = None (closed form: the carry doubled twice,
    ys [None, None]); MindSpore 2.10's own argument check raises on xs=None (oracle), a bug of its
    check that minims does not copy."""
    c0 = Tensor(np.ones(2, np.float32))
    body = lambda c, x: (c * 2, None)   # noqa: E731
    for fn in (lambda c: ops.Scan()(body, c, None, length=2),
               ms.jit(lambda c: ops.Scan()(body, c, None, length=2, unroll=False))):
        carry, ys = fn(c0)
        np.testing.assert_allclose(carry.asnumpy(), [4.0, 4.0])
        assert ys == [None, None]


def test_loop_ops_check_their_arguments_as_mindspore_does():
    """Item 2 (oracle): TypeError "For 'WhileLoop', the type of 'cond_func' should be one of
    '['function', 'method']', but got type 'int'"; TypeError for a float 'lower' of ForiLoop; a
    failing loop_func is ValueError "Invalid loop_func, please check input arguments and return
    value, error info: ..."."""
    with pytest.raises(TypeError, match=r"For 'WhileLoop', the type of 'cond_func' should be one of"):
        ops.WhileLoop()(1, double, Tensor(X))
    with pytest.raises(TypeError, match=r"For 'ForiLoop', the type of 'lower'"):
        ops.ForiLoop()(0.5, 3, step, Tensor(X))
    with pytest.raises(ValueError, match="Invalid loop_func, please check input arguments and return value"):
        ops.ForiLoop()(0, 3, lambda i, v: v.foo, Tensor(X))
    with pytest.raises(TypeError, match="'xs'"):
        ops.Scan()(scan_body, Tensor(np.zeros(2, np.float32)), Tensor(XS))


def test_foriloop_in_a_graph_mode_cell_differentiates_its_weight():
    """Item 2 (GRAPH_MODE Cell, closed form): v * w**n for n = 3, w = 2 gives 8x; the gradient of its
    sum is 8 per entry for x and 3 w**2 sum(x) = 24 for w; n = 5 reuses the compiled Cell (32x)."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.array([2.0], np.float32)), name="w")

        def construct(self, x, n):
            return ops.ForiLoop()(0, n, lambda i, v: v * self.w, x, unroll=False)
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        np.testing.assert_allclose(net(Tensor(X), Tensor(3)).asnumpy(), 8 * X)
        np.testing.assert_allclose(net(Tensor(X), Tensor(5)).asnumpy(), 32 * X)
        gx, (gw,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(X), Tensor(3))
        np.testing.assert_allclose(gx.asnumpy(), [8.0] * 3)
        np.testing.assert_allclose(gw.asnumpy(), [24.0])
    finally:
        ms.set_context(mode=mode)


def test_a_staged_loop_refuses_side_effects_and_endless_conditions():
    """Item 1/2 (errors): a body writing a Parameter would write once, at staging — refused naming
    the Parameter (MindSpore 2.10's jit fails on the same ForiLoop with an unrelated TypeError,
    oracle run); a condition that is the Python True whatever the carry never ends — refused."""
    from minims.control_flow import InfiniteLoopError, SideEffectError, while_loop
    w = ms.Parameter(Tensor(np.array([1.0], np.float32)), name="w")

    def body(i, v):
        ops.assign(w, v)
        return v * 2

    @ms.jit
    def f(x, n):
        return ops.ForiLoop()(0, n, body, x, unroll=False)
    with pytest.raises(SideEffectError, match="writes the Parameter 'w'"):
        f(Tensor(np.array([1.0], np.float32)), Tensor(3))
    with pytest.raises(InfiniteLoopError, match="never end"):
        while_loop(lambda v: True, lambda v: v * 2, Tensor(X))
