"""Per-example gradients and the other compositions of ``vmap`` with differentiation.

* ``vmap(grad(loss, None, weights), in_axes=(0, 0))`` — one gradient per example in one batched pass —
  equals a Python loop of ``grad`` over the examples, for a small MLP (Dense, ReLU, sparse softmax
  cross-entropy) and a small convolutional network (Conv2d, ReLU, MaxPool2d, Flatten, Dense), for the
  weights and for the inputs, in PyNative and Graph mode;
* ``grad(sum of vmap(f))`` equals the sum of the per-example gradients (for inputs: each row);
* ``vmap(jvp)``, ``jvp(vmap)`` and ``vmap(vjp_fn)`` equal loops of ``jvp`` and ``vjp_fn``; ``vmap`` of
  ``jvp`` over the basis is the Jacobian;
* per-example Jacobians, ``vmap(jacfwd(program))`` and ``vmap(jacrev(program))``, equal loops for
  random programs of ``tests/programs.py``'s ``GRADS`` space (layers, custom bprops, gradients
  inside the program): the batching rules of every rule those transforms run.

Everything in float64, compared to 1e-12 (a batched matrix product may round differently from
one row's).
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import minims as ms
import minims.nn as nn
from minims import Tensor, ops
from minims.testing import leftover_state
from programs import GRADS, programs

RTOL, ATOL = 1e-12, 1e-13
F64 = ms.float64
DEEP = os.environ.get("MINIMS_DEEP", "") not in ("", "0")
DEEP_EXAMPLES = int(os.environ.get("MINIMS_DEEP_EXAMPLES", "2000"))


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def close(got, expected):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    expected = expected.asnumpy() if isinstance(expected, Tensor) else np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


class MLP(nn.Cell):
    """One example: features ``(4,)`` and a class index; loss: sparse softmax cross-entropy."""

    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(4, 6, dtype=F64)
        self.relu = nn.ReLU()
        self.out = nn.Dense(6, 3, dtype=F64)
        self.loss = ops.SparseSoftmaxCrossEntropyWithLogits()

    def construct(self, x, label):
        logits = self.out(self.relu(self.hidden(ops.reshape(x, (1, 4)))))
        return self.loss(logits, ops.reshape(label, (1,)))


class ConvNet(nn.Cell):
    """One example: an image ``(1, 6, 6)`` and a class index."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True, dtype=F64)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.dense = nn.Dense(8, 3, dtype=F64)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, image, label):
        x = self.pool(self.relu(self.conv(ops.expand_dims(image, 0))))
        return self.loss(self.dense(self.flatten(x)), ops.reshape(label, (1,)))


def data(kind, n=5, seed=0):
    rng = np.random.default_rng(seed)
    shape = (n, 4) if kind == "mlp" else (n, 1, 6, 6)
    return Tensor(rng.standard_normal(shape)), Tensor(rng.integers(0, 3, n).astype(np.int32))


def network(kind):
    ms.set_seed(1)
    return MLP() if kind == "mlp" else ConvNet()


# ----- vmap(grad) ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_per_example_weight_gradients_equal_a_loop(kind):
    net = network(kind)
    xs, ys = data(kind)
    weights = net.trainable_params()
    per_example = ms.vmap(ops.grad(net, None, weights), in_axes=(0, 0))(xs, ys)
    assert len(per_example) == len(weights)
    # the examples' gradients differ (the batch is not one gradient repeated, nor all zeros)
    assert all(np.ptp(g.asnumpy(), axis=0).max() > 1e-3 for g in per_example)
    for i in range(xs.shape[0]):
        for g, w, expected in zip(per_example, weights, ops.grad(net, None, weights)(xs[i], ys[i])):
            assert g.shape == (xs.shape[0],) + tuple(w.shape)
            close(g[i], expected)


@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_per_example_input_gradients_equal_a_loop(kind):
    net = network(kind)
    xs, ys = data(kind)
    dx, dw = ms.vmap(ops.grad(net, 0, net.trainable_params()), in_axes=(0, 0))(xs, ys)
    for i in range(xs.shape[0]):
        ex, ew = ops.grad(net, 0, net.trainable_params())(xs[i], ys[i])
        close(dx[i], ex)
        for a, b in zip(dw, ew):
            close(a[i], b)


def test_per_example_gradients_with_a_different_batch_axis():
    """Examples along axis 1 of the features (``in_axes=(1, 0)``); the gradients still come out in
    front (``out_axes=0``), or last."""
    net = network("mlp")
    xs, ys = data("mlp")
    grad_fn = ops.grad(net, None, net.trainable_params())
    front = ms.vmap(grad_fn, in_axes=(0, 0))(xs, ys)
    moved = ms.vmap(grad_fn, in_axes=(1, 0))(ops.transpose(xs, (1, 0)), ys)
    last = ms.vmap(grad_fn, in_axes=(1, 0), out_axes=-1)(ops.transpose(xs, (1, 0)), ys)
    for a, b, c in zip(front, moved, last):
        close(b, a)
        close(np.moveaxis(c.asnumpy(), -1, 0), a)


def test_per_example_gradients_in_graph_mode_and_jit():
    net = network("conv")
    xs, ys = data("conv")
    grad_fn = ops.grad(net, None, net.trainable_params())
    expected = ms.vmap(grad_fn, in_axes=(0, 0))(xs, ys)
    compiled = ms.jit(lambda a, b: ms.vmap(grad_fn, in_axes=(0, 0))(a, b))(xs, ys)
    for g, e in zip(compiled, expected):
        close(g, e)

    class PerExample(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, a, b):
            return ms.vmap(ops.grad(self.inner, None, self.inner.trainable_params()), in_axes=(0, 0))(a, b)
    ms.set_context(mode=ms.GRAPH_MODE)
    for g, e in zip(PerExample(net)(xs, ys), expected):
        close(g, e)


# ----- grad(vmap) ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_gradient_of_the_summed_vmap_is_the_sum_of_per_example_gradients(kind):
    net = network(kind)
    xs, ys = data(kind)
    weights = net.trainable_params()

    def total(a, b):
        return ops.sum(ms.vmap(net, in_axes=(0, 0))(a, b))
    dx, dw = ops.grad(total, 0, weights)(xs, ys)
    rows = [ops.grad(net, 0, weights)(xs[i], ys[i]) for i in range(xs.shape[0])]
    for i, (ex, _) in enumerate(rows):
        close(dx[i], ex)                          # each example's input gradient is its own row
    for k, g in enumerate(dw):
        close(g, sum(r[1][k].asnumpy() for r in rows))


def test_grad_of_vmap_with_a_shared_argument():
    """An argument with in_axes None is shared: its gradient sums over the examples."""
    rng = np.random.default_rng(2)
    xs, w = Tensor(rng.standard_normal((4, 3))), Tensor(rng.standard_normal(3))

    def f(x, v):
        return ops.sum(ops.sin(x * v)) * ops.sum(v)
    gx, gw = ops.grad(lambda a, b: ops.sum(ms.vmap(f, in_axes=(0, None))(a, b)), (0, 1))(xs, w)
    per = [ops.grad(f, (0, 1))(xs[i], w) for i in range(4)]
    for i in range(4):
        close(gx[i], per[i][0])
    close(gw, sum(p[1].asnumpy() for p in per))


# ----- forward mode and vjp under vmap ------------------------------------------------------------------------
def f_vec(x):
    """R^3 -> R^3, every output depending on several inputs."""
    return ops.stack((ops.sum(ops.tanh(x) * x), ops.sum(x * x * x[::-1]), ops.sum(ops.exp(x[:2]))), 0)


def test_vmap_of_jvp_equals_a_loop():
    rng = np.random.default_rng(3)
    xs, ts = Tensor(rng.standard_normal((5, 3))), Tensor(rng.standard_normal((5, 3)))
    outs, tangents = ms.vmap(lambda x, t: ops.jvp(f_vec, x, t))(xs, ts)
    for i in range(5):
        o, t = ops.jvp(f_vec, xs[i], ts[i])
        close(outs[i], o)
        close(tangents[i], t)
    # one point, a batch of tangents (in_axes None for the point): the rows of J t
    x = xs[0]
    _, rows = ms.vmap(lambda t: ops.jvp(f_vec, x, t))(ts)
    for i in range(5):
        close(rows[i], ops.jvp(f_vec, x, ts[i])[1])
    # the basis as the batch: the Jacobian's columns, as jacfwd computes them
    _, columns = ms.vmap(lambda t: ops.jvp(f_vec, x, t), out_axes=-1)(Tensor(np.eye(3)))
    close(columns, ops.jacrev(f_vec)(x))


def test_jvp_of_vmap_equals_a_loop():
    rng = np.random.default_rng(4)
    xs, ts = Tensor(rng.standard_normal((5, 3))), Tensor(rng.standard_normal((5, 3)))
    outs, tangents = ops.jvp(ms.vmap(f_vec), xs, ts)
    for i in range(5):
        o, t = ops.jvp(f_vec, xs[i], ts[i])
        close(outs[i], o)
        close(tangents[i], t)


def test_vmap_of_vjp_fn_equals_a_loop():
    rng = np.random.default_rng(5)
    x = Tensor(rng.standard_normal(3))
    out, vjp_fn = ops.vjp(f_vec, x)
    cotangents = Tensor(rng.standard_normal((4, 3)))
    (rows,) = ms.vmap(vjp_fn)(cotangents)
    for i in range(4):
        close(rows[i], vjp_fn(cotangents[i])[0])
    (rows_t,) = ms.vmap(vjp_fn, in_axes=1)(ops.transpose(cotangents, (1, 0)))
    close(rows_t, rows)
    # the basis of the output as the batch: the rows of the Jacobian
    (jac,) = ms.vmap(vjp_fn)(Tensor(np.eye(3)))
    close(jac, ops.jacfwd(f_vec)(x))


def test_vmap_of_vjp_per_example():
    """``vjp`` taken inside ``vmap``: a tape per example, all recorded batched."""
    rng = np.random.default_rng(6)
    xs, cs = Tensor(rng.standard_normal((4, 3))), Tensor(rng.standard_normal((4, 3)))

    def pullback(x, c):
        return ops.vjp(f_vec, x)[1](c)[0]
    got = ms.vmap(pullback)(xs, cs)
    for i in range(4):
        close(got[i], pullback(xs[i], cs[i]))


# ----- per-example Jacobians of random programs -----------------------------------------------------------
@settings(max_examples=DEEP_EXAMPLES if DEEP else 60, deadline=None, derandomize=not DEEP, database=None,
          print_blob=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@pytest.mark.slow
@given(case=programs(GRADS))
def test_per_example_jacobians_of_random_programs_equal_a_loop(case):
    program, args = case
    args = tuple(Tensor(np.asarray(a._data, np.float64)) if a.dtype.is_float else a for a in args)
    positions = tuple(i for i, a in enumerate(args) if a.dtype.is_float)
    rng = np.random.default_rng(0)
    # three examples: the drawn point and two points near it (the same side of every kink, mostly;
    # either way the loop runs the same rules at the same points)
    batch = [Tensor(np.stack([a.asnumpy() + 0.01 * k * rng.standard_normal(a.shape) for k in range(3)]))
             if i in positions else a for i, a in enumerate(args)]
    in_axes = tuple(0 if i in positions else None for i in range(len(args)))

    def leaves(x):
        return [y for z in x for y in leaves(z)] if isinstance(x, (tuple, list)) else [x]
    for jac in (ops.jacfwd, ops.jacrev):
        per_example = leaves(ms.vmap(jac(program, positions), in_axes=in_axes)(*batch))
        for k in range(3):
            one = leaves(jac(program, positions)(*[b[k] if a == 0 else b for b, a in zip(batch, in_axes)]))
            for g, e in zip(per_example, one, strict=True):
                np.testing.assert_allclose(g.asnumpy()[k], e.asnumpy(), rtol=1e-10, atol=1e-10, equal_nan=True,
                                           err_msg=f"{jac.__name__}, example {k}\n{program.reproducer(args)}")
