"""Issue 26 item 4: mixed precision — ``Cell.to_float``, ``amp.auto_mixed_precision`` (O0-O3), the loss
scalers, ``amp.all_finite``, ``nn.DynamicLossScaleUpdateCell`` and ``nn.TrainOneStepWithLossScaleCell``
(``minims/nn/precision.py``, ``minims/primitives/precision.py``, ``minims/amp/``,
``minims/nn/loss_scale.py``).  Expected values and dtypes: MindSpore 2.10 oracle runs, quoted per test."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, amp, nn, ops

X = np.array([[1., 2., 3.], [0.5, -1., 2.]], np.float32)


class _Net(nn.Cell):
    """Dense -> BatchNorm1d -> ReLU -> Dense, recording the dtype after each of the first three."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 4, weight_init="ones", bias_init="zeros")
        self.bn = nn.BatchNorm1d(4)
        self.relu = ops.ReLU()
        self.dense2 = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
        self.seen = []

    def construct(self, x):
        h = self.dense(x)
        self.seen.append(h.dtype)
        h = self.bn(h)
        self.seen.append(h.dtype)
        h = self.relu(h)
        self.seen.append(h.dtype)
        return self.dense2(h)


def test_to_float_computes_in_float16_and_keeps_float32_gradients():
    """Item 4.  MindSpore 2.10: Dense(3, 2, ones, zeros).to_float(float16) on X gives Float16
    [[6, 6], [1.5, 1.5]]; the gradients of its sum for the Float32 weight and bias are Float32,
    [[1.5, 1, 5], [1.5, 1, 5]] and [2, 2]."""
    d = nn.Dense(3, 2, weight_init="ones", bias_init="zeros").to_float(ms.float16)
    out = d(Tensor(X))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), [[6, 6], [1.5, 1.5]])
    gw, gb = ms.grad(lambda x: d(x).sum(), grad_position=None, weights=d.trainable_params())(Tensor(X))
    assert (gw.dtype, gb.dtype) == (ms.float32, ms.float32)
    np.testing.assert_array_equal(gw.asnumpy(), [[1.5, 1, 5], [1.5, 1, 5]])
    np.testing.assert_array_equal(gb.asnumpy(), [2, 2])


@pytest.mark.parametrize("level, inside, values", [
    ("O0", ["Float32"] * 3, [[23.99988, 23.99988], [5.99997, 5.99997]]),
    ("O1", ["Float32"] * 3, [[24., 24.], [6., 6.]]),
    ("O2", ["Float16"] * 3, [[24., 24.], [6., 6.]]),
    ("O3", ["Float16"] * 3, [[24., 24.], [6., 6.]]),
])
def test_auto_mixed_precision_levels(level, inside, values):
    """Item 4.  MindSpore 2.10 on _Net in eval mode: the dtypes after Dense, BatchNorm and ReLU are
    Float32 in O0 and O1 (O1 casts back after each white-listed Cell/primitive), Float16 in O2
    (BatchNorm computes in Float32 and returns Float16) and O3; the output is always Float32, with
    values [[23.99988, ...], [5.99997, ...]] in O0 (BatchNorm's eps) and [[24, 24], [6, 6]] else."""
    net = _Net()
    net.set_train(False)
    out = amp.auto_mixed_precision(net, level)(Tensor(X))
    assert [str(d) for d in net.seen] == inside
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), values, rtol=1e-6)


def test_amp_refusals_match_mindspore():
    """Item 4.  MindSpore 2.10: level 'O5' raises ValueError "The amp level O5 is not supported";
    to_float(int32) raises ValueError; StaticLossScaler(0.5) raises ValueError; DynamicLossScaler
    with scale_window 0 raises ValueError."""
    with pytest.raises(ValueError, match="'O5' is not supported"):
        amp.auto_mixed_precision(nn.Dense(2, 2), "O5")
    with pytest.raises(ValueError, match="dst_type"):
        nn.Dense(2, 2).to_float(ms.int32)
    with pytest.raises(ValueError, match="scale_value"):
        amp.StaticLossScaler(0.5)
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaler(1024, 2, 0)


def test_loss_scalers_scale_unscale_and_adjust():
    """Item 4.  MindSpore 2.10: StaticLossScaler(1024).scale(float16 [1, 2]) = Float16 [1024, 2048],
    unscale((float32 [1024, 2048],)) = ([1, 2],); DynamicLossScaler(1024, 2, 3).adjust on finite
    flags T, T, T, F, T, T, T, T gives (scale, counter) (1024, 1), (1024, 2), (2048, 0), (1024, 0),
    (1024, 1), (1024, 2), (2048, 0), (2048, 1)."""
    s = amp.StaticLossScaler(1024)
    scaled = s.scale(Tensor(np.array([1., 2.], np.float16)))
    assert scaled.dtype == ms.float16
    np.testing.assert_array_equal(scaled.asnumpy(), [1024, 2048])
    (unscaled,) = s.unscale((Tensor(np.array([1024., 2048.], np.float32)),))
    np.testing.assert_array_equal(unscaled.asnumpy(), [1, 2])
    d = amp.DynamicLossScaler(1024, 2, 3)
    seq = []
    for finite in [True, True, True, False, True, True, True, True]:
        d.adjust(Tensor(finite))
        seq.append((float(d.scale_value.asnumpy()), int(d.counter.asnumpy())))
    assert seq == [(1024.0, 1), (1024.0, 2), (2048.0, 0), (1024.0, 0), (1024.0, 1), (1024.0, 2),
                   (2048.0, 0), (2048.0, 1)]


def test_all_finite():
    """Item 4.  MindSpore 2.10: all_finite(([1, inf],)) is False, all_finite([[1, 2]]) True, a NaN in a
    Float16 Tensor among others False."""
    assert not bool(amp.all_finite((Tensor(np.array([1., np.inf])),)))
    assert bool(amp.all_finite([Tensor(np.array([1., 2.]))]))
    assert not bool(amp.all_finite((Tensor(np.array([1., np.nan], np.float16)), Tensor(np.array([1.])))))


def test_dynamic_loss_scale_update_cell():
    """Item 4.  MindSpore 2.10: DynamicLossScaleUpdateCell(16, 2, 2) on a scale Parameter 16 with
    overflow F, F, T, F, F, F gives (scale, returned) (16, F), (32, F), (16, T), (16, F), (32, F),
    (32, F)."""
    u = nn.DynamicLossScaleUpdateCell(loss_scale_value=16.0, scale_factor=2, scale_window=2)
    s = Parameter(Tensor(16.0, ms.float32), name="s")
    seq = []
    for overflow in [False, False, True, False, False, False]:
        r = u(s, Tensor(overflow))
        seq.append((float(s.asnumpy()), bool(r.asnumpy())))
    assert seq == [(16.0, False), (32.0, False), (16.0, True), (16.0, False), (32.0, False), (32.0, False)]


class _Regression(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x, y):
        return ((self.d(x) - y) ** 2).mean()


def _train(net, init_scale, steps=3):
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    cell = nn.TrainOneStepWithLossScaleCell(net, opt, nn.DynamicLossScaleUpdateCell(init_scale, 2, 2))
    x, y = Tensor(np.array([[1., 2.]], np.float32)), Tensor(np.array([[1.]], np.float32))
    out = []
    for _ in range(steps):
        loss, overflow, scale = cell(x, y)
        out.append((loss.dtype, float(loss.asnumpy()), bool(overflow.asnumpy()), float(scale.asnumpy())))
    return out


def test_train_one_step_with_loss_scale():
    """Item 4.  MindSpore 2.10 (its CPU build lacks NPUGetFloatStatusV2, so the oracle ran the same
    Cell with get_overflow_status = not amp.all_finite(grads)): Dense(2, 1, ones) on x [[1, 2]],
    y [[1]], SGD 0.1, DynamicLossScaleUpdateCell(1024, 2, 2): losses 4, 0.16, 0.0064, no overflow,
    scales 1024, 2048, 2048, weight [[0.664, 0.328]], bias [-0.336]; with to_float(float16) and
    scale 2^20 every step overflows in Float16: loss 4 (Float16), scales 2^19, 2^18, 2^17, weights
    unchanged."""
    net = _Regression()
    steps = _train(net, 2.0 ** 10)
    assert [s[2:] for s in steps] == [(False, 1024.0), (False, 2048.0), (False, 2048.0)]
    np.testing.assert_allclose([s[1] for s in steps], [4.0, 0.16, 0.0064], rtol=2e-6)
    np.testing.assert_allclose(net.d.weight.asnumpy(), [[0.664, 0.328]], rtol=1e-6)
    np.testing.assert_allclose(net.d.bias.asnumpy(), [-0.336], rtol=1e-6)
    half = _Regression()
    half.to_float(ms.float16)
    steps = _train(half, 2.0 ** 20)
    assert steps == [(ms.float16, 4.0, True, 2.0 ** 19), (ms.float16, 4.0, True, 2.0 ** 18),
                     (ms.float16, 4.0, True, 2.0 ** 17)]
    np.testing.assert_array_equal(half.d.weight.asnumpy(), [[1., 1.]])


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_train_one_step_with_loss_scale_skips_overflowing_updates_in_both_modes(mode):
    """Item 4.  MindSpore 2.10 (PyNative, overflow checked with amp.all_finite as above), Momentum(0.1,
    0.9): Float32 with scale 1024 gives losses 4, 0.16, 4.3264, weight [[0.484, -0.032]], moments
    [[-1.64, -3.28]], global_step 3; Float16 with scale 2^20 overflows thrice and leaves weights,
    moments and global_step untouched.  The compiled graph (no Python `if` on the overflow flag) must
    give the same."""
    ms.set_context(mode=getattr(ms, mode))
    try:
        results = []
        for half, init in ((False, 1024.), (True, 2. ** 20)):
            net = _Regression()
            if half:
                net.to_float(ms.float16)
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            cell = nn.TrainOneStepWithLossScaleCell(net, opt, nn.DynamicLossScaleUpdateCell(init, 2, 2))
            x, y = Tensor(np.array([[1., 2.]], np.float32)), Tensor(np.array([[1.]], np.float32))
            losses = [float(cell(x, y)[0].asnumpy()) for _ in range(3)]
            results.append((losses, net.d.weight.asnumpy(), opt.moments[0].asnumpy(), opt.global_step.asnumpy()))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    (losses, w, m, step), (losses16, w16, m16, step16) = results
    np.testing.assert_allclose(losses, [4.0, 0.16, 4.3264], rtol=2e-6)
    np.testing.assert_allclose(w, [[0.484, -0.032]], rtol=1e-5)
    np.testing.assert_allclose(m, [[-1.64, -3.28]], rtol=1e-6)
    assert step.tolist() == [3] and step16.tolist() == [0]
    assert losses16 == [4.0, 4.0, 4.0]
    np.testing.assert_array_equal(w16, [[1., 1.]])
    np.testing.assert_array_equal(m16, [[0., 0.]])


def test_loss_scale_managers():
    """Item 4.  MindSpore 2.10: DynamicLossScaleManager(16, 2, 2).update_loss_scale on overflow F, F,
    T, F, F, F, T, T gives scales 16, 32, 16, 16, 32, 32, 16, 8; FixedLossScaleManager(128,
    drop_overflow_update=False) has scale 128 and no update Cell; with the default it is a
    FixedLossScaleUpdateCell, the dynamic one's a DynamicLossScaleUpdateCell; a scale of 0.5 raises
    ValueError "'loss_scale' must be >= 1"."""
    m = amp.DynamicLossScaleManager(init_loss_scale=16, scale_factor=2, scale_window=2)
    seq = []
    for overflow in [False, False, True, False, False, False, True, True]:
        m.update_loss_scale(overflow)
        seq.append(m.get_loss_scale())
    assert seq == [16, 32, 16, 16, 32, 32, 16, 8]
    fixed = amp.FixedLossScaleManager(128.0, drop_overflow_update=False)
    assert fixed.get_loss_scale() == 128.0 and fixed.get_update_cell() is None
    assert isinstance(amp.FixedLossScaleManager().get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert isinstance(m.get_update_cell(), nn.DynamicLossScaleUpdateCell)
    with pytest.raises(ValueError, match="'loss_scale' must be >= 1"):
        amp.FixedLossScaleManager(0.5)
