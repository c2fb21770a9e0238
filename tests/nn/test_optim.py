"""Optimizers: SGD, Momentum and Adam against their update formulas written out in NumPy, weight
decay, loss scale, parameter groups, and the errors for gradients that do not fit.

Reference values: the NumPy formulas below (MindSpore's documented rules), and, for the three-step
runs, the numbers printed by MindSpore 2.10 (CPU) for the same parameters and gradients.
"""
import math

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor

W0 = np.array([1.0, -2.0, 3.0], np.float32)
GRADS = [np.array([0.5, 0.1, -0.3], np.float32), np.array([0.2, -0.4, 0.6], np.float32),
         np.array([-0.1, 0.3, 0.2], np.float32)]


def run(make, steps=3):
    w = Parameter(Tensor(W0), name="w")
    opt = make([w])
    for g in GRADS[:steps]:
        assert opt((Tensor(g),)) is True
    return w.asnumpy()


def sgd_ref(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, loss_scale=1.0):
    w, accum = W0.astype(np.float64), None
    for g in GRADS:
        g = (g + weight_decay * loss_scale * w) / loss_scale
        if momentum > 0:
            accum = g if accum is None else momentum * accum + (1 - dampening) * g
            g = g + momentum * accum if nesterov else accum
        w = w - lr * g
    return w


def momentum_ref(lr, momentum, weight_decay=0.0, loss_scale=1.0, nesterov=False):
    w, accum = W0.astype(np.float64), np.zeros(3)
    for g in GRADS:
        g = (g + weight_decay * loss_scale * w) / loss_scale
        accum = momentum * accum + g
        w = w - lr * (g + momentum * accum if nesterov else accum)
    return w


def adam_ref(lr, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0, nesterov=False, loss_scale=1.0):
    w, m, v = W0.astype(np.float64), np.zeros(3), np.zeros(3)
    for t, g in enumerate(GRADS, start=1):
        g = (g + weight_decay * loss_scale * w) / loss_scale
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * ((b1 * m + (1 - b1) * g) if nesterov else m) / (np.sqrt(v) + eps)
    return w


# (optimizer, NumPy formula, MindSpore 2.10's result after the three steps).  Weight decays are
# chosen so that no decayed gradient is exactly 0: there Adam's m / (sqrt(v) + eps) depends on
# float32 rounding at the 1e-8 level, and MindSpore and NumPy round differently.
CASES = {
    "sgd": (lambda p: nn.SGD(p, 0.1), sgd_ref(0.1), [0.94, -2.0, 2.95]),
    "sgd_momentum_dampening": (lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.5),
                               sgd_ref(0.1, 0.9, 0.5), [0.8505, -2.0041, 3.0143]),
    "sgd_nesterov_decay": (lambda p: nn.SGD(p, 0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
                           sgd_ref(0.1, 0.9, weight_decay=0.01, nesterov=True), [0.78540164, -1.96696115, 2.87837243]),
    "sgd_momentum_loss_scale_decay": (lambda p: nn.SGD(p, 0.1, momentum=0.9, loss_scale=4.0, weight_decay=0.03),
                                      sgd_ref(0.1, 0.9, weight_decay=0.03, loss_scale=4.0),
                                      [0.94249552, -1.96170282, 2.93642402]),
    "momentum_decay": (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01),
                       momentum_ref(0.1, 0.9, weight_decay=0.01), [0.83110476, -1.96989143, 2.93043041]),
    "momentum_loss_scale_decay": (lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=2.0, weight_decay=0.01),
                                  momentum_ref(0.1, 0.9, weight_decay=0.01, loss_scale=2.0),
                                  [0.91274977, -1.97934067, 2.95680737]),
    "adam": (lambda p: nn.Adam(p, 0.01), adam_ref(0.01), [0.97535264, -2.00466824, 3.00180101]),
    "adam_nesterov_decay": (lambda p: nn.Adam(p, 0.01, use_nesterov=True, weight_decay=0.03),
                            adam_ref(0.01, weight_decay=0.03, nesterov=True), [0.96503973, -2.00680733, 2.99935865]),
    "adam_loss_scale_decay": (lambda p: nn.Adam(p, 0.01, loss_scale=4.0, weight_decay=0.03),
                              adam_ref(0.01, weight_decay=0.03, loss_scale=4.0),
                              [0.97324061, -1.97520602, 2.97370243]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_three_steps_match_the_formula_and_mindspore(case):
    make, formula, mindspore_result = CASES[case]
    got = run(make)
    np.testing.assert_allclose(got, formula, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, mindspore_result, rtol=1e-5, atol=1e-5)


def test_momentum_nesterov_follows_the_documented_formula():
    # p -= lr * (g + momentum * accum).  (MindSpore 2.10's CPU kernel ignores use_nesterov and gives
    # the plain momentum result; minims follows the documented formula.)
    got = run(lambda p: nn.Momentum(p, 0.1, 0.9, use_nesterov=True, loss_scale=2.0))
    np.testing.assert_allclose(got, momentum_ref(0.1, 0.9, loss_scale=2.0, nesterov=True), rtol=1e-5)
    w = Parameter(Tensor(np.array([1.0], np.float32)), name="w")
    nn.Momentum([w], 0.1, 0.9, use_nesterov=True)((Tensor(np.array([0.5], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [1 - 0.1 * (0.5 + 0.9 * 0.5)], rtol=1e-6)


def test_momentum_first_steps_by_hand():
    # accum = 0.9 * accum + g; w -= 0.1 * accum
    w = Parameter(Tensor(np.array([1.0], np.float32)), name="w")
    opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
    opt((Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.9], rtol=1e-6)          # accum 1
    opt((Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.71], rtol=1e-6)         # accum 1.9
    np.testing.assert_allclose(opt.moments[0].asnumpy(), [1.9], rtol=1e-6)
    assert opt.moments[0].name == "moments.w" and not opt.moments[0].requires_grad


def test_sgd_without_momentum_is_plain_gradient_descent():
    got = run(lambda p: nn.SGD(p, learning_rate=0.5), steps=2)
    np.testing.assert_allclose(got, W0 - 0.5 * (GRADS[0] + GRADS[1]), rtol=1e-6)


def test_sgd_argument_checks():
    w = Parameter(Tensor(W0), name="w")
    with pytest.raises(ValueError, match="nesterov"):
        nn.SGD([w], momentum=0.0, nesterov=True)
    with pytest.raises(ValueError, match="momentum"):
        nn.SGD([w], momentum=-0.1)


def test_weight_decay_skips_beta_and_gamma_by_default():
    w = Parameter(Tensor(np.array([1.0], np.float32)), name="fc.weight")
    gamma = Parameter(Tensor(np.array([1.0], np.float32)), name="bn.gamma")
    beta = Parameter(Tensor(np.array([1.0], np.float32)), name="bn.beta")
    opt = nn.SGD([w, gamma, beta], learning_rate=0.1, weight_decay=0.5)
    zero = Tensor(np.zeros(1, np.float32))
    opt((zero, zero, zero))
    np.testing.assert_allclose(w.asnumpy(), [1 - 0.1 * 0.5 * 1.0])     # g = 0 + 0.5 * w
    np.testing.assert_allclose(gamma.asnumpy(), [1.0])
    np.testing.assert_allclose(beta.asnumpy(), [1.0])


def test_group_params_weight_decay_and_lr_and_order():
    a = Parameter(Tensor(np.array([1.0], np.float32)), name="a")
    b = Parameter(Tensor(np.array([2.0], np.float32)), name="b")
    c = Parameter(Tensor(np.array([3.0], np.float32)), name="c")
    groups = [{"params": [a], "weight_decay": 0.1},
              {"params": [b], "lr": 0.5},
              {"params": [c]},
              {"order_params": [c, a, b]}]
    opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.0, weight_decay=0.0)
    assert [p.name for p in opt.parameters] == ["c", "a", "b"]          # order_params decides
    assert [float(lr.asnumpy()) for lr in opt.get_lr()] == pytest.approx([0.1, 0.1, 0.5])
    g = Tensor(np.array([1.0], np.float32))
    opt((g, g, g))
    np.testing.assert_allclose(c.asnumpy(), [3.0 - 0.1 * 1.0], rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), [1.0 - 0.1 * (1.0 + 0.1 * 1.0)], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [2.0 - 0.5 * 1.0], rtol=1e-6)


def test_group_weight_decay_on_a_network_mindspore_style():
    net = nn.SequentialCell([nn.Dense(3, 2), nn.ReLU()])
    decayed = [p for p in net.trainable_params() if "weight" in p.name]
    others = [p for p in net.trainable_params() if "weight" not in p.name]
    opt = nn.SGD([{"params": decayed, "weight_decay": 0.01}, {"params": others},
                  {"order_params": net.trainable_params()}], learning_rate=0.1)
    assert [p.name for p in opt.parameters] == ["0.weight", "0.bias"]
    w0 = net[0].weight.asnumpy()
    opt(tuple(ops.zeros_like(p) for p in opt.parameters))
    np.testing.assert_allclose(net[0].weight.asnumpy(), w0 * (1 - 0.1 * 0.01), rtol=1e-6)


def test_params_as_filter_and_generator():
    net = nn.Dense(2, 2)
    opt = nn.Momentum(filter(lambda x: x.requires_grad, net.get_parameters()), 0.1, 0.9)   # seed 003
    assert len(opt.parameters) == 2
    opt = nn.Adam(net.get_parameters())
    assert [p.name for p in opt.parameters] == ["weight", "bias"]
    with pytest.raises(ValueError, match="empty"):
        nn.SGD(iter([]))


def test_learning_rate_schedule_and_assign():
    w = Parameter(Tensor(np.array([0.0], np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=Tensor(np.array([0.1, 0.2], np.float32)))
    g = Tensor(np.array([1.0], np.float32))
    for _ in range(3):
        opt((g,))
    np.testing.assert_allclose(w.asnumpy(), [-(0.1 + 0.2 + 0.2)], rtol=1e-6)   # the last rate repeats
    w2 = Parameter(Tensor(np.array([0.0], np.float32)), name="w2")
    opt = nn.SGD([w2], learning_rate=0.1)
    ops.assign(opt.learning_rate, Tensor(np.array(0.5, np.float32)))
    opt((g,))
    np.testing.assert_allclose(w2.asnumpy(), [-0.5], rtol=1e-6)


def test_wrong_number_of_gradients_names_the_parameters():
    a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
    b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")
    opt = nn.Momentum([a, b], 0.1, 0.9)
    with pytest.raises(ValueError, match=r"got 1 gradients for 2 parameters \(\['a', 'b'\]\)"):
        opt((Tensor(np.zeros(2, np.float32)),))
    with pytest.raises(ValueError, match=r"parameter 'b' has shape \[2\].*shape \[3\]"):
        opt((Tensor(np.zeros(2, np.float32)), Tensor(np.zeros(2, np.float32))))
    with pytest.raises(TypeError, match="tuple of gradients"):
        opt(Tensor(np.zeros(2, np.float32)))
    np.testing.assert_array_equal(a.asnumpy(), [0, 0])           # nothing was updated


def test_duplicate_parameters_rejected():
    a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
    with pytest.raises(RuntimeError, match="more than once"):
        nn.SGD([{"params": [a]}, {"params": [a]}])


def test_train_one_step_cell_updates_and_returns_loss():
    ms.set_seed(0)
    net = nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    step = nn.TrainOneStepCell(loss_net, opt)
    x = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    y = Tensor(np.array([[4.0]], np.float32))
    loss = step(x, y)
    # out = 6, loss = (6 - 4)^2 = 4; dloss/dw = 2 * 2 * x, dloss/db = 4
    assert float(loss.asnumpy()) == pytest.approx(4.0)
    np.testing.assert_allclose(net.weight.asnumpy(), [[1 - 0.4, 1 - 0.8, 1 - 1.2]], rtol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), [-0.4], rtol=1e-6)


def test_train_one_step_cell_sens_scales_the_gradients():
    net = nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                               sens=0.5, return_grad=True)
    loss, grads = step(Tensor(np.array([[1.0, 2.0, 3.0]], np.float32)), Tensor(np.array([[4.0]], np.float32)))
    assert float(loss.asnumpy()) == pytest.approx(4.0)          # the loss itself, not loss * sens
    np.testing.assert_allclose(grads[0].asnumpy(), [[2.0, 4.0, 6.0]], rtol=1e-6)   # 0.5 * 4 * x
    np.testing.assert_allclose(grads[1].asnumpy(), [2.0], rtol=1e-6)


# ----- Graph mode: a compiled training step updates the same way -----------------------------------
@pytest.fixture
def pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("make", [
    lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.2),
    lambda p: nn.Momentum(p, nn.piecewise_constant_lr([1, 2], [0.1, 0.05]), 0.9, weight_decay=0.01),
    lambda p: nn.Adam(p, 0.05, use_nesterov=True, loss_scale=2.0),
], ids=["sgd", "momentum_schedule", "adam"])
def test_compiled_training_step_matches_pynative(make, pynative_after):
    x = Tensor(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32))
    y = Tensor(np.array([[4.0], [1.0]], np.float32))
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = nn.Dense(3, 1, weight_init="ones", bias_init="zeros")
        opt = make(net.trainable_params())
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        losses = [float(step(x, y).asnumpy()) for _ in range(4)]
        results[mode] = losses, net.weight.asnumpy(), net.bias.asnumpy(), int(opt.global_step.asnumpy()[0])
    (l1, w1, b1, s1), (l2, w2, b2, s2) = results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]
    np.testing.assert_allclose(l2, l1, rtol=1e-6)
    np.testing.assert_allclose(w2, w1, rtol=1e-6)
    np.testing.assert_allclose(b2, b1, rtol=1e-6)
    assert s1 == s2 == 4
    assert l1[-1] < l1[0]
