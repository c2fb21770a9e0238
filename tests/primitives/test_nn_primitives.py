"""Tests of the neural-network primitives (minims/primitives/nn.py) and their functional API
(minims/ops/nn_functional.py).

Where the expected values come from:

* forward passes: straightforward loop-based NumPy references written here, in float64;
* gradients (first and second order): central finite differences in float64 along random
  directions, for every primitive including the gradient primitives themselves;
* conventions (SAME padding split, MaxPool's tie rule, ceil_mode divisors, Dropout masks, loss
  values): numbers printed by MindSpore 2.10 (CPU), copied here as literals.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.core.stack import bind
from minims.primitives import nn_functional as NF
from minims.primitives import nn as P


# ================================================================================================
# helpers
# ================================================================================================
def T(a):
    return Tensor(np.asarray(a, dtype=np.float64))


def _as_tuple(grads):
    """One position gives one Tensor (grad_position=(0,) as in MindSpore 2.10), several a tuple."""
    return grads if isinstance(grads, tuple) else (grads,)


def _directional(fn, args, positions, rng, eps=1e-6):
    """``<grad fn(args), u>`` and ``(fn(args + eps u) - fn(args - eps u)) / 2 eps`` for a random u."""
    us = [rng.standard_normal(args[p].shape) for p in positions]
    grads = _as_tuple(ops.grad(fn, grad_position=tuple(positions))(*args))
    lhs = sum(float(np.sum(g.asnumpy() * u)) for g, u in zip(grads, us))

    def shifted(sign):
        moved = list(args)
        for p, u in zip(positions, us):
            moved[p] = T(args[p].asnumpy() + sign * eps * u)
        return float(fn(*moved).asnumpy())

    return lhs, (shifted(1) - shifted(-1)) / (2 * eps)


def check_grads(op, args, positions, seed=0, outputs=None, order=2, rtol=1e-6, atol=1e-6):
    """First- (and second-) order VJPs of ``op`` against central differences.

    ``op`` may return several outputs; the scalar is ``sum_k sum(r_k * sin(out_k))`` over the
    selected outputs (random ``r_k``; the ``sin`` makes second derivatives non-trivial even for
    linear ops).  Second order: the same check on ``x -> <grad f(x), v>``.
    """
    rng = np.random.default_rng(seed)
    first = op(*args)
    first = first if isinstance(first, tuple) else (first,)
    selected = range(len(first)) if outputs is None else outputs
    weights = {k: T(rng.standard_normal(first[k].shape)) for k in selected}

    def f(*a):
        out = op(*a)
        out = out if isinstance(out, tuple) else (out,)
        terms = [ops.sum(ops.mul(weights[k], ops.sin(out[k]))) for k in selected]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return total

    lhs, rhs = _directional(f, args, positions, rng)
    assert lhs == pytest.approx(rhs, rel=rtol, abs=atol), "first order"
    if order < 2:
        return
    vs = [T(rng.standard_normal(args[p].shape)) for p in positions]
    grad_f = ops.grad(f, grad_position=tuple(positions))

    def h(*a):
        gs = _as_tuple(grad_f(*a))
        total = ops.sum(ops.mul(gs[0], vs[0]))
        for g, v in zip(gs[1:], vs[1:]):
            total = total + ops.sum(ops.mul(g, v))
        return total

    lhs, rhs = _directional(h, args, positions, rng)
    assert lhs == pytest.approx(rhs, rel=rtol, abs=atol), "second order"


def _same_pads(size, k, s, d=1):
    """TF SAME, computed independently: out = ceil(size/s), extra padding at the end."""
    span = (k - 1) * d + 1
    out = math.ceil(size / s)
    total = max((out - 1) * s + span - size, 0)
    return total // 2, total - total // 2


def ref_conv(x, w, pads, stride, dilation, group=1):
    """Loop-based cross-correlation, float64."""
    n_, c_, h_, w_ = x.shape
    o_, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    ho = (xp.shape[2] - (kh - 1) * dh - 1) // sh + 1
    wo = (xp.shape[3] - (kw - 1) * dw - 1) // sw + 1
    og = o_ // group
    out = np.zeros((n_, o_, ho, wo))
    for n in range(n_):
        for o in range(o_):
            g = o // og
            for i in range(ho):
                for j in range(wo):
                    acc = 0.0
                    for c in range(cg):
                        for a in range(kh):
                            for b in range(kw):
                                acc += xp[n, g * cg + c, i * sh + a * dh, j * sw + b * dw] * w[o, c, a, b]
                    out[n, o, i, j] = acc
    return out


def ref_pool(x, k, s, pads, kind):
    """Loop-based max / average pooling; padding never counts (MindSpore's MaxPool/AvgPool 'same')."""
    n_, c_, h_, w_ = x.shape
    ho = (h_ + pads[0] + pads[1] - k[0]) // s[0] + 1
    wo = (w_ + pads[2] + pads[3] - k[1]) // s[1] + 1
    out = np.zeros((n_, c_, ho, wo))
    for n in range(n_):
        for c in range(c_):
            for i in range(ho):
                for j in range(wo):
                    vals = [x[n, c, r, q]
                            for r in range(i * s[0] - pads[0], i * s[0] - pads[0] + k[0])
                            for q in range(j * s[1] - pads[2], j * s[1] - pads[2] + k[1])
                            if 0 <= r < h_ and 0 <= q < w_]
                    out[n, c, i, j] = max(vals) if kind == "max" else sum(vals) / len(vals)
    return out


def rnd(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


# ================================================================================================
# Conv2D family
# ================================================================================================
CONV_CASES = [
    # (x shape, w shape, kwargs)
    ((2, 3, 6, 5), (4, 3, 3, 3), dict(pad_mode="valid")),
    ((1, 2, 7, 6), (3, 2, 3, 2), dict(pad_mode="same", stride=2)),
    ((1, 2, 5, 5), (2, 2, 2, 2), dict(pad_mode="same")),
    ((1, 2, 6, 7), (2, 2, 3, 3), dict(pad_mode="pad", pad=(1, 0, 2, 1), stride=(2, 1))),
    ((2, 1, 7, 7), (2, 1, 2, 3), dict(pad_mode="pad", pad=1, dilation=2)),
    ((1, 2, 8, 7), (2, 2, 3, 3), dict(pad_mode="same", stride=2, dilation=(2, 1))),
    ((1, 4, 5, 5), (6, 2, 3, 3), dict(pad_mode="pad", pad=1, group=2)),
]


def _conv_config(xs, ws, kw):
    stride = kw.get("stride", 1)
    stride = (stride, stride) if isinstance(stride, int) else stride
    dil = kw.get("dilation", 1)
    dil = (dil, dil) if isinstance(dil, int) else dil
    mode = kw["pad_mode"]
    if mode == "valid":
        pads = (0, 0, 0, 0)
    elif mode == "same":
        pads = _same_pads(xs[2], ws[2], stride[0], dil[0]) + _same_pads(xs[3], ws[3], stride[1], dil[1])
    else:
        p = kw["pad"]
        pads = (p,) * 4 if isinstance(p, int) else p
    return pads, stride, dil, kw.get("group", 1)


@pytest.mark.parametrize("xs, ws, kw", CONV_CASES)
def test_conv2d_forward_matches_loop_reference(xs, ws, kw):
    x, w = rnd(xs, 1), rnd(ws, 2)
    out = P.Conv2D(ws[0], ws[2:], **kw)(T(x), T(w))
    pads, stride, dil, group = _conv_config(xs, ws, kw)
    expected = ref_conv(x, w, pads, stride, dil, group)
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-12, atol=1e-12)


def test_conv2d_same_padding_matches_mindspore():
    # printed by MindSpore 2.10: Conv2D(1, 2, pad_mode=...)(arange(25).reshape(1,1,5,5), ones)
    x = Tensor(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    w = Tensor(np.ones((1, 1, 2, 2), np.float32))
    np.testing.assert_array_equal(P.Conv2D(1, 2, pad_mode="same", stride=2)(x, w).asnumpy()[0, 0],
                                  [[12, 20, 13], [52, 60, 33], [41, 45, 24]])
    same1 = P.Conv2D(1, 2, pad_mode="same")(x, w).asnumpy()[0, 0]
    np.testing.assert_array_equal(same1[0], [12, 16, 20, 24, 13])
    np.testing.assert_array_equal(same1[4], [41, 43, 45, 47, 24])
    pad4 = P.Conv2D(1, 2, pad_mode="pad", pad=(1, 0, 0, 1))(x, w).asnumpy()[0, 0]
    np.testing.assert_array_equal(pad4[0], [1, 3, 5, 7, 4])


@pytest.mark.parametrize("xs, ws, kw", [CONV_CASES[0], CONV_CASES[1], CONV_CASES[3], CONV_CASES[5],
                                        CONV_CASES[6]])
def test_conv2d_gradients(xs, ws, kw):
    conv = P.Conv2D(ws[0], ws[2:], **kw)
    check_grads(conv, (T(rnd(xs, 3) * 0.5), T(rnd(ws, 4) * 0.5)), (0, 1))


@pytest.mark.parametrize("xs, ws, kw", [CONV_CASES[1], CONV_CASES[4], CONV_CASES[6]])
def test_conv2d_backprop_primitives_are_adjoints_and_differentiable(xs, ws, kw):
    conv = P.Conv2D(ws[0], ws[2:], **kw)
    x, w = T(rnd(xs, 5)), T(rnd(ws, 6))
    y = conv(x, w)
    dy = T(rnd(y.shape, 7))
    bpi = P.Conv2DBackpropInput(ws[0], ws[2:], **kw)
    bpf = P.Conv2DBackpropFilter(ws[0], ws[2:], **kw)
    dx = bpi(dy, w, xs)
    dw = bpf(dy, x, ws)
    # <conv(x, w), dy> = <x, BackpropInput(dy, w)> = <w, BackpropFilter(dy, x)>
    inner = float(np.sum(y.asnumpy() * dy.asnumpy()))
    assert float(np.sum(x.asnumpy() * dx.asnumpy())) == pytest.approx(inner, rel=1e-12)
    assert float(np.sum(w.asnumpy() * dw.asnumpy())) == pytest.approx(inner, rel=1e-12)
    # each gradient primitive is itself differentiable twice, in both tensor arguments
    check_grads(lambda a, b: bpi(a, b, xs), (dy, w), (0, 1), seed=1)
    check_grads(lambda a, b: bpf(a, b, ws), (dy, x), (0, 1), seed=2)


def test_conv2d_gradient_is_conv_backprop_input():
    x, w = T(rnd((1, 2, 5, 5), 8)), T(rnd((3, 2, 3, 3), 9))
    conv = P.Conv2D(3, 3, pad_mode="same")
    gx, gw = ops.grad(lambda a, b: ops.sum(conv(a, b)), grad_position=(0, 1))(x, w)
    ones = np.ones((1, 3, 5, 5))
    np.testing.assert_allclose(gx.asnumpy(), P.Conv2DBackpropInput(3, 3, pad_mode="same")(
        T(ones), w, (1, 2, 5, 5)).asnumpy(), rtol=1e-12)
    # d/dw of sum(conv) with same padding: the sum of x over the positions each tap sees
    xp = np.pad(x.asnumpy(), ((0, 0), (0, 0), (1, 1), (1, 1)))
    expect = np.stack([[[[xp[0, c, a:a + 5, b:b + 5].sum() for b in range(3)] for a in range(3)]
                        for c in range(2)]] * 3)
    np.testing.assert_allclose(gw.asnumpy(), expect, rtol=1e-12)


def test_conv2d_errors_then_next_call_works():
    conv = P.Conv2D(4, 3)
    good_x, good_w = T(rnd((1, 2, 5, 5), 1)), T(rnd((4, 2, 3, 3), 2))
    with pytest.raises(ValueError) as e:
        conv(T(rnd((1, 3, 5, 5), 1)), good_w)
    msg = str(e.value)
    assert "Conv2D" in msg and "channel" in msg and "[1, 3, 5, 5]" in msg and "[4, 2, 3, 3]" in msg
    with pytest.raises(ValueError, match=r"Conv2D.*bigger than the padded input"):
        P.Conv2D(4, 7)(good_x, T(rnd((4, 2, 7, 7), 3)))
    with pytest.raises(ValueError, match=r"Conv2D.*'pad' must be 0.*pad_mode='pad'"):
        P.Conv2D(4, 3, pad_mode="valid", pad=1)
    with pytest.raises(ValueError, match="pad_mode"):
        P.Conv2D(4, 3, pad_mode="full")
    with pytest.raises(ValueError, match="out_channel"):
        P.Conv2D(5, 3)(good_x, good_w)
    with pytest.raises(ValueError, match="kernel"):
        P.Conv2D(4, 2)(good_x, good_w)
    with pytest.raises(ValueError, match="4-D"):
        conv(T(rnd((2, 5, 5), 1)), good_w)
    with pytest.raises(TypeError, match=r"Conv2D.*same dtype.*Float32"):
        conv(good_x, Tensor(good_w.asnumpy().astype(np.float32)))
    with pytest.raises(TypeError, match=r"Conv2D.*float"):
        conv(Tensor(np.ones((1, 2, 5, 5), np.int32)), good_w)
    with pytest.raises(TypeError, match="Tensor"):
        conv(np.ones((1, 2, 5, 5)), good_w)
    with pytest.raises(ValueError, match="NCHW"):
        P.Conv2D(4, 3, data_format="NHWC")
    with pytest.raises(ValueError, match=r"Conv2DBackpropInput.*dout has shape"):
        P.Conv2DBackpropInput(4, 3)(T(np.ones((1, 4, 2, 2))), good_w, (1, 2, 5, 5))
    # an error inside a gradient computation leaves nothing behind
    with pytest.raises(ValueError):
        ops.grad(lambda a: ops.sum(conv(a, T(rnd((4, 3, 3, 3), 1)))))(good_x)
    g = ops.grad(lambda a: ops.sum(conv(a, good_w)))(good_x)
    assert g.shape == (1, 2, 5, 5)
    np.testing.assert_allclose(conv(good_x, good_w).asnumpy(),
                               ref_conv(good_x.asnumpy(), good_w.asnumpy(), (0,) * 4, (1, 1), (1, 1)),
                               rtol=1e-12)


# ================================================================================================
# pooling
# ================================================================================================
POOL_CASES = [
    ((2, 2, 6, 5), 2, 2, "valid"),
    ((1, 2, 5, 5), 3, 1, "valid"),
    ((1, 2, 5, 5), 2, 2, "same"),
    ((1, 1, 7, 6), (3, 2), (2, 3), "same"),
    ((1, 1, 5, 5), 3, 2, "same"),
]


def _pool_ref_args(xs, k, s, mode):
    k = (k, k) if isinstance(k, int) else k
    s = (s, s) if isinstance(s, int) else s
    pads = (0,) * 4 if mode == "valid" else _same_pads(xs[2], k[0], s[0]) + _same_pads(xs[3], k[1], s[1])
    return k, s, pads


@pytest.mark.parametrize("xs, k, s, mode", POOL_CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_forward_matches_loop_reference(xs, k, s, mode, kind):
    x = rnd(xs, 11)
    prim = (P.MaxPool if kind == "max" else P.AvgPool)(kernel_size=k, strides=s, pad_mode=mode)
    rk, rs, pads = _pool_ref_args(xs, k, s, mode)
    np.testing.assert_allclose(prim(T(x)).asnumpy(), ref_pool(x, rk, rs, pads, kind), rtol=1e-12)


@pytest.mark.parametrize("xs, k, s, mode", [POOL_CASES[0], POOL_CASES[1], POOL_CASES[3]])
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_gradients(xs, k, s, mode, kind):
    prim = (P.MaxPool if kind == "max" else P.AvgPool)(kernel_size=k, strides=s, pad_mode=mode)
    check_grads(prim, (T(rnd(xs, 12)),), (0,))


def test_maxpool_matches_mindspore_same_and_tie_rule():
    x = Tensor(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    np.testing.assert_array_equal(P.MaxPool(2, 2, "same")(x).asnumpy()[0, 0],
                                  [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    np.testing.assert_array_equal(P.AvgPool(2, 2, "same")(x).asnumpy()[0, 0],
                                  [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]])
    np.testing.assert_array_equal(P.AvgPool(3, 2, "same")(x).asnumpy()[0, 0],
                                  [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]])
    # ties: the whole gradient goes to the first maximum of each window (row-major), as MindSpore
    pool = P.MaxPool(kernel_size=2, strides=1)
    g = ops.grad(lambda a: ops.sum(pool(a)))(Tensor(np.ones((1, 1, 2, 2), np.float32)))
    np.testing.assert_array_equal(g.asnumpy()[0, 0], [[1, 0], [0, 0]])
    xt = Tensor(np.array([[[[1, 2, 2], [2, 0, 1], [2, 2, 2]]]], np.float32))
    g = ops.grad(lambda a: ops.sum(pool(a)))(xt)
    np.testing.assert_array_equal(g.asnumpy()[0, 0], [[0, 2, 0], [1, 0, 0], [0, 1, 0]])


def test_pool_gradient_primitives_are_adjoint_pairs():
    x = T(rnd((1, 2, 5, 6), 13))
    for cls, grad_cls, back_cls in ((P.MaxPool, P.MaxPoolGrad, P.MaxPoolGradGrad),
                                    (P.AvgPool, P.AvgPoolGrad, None)):
        pool = cls(kernel_size=3, strides=2, pad_mode="same")
        y = pool(x)
        dy, gx = T(rnd(y.shape, 14)), T(rnd(x.shape, 15))
        grad_prim = grad_cls(kernel_size=3, strides=2, pad_mode="same")
        dx = grad_prim(x, y, dy)
        # the gradient primitive is the transpose of the (locally) linear pooling map
        lhs = float(np.sum(dx.asnumpy() * gx.asnumpy()))
        if back_cls is None:
            rhs = float(np.sum(dy.asnumpy() * pool(gx).asnumpy()))
        else:
            rhs = float(np.sum(dy.asnumpy() * back_cls(kernel_size=3, strides=2, pad_mode="same")(
                x, y, gx).asnumpy()))
        assert lhs == pytest.approx(rhs, rel=1e-12)
        # and it is differentiable twice in its gradient input (the x input gets no gradient)
        check_grads(lambda d: grad_prim(x, y, d), (dy,), (0,), seed=3)
        gx_of_x = ops.grad(lambda a: ops.sum(grad_prim(a, y, dy)))(x)
        np.testing.assert_array_equal(gx_of_x.asnumpy(), 0)
    gg = P.MaxPoolGradGrad(kernel_size=3, strides=2, pad_mode="same")
    check_grads(lambda g: gg(x, y, g), (gx,), (0,), seed=4)


FUNCTIONAL_POOL_INPUT = ((np.arange(36, dtype=np.float32) * 7) % 11).reshape(1, 1, 6, 6)


def test_functional_pooling_matches_mindspore():
    # every expected value below was printed by MindSpore 2.10's ops.avg_pool2d / ops.max_pool2d
    a = Tensor(FUNCTIONAL_POOL_INPUT)
    np.testing.assert_allclose(NF.avg_pool2d(a, 3, 2, padding=0, ceil_mode=True).asnumpy()[0, 0],
                               [[5.0, 5.5555553, 3.8333333], [5.8888888, 5.2222223, 5.3333335],
                                [5.3333335, 4.6666665, 6.0]], rtol=1e-6)
    np.testing.assert_allclose(NF.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True).asnumpy()[0, 0],
                               [[2.3333333, 3.7777777, 3.3333333, 0.33333334],
                                [3.3333333, 5.111111, 4.4444447, 2.6666667],
                                [3.1111112, 4.7777777, 4.111111, 2.5], [1.5, 2.0, 1.6666666, 0.75]],
                               rtol=1e-6)
    np.testing.assert_allclose(
        NF.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True, count_include_pad=False).asnumpy()[0, 0],
        [[5.25, 5.6666665, 5.0, 1.0], [5.0, 5.111111, 4.4444447, 5.3333335],
         [4.6666665, 4.7777777, 4.111111, 5.0], [4.5, 4.0, 3.3333333, 3.0]], rtol=1e-6)
    out, idx = NF.max_pool2d(a, 3, 2, padding=1, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[9, 10, 10, 2], [9, 10, 9, 9], [10, 10, 9, 7],
                                                        [8, 8, 7, 3]])
    np.testing.assert_array_equal(idx.asnumpy()[0, 0], [[6, 3, 3, 5], [6, 14, 17, 17], [25, 25, 28, 23],
                                                        [31, 31, 34, 35]])
    assert idx.dtype == ms.int64
    out, idx = NF.max_pool2d(a, 2, 1, padding=1, dilation=2, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy()[0, 0, 1], [7, 10, 10, 10, 10, 6])
    np.testing.assert_array_equal(idx.asnumpy()[0, 0, 3], [25, 14, 25, 14, 17, 28])
    b = Tensor(np.arange(2 * 25, dtype=np.float32).reshape(2, 1, 5, 5)[:, :, ::-1].copy())
    np.testing.assert_allclose(NF.avg_pool2d(b, 2, 2, padding=1, divisor_override=3).asnumpy()[0, 0],
                               [[6.666667, 14.333333, 15.666667], [8.333333, 18.666666, 21.333334],
                                [1.666667, 5.333333, 8.0]], rtol=1e-6)


def test_functional_pooling_gradients():
    x = T(rnd((1, 2, 6, 6), 16))
    check_grads(lambda a: NF.max_pool2d(a, 3, 2, padding=1, ceil_mode=True), (x,), (0,))
    check_grads(lambda a: NF.max_pool2d(a, 2, 1, padding=1, dilation=2), (x,), (0,), seed=1)
    check_grads(lambda a: NF.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True), (x,), (0,), seed=2)
    check_grads(lambda a: NF.avg_pool2d(a, 3, 2, padding=1, count_include_pad=False), (x,), (0,), seed=3)


def test_pool_errors_then_next_call_works():
    with pytest.raises(ValueError) as e:
        P.MaxPool(3, 1)(T(np.ones((1, 2, 2, 2))))
    assert "MaxPool" in str(e.value) and "[1, 2, 2, 2]" in str(e.value)
    with pytest.raises(ValueError, match="pad_mode"):
        P.MaxPool(3, 1, pad_mode="pad")
    with pytest.raises(ValueError, match=r"AvgPool.*4-D"):
        P.AvgPool(2, 2)(T(np.ones((2, 4, 4))))
    with pytest.raises(TypeError, match=r"AvgPool.*float"):
        P.AvgPool(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.int32)))
    with pytest.raises(TypeError, match="kernel_size"):
        P.MaxPool(kernel_size=2.0)
    with pytest.raises(ValueError, match="kernel_size"):
        P.MaxPool(kernel_size=0)
    with pytest.raises(ValueError, match=r"max_pool2d.*half the kernel"):
        NF.max_pool2d(T(np.ones((1, 1, 4, 4))), 2, padding=2)
    assert P.MaxPool(3, 1)(T(np.ones((1, 2, 3, 3)))).shape == (1, 2, 1, 1)


# ================================================================================================
# BatchNorm
# ================================================================================================
def _bn_args(shape, seed):
    rng = np.random.default_rng(seed)
    c = shape[1]
    return (T(rng.standard_normal(shape) * 2 + 0.5), T(rng.standard_normal(c)), T(rng.standard_normal(c)),
            T(rng.standard_normal(c)), T(rng.uniform(0.5, 2.0, c)))


@pytest.mark.parametrize("shape", [(5, 3), (3, 2, 2, 3)])
def test_batchnorm_training_forward(shape):
    x, scale, bias, mean, var = _bn_args(shape, 20)
    before = (mean.asnumpy(), var.asnumpy())
    y, bm, bv, r1, r2 = P.BatchNorm(is_training=True, epsilon=1e-3)(x, scale, bias, mean, var)
    a = x.asnumpy()
    axes = (0,) if a.ndim == 2 else (0, 2, 3)
    m = a.size // a.shape[1]
    mu = a.sum(axis=axes) / m
    bshape = (1, -1) + (1,) * (a.ndim - 2)
    sq = ((a - mu.reshape(bshape)) ** 2).sum(axis=axes)
    y_ref = (a - mu.reshape(bshape)) / np.sqrt(sq / m + 1e-3).reshape(bshape) * scale.asnumpy().reshape(
        bshape) + bias.asnumpy().reshape(bshape)
    np.testing.assert_allclose(y.asnumpy(), y_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bm.asnumpy(), mu, rtol=1e-12)
    np.testing.assert_allclose(bv.asnumpy(), sq / (m - 1), rtol=1e-12)     # unbiased, as MindSpore
    np.testing.assert_allclose(r1.asnumpy(), mu, rtol=1e-12)
    np.testing.assert_allclose(r2.asnumpy(), sq / m, rtol=1e-12)           # biased (MindSpore CPU)
    # as MindSpore's kernel, a training call updates mean/variance in place (momentum 0.1, unbiased)
    np.testing.assert_allclose(mean.asnumpy(), 0.9 * before[0] + 0.1 * mu, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), 0.9 * before[1] + 0.1 * sq / (m - 1), rtol=1e-12)


def test_batchnorm_inference_documentation_numbers():
    bn = P.BatchNorm(is_training=False)
    ones, zeros = T([1.0]), T([0.0])
    f = lambda x: bn(x, ones, zeros, zeros, ones)[0]  # noqa: E731
    x = T([[4.0]])
    assert f(x).asnumpy().item() == pytest.approx(4 / math.sqrt(1 + 1e-5), rel=1e-14)
    g = ops.grad(f)(x).asnumpy().item()
    assert g == pytest.approx(1 / math.sqrt(1 + 1e-5), rel=1e-14)
    assert g == pytest.approx(9.99994993e-01, abs=1e-8)     # the value printed in the documentation
    g32 = ops.grad(lambda a: P.BatchNorm()(a, *(Tensor(np.array(v, np.float32)) for v in ([1.0], [0.0], [0.0],
                                                                                         [1.0])))[0])
    assert g32(Tensor(np.array([[4.0]], np.float32))).asnumpy().item() == pytest.approx(0.999995, abs=1e-6)


def test_batchnorm_inference_forward_and_outputs():
    x, scale, bias, mean, var = _bn_args((2, 3, 2, 2), 21)
    outs = P.BatchNorm(is_training=False, epsilon=1e-4)(x, scale, bias, mean, var)
    b = (1, 3, 1, 1)
    ref = (x.asnumpy() - mean.asnumpy().reshape(b)) / np.sqrt(var.asnumpy().reshape(b) + 1e-4) \
        * scale.asnumpy().reshape(b) + bias.asnumpy().reshape(b)
    np.testing.assert_allclose(outs[0].asnumpy(), ref, rtol=1e-12)
    for o, expect in zip(outs[1:], (mean, var, mean, var)):
        np.testing.assert_array_equal(o.asnumpy(), expect.asnumpy())


@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_gradients(shape, training):
    x, scale, bias, mean, var = _bn_args(shape, 22)
    bn = P.BatchNorm(is_training=training, epsilon=1e-3)
    # all five outputs enter the scalar, so the rule's terms for the statistics are checked too
    check_grads(lambda a, s, b: bn(a, s, b, mean, var), (x, scale, bias), (0, 1, 2))
    # bound directly: a training call would write the new statistics into m and v, which are being
    # differentiated here (refused)
    grads = ops.grad(lambda m, v: ops.sum(bind(bn, x, scale, bias, m, v)[0]), grad_position=(0, 1))(mean, var)
    for g in grads:                    # mean/variance get no gradient (None -> zeros)
        np.testing.assert_array_equal(g.asnumpy(), 0)


def test_batchnorm_training_gradient_matches_mindspore():
    # ms.grad(sum(BatchNorm(is_training=True)(x, s, b, 0, 1)[0] * r), (0, 1, 2)) printed by MindSpore 2.10
    x = Tensor((((np.arange(24) * 7) % 10) / 3.0 - 1.2).reshape(3, 2, 2, 2).astype(np.float32))
    r = Tensor(((np.arange(24) % 5) - 2.0).reshape(3, 2, 2, 2).astype(np.float32))
    s, b = Tensor(np.array([1.5, -0.5], np.float32)), Tensor(np.array([0.2, 0.1], np.float32))
    zeros, ones = Tensor(np.zeros(2, np.float32)), Tensor(np.ones(2, np.float32))
    bn = P.BatchNorm(is_training=True)
    gx, gs, gb = ops.grad(lambda a, c, d: ops.sum(bn(a, c, d, zeros, ones)[0] * r), grad_position=(0, 1, 2))(
        x, s, b)
    np.testing.assert_allclose(gx.asnumpy()[0, 0], [[-2.5708849, -2.0084941], [0.0, 2.0084941]], atol=2e-5)
    np.testing.assert_allclose(gx.asnumpy()[2, 1], [[0.62549198, 0.60063303], [-0.12012660, -0.84088618]],
                               atol=2e-5)
    np.testing.assert_allclose(gs.asnumpy(), [3.1493268, 4.7785683], rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), [0.0, -2.0], atol=1e-6)


def test_batchnorm_errors_then_next_call_works():
    x, scale, bias, mean, var = _bn_args((4, 3), 23)
    bn = P.BatchNorm(is_training=True)
    with pytest.raises(ValueError) as e:
        bn(x, T(np.ones(2)), bias, mean, var)
    assert "BatchNorm" in str(e.value) and "'scale'" in str(e.value) and "[3]" in str(e.value)
    with pytest.raises(ValueError, match=r"BatchNorm.*2-D .* or 4-D"):
        bn(T(np.ones((2, 3, 4))), scale, bias, mean, var)
    with pytest.raises(ValueError, match=r"BatchNorm.*more than one value per channel"):
        bn(T(np.ones((1, 3))), scale, bias, mean, var)
    with pytest.raises(TypeError, match=r"BatchNorm.*float"):
        bn(Tensor(np.ones((4, 3), np.int32)), scale, bias, mean, var)
    with pytest.raises(TypeError, match=r"BatchNorm.*Tensor"):
        bn(x, [1.0, 1.0, 1.0], bias, mean, var)
    with pytest.raises(TypeError, match="is_training"):
        P.BatchNorm(is_training=1)
    with pytest.raises(ValueError, match="epsilon"):
        P.BatchNorm(epsilon=0.0)
    assert bn(x, scale, bias, mean, var)[0].shape == (4, 3)
    # inference with a single sample is fine
    assert P.BatchNorm()(T(np.ones((1, 3))), scale, bias, mean, var)[0].shape == (1, 3)


def test_functional_batch_norm_updates_running_statistics_like_mindspore():
    # MindSpore 2.10: ops.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2) printed these
    x = Tensor(((np.arange(16) * 5 % 9) / 4.0).reshape(2, 2, 2, 2).astype(np.float32))
    rm = ms.Parameter(Tensor(np.array([0.5, -0.5], np.float32)), name="rm")
    rv = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="rv")
    w, b = Tensor(np.array([1.5, 0.5], np.float32)), Tensor(np.array([0.1, -0.2], np.float32))
    y = NF.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
    np.testing.assert_allclose(y.asnumpy()[0, 0], [[-1.6689596, 1.5473306], [-1.0257015, 2.1905885]], rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy()[1, 1], [[0.06802417, -0.78965318], [0.28244352, -0.57523388]],
                               rtol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), [0.5375, -0.1625], rtol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), [0.87767857, 1.67767859], rtol=1e-6)
    assert rm.dtype == ms.float32 and isinstance(rm, ms.Parameter)
    # inference uses (and keeps) the running statistics
    y2 = NF.batch_norm(x, rm, rv, w, b)
    ref = (x.asnumpy() - rm.asnumpy().reshape(1, 2, 1, 1)) / np.sqrt(rv.asnumpy().reshape(1, 2, 1, 1) + 1e-5) \
        * w.asnumpy().reshape(1, 2, 1, 1) + b.asnumpy().reshape(1, 2, 1, 1)
    np.testing.assert_allclose(y2.asnumpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), [0.5375, -0.1625], rtol=1e-6)
    # under a gradient the update still happens, with plain numbers, and the gradient is unaffected
    xs = T(rnd((3, 2), 24))
    rm2, rv2 = T(np.zeros(2)), T(np.ones(2))
    g = ops.grad(lambda a: ops.sum(ops.mul(NF.batch_norm(a, rm2, rv2, T([1.0, 2.0]), T([0.0, 0.0]), True),
                                           T([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]))))(xs)
    assert g.shape == (3, 2) and type(rm2._data) is np.ndarray
    np.testing.assert_allclose(rm2.asnumpy(), 0.1 * xs.asnumpy().mean(axis=0), rtol=1e-12)


# ================================================================================================
# Dropout
# ================================================================================================
def test_dropout_output_and_mask():
    ms.set_seed(3)
    x = T(rnd((2, 3, 4, 5), 30))
    out, mask = P.Dropout(keep_prob=0.8)(x)
    assert mask.dtype == ms.float64 and mask.shape == x.shape       # MindSpore CPU: x's dtype/shape
    m = mask.asnumpy()
    assert set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * m / 0.8, rtol=1e-15)
    # statistics: about keep_prob of the elements survive
    _, big = P.Dropout(keep_prob=0.3)(Tensor(np.ones((200, 100), np.float32)))
    assert big.dtype == ms.float32 and abs(big.asnumpy().mean() - 0.3) < 0.02
    # reproducible with set_seed, different without
    ms.set_seed(7)
    a = P.Dropout(0.5)(x)[1].asnumpy()
    ms.set_seed(7)
    b = P.Dropout(0.5)(x)[1].asnumpy()
    np.testing.assert_array_equal(a, b)
    # keep_prob=1 keeps everything
    out, mask = P.Dropout(keep_prob=1.0)(x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())


def test_dropout2d_drops_whole_channels_with_bool_mask():
    ms.set_seed(4)
    x = T(rnd((8, 6, 3, 4), 31))
    out, mask = P.Dropout2D(keep_prob=0.5)(x)
    assert mask.dtype == ms.bool_ and mask.shape == x.shape         # as MindSpore 2.10 prints
    m = mask.asnumpy()
    assert (m == m[:, :, :1, :1]).all()                            # one decision per (n, c)
    assert 0 < m[:, :, 0, 0].mean() < 1
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * m / 0.5, rtol=1e-15)


@pytest.mark.parametrize("cls", [P.Dropout, P.Dropout2D])
def test_dropout_gradients(cls):
    x = T(rnd((2, 3, 2, 2), 32))

    def op(a):
        ms.set_seed(11)              # the same mask for the gradient and every finite difference
        return cls(keep_prob=0.6)(a)

    check_grads(op, (x,), (0,), outputs=(0,))
    ms.set_seed(11)
    out, mask = cls(keep_prob=0.6)(x)
    g = ops.grad(lambda a: ops.sum(op(a)[0]))(x)
    np.testing.assert_allclose(g.asnumpy(), mask.asnumpy().astype(np.float64) / 0.6, rtol=1e-15)


def test_dropout_errors_then_next_call_works():
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"Dropout.*keep_prob.*\(0, 1\]"):
            P.Dropout(keep_prob=bad)
    with pytest.raises(ValueError, match=r"Dropout2D.*keep_prob"):
        P.Dropout2D(keep_prob=0.0)
    with pytest.raises(TypeError, match="keep_prob"):
        P.Dropout(keep_prob="0.5")
    with pytest.raises(ValueError, match=r"Dropout2D.*4-D"):
        P.Dropout2D()(T(np.ones((2, 3))))
    with pytest.raises(TypeError, match=r"Dropout.*float"):
        P.Dropout()(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match=r"dropout.*\[0, 1\)"):
        NF.dropout(T(np.ones(3)), p=1.0)
    assert P.Dropout2D()(T(np.ones((1, 2, 2, 2))))[0].shape == (1, 2, 2, 2)


def test_functional_dropout():
    x = T(rnd((4, 5), 33))
    assert NF.dropout(x, p=0.5, training=False) is x
    np.testing.assert_array_equal(NF.dropout(x, p=0.0).asnumpy(), x.asnumpy())
    a, b = NF.dropout(x, p=0.4, seed=5), NF.dropout(x, p=0.4, seed=5)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    kept = a.asnumpy() != 0
    np.testing.assert_allclose(a.asnumpy()[kept], x.asnumpy()[kept] / 0.6, rtol=1e-15)
    y = NF.dropout2d(T(np.ones((3, 4, 2, 2))), p=0.5)
    assert set(np.unique(y.asnumpy())) <= {0.0, 2.0}
    assert NF.dropout2d(x, training=False) is x


# ================================================================================================
# softmax cross-entropy
# ================================================================================================
def _log_softmax_ref(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def test_softmax_cross_entropy_matches_mindspore_and_is_stable():
    logits = Tensor(np.array([[2, 4, 1, 4, 5], [2, 1, 2, 4, 3]], np.float32))
    labels = Tensor(np.array([[0, 0, 0, 0, 1], [0, 0, 0, 1, 0]], np.float32))
    loss, dlogits = P.SoftmaxCrossEntropyWithLogits()(logits, labels)
    np.testing.assert_allclose(loss.asnumpy(), [0.5899297, 0.52374405], rtol=1e-6)   # MindSpore 2.10
    np.testing.assert_allclose(dlogits.asnumpy(), [[0.02760027, 0.20393994, 0.01015357, 0.20393994, -0.44563377],
                                                   [0.08015892, 0.02948882, 0.08015892, -0.4077012, 0.21789455]],
                               rtol=1e-5)
    big = T([[1000.0, 0.0, -1000.0]])
    loss, d = P.SoftmaxCrossEntropyWithLogits()(big, T([[0.0, 1.0, 0.0]]))
    assert loss.asnumpy()[0] == pytest.approx(1000.0) and np.isfinite(d.asnumpy()).all()
    sparse = P.SparseSoftmaxCrossEntropyWithLogits()(logits, Tensor(np.array([4, 3], np.int32)))
    assert sparse.shape == () and sparse.asnumpy() == pytest.approx(0.55683625, rel=5e-6)
    g = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, Tensor(np.array([4, 3], np.int32)))
    np.testing.assert_allclose(g.asnumpy()[0], [0.01380013, 0.10196988, 0.00507678, 0.10196988, -0.22281668],
                               rtol=1e-5)


def test_softmax_cross_entropy_forward_reference():
    z, lab = rnd((4, 6), 40) * 3, np.abs(rnd((4, 6), 41))
    loss, d = P.SoftmaxCrossEntropyWithLogits()(T(z), T(lab))
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(loss.asnumpy(), -(lab * np.log(p)).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(d.asnumpy(), p - lab, rtol=1e-12)
    idx = np.array([0, 5, 2, 2])
    s = P.SparseSoftmaxCrossEntropyWithLogits()(T(z), Tensor(idx))
    assert s.asnumpy() == pytest.approx(-np.log(p[np.arange(4), idx]).mean(), rel=1e-12)


def test_softmax_cross_entropy_gradients():
    z = T(rnd((3, 5), 42))
    lab = T(np.abs(rnd((3, 5), 43)))          # rows not summing to 1: the exact derivative is checked
    sce = P.SoftmaxCrossEntropyWithLogits()
    check_grads(lambda a: sce(a, lab), (z,), (0,))
    g = ops.grad(lambda a, b: ops.sum(sce(a, b)[0]), grad_position=(0, 1))(z, lab)
    np.testing.assert_array_equal(g[1].asnumpy(), 0)                 # labels get no gradient
    # labels summing to 1: the gradient of the loss is the dlogits output, as MindSpore
    onehot = T(np.eye(5)[[1, 4, 0]])
    g = ops.grad(lambda a: ops.sum(sce(a, onehot)[0]))(z)
    np.testing.assert_allclose(g.asnumpy(), sce(z, onehot)[1].asnumpy(), rtol=1e-12)
    labels = Tensor(np.array([1, 4, 0], np.int32))
    for is_grad in (False, True):
        sparse = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=is_grad)
        check_grads(lambda a: sparse(a, labels), (z,), (0,), seed=int(is_grad))
    g = ops.grad(lambda a: P.SparseSoftmaxCrossEntropyWithLogits()(a, labels))(z)
    expect = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(z, labels)
    np.testing.assert_allclose(g.asnumpy(), expect.asnumpy(), rtol=1e-12)


def test_softmax_cross_entropy_errors_then_next_call_works():
    z = T(rnd((2, 3), 44))
    sparse = P.SparseSoftmaxCrossEntropyWithLogits()
    with pytest.raises(ValueError) as e:
        sparse(z, Tensor(np.array([0, 3], np.int32)))
    assert "SparseSoftmaxCrossEntropyWithLogits" in str(e.value) and "out of range" in str(e.value) \
        and "[0, 2]" in str(e.value)
    with pytest.raises(ValueError, match="out of range"):
        sparse(z, Tensor(np.array([-1, 0], np.int32)))
    with pytest.raises(TypeError, match=r"labels must be an int32/int64"):
        sparse(z, T([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"labels must have shape \[2\]"):
        sparse(z, Tensor(np.array([0, 1, 1], np.int32)))
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits.*shape of logits"):
        P.SoftmaxCrossEntropyWithLogits()(z, T(np.ones((2, 4))))
    with pytest.raises(ValueError, match="2-D"):
        P.SoftmaxCrossEntropyWithLogits()(T(np.ones(3)), T(np.ones(3)))
    assert sparse(z, Tensor(np.array([0, 2], np.int32))).shape == ()


# ================================================================================================
# functional API: conv2d, losses
# ================================================================================================
def test_functional_conv2d_with_bias():
    x, w, b = rnd((2, 2, 5, 4), 50), rnd((3, 2, 2, 3), 51), rnd(3, 52)
    out = NF.conv2d(T(x), T(w), T(b), stride=(2, 1), pad_mode="pad", padding=(1, 2))
    expected = ref_conv(x, w, (1, 1, 2, 2), (2, 1), (1, 1)) + b.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-12)
    check_grads(lambda a, c, d: NF.conv2d(a, c, d, pad_mode="same", dilation=2),
                (T(x), T(w), T(b)), (0, 1, 2))
    with pytest.raises(ValueError, match=r"conv2d.*bias must have shape \[3\]"):
        NF.conv2d(T(x), T(w), T(np.ones(2)))
    assert NF.conv2d(T(x), T(w)).shape == (2, 3, 4, 2)


LOGITS = (((np.arange(12) * 5) % 7) / 3.0 - 1).reshape(3, 4).astype(np.float32)
PROBS = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 1.0, 0.0], [0.25, 0.25, 0.25, 0.25]], np.float32)


def test_functional_losses_match_mindspore():
    # every expected value below was printed by MindSpore 2.10
    z = Tensor(LOGITS)
    t = Tensor(np.array([1, 3, 0], np.int32))
    w = Tensor(np.array([0.5, 1.0, 2.0, 1.5], np.float32))
    close = dict(rel=2e-6)
    assert NF.cross_entropy(z, t).asnumpy() == pytest.approx(1.4929451942443848, **close)
    assert NF.cross_entropy(z, t, weight=w).asnumpy() == pytest.approx(1.7419074773788452, **close)
    assert NF.cross_entropy(z, t, weight=w, label_smoothing=0.2).asnumpy() == pytest.approx(1.8223178386688232,
                                                                                            **close)
    ignored = Tensor(np.array([1, -100, 0], np.int32))
    np.testing.assert_allclose(NF.cross_entropy(z, ignored, reduction="none").asnumpy(),
                               [0.6759447455406189, 0.0, 1.1545584201812744], rtol=2e-6)
    assert NF.cross_entropy(z, ignored, label_smoothing=0.1).asnumpy() == pytest.approx(0.981918215751648,
                                                                                        **close)
    assert NF.cross_entropy(z, Tensor(PROBS)).asnumpy() == pytest.approx(1.7096118927001953, **close)
    assert NF.cross_entropy(z, Tensor(PROBS), weight=w, label_smoothing=0.1, reduction="sum").asnumpy() == \
        pytest.approx(8.183671951293945, **close)
    assert NF.nll_loss(ops.log_softmax(z, 1), t, reduction="sum").asnumpy() == pytest.approx(4.478833198547363,
                                                                                             **close)
    x4 = Tensor((((np.arange(24) * 3) % 5) / 2.0).reshape(2, 3, 2, 2).astype(np.float32))
    t4 = Tensor(np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]], np.int32))
    assert NF.cross_entropy(x4, t4).asnumpy() == pytest.approx(1.4400885105133057, **close)
    assert NF.mse_loss(z, Tensor(PROBS)).asnumpy() == pytest.approx(0.6819444298744202, **close)
    assert NF.l1_loss(z, Tensor(PROBS), reduction="sum").asnumpy() == pytest.approx(8.933333396911621, **close)


def test_functional_losses_reference_and_gradients():
    z, t = rnd((4, 3), 60), np.array([2, 0, 1, 2])
    lp = _log_softmax_ref(z)
    assert NF.cross_entropy(T(z), Tensor(t)).asnumpy() == pytest.approx(-lp[np.arange(4), t].mean(), rel=1e-12)
    w = np.array([0.3, 1.2, 2.0])
    want = -(w[t] * lp[np.arange(4), t]).sum() / w[t].sum()
    assert NF.cross_entropy(T(z), Tensor(t), weight=T(w)).asnumpy() == pytest.approx(want, rel=1e-12)
    y = rnd((4, 3), 61)
    np.testing.assert_allclose(NF.mse_loss(T(z), T(y), reduction="none").asnumpy(), (z - y) ** 2, rtol=1e-12)
    assert NF.l1_loss(T(z), T(y)).asnumpy() == pytest.approx(np.abs(z - y).mean(), rel=1e-12)
    # other ranks: (C,) with a scalar target, (N, C, d) with (N, d) targets, weights and ignore_index
    v = rnd(5, 64)
    assert NF.nll_loss(T(v), Tensor(np.array(3))).asnumpy() == pytest.approx(-v[3], rel=1e-12)
    z3, t3 = rnd((2, 3, 4), 65), np.array([[0, 2, -100, 1], [1, 1, 0, 2]])
    w3 = np.array([0.5, 2.0, 1.0])
    got = NF.nll_loss(T(z3), Tensor(t3), weight=T(w3), reduction="none").asnumpy()
    want = np.array([[0.0 if t3[n, d] == -100 else -w3[t3[n, d]] * z3[n, t3[n, d], d] for d in range(4)]
                     for n in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    mask = t3 != -100
    mean = NF.nll_loss(T(z3), Tensor(t3), weight=T(w3)).asnumpy()
    assert mean == pytest.approx(want.sum() / w3[t3[mask]].sum(), rel=1e-12)
    # gradients w.r.t. the logits and the class weights, twice
    check_grads(lambda a, c: NF.cross_entropy(a, Tensor(t), weight=c, label_smoothing=0.1), (T(z), T(w)), (0, 1))
    probs = np.abs(rnd((4, 3), 62))
    check_grads(lambda a: NF.cross_entropy(a, T(probs), reduction="none"), (T(z),), (0,), seed=1)
    check_grads(lambda a: NF.nll_loss(a, Tensor(np.array([1, -100, 0, 2])), reduction="sum"), (T(z),), (0,),
                seed=2)
    check_grads(lambda a, b: NF.mse_loss(a, b), (T(z), T(y)), (0, 1), seed=3)
    check_grads(lambda a, b: NF.l1_loss(a, b, reduction="sum"), (T(z), T(y)), (0, 1), seed=4)


def test_functional_loss_errors_then_next_call_works():
    z = T(rnd((2, 3), 63))
    with pytest.raises(ValueError, match=r"cross_entropy.*target 3 is out of range"):
        NF.cross_entropy(z, Tensor(np.array([0, 3])))
    with pytest.raises(ValueError, match=r"reduction"):
        NF.cross_entropy(z, Tensor(np.array([0, 1])), reduction="avg")
    with pytest.raises(ValueError, match=r"target must have shape \[2\]"):
        NF.cross_entropy(z, Tensor(np.array([0, 1, 1])))
    with pytest.raises(ValueError, match=r"probability targets must have the shape"):
        NF.cross_entropy(z, T(np.ones((2, 4))))
    with pytest.raises(TypeError, match=r"mse_loss.*Tensor"):
        NF.mse_loss(z, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"l1_loss.*reduction"):
        NF.l1_loss(z, z, reduction="max")
    assert NF.cross_entropy(z, Tensor(np.array([0, 2]))).shape == ()


def test_exported_from_ops_namespace():
    for name in ("Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv2DBackpropFilter", "MaxPool", "AvgPool", "BatchNorm",
                 "Dropout", "Dropout2D", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                 "conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "dropout", "dropout2d", "cross_entropy",
                 "nll_loss", "mse_loss", "l1_loss"):
        assert hasattr(ops, name), name
    assert ops.Conv2D is P.Conv2D and ops.cross_entropy is NF.cross_entropy
