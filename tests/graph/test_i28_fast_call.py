"""Issue 28, ``jit`` at JAX's level: the short way into a compiled graph (``minims/graph/fast_call.py``)
and transcendental functions left to NumPy's vectorised loops on large fused loops (``fuse.py``).

The reference is PyNative (the same primitives' NumPy kernels, one by one, and the tape): a compiled
call by the short way must give its bits, forward and gradient, on the NumPy path; on the fast path
(fused kernels) the transcendental steps of a large loop must be NumPy's own, bit for bit.
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, fast, ops
from minims.graph.fuse import NUMPY_LOOP_AT, Fused

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")


@pytest.fixture(autouse=True)
def restore():
    before = fast.enabled
    yield
    ms.set_context(fast_path=before, check_nan=False)


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


C = Tensor(np.array([0.5, -0.25, 2.0, 1.0], np.float32))


def chain(x):
    for _ in range(3):
        x = x + ops.tanh(ops.sin(x) * C)
    return x


def loss(x):
    return chain(x).sum()


def _counting(jitted):
    """Count the calls of ``jitted._compiled`` (the signature look-up of the general path)."""
    calls = []
    general = jitted._compiled

    def counted(*a, **k):
        calls.append(1)
        return general(*a, **k)
    jitted._compiled = counted
    return calls


def test_repeated_jit_call_skips_the_signature_lookup_and_keeps_pynative_bits():
    """Issue 28 (jit vs JAX: a fixed per-call cost).  The second call with the same Tensor signature
    takes the short way (no signature look-up) and gives PyNative's bits; a new shape, a Python
    number argument or a call under a gradient level take the general path and stay right."""
    ms.set_context(fast_path=False)
    x = Tensor(np.array([0.1, -0.7, 1.3, 2.0], np.float32))
    f = ms.jit(chain)
    calls = _counting(f)
    first, second = f(x), f(x)
    assert len(calls) == 1, "the repeated call looked its signature up again"
    for got in (first, second):
        np.testing.assert_array_equal(bits(got.asnumpy()), bits(chain(x).asnumpy()))
    y = Tensor(np.array([[0.3, 0.2, -0.1, 0.0]], np.float32))          # another shape: traced anew
    np.testing.assert_array_equal(bits(f(y).asnumpy()), bits(chain(y).asnumpy()))
    assert f.traces == 2
    g = ms.jit(lambda v, k: v * k)
    assert float(g(x, 2.0).asnumpy()[0]) == np.float32(0.2) and float(g(x, 3.0).asnumpy()[0]) == np.float32(0.1) * 3
    d2 = ops.grad(ops.grad(lambda v: f(v).sum()))(x)                  # f under two gradient levels
    np.testing.assert_array_equal(bits(d2.asnumpy()), bits(ops.grad(ops.grad(loss))(x).asnumpy()))


def test_value_and_grad_of_jit_without_the_tape_gives_pynative_bits():
    """Issue 28 (W1 under jit).  ``value_and_grad(jit(f))(x)`` runs the forward graph with its
    residuals and the backward graph without a tape; value and gradient are PyNative's bits."""
    ms.set_context(fast_path=False)
    x = Tensor(np.array([0.1, -0.7, 1.3, 2.0], np.float32))
    jitted = ms.jit(loss)
    compiled = ms.value_and_grad(jitted)
    compiled(x)
    calls = _counting(jitted)
    value, grad = compiled(x)
    assert not calls, "the gradient went through the tape and the general call"
    want_value, want_grad = ms.value_and_grad(loss)(x)
    np.testing.assert_array_equal(bits(value.asnumpy()), bits(want_value.asnumpy()))
    np.testing.assert_array_equal(bits(grad.asnumpy()), bits(want_grad.asnumpy()))
    np.testing.assert_array_equal(bits(ms.grad(jitted)(x).asnumpy()), bits(want_grad.asnumpy()))
    y = Tensor(np.full((2, 4), 0.5, np.float32))            # alternating signatures keep their graphs
    compiled(y)
    joint = jitted._fast.fast.grads[0]
    compiled(x)
    compiled(y)
    assert jitted._fast.fast.grads[0] is joint and jitted.traces == 2
    w = ms.Parameter(Tensor(np.array([1.5, -2.0, 0.25, 1.0], np.float32)), name="w")

    def reads_w(v):                     # w is an implicit input of the graph, read at every call
        return (ops.sin(v * w) * w).sum()
    compiled = ms.value_and_grad(ms.jit(reads_w))
    for data in ([1.5, -2.0, 0.25, 1.0], [2.0, 1.0, 0.5, -3.0]):
        w.set_data(Tensor(np.array(data, np.float32)))
        got, want = compiled(x), ms.value_and_grad(reads_w)(x)
        for g, t in zip(got, want):
            np.testing.assert_array_equal(bits(g.asnumpy()), bits(t.asnumpy()))


def test_value_and_grad_of_jit_leaves_hooks_check_nan_and_parameter_writes_to_the_tape():
    """Issue 28.  Where the tape does more than run the two graphs — a hook on the input,
    ``check_nan``, a graph that writes a Parameter — the gradient still goes the tape's way: the
    hook runs, the NaN is reported, the Parameter is written once per call."""
    x = Tensor(np.array([0.1, -0.7, 1.3, 2.0], np.float32))
    compiled = ms.value_and_grad(ms.jit(loss))
    seen = []
    handle = x.register_hook(lambda g: seen.append(g) or g * 2)
    try:
        _, doubled = compiled(x)
    finally:
        handle.remove()
    assert seen, "the hook did not run"
    np.testing.assert_array_equal(doubled.asnumpy(), 2 * ms.grad(loss)(x).asnumpy())

    ms.set_context(check_nan=True)
    bad = ms.value_and_grad(ms.jit(lambda v: ops.log(v - 5.0).sum()))
    with pytest.raises(Exception, match="Log"):
        bad(x)
    ms.set_context(check_nan=False)

    counter = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="counter")

    def counting(v):
        ops.assign(counter, counter + 1.0)
        return (v * v).sum()
    step = ms.value_and_grad(ms.jit(counting))
    for _ in range(3):
        _, g = step(x)
    assert counter.asnumpy()[0] == 3.0
    np.testing.assert_array_equal(g.asnumpy(), 2 * x.asnumpy())


@needs_numba
def test_large_fused_loops_leave_transcendentals_to_numpy_with_its_bits():
    """Issue 28, item 3 (W4 under jit with Numba): on a loop of NUMPY_LOOP_AT elements or more,
    tanh and TanhGrad stay NumPy equations (vectorised: ~25x faster than a C library call per
    element) and give the NumPy path's bits; the arithmetic around them still fuses, and small loops
    (W1's four floats) keep the transcendentals in the kernel."""
    def third(v):
        return ops.grad(ops.grad(ops.grad(lambda u: ops.tanh(u).sum())))(v)
    big = Tensor(np.linspace(-2.0, 2.0, NUMPY_LOOP_AT).astype(np.float32))
    f = ms.jit(third)
    fused = f.graph(big, fused=True)
    kinds = [eq.prim.name for eq in fused.equations]
    assert "Tanh" in kinds and "TanhGrad" in kinds, kinds
    # the NumPy equations first (fuse._numpy_first): all the arithmetic in one kernel, none left out
    assert sum(isinstance(eq.prim, Fused) for eq in fused.equations) == 1 and "Mul" not in kinds, kinds
    ms.set_context(fast_path=True)
    on = f(big).asnumpy()
    ms.set_context(fast_path=False)
    np.testing.assert_array_equal(bits(on), bits(f(big).asnumpy()))
    small = Tensor(np.linspace(-2.0, 2.0, 4).astype(np.float32))
    assert [eq.prim.name for eq in f.graph(small, fused=True).equations][0].startswith("Fused")


@needs_numba
@pytest.mark.slow
def test_value_and_grad_of_a_jitted_chain_of_200_ops_is_one_fused_loop():
    """Issue 28 (W1 under jit with Numba): ``value_and_grad(jit(f))`` of W1's chain of 200 ops runs
    one graph (forward and backward joined, fast_call._joint_call) fused into one loop, so the ~80
    residuals never leave the kernel.  Value and gradient agree with PyNative to float32 rounding
    (the kernel's sin, tanh and cosh come from the C library: rtol 1e-5 over 200 ops; on W1's
    inputs the benchmark's check finds 8e-8)."""
    from benchmarks.workloads.w1_elementwise import C1, C2, X0, tensor_chain
    c1, c2 = Tensor(C1), Tensor(C2)

    def w1(v):
        return tensor_chain(ops, v, c1, c2).sum()
    x = Tensor(X0)
    jitted = ms.jit(w1)
    ms.set_context(fast_path=True)
    value, grad = ms.value_and_grad(jitted)(x)
    joint = jitted._fast.fast.grads[0]
    kernels = [eq for eq in joint.plan.fused_plan.graph.equations if isinstance(eq.prim, Fused)]
    assert len(kernels) == 1 and len(joint.plan.fused_plan.graph.equations) == 1, \
        [eq.prim.name for eq in joint.plan.fused_plan.graph.equations]
    ms.set_context(fast_path=False)
    want_value, want_grad = ms.value_and_grad(w1)(x)
    np.testing.assert_allclose(value.asnumpy(), want_value.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(grad.asnumpy(), want_grad.asnumpy(), rtol=1e-5)
