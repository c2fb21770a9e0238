"""Residuals on the fast path, and the bit-exact selection behind ReLU's gradient.

``minims.fast.residuals`` keeps what a forward kernel computed (a convolution's im2col columns,
max pooling's argmax positions) for the backward kernel that is handed the same input array.
These tests check that using a residual gives exactly the numbers of recomputing it, that only
the very same array (not an equal one) finds it, that it is used once, and that the store stays
bounded when no backward pass comes.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minims as ms
import minims.ops as ops
from minims import Tensor
from minims.primitives.operands import keep_where

numba = pytest.importorskip("numba")
from minims import fast  # noqa: E402
from minims.fast import residuals  # noqa: E402


@pytest.fixture(autouse=True)
def fast_path_on():
    ms.set_context(fast_path=True)
    yield
    ms.set_context(fast_path=False)
    residuals.clear()


def data(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def conv_prims(**kw):
    conv = ops.Conv2D(out_channel=4, kernel_size=3, **kw)
    from minims.primitives.nn._geometry import _sibling
    from minims.primitives.nn.conv import Conv2DBackpropFilter
    return conv, _sibling(conv, Conv2DBackpropFilter)


@pytest.mark.parametrize("kw", [{}, dict(pad_mode="pad", pad=1, stride=2), dict(group=2, dilation=2)])
def test_filter_gradient_from_kept_columns_equals_recomputed(kw):
    conv, filt = conv_prims(**kw)
    x, w = data((3, 4, 9, 9), 0), data((4, 4 // conv.group, 3, 3), 1)
    y = conv.impl(x, w)
    dy = data(y.shape, 2)
    assert len(residuals._store) == 1
    kept = fast.conv.conv2d_backprop_filter(filt, dy, x, w.shape)
    assert len(residuals._store) == 0                       # taken, once
    recomputed = fast.conv.conv2d_backprop_filter(filt, dy, x, w.shape)
    np.testing.assert_array_equal(kept, recomputed)
    reference = filt._backprop_filter(dy.astype(np.float64), x.astype(np.float64), w.shape)
    np.testing.assert_allclose(kept, reference, rtol=1e-4, atol=1e-4)


def test_an_equal_but_different_array_does_not_find_the_residual(monkeypatch):
    conv, filt = conv_prims()
    x, w = data((2, 4, 6, 6), 3), data((4, 4, 3, 3), 4)
    y = conv.impl(x, w)
    calls = []
    real = fast.conv._columns
    monkeypatch.setattr(fast.conv, "_columns", lambda *a: calls.append(1) or real(*a))
    fast.conv.conv2d_backprop_filter(filt, data(y.shape, 5), x.copy(), w.shape)
    assert calls == [1]                                     # recomputed for the copy
    fast.conv.conv2d_backprop_filter(filt, data(y.shape, 5), x, w.shape)
    assert calls == [1]                                     # the original found its columns


@pytest.mark.parametrize("kernel, stride, pad", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_max_pool_gradient_from_kept_positions_equals_numpy_path(kernel, stride, pad):
    x = np.round(data((2, 3, 7, 7), 6) * 2) / 2              # many ties: the first maximum must win
    g_shape = ops.max_pool2d(Tensor(x), kernel, stride, padding=pad).shape
    g = data(g_shape, 7)

    def grad_of_pool():
        return ops.grad(lambda t: (ops.max_pool2d(t, kernel, stride, padding=pad) * Tensor(g)).sum())(
            Tensor(x)).asnumpy()

    with_residual = grad_of_pool()
    ms.set_context(fast_path=False)
    numpy_path = grad_of_pool()
    np.testing.assert_array_equal(with_residual != 0, numpy_path != 0)        # the same positions
    # overlapping windows add into one position in another order: float32 rounding only
    np.testing.assert_allclose(with_residual, numpy_path, rtol=1e-5, atol=1e-6)


def test_store_is_bounded_without_backward_passes():
    conv, _ = conv_prims()
    w = data((4, 4, 3, 3), 8)
    for i in range(3 * residuals.MAX_ENTRIES):
        conv.impl(data((2, 4, 6, 6), 100 + i), w)
    assert len(residuals._store) <= residuals.MAX_ENTRIES
    assert residuals._bytes == sum(e[2] for e in residuals._store.values()) <= residuals.MAX_BYTES


def test_switching_the_fast_path_forgets_residuals():
    conv, _ = conv_prims()
    conv.impl(data((2, 4, 6, 6), 9), data((4, 4, 3, 3), 10))
    assert residuals._store
    ms.set_context(fast_path=False)
    assert not residuals._store and residuals._bytes == 0


def test_lenet_like_step_agrees_on_both_paths():
    """Forward and backward of conv -> relu -> pool -> conv: fast path (with residuals) vs NumPy, in
    float64 (the loss's gradients reach 5e3 with entries near 1: float32 cancellation would blur)."""
    x, w1, w2 = (data(s, seed, np.float64) for s, seed in [((4, 1, 12, 12), 11), ((3, 1, 3, 3), 12),
                                                           ((5, 3, 3, 3), 13)])

    def loss(a, b):
        h = ops.max_pool2d(ops.relu(ops.conv2d(Tensor(x), a)), 2, 2)
        return (ops.relu(ops.conv2d(h, b)) ** 2).sum()

    fast_grads = [g.asnumpy() for g in ops.grad(loss, grad_position=(0, 1))(Tensor(w1), Tensor(w2))]
    ms.set_context(fast_path=False)
    numpy_grads = [g.asnumpy() for g in ops.grad(loss, grad_position=(0, 1))(Tensor(w1), Tensor(w2))]
    for f, n in zip(fast_grads, numpy_grads):
        np.testing.assert_allclose(f, n, rtol=1e-12, atol=1e-9)


# ----- keep_where: np.where(mask, values, 0), bit for bit ----------------------------------------
@settings(max_examples=60, deadline=None, derandomize=True)
@given(dtype=st.sampled_from([np.float16, np.float32, np.float64]), data=st.data())
def test_keep_where_is_np_where_bit_for_bit(dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=5))
    values = data.draw(hnp.arrays(dtype, shape, elements=st.floats(allow_nan=True, allow_infinity=True,
                                                                     width=np.dtype(dtype).itemsize * 8)))
    mask = data.draw(hnp.arrays(np.bool_, shape))
    got = keep_where(mask, values)
    want = np.where(mask, values, np.zeros((), dtype))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()       # NaN, inf, -0.0 included


def test_relu_gradient_is_zero_where_masked_even_for_nan_and_inf():
    x = Tensor(np.array([-1.0, 2.0, -3.0, 4.0], np.float32))
    dout = Tensor(np.array([np.nan, np.nan, np.inf, 1.0], np.float32))
    ms.set_context(fast_path=False)
    g = ops.GradOperation(sens_param=True)(ops.relu)(x, dout)
    np.testing.assert_array_equal(g.asnumpy(), np.array([0.0, np.nan, 0.0, 1.0], np.float32))
