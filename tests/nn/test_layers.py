"""Layers of ``minims.nn``: forward passes, parameters, gradients, modes, hooks, containers, losses.

Where the expected values come from:

* forward passes: NumPy computations written here independently (loops for convolution);
* gradients: central differences in float64 (``minims.testing.check_grads`` for inputs, and the
  same check along a random direction for each Parameter, ``check_param_grads`` below);
* printed output: the documentation pages (seed 002: ``Threshold``; seed 003: the backward hook on
  BatchNorm2d and the three hook examples on ``nn.MatMul``).  Seed 003's page was rendered with runs
  of spaces collapsed to one (its own NumPy output shows it, e.g. ``[ 0.01172971 0.02172665``), so
  those outputs are compared after collapsing runs of spaces in what Python prints;
* parameter names and modes: MindSpore 2.10's behaviour (``fc1.weight``, ``bn.moving_mean`` ...).
"""
import math
import re
from collections import OrderedDict

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor
from minims import context
from minims.ops import GradOperation
from minims.testing import check_grads
from seed_cells import Threshold

F64 = ms.float64


def T64(a):
    return Tensor(np.asarray(a, dtype=np.float64))


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def collapse(text):
    """Runs of spaces collapsed to one: how seed 003's page renders printed output."""
    return re.sub(r" +", " ", text)


def check_param_grads(cell, inputs, eps=1e-6, rtol=1e-6, atol=1e-9, reseed=None):
    """Each trainable Parameter's gradient against a central difference along a random direction.

    The loss is ``<w, cell(*inputs)>`` with a random cotangent ``w``; ``reseed`` (an int) calls
    ``set_seed`` before every evaluation, so random layers (Dropout) draw the same mask each time.
    """
    rng = np.random.default_rng(1)
    params = cell.trainable_params()
    assert params, "the cell has no trainable parameters"

    def run(*xs):
        if reseed is not None:
            ms.set_seed(reseed)
        return cell(*xs)

    cot = Tensor(rng.standard_normal(run(*inputs).shape))

    def loss(*xs):
        return ops.sum(ops.mul(run(*xs), cot))

    grads = ops.grad(loss, grad_position=None, weights=params)(*inputs)
    assert len(grads) == len(params)
    for p, g in zip(params, grads):
        assert g.shape == p.shape and g.dtype == p.dtype
        u = rng.standard_normal(p.shape)
        base = p.asnumpy()
        p.set_data(Tensor(base + eps * u))
        plus = float(loss(*inputs).asnumpy())
        p.set_data(Tensor(base - eps * u))
        minus = float(loss(*inputs).asnumpy())
        p.set_data(Tensor(base))
        numeric = (plus - minus) / (2 * eps)
        analytic = float(np.sum(g.asnumpy() * u))
        assert abs(analytic - numeric) <= atol + rtol * abs(numeric), (p.name, analytic, numeric)


# ================================================================================================
# NumPy references
# ================================================================================================
def np_conv2d(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), group=1):
    """Cross-correlation by loops over output positions (the definition)."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    wo = (wd - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // group
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                patch = x[:, g * cg:(g + 1) * cg,
                          i * stride[0]:i * stride[0] + (kh - 1) * dilation[0] + 1:dilation[0],
                          j * stride[1]:j * stride[1] + (kw - 1) * dilation[1] + 1:dilation[1]]
                out[:, oc, i, j] = np.sum(patch * w[oc], axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out


def np_pool(x, k, s, reduce):
    n, c, h, w = x.shape
    ho, wo = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            out[:, :, i, j] = reduce(x[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


# ================================================================================================
# Dense
# ================================================================================================
def test_dense_forward_matches_numpy():
    x = rand(4, 3)
    w, b = rand(5, 3, seed=1), rand(5, seed=2)
    d = nn.Dense(3, 5, weight_init=T64(w), bias_init=T64(b), dtype=F64)
    np.testing.assert_allclose(d(T64(x)).asnumpy(), x @ w.T + b, rtol=1e-12)
    d = nn.Dense(3, 5, weight_init=T64(w), bias_init=T64(b), activation="relu", dtype=F64)
    np.testing.assert_allclose(d(T64(x)).asnumpy(), np.maximum(x @ w.T + b, 0), rtol=1e-12)
    d = nn.Dense(3, 5, weight_init=T64(w), has_bias=False, activation=nn.Tanh(), dtype=F64)
    assert d.bias is None and [p.name for p in d.get_parameters()] == ["weight"]
    np.testing.assert_allclose(d(T64(x)).asnumpy(), np.tanh(x @ w.T), rtol=1e-12)


def test_dense_applies_to_the_last_dimension():
    x = rand(2, 4, 3)
    w, b = rand(5, 3, seed=1), rand(5, seed=2)
    d = nn.Dense(3, 5, weight_init=T64(w), bias_init=T64(b), dtype=F64)
    out = d(T64(x))
    assert out.shape == (2, 4, 5)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-12)


def test_dense_default_initialisation():
    ms.set_seed(0)
    d = nn.Dense(400, 120)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert d.weight.shape == (120, 400) and d.weight.dtype == ms.float32 and d.bias.shape == (120,)
    bound = 1 / math.sqrt(400)               # HeUniform(sqrt(5)) and U(-1/sqrt(in), 1/sqrt(in))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert np.abs(b).max() <= bound and np.abs(b).std() > 0
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound


def test_dense_argument_errors():
    with pytest.raises(ValueError, match=r"weight_init must have shape \[5, 3\]"):
        nn.Dense(3, 5, weight_init=Tensor(np.zeros((3, 5), np.float32)))
    with pytest.raises(ValueError, match="in_channels"):
        nn.Dense(0, 5)
    with pytest.raises(TypeError, match="activation"):
        nn.Dense(3, 5, activation=3)
    with pytest.raises(KeyError, match="unknown activation"):
        nn.Dense(3, 5, activation="swish")


def test_dense_wrong_feature_count_names_the_cell_then_works():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 3)

        def construct(self, x):
            return self.fc1(x)

    net = Net()
    with pytest.raises(ValueError) as info:
        net(Tensor(np.ones((2, 5), np.float32)))
    msg = str(info.value)
    assert msg.startswith("Net.fc1: ")
    assert "expects inputs with 4 features" in msg and "shape [2, 5] (5 features)" in msg
    assert net(Tensor(np.ones((2, 4), np.float32))).shape == (2, 3)    # a later correct call works


def test_dense_gradients():
    x = T64(rand(4, 3))
    d = nn.Dense(3, 5, activation="tanh", dtype=F64)
    check_grads(d, (x,), order=2)
    check_param_grads(d, (x,))


# ================================================================================================
# Conv2d
# ================================================================================================
@pytest.mark.parametrize("kwargs, pads", [
    (dict(pad_mode="valid"), (0, 0, 0, 0)),
    (dict(pad_mode="same"), (1, 1, 1, 1)),
    (dict(pad_mode="pad", padding=2), (2, 2, 2, 2)),
    (dict(pad_mode="pad", padding=(0, 1, 2, 1), stride=2), (0, 1, 2, 1)),
    (dict(pad_mode="valid", dilation=2), (0, 0, 0, 0)),
    (dict(pad_mode="valid", group=2, has_bias=True), (0, 0, 0, 0)),
])
def test_conv2d_forward_matches_numpy(kwargs, pads):
    group = kwargs.get("group", 1)
    x = rand(2, 4, 7, 7)
    w = rand(6, 4 // group, 3, 3, seed=1)
    b = rand(6, seed=2)
    conv = nn.Conv2d(4, 6, 3, weight_init=T64(w), bias_init=T64(b), dtype=F64, **kwargs)
    stride = kwargs.get("stride", 1)
    dil = kwargs.get("dilation", 1)
    expected = np_conv2d(x, w, b if kwargs.get("has_bias") else None, (stride, stride), pads, (dil, dil), group)
    got = conv(T64(x)).asnumpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_conv2d_parameters_and_defaults():
    ms.set_seed(0)
    conv = nn.Conv2d(3, 4, 3, bias_init="zeros")       # seed 003's single-operator example
    assert [(p.name, p.shape) for p in conv.get_parameters()] == [("weight", (4, 3, 3, 3))]
    assert conv.has_bias is False and conv.pad_mode == "same"
    bound = 1 / math.sqrt(3 * 3 * 3)                   # HeUniform(sqrt(5)): 1 / sqrt(fan_in)
    assert np.abs(conv.weight.asnumpy()).max() <= bound
    out = conv(Tensor(np.ones([1, 3, 5, 5]).astype(np.float32)))
    # the page's output has this structure: 'same' padding of a constant input gives equal values
    # wherever the 3x3 window lies inside the image (rows and columns 1..3)
    assert out.shape == (1, 4, 5, 5) and out.dtype == ms.float32
    inner = out.asnumpy()[:, :, 1:4, 1:4]
    np.testing.assert_allclose(inner, np.broadcast_to(inner[:, :, :1, :1], inner.shape), rtol=1e-6)
    w = conv.weight.asnumpy()
    np.testing.assert_allclose(inner[0, :, 0, 0], w.sum(axis=(1, 2, 3)), rtol=1e-5)
    biased = nn.Conv2d(3, 4, 3, has_bias=True)
    assert [p.name for p in biased.get_parameters()] == ["weight", "bias"]
    assert np.abs(biased.bias.asnumpy()).max() <= bound


def test_conv2d_stride2_example_shape():
    # seed 003: Conv2d(in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=0) on 6x6: 3x3
    conv_obj = nn.Conv2d(in_channels=3, out_channels=4, kernel_size=3, stride=2, padding=0)
    conv_obj.init_parameters_data()
    assert conv_obj(Tensor(np.random.randn(2, 3, 6, 6).astype(np.float32))).shape == (2, 4, 3, 3)


def test_conv2d_errors():
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="pad"):
        nn.Conv2d(3, 4, 3, pad_mode="same", padding=1)
    with pytest.raises(ValueError, match=r"weight_init must have shape \[4, 3, 3, 3\]"):
        nn.Conv2d(3, 4, 3, weight_init=Tensor(np.zeros((4, 3, 2, 2), np.float32)))
    conv = nn.Conv2d(3, 4, 3)
    with pytest.raises(ValueError, match=r"Conv2d: Conv2d\(in_channels=3, \.\.\.\) got an input with 2 channels"):
        conv(Tensor(np.ones((1, 2, 5, 5), np.float32)))
    with pytest.raises(ValueError, match="4-D"):
        conv(Tensor(np.ones((2, 5, 5), np.float32)))


def test_conv2d_gradients():
    x = T64(rand(2, 2, 5, 5))
    conv = nn.Conv2d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True, group=2, dtype=F64)
    check_grads(conv, (x,), order=2)
    check_param_grads(conv, (x,))


# ================================================================================================
# pooling, activations, flatten, matmul
# ================================================================================================
def test_pooling_forward():
    x = rand(2, 3, 6, 7)
    np.testing.assert_allclose(nn.MaxPool2d(kernel_size=2, stride=2)(T64(x)).asnumpy(),
                               np_pool(x, 2, 2, np.max), rtol=1e-12)
    np.testing.assert_allclose(nn.AvgPool2d(kernel_size=3, stride=1)(T64(x)).asnumpy(),
                               np_pool(x, 3, 1, np.mean), rtol=1e-12)
    # defaults kernel_size=1, stride=1, 'valid': the identity
    np.testing.assert_allclose(nn.MaxPool2d()(T64(x)).asnumpy(), x)
    # 'same': output ceil(H / stride)
    assert nn.MaxPool2d(2, 2, pad_mode="same")(T64(x)).shape == (2, 3, 3, 4)
    # 'pad' with explicit padding: -inf padding for max, zero padding counted for the average
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    np.testing.assert_allclose(nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)(T64(x)).asnumpy(),
                               np_pool(xp, 3, 2, np.max), rtol=1e-12)
    xz = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    np.testing.assert_allclose(nn.AvgPool2d(3, 2, pad_mode="pad", padding=1)(T64(x)).asnumpy(),
                               np_pool(xz, 3, 2, np.mean), rtol=1e-12)
    with pytest.raises(ValueError, match="padding must be 0"):
        nn.MaxPool2d(2, 2, padding=1)


def test_pooling_gradients():
    x = T64(rand(2, 2, 6, 6))
    check_grads(nn.MaxPool2d(2, 2), (x,), order=2)
    check_grads(nn.AvgPool2d(3, 2, pad_mode="same"), (x,), order=2)


@pytest.mark.parametrize("cell, ref", [
    (nn.ReLU(), lambda v: np.maximum(v, 0)),
    (nn.ReLU6(), lambda v: np.clip(v, 0, 6)),
    (nn.Sigmoid(), lambda v: 1 / (1 + np.exp(-v))),
    (nn.Tanh(), np.tanh),
    (nn.Softmax(), lambda v: np.exp(v) / np.exp(v).sum(-1, keepdims=True)),
    (nn.Softmax(axis=0), lambda v: np.exp(v) / np.exp(v).sum(0, keepdims=True)),
    (nn.LogSoftmax(), lambda v: v - np.log(np.exp(v).sum(-1, keepdims=True))),
])
def test_activations(cell, ref):
    x = rand(3, 4) * 4
    np.testing.assert_allclose(cell(T64(x)).asnumpy(), ref(x), rtol=1e-12, atol=1e-15)
    if not isinstance(cell, nn.ReLU6):       # ReLU6's gradient has no rule of its own (seed 000)
        check_grads(cell, (T64(x),), order=2)
    else:
        check_grads(cell, (T64(x),), order=1)
    assert cell.trainable_params() == []


def test_flatten():
    x = rand(2, 3, 4, 5)
    assert nn.Flatten()(T64(x)).shape == (2, 60)
    assert nn.Flatten(start_dim=0, end_dim=1)(T64(x)).shape == (6, 4, 5)
    np.testing.assert_array_equal(nn.Flatten()(T64(x)).asnumpy(), x.reshape(2, -1))


def test_matmul_cell():
    a, b = rand(2, 3), rand(3, 4, seed=1)
    np.testing.assert_allclose(nn.MatMul()(T64(a), T64(b)).asnumpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(nn.MatMul(transpose_x1=True)(T64(a.T), T64(b)).asnumpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(nn.MatMul(transpose_x2=True)(T64(a), T64(b.T)).asnumpy(), a @ b, rtol=1e-12)
    batch = rand(5, 2, 3, seed=2)
    np.testing.assert_allclose(nn.MatMul()(T64(batch), T64(b)).asnumpy(), batch @ b, rtol=1e-12)
    out = nn.MatMul()(Tensor(np.ones([1], np.float32)), Tensor(np.ones([1], np.float32)))
    assert out.shape == () and out.dtype == ms.float32 and str(out) == "1.0"
    check_grads(nn.MatMul(transpose_x2=True), (T64(a), T64(b.T)), order=2)


# ================================================================================================
# BatchNorm2d
# ================================================================================================
def bn_ref(x, mean, var, gamma, beta, eps):
    s = (1, -1, 1, 1)
    return (x - mean.reshape(s)) / np.sqrt(var.reshape(s) + eps) * gamma.reshape(s) + beta.reshape(s)


def test_batchnorm2d_parameters():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(3)
            self.fc1 = nn.Dense(3, 2)

        def construct(self, x):
            return x

    net = Net()
    assert [p.name for p in net.get_parameters()] == [
        "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta", "fc1.weight", "fc1.bias"]
    assert [p.name for p in net.trainable_params()] == ["bn.gamma", "bn.beta", "fc1.weight", "fc1.bias"]
    assert [p.name for p in net.untrainable_params()] == ["bn.moving_mean", "bn.moving_variance"]
    bn = nn.BatchNorm2d(3, affine=False)
    assert bn.trainable_params() == []


def test_batchnorm2d_training_updates_moving_statistics():
    x = rand(4, 3, 2, 5) * 2 + 1
    bn = nn.BatchNorm2d(3, momentum=0.8, gamma_init=T64([1.0, 2.0, 0.5]), beta_init=T64([0.0, 1.0, -1.0]),
                        dtype=F64)
    assert bn.training is False and bn.phase == "predict"          # a Cell's default
    bn.set_train()
    assert bn.phase == "train"
    y = bn(T64(x)).asnumpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, bn_ref(x, mean, var, np.array([1, 2, .5]), np.array([0, 1, -1]), 1e-5),
                               rtol=1e-10)
    # moving = momentum * moving + (1 - momentum) * batch, with the unbiased batch variance
    m = x.shape[0] * x.shape[2] * x.shape[3]
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.8 + 0.2 * var * m / (m - 1), rtol=1e-12)
    bn(T64(x))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.8 * 0.2 * mean + 0.2 * mean, rtol=1e-12)
    # predict mode: the moving statistics normalise, nothing is updated
    bn.set_train(False)
    moving_mean, moving_var = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    y = bn(T64(x)).asnumpy()
    np.testing.assert_allclose(y, bn_ref(x, moving_mean, moving_var, np.array([1, 2, .5]),
                                         np.array([0, 1, -1]), 1e-5), rtol=1e-10)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), moving_mean)


def test_batchnorm2d_use_batch_statistics():
    x = rand(4, 2, 3, 3)
    always = nn.BatchNorm2d(2, use_batch_statistics=True, dtype=F64)          # predict mode, batch stats
    y = always(T64(x)).asnumpy()
    np.testing.assert_allclose(y, bn_ref(x, x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3)), np.ones(2),
                                         np.zeros(2), 1e-5), rtol=1e-10)
    assert np.abs(always.moving_mean.asnumpy()).max() > 0
    never = nn.BatchNorm2d(2, use_batch_statistics=False, dtype=F64).set_train()
    np.testing.assert_allclose(never(T64(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-12)
    np.testing.assert_array_equal(never.moving_mean.asnumpy(), [0, 0])


def test_batchnorm_errors_and_1d():
    bn = nn.BatchNorm2d(3)
    with pytest.raises(ValueError, match=r"BatchNorm2d expects a 4-D input"):
        bn(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="got an input with 2 channels"):
        bn(Tensor(np.ones((2, 2, 3, 3), np.float32)))
    x = rand(6, 4)
    bn1 = nn.BatchNorm1d(4, dtype=F64).set_train()
    np.testing.assert_allclose(bn1(T64(x)).asnumpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10)


@pytest.mark.parametrize("training", [True, False])
def test_batchnorm2d_gradients(training):
    x = T64(rand(3, 2, 3, 3))
    bn = nn.BatchNorm2d(2, gamma_init=T64([1.5, 0.5]), beta_init=T64([0.1, -0.2]),
                        moving_mean_init=T64([0.3, -0.1]), moving_var_init=T64([2.0, 0.5]),
                        dtype=F64).set_train(training)
    check_grads(bn, (x,), order=2)
    check_param_grads(bn, (x,))


# ================================================================================================
# Dropout
# ================================================================================================
def test_dropout_identity_in_predict_mode():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    for cell in (nn.Dropout(p=0.5), nn.Dropout(keep_prob=0.2), nn.Dropout2d(p=0.9)):
        assert cell.phase == "predict"
        assert cell(x) is x or np.array_equal(cell(x).asnumpy(), x.asnumpy())


def test_dropout_in_training():
    x = np.ones((200, 100), np.float32) * 3
    drop = nn.Dropout(p=0.3).set_train()
    ms.set_seed(4)
    y = drop(Tensor(x)).asnumpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 3 / 0.7, rtol=1e-6)             # survivors scaled by 1/(1-p)
    assert abs(1 - kept.mean() - 0.3) < 0.01
    ms.set_seed(4)
    np.testing.assert_array_equal(drop(Tensor(x)).asnumpy(), y)         # reproducible under set_seed
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Dropout(p=0.0).set_train()(Tensor(x)).asnumpy().min() == 3


def test_dropout2d_drops_whole_channels():
    x = np.ones((8, 50, 3, 3), np.float32)
    ms.set_seed(1)
    y = nn.Dropout2d(p=0.4).set_train()(Tensor(x)).asnumpy()
    per_channel = y.reshape(8, 50, 9)
    assert ((per_channel == 0).all(axis=2) | (per_channel == np.float32(1 / 0.6)).all(axis=2)).all()
    assert abs((per_channel[:, :, 0] == 0).mean() - 0.4) < 0.1


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match="keep_prob"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(TypeError, match="keep_prob"):
        nn.Dropout(keep_prob=1)


def test_dropout_gradients():
    x = T64(rand(4, 6))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 5, dtype=F64)
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            return self.drop(self.fc(x))

    net = Net().set_train()

    def f(v):
        ms.set_seed(11)           # the same mask at every evaluation
        return net(v)

    check_grads(f, (x,), order=2)
    check_param_grads(net, (x,), reseed=11)
    out = f(x).asnumpy()
    assert (out == 0).any()


# ================================================================================================
# containers and parameter names
# ================================================================================================
def test_sequential_cell():
    seq = nn.SequentialCell([nn.Dense(3, 4, dtype=F64), nn.ReLU(), nn.Dense(4, 2, dtype=F64)])
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and isinstance(seq[-1], nn.Dense)
    assert [p.name for p in seq.get_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    x = rand(5, 3)
    w0, b0, w2, b2 = (p.asnumpy() for p in seq.get_parameters())
    np.testing.assert_allclose(seq(T64(x)).asnumpy(), np.maximum(x @ w0.T + b0, 0) @ w2.T + b2, rtol=1e-12)
    seq.append(nn.Tanh())
    assert len(seq) == 4 and isinstance(seq[3], nn.Tanh)
    assert isinstance(seq[1:], nn.SequentialCell) and len(seq[1:]) == 3
    check_param_grads(seq, (T64(x),))
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(3, 4)), ("act", nn.ReLU())]))
    assert [p.name for p in named.get_parameters()] == ["fc.weight", "fc.bias"]
    assert named.fc is named[0]
    unpacked = nn.SequentialCell(nn.ReLU(), nn.Tanh())
    assert len(unpacked) == 2
    del unpacked[0]
    assert len(unpacked) == 1 and isinstance(unpacked[0], nn.Tanh)
    with pytest.raises(TypeError, match="Cell"):
        nn.SequentialCell([nn.ReLU(), 3])
    with pytest.raises(IndexError):
        seq[9]


def test_cell_list():
    cells = nn.CellList([nn.Dense(3, 4), nn.Dense(4, 2)])
    assert [p.name for p in cells.get_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    cells.append(nn.ReLU())
    cells.extend([nn.Tanh()])
    cells.insert(0, nn.Sigmoid())
    assert [type(c).__name__ for c in cells] == ["Sigmoid", "Dense", "Dense", "ReLU", "Tanh"]
    assert len(cells) == 5 and isinstance(cells[-1], nn.Tanh)
    cells[0] = nn.ReLU6()
    assert isinstance(cells[0], nn.ReLU6)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(3, 3, dtype=F64), nn.Dense(3, 1, dtype=F64)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Net()
    assert [p.name for p in net.trainable_params()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    check_param_grads(net, (T64(rand(2, 3)),))


class LeNetLike(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3, pad_mode="valid", dtype=F64)
        self.bn = nn.BatchNorm2d(2, dtype=F64)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(2 * 2 * 2, 3, dtype=F64)

    def construct(self, x):
        return self.fc1(self.flatten(self.pool(self.relu(self.bn(self.conv1(x))))))


def test_network_parameter_names_and_gradients():
    net = LeNetLike()
    assert [p.name for p in net.trainable_params()] == [
        "conv1.weight", "bn.gamma", "bn.beta", "fc1.weight", "fc1.bias"]
    x = T64(rand(3, 1, 6, 6))
    for mode in (True, False):
        net.set_train(mode)
        assert all(c.training is mode for _, c in net.cells_and_names())
        assert net.phase == ("train" if mode else "predict")
        check_param_grads(net, (x,))
        check_grads(net, (x,), order=1)


# ================================================================================================
# losses
# ================================================================================================
def softmax_ce_ref(logits, onehot):
    z = logits - logits.max(axis=1, keepdims=True)
    return -(onehot * (z - np.log(np.exp(z).sum(axis=1, keepdims=True)))).sum(axis=1)


def test_softmax_cross_entropy():
    logits = rand(5, 4) * 3
    labels = np.array([0, 3, 1, 1, 2])
    onehot = np.eye(4)[labels]
    per_sample = softmax_ce_ref(logits, onehot)
    dense = nn.SoftmaxCrossEntropyWithLogits()
    assert dense.reduction == "none"
    np.testing.assert_allclose(dense(T64(logits), T64(onehot)).asnumpy(), per_sample, rtol=1e-12)
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    lab = Tensor(labels.astype(np.int32))
    np.testing.assert_allclose(sparse(T64(logits), lab).asnumpy(), per_sample.mean(), rtol=1e-12)
    total = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    np.testing.assert_allclose(total(T64(logits), lab).asnumpy(), per_sample.sum(), rtol=1e-12)
    check_grads(lambda z: sparse(z, lab), (T64(logits),), order=2)
    # uniform logits: the loss of 10 classes is ln(10)
    ten = sparse(Tensor(np.zeros((3, 10), np.float32)), Tensor(np.array([1, 2, 3], np.int32)))
    assert float(ten.asnumpy()) == pytest.approx(math.log(10), rel=1e-6)
    with pytest.raises(ValueError, match="out of range"):
        sparse(T64(logits), Tensor(np.array([0, 1, 2, 3, 4], np.int32)))
    with pytest.raises(TypeError, match="class indices"):
        sparse(T64(logits), T64(labels))
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="avg")


def test_mse_and_l1_losses():
    a, b = rand(3, 4), rand(3, 4, seed=1)
    np.testing.assert_allclose(nn.MSELoss()(T64(a), T64(b)).asnumpy(), ((a - b) ** 2).mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.MSELoss("sum")(T64(a), T64(b)).asnumpy(), ((a - b) ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(nn.L1Loss()(T64(a), T64(b)).asnumpy(), np.abs(a - b).mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.L1Loss("none")(T64(a), T64(b)).asnumpy(), np.abs(a - b), rtol=1e-12)
    check_grads(nn.MSELoss(), (T64(a), T64(b)), order=2)

    class Weighted(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss(ops.abs(logits - labels), weights=2.0)

    np.testing.assert_allclose(Weighted()(T64(a), T64(b)).asnumpy(), 2 * np.abs(a - b).mean(), rtol=1e-12)


def test_with_loss_cell_keeps_the_backbone_names():
    net = nn.SequentialCell([nn.Dense(3, 2)])
    with_loss = nn.WithLossCell(net, nn.MSELoss())
    assert [p.name for p in with_loss.trainable_params()] == ["0.weight", "0.bias"]
    assert with_loss.backbone_network is net


# ================================================================================================
# set_train / phase (seed 004) and the custom layer of seed 002
# ================================================================================================
def test_set_train_and_phase():
    net = LeNetLike()
    assert net.phase == "predict"
    net.set_train()
    assert net.phase == "train" and net.bn.phase == "train"
    net.set_train(False)
    assert net.phase == "predict" and net.bn.training is False


def test_threshold_example_prints_as_the_page():
    m = Threshold(0.1, 20)
    inputs = ms.Tensor([0.1, 0.2, 0.3], ms.float32)
    assert repr(m(inputs)) == \
        "Tensor(shape=[3], dtype=Float32, value= [ 2.00000000e+01,  2.00000003e-01,  3.00000012e-01])"


# ================================================================================================
# hooks: seed 003's examples
# ================================================================================================
def test_backward_hook_on_batchnorm_prints_as_the_page(capsys):
    context.set_context(mode=context.PYNATIVE_MODE)

    def backward_hook_function(cell_id, grad_input, grad_output):
        print(grad_input)
        print(grad_output)

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones", pad_mode="valid")
            self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
            self.handle = self.bn.register_backward_hook(backward_hook_function)
            self.relu = nn.ReLU()

        def construct(self, x):
            x = self.conv(x)
            x = self.bn(x)
            x = self.relu(x)
            return x

    net = Net()
    grad_all = GradOperation(get_all=True)
    output = grad_all(net)(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print(output)
    net.handle.remove()
    output = grad_all(net)(Tensor(np.ones([1, 1, 2, 2]).astype(np.float32)))
    print(output)
    page = """\
(Tensor(shape=[1, 2, 1, 1], dtype=Float32, value=
[[[[ 1.00000000e+00]],
  [[ 1.00000000e+00]]]]),)
(Tensor(shape=[1, 2, 1, 1], dtype=Float32, value=
[[[[ 9.99994993e-01]],
  [[ 9.99994993e-01]]]]),)
(Tensor(shape=[1, 1, 2, 2], dtype=Float32, value=
[[[[ 1.99998999e+00, 1.99998999e+00],
   [ 1.99998999e+00, 1.99998999e+00]]]]),)
(Tensor(shape=[1, 1, 2, 2], dtype=Float32, value=
[[[[ 1.99998999e+00, 1.99998999e+00],
   [ 1.99998999e+00, 1.99998999e+00]]]]),)
"""
    out = capsys.readouterr().out
    assert collapse(out) == collapse(page)
    # the output lines start with the same indentation as the page's (only inner runs collapse)
    assert out.splitlines()[2] == "  [[ 1.00000000e+00]]]]),)"


PAGE_INPUTS_2_1 = ("(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
                   "Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00]))")


def ones1():
    return Tensor(np.ones([1]).astype(np.float32))


def test_forward_pre_hook_example_prints_as_the_page(capsys):
    def forward_pre_hook_fn(cell_id, inputs):
        print("forward inputs: ", inputs)
        input_x = inputs[0] + inputs[1]
        return input_x, inputs[1]

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.mul = nn.MatMul()
            self.handle = self.mul.register_forward_pre_hook(forward_pre_hook_fn)

        def construct(self, x, y):
            x = x + x
            x = self.mul(x, y)
            return x

    grad = GradOperation(get_all=True)
    net = Net()
    output = net(ones1(), ones1())
    print(output)
    gradient = grad(net)(ones1(), ones1())
    print(gradient)
    net.handle.remove()
    gradient = grad(net)(ones1(), ones1())
    print(gradient)
    page = (
        f"forward inputs: {PAGE_INPUTS_2_1}\n"
        "3.0\n"
        f"forward inputs: {PAGE_INPUTS_2_1}\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 4.00000000e+00]))\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]))\n")
    assert collapse(capsys.readouterr().out) == page


def test_forward_pre_hook_returning_new_tensors_cuts_the_gradient(capsys):
    def forward_pre_hook_fn(cell_id, inputs):
        print("forward inputs: ", inputs)
        return Tensor(np.ones([1]).astype(np.float32)), Tensor(np.ones([1]).astype(np.float32))

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.mul = nn.MatMul()
            self.handle = self.mul.register_forward_pre_hook(forward_pre_hook_fn)

        def construct(self, x, y):
            x = x + x
            x = self.mul(x, y)
            return x

    gradient = GradOperation(get_all=True)(Net())(ones1(), ones1())
    print(gradient)
    page = (f"forward inputs: {PAGE_INPUTS_2_1}\n"
            "(Tensor(shape=[1], dtype=Float32, value= [ 0.00000000e+00]), "
            "Tensor(shape=[1], dtype=Float32, value= [ 0.00000000e+00]))\n")
    assert collapse(capsys.readouterr().out) == page


def test_forward_hook_example_prints_as_the_page(capsys):
    def forward_hook_fn(cell_id, inputs, outputs):
        print("forward inputs: ", inputs)
        print("forward outputs: ", outputs)
        outputs = outputs + outputs
        return outputs

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.mul = nn.MatMul()
            self.handle = self.mul.register_forward_hook(forward_hook_fn)

        def construct(self, x, y):
            x = x + x
            x = self.mul(x, y)
            return x

    grad = GradOperation(get_all=True)
    net = Net()
    gradient = grad(net)(ones1(), ones1())
    print(gradient)
    net.handle.remove()
    gradient = grad(net)(ones1(), ones1())
    print(gradient)
    page = (
        f"forward inputs: {PAGE_INPUTS_2_1}\n"
        "forward outputs: 2.0\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 4.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 4.00000000e+00]))\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]))\n")
    assert collapse(capsys.readouterr().out) == page


def test_three_hooks_on_one_cell_print_as_the_page(capsys):
    def forward_pre_hook_fn(cell_id, inputs):
        print("forward inputs: ", inputs)
        input_x = inputs[0] + inputs[1]
        input_y = inputs[0] + inputs[1]
        return input_x, input_y

    def forward_hook_fn(cell_id, inputs, outputs):
        print("forward inputs: ", inputs)
        print("forward outputs: ", outputs)
        outputs = outputs + outputs
        return outputs

    def backward_hook_fn(cell_id, grad_input, grad_output):
        print("grad input: ", grad_input)
        print("grad output: ", grad_output)

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.mul = nn.MatMul()
            self.handle = self.mul.register_forward_pre_hook(forward_pre_hook_fn)
            self.handle2 = self.mul.register_forward_hook(forward_hook_fn)
            self.handle3 = self.mul.register_backward_hook(backward_hook_fn)

        def construct(self, x, y):
            x = x + x
            x = self.mul(x, y)
            return x

    net = Net()
    grad = GradOperation(get_all=True)
    gradient = grad(net)(ones1(), ones1())
    print(gradient)
    page = (
        f"forward inputs: {PAGE_INPUTS_2_1}\n"
        "forward inputs: (Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00]))\n"
        "forward outputs: 9.0\n"
        "grad input: (Tensor(shape=[], dtype=Float32, value= 2),)\n"
        "grad output: (Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00]))\n"
        "(Tensor(shape=[1], dtype=Float32, value= [ 2.40000000e+01]), "
        "Tensor(shape=[1], dtype=Float32, value= [ 1.20000000e+01]))\n")
    out = capsys.readouterr().out
    assert collapse(out) == page
    # what Python prints: print's separator after "forward inputs: " gives two spaces
    assert out.startswith("forward inputs:  (Tensor(")


# ================================================================================================
# hooks: behaviour beyond the page
# ================================================================================================
class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.SequentialCell([nn.Dense(2, 2, weight_init="ones", bias_init="zeros"), nn.ReLU()])
        self.fc = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(self.inner(x))


def test_hooks_on_nested_cells_run_in_call_order():
    net = Outer()
    calls = []
    net.inner[0].register_forward_hook(lambda cid, i, o: calls.append(("fwd", cid)))
    net.inner.register_forward_pre_hook(lambda cid, i: calls.append(("pre", cid)))
    net.fc.register_backward_hook(lambda cid, gi, go: calls.append(("bwd", cid)))
    net.inner[0].register_backward_hook(lambda cid, gi, go: calls.append(("bwd", cid)))
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    grads = GradOperation()(net)(x)
    np.testing.assert_allclose(grads.asnumpy(), [[2.0, 2.0]])          # hooks change nothing
    assert calls == [("pre", "SequentialCell(Outer.inner)"), ("fwd", "Dense(Outer.inner.0)"),
                     ("bwd", "Dense(Outer.fc)"), ("bwd", "Dense(Outer.inner.0)")]


def test_several_hooks_run_in_registration_order_and_remove_twice():
    cell = nn.ReLU()
    order = []
    h1 = cell.register_forward_hook(lambda cid, i, o: order.append(1))
    h2 = cell.register_forward_hook(lambda cid, i, o: order.append(2))
    cell.register_forward_hook(lambda cid, i, o: order.append(3))
    cell(Tensor(np.ones(2, np.float32)))
    assert order == [1, 2, 3]
    h2.remove()
    h2.remove()                       # removing twice is harmless
    order.clear()
    cell(Tensor(np.ones(2, np.float32)))
    assert order == [1, 3]
    h1.remove()
    order.clear()
    cell(Tensor(np.ones(2, np.float32)))
    assert order == [3]


def test_backward_hook_replacing_the_gradient():
    cell = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    cell.register_backward_hook(lambda cid, gi, go: tuple(g * 10 for g in go))
    grads = GradOperation()(cell)(Tensor(np.array([[1.0, 2.0]], np.float32)))
    np.testing.assert_allclose(grads.asnumpy(), [[10.0, 10.0]])


def test_hooks_and_custom_bprop_on_the_same_cell():
    seen = []

    class Net(nn.Cell):                                   # seed 003's custom bprop example
        def construct(self, x, y):
            z = x * y
            z = z * y
            return z

        def bprop(self, x, y, out, dout):
            return x + y, x * y

    net = Net()
    net.register_forward_pre_hook(lambda cid, inputs: seen.append(("pre", float(inputs[0]))))
    net.register_forward_hook(lambda cid, inputs, out: seen.append(("fwd", float(out))))
    net.register_backward_hook(lambda cid, gi, go: seen.append(("bwd", [float(g) for g in gi],
                                                                [float(g) for g in go])))
    output = GradOperation(get_all=True)(net)(Tensor(1, ms.float32), Tensor(2, ms.float32))
    assert str(output) == "(Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Float32, value= 2))"
    assert seen == [("pre", 1.0), ("fwd", 4.0), ("bwd", [1.0], [3.0, 2.0])]


def test_hook_registered_inside_construct_adds_one_per_call():
    count = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            self.relu.register_forward_hook(lambda cid, i, o: count.append(1))
            return self.relu(x)

    net = Net()
    for _ in range(3):
        net(Tensor(np.ones(2, np.float32)))
    assert len(count) == 1 + 2 + 3
    assert len(net.relu._forward_hooks) == 3


def test_non_callable_hook_is_a_type_error():
    cell = nn.Dense(2, 2)
    for register in (cell.register_forward_pre_hook, cell.register_forward_hook, cell.register_backward_hook):
        with pytest.raises(TypeError, match="must be callable"):
            register("not a function")


# ================================================================================================
# Graph mode
# ================================================================================================
@pytest.fixture
def pynative_after():
    yield
    context.set_context(mode=context.PYNATIVE_MODE)


def test_sparse_loss_in_graph_mode_uses_each_calls_labels(pynative_after):
    logits = Tensor(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], np.float32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="none")
    label_sets = ([2, 0], [0, 1])
    expected = [softmax_ce_ref(logits.asnumpy().astype(np.float64), np.eye(3)[lab]) for lab in label_sets]
    context.set_context(mode=context.GRAPH_MODE)
    for lab, exp in zip(label_sets, expected):
        np.testing.assert_allclose(loss(logits, Tensor(np.array(lab, np.int32))).asnumpy(), exp, rtol=1e-6)
    grads = [GradOperation()(loss)(logits, Tensor(np.array(lab, np.int32))).asnumpy() for lab in label_sets]
    context.set_context(mode=context.PYNATIVE_MODE)
    for lab, g in zip(label_sets, grads):
        np.testing.assert_allclose(g, GradOperation()(loss)(logits, Tensor(np.array(lab, np.int32))).asnumpy(),
                                   rtol=1e-6)


def test_network_forward_and_gradients_agree_in_graph_mode(pynative_after):
    net = LeNetLike().set_train()
    x = T64(rand(3, 1, 6, 6))
    weights = net.trainable_params()
    eager = GradOperation(get_by_list=True)(net, weights)(x)
    eager_out = net(x).asnumpy()
    context.set_context(mode=context.GRAPH_MODE)
    compiled = GradOperation(get_by_list=True)(net, weights)(x)
    np.testing.assert_allclose(net(x).asnumpy(), eager_out, rtol=1e-12)
    for a, b in zip(compiled, eager):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-10, atol=1e-14)


# Regression: the class indices must come from each call's labels in a compiled graph (they were once
# read while compiling, where a placeholder holds zeros, so every sample counted as class 0).
def test_sparse_softmax_cross_entropy_primitive_gradient_in_graph_mode(pynative_after):
    from minims.primitives.nn import SparseSoftmaxCrossEntropyWithLogits

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.loss = SparseSoftmaxCrossEntropyWithLogits()

        def construct(self, logits, labels):
            return self.loss(logits, labels)

    logits = Tensor(np.zeros((2, 3), np.float32))
    labels = Tensor(np.array([2, 1], np.int32))
    context.set_context(mode=context.GRAPH_MODE)
    g = GradOperation()(Net())(logits, labels).asnumpy()
    # (softmax - onehot) / N with softmax = 1/3
    np.testing.assert_allclose(g, (np.full((2, 3), 1 / 3) - np.eye(3)[[2, 1]]) / 2, rtol=1e-6)


def test_ops_cross_entropy_in_graph_mode(pynative_after):
    from minims.primitives import nn_functional as NF

    class Net(nn.Cell):
        def construct(self, logits, labels):
            return NF.cross_entropy(logits, labels)

    logits = Tensor(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], np.float32))
    labels = Tensor(np.array([2, 0], np.int32))
    expected = softmax_ce_ref(logits.asnumpy().astype(np.float64), np.eye(3)[[2, 0]]).mean()
    context.set_context(mode=context.GRAPH_MODE)
    np.testing.assert_allclose(Net()(logits, labels).asnumpy(), expected, rtol=1e-6)
