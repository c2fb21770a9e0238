"""Several threads differentiating at once each get their own, correct, gradients.

The interpreter stack, the lent Parameters, the undo log, the running Cells, the staging traces and
the needed-gradient mask are kept per thread.  A tiny switch interval makes the threads interleave
inside every primitive call.  Expected values are derivatives worked out by hand: d/dx sum(x^2) = 2x,
d/dx sum(sin x) = cos x, d/dw sum(w * x) = x, d/dx sum(x^3) = 3x^2.
"""
import sys
import threading

import numpy as np

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.testing import leftover_state


def run_threads(workers, rounds=30):
    errors = []

    def loop(work):
        try:
            for _ in range(rounds):
                work()
        except BaseException as exc:        # reported below, with the thread's work
            errors.append((work.__name__, exc))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=loop, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors


def test_concurrent_gradients_are_each_right():
    x = Tensor(np.array([0.5, -1.0, 2.0]))
    w = Parameter(Tensor(np.array([1.5, 2.5, -0.5])), name="w")
    net = nn.Dense(3, 2)

    def square():
        np.testing.assert_allclose(ops.grad(lambda a: ops.sum(a * a))(x).asnumpy(), 2 * x.asnumpy())

    def sine():
        np.testing.assert_allclose(ops.grad(lambda a: ops.sum(ops.sin(a)))(x).asnumpy(), np.cos(x.asnumpy()))

    def weights():
        (dw,) = ops.GradOperation(get_by_list=True)(lambda a: ops.sum(w * a), [w])(x)
        np.testing.assert_allclose(dw.asnumpy(), x.asnumpy())

    def second_order():
        g2 = ops.grad(ops.grad(lambda a: ops.sum(a * a * a)))(x)            # d/dx sum(3x^2) = 6x
        np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy())

    def compiled():
        f = jit(lambda a: ops.sum(a * a))
        np.testing.assert_allclose(ops.grad(f)(x).asnumpy(), 2 * x.asnumpy())

    def cell():
        xb = Tensor(np.ones((4, 3), np.float32))
        dx = ops.grad(lambda a: ops.sum(net(a)))(xb)
        np.testing.assert_allclose(dx.asnumpy(), np.tile(net.weight.asnumpy().sum(axis=0), (4, 1)), rtol=1e-6)

    def forward_mode():
        t = ops.jvp(lambda a: ops.sum(ops.sin(a)), x, Tensor(np.ones(3)))[1]
        np.testing.assert_allclose(float(t), np.cos(x.asnumpy()).sum())

    run_threads([square, sine, weights, second_order, compiled, cell, forward_mode])
    assert not leftover_state(), leftover_state()


def test_an_error_in_one_thread_leaves_the_others_alone():
    x = Tensor(np.array([1.0, 2.0]))

    def failing():
        try:
            ops.grad(lambda a: ops.reshape(a, (3,)))(x)
        except ValueError:
            pass

    def good():
        np.testing.assert_allclose(ops.grad(lambda a: ops.sum(a * a))(x).asnumpy(), [2.0, 4.0])

    run_threads([failing, good, good])
    assert not leftover_state(), leftover_state()


def test_a_graph_placeholder_that_escaped_never_computes_with_its_zeros():
    """A placeholder kept past its graph raises on every use, even with no interpreter active."""
    kept = []

    @jit
    def f(a):
        kept.append(a * 2)
        return a + 1

    f(Tensor([1.0, 2.0]))
    try:
        kept[0] + 1
    except ms.graph.StaticGraphError as exc:
        assert "finished graph" in str(exc)
    else:
        raise AssertionError("a placeholder of a finished graph computed a value")
