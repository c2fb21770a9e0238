"""``mindspore.train.Model`` with callbacks and metrics (issue 25, item 5).

Expected values are what MindSpore 2.10 (CPU, the oracle) printed for the same code, quoted in each
test's docstring.  The small problem most tests train: ``Dense(3, 2)`` with ones as weights and zero
biases, 10 samples ``default_rng(0).standard_normal((10, 3))`` (float32), labels ``i % 2``, batches of
4 in order, ``SoftmaxCrossEntropyWithLogits(sparse=True)`` and ``SGD(0.1)``.  Losses are compared
to 1e-6 (the two frameworks round float32 sums in different orders).
"""
import contextlib
import io
import os
import re

import numpy as np
import pytest

import minims as ms
import minims.dataset as ds
from minims import Tensor, nn
from minims.train import (MAE, MSE, Accuracy, Callback, CheckpointConfig, EpochLog, Loss, LossMonitor, Model,
                          ModelCheckpoint, Precision, Recall, TimeMonitor, Top1CategoricalAccuracy,
                          Top5CategoricalAccuracy, TopKCategoricalAccuracy)

X = np.random.default_rng(0).standard_normal((10, 3)).astype(np.float32)
Y = (np.arange(10) % 2).astype(np.int32)
# MindSpore 2.10: LossMonitor's numbers for two epochs of the problem above
LOSSES = [0.6931471824645996, 0.7002831101417542, 0.6702067255973816, 0.6335815191268921, 0.6811637878417969,
          0.6025576591491699]


def data(batch=4, shuffle=False, columns=("x", "y")):
    return ds.NumpySlicesDataset((X, Y), column_names=list(columns), shuffle=shuffle).batch(batch)


def model(metrics=None, optimizer=nn.SGD, lr=0.1):
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, optimizer(net.trainable_params(), lr), metrics=metrics)


def printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue().splitlines()


def monitor_lines(lines):
    """(epoch, step, loss) of each 'epoch: E step: S, loss is L' line."""
    found = [re.fullmatch(r"epoch: (\d+) step: (\d+), loss is (\S+)", line) for line in lines]
    assert all(found), lines
    return [(int(m[1]), int(m[2]), float(m[3])) for m in found]


def test_loss_monitor_prints_each_step_as_mindspore():
    """Item 5, LossMonitor.  MindSpore 2.10, model.train(2, data, callbacks=[LossMonitor()]) prints
    'epoch: 1 step: 1, loss is 0.6931471824645996' ... 'epoch: 2 step: 3, loss is 0.6025576591491699'
    (the step counted within the epoch; the loss as a Python float, see LOSSES)."""
    lines = printed(lambda: model().train(2, data(), callbacks=[LossMonitor()], dataset_sink_mode=False))
    got = monitor_lines(lines)
    assert [(e, s) for e, s, _ in got] == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    np.testing.assert_allclose([loss for _, _, loss in got], LOSSES, rtol=1e-6)
    assert lines[0] == "epoch: 1 step: 1, loss is 0.6931471824645996"        # exactly ln 2, as float32


def test_loss_monitor_every_n_steps_and_in_sink_mode():
    """Item 5, LossMonitor(per_print_times).  MindSpore 2.10 on CPU with dataset_sink_mode=True and
    LossMonitor(2) prints steps 2, 4 and 6 of two epochs of 3 steps: 'epoch: 1 step: 2', 'epoch: 2
    step: 1', 'epoch: 2 step: 3' (sink mode runs step by step on CPU); LossMonitor(-1) raises
    ValueError, LossMonitor(1.5) TypeError; a NaN loss raises ValueError 'In epoch: 1 step: 1, loss
    is NAN or INF, training process cannot continue, terminating training.'"""
    lines = printed(lambda: model().train(2, data(), callbacks=LossMonitor(2), dataset_sink_mode=True))
    got = monitor_lines(lines)
    assert [(e, s) for e, s, _ in got] == [(1, 2), (2, 1), (2, 3)]
    np.testing.assert_allclose([loss for _, _, loss in got], LOSSES[1::2], rtol=1e-6)
    with pytest.raises(ValueError):
        LossMonitor(-1)
    with pytest.raises(TypeError):
        LossMonitor(1.5)

    class NanLoss(nn.Cell):
        def construct(self, x, y):
            return Tensor(np.float32(np.nan))

    with pytest.raises(ValueError, match="In epoch: 1 step: 1, loss is NAN or INF"):
        printed(lambda: Model(NanLoss()).train(1, data(5), callbacks=LossMonitor()))


def test_callbacks_run_in_order_with_mindspores_cb_params():
    """Item 5, Callback and RunContext.  MindSpore 2.10: cb_params at on_train_begin has the keys
    batch_num (3), cur_step_num (0), dataset_sink_mode (False), device_number, epoch_num (2),
    initial_step, last_save_ckpt_step, latest_ckpt_file, list_callback, loss_fn, loss_scale_mananger
    (sic), mode ('train'), network (the Dense), optimizer, parallel_mode ('stand_alone'),
    train_dataset, train_dataset_element (None), train_network (a TrainOneStepCell); cur_epoch_num
    appears at on_train_epoch_begin and net_outputs (a Tensor) at the first on_train_step_end; the
    step count runs on over epochs (4, 5, 6 in the second); request_stop() at step 3 of 5 epochs
    ends after that step, with the epoch end and the train end still called."""
    events = []

    class Recorder(Callback):
        def on_train_begin(self, run_context):
            params = run_context.original_args()
            events.append(("begin", sorted(params), params.batch_num, params.epoch_num, params.cur_step_num))
            assert type(params.train_network).__name__ == "TrainOneStepCell" and params.mode == "train"

        def on_train_epoch_begin(self, run_context):
            events.append(("epoch", run_context.original_args().cur_epoch_num))

        def on_train_step_end(self, run_context):
            params = run_context.original_args()
            assert isinstance(params.net_outputs, Tensor)
            events.append(("step", params.cur_epoch_num, params.cur_step_num))

        def on_train_end(self, run_context):
            events.append(("end", run_context.original_args().cur_step_num))

    model().train(2, data(), callbacks=[Recorder()])
    assert events[0] == ("begin", ["batch_num", "cur_step_num", "dataset_sink_mode", "device_number", "epoch_num",
                                   "initial_step", "last_save_ckpt_step", "latest_ckpt_file", "list_callback",
                                   "loss_fn", "loss_scale_mananger", "mode", "network", "optimizer",
                                   "parallel_mode", "train_dataset", "train_dataset_element", "train_network"],
                         3, 2, 0)
    assert events[1:] == [("epoch", 1), ("step", 1, 1), ("step", 1, 2), ("step", 1, 3), ("epoch", 2),
                          ("step", 2, 4), ("step", 2, 5), ("step", 2, 6), ("end", 6)]

    class StopAtThree(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 3:
                run_context.request_stop()

    class Count(Callback):
        def __init__(self):
            self.seen = []

        def on_train_step_end(self, run_context):
            self.seen.append(run_context.original_args().cur_step_num)

        def on_train_epoch_end(self, run_context):
            self.seen.append("E")

        def on_train_end(self, run_context):
            self.seen.append("END")

    count = Count()
    model().train(5, data(2), callbacks=[StopAtThree(), count])
    assert count.seen == [1, 2, 3, "E", "END"]


def test_model_train_visits_a_shuffled_pipeline_in_mindspores_order():
    """Item 5 with item 4.  MindSpore 2.10, set_seed(0), Model.train(2, NumpySlicesDataset((x, y),
    shuffle=True).batch(5)) over x = 0..9 feeds the batches [0, 2, 1, 5, 9], [8, 4, 7, 6, 3],
    [3, 0, 1, 8, 7], [9, 4, 5, 2, 6] (one iterator for both epochs); with .shuffle(4) instead:
    [2, 4, 1, 3, 0], [6, 9, 7, 8, 5], [3, 0, 2, 5, 4], [1, 9, 6, 8, 7]."""
    x = np.arange(10, dtype=np.float32).reshape(10, 1)

    class Seen(Callback):
        def __init__(self):
            self.batches = []

        def on_train_step_end(self, run_context):
            first = run_context.original_args().train_dataset_element[0]
            self.batches.append(first.asnumpy().ravel().astype(int).tolist())

    net = nn.Dense(1, 2)
    trainer = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                    nn.SGD(net.trainable_params(), 0.0))
    for pipeline, expected in (
            (lambda: ds.NumpySlicesDataset((x, Y), column_names=["x", "y"], shuffle=True).batch(5),
             [[0, 2, 1, 5, 9], [8, 4, 7, 6, 3], [3, 0, 1, 8, 7], [9, 4, 5, 2, 6]]),
            (lambda: ds.NumpySlicesDataset((x, Y), column_names=["x", "y"], shuffle=False).shuffle(4).batch(5),
             [[2, 4, 1, 3, 0], [6, 9, 7, 8, 5], [3, 0, 2, 5, 4], [1, 9, 6, 8, 7]])):
        ds.config.set_seed(0)
        seen = Seen()
        trainer.train(2, pipeline(), callbacks=[seen])
        assert seen.batches == expected


def test_eval_fit_and_predict():
    """Item 5, eval/fit/predict.  MindSpore 2.10 after the two epochs of LOSSES:
    model.eval(data) is {'acc': 0.8, 'loss': 0.5994771718978882} for metrics {'acc': Accuracy(),
    'loss': Loss()}; model.predict(Tensor(x[:2])) is [[0.5690557, 0.69904023], [-0.15810345,
    0.01975485]]; a fresh model's fit(2, data, data, callbacks=[LossMonitor(3)]) with
    metrics={'accuracy'} prints 'epoch: 1 step: 3, loss is 0.6702067255973816', "Eval result: epoch
    1, metrics: {'accuracy': 0.8}", 'epoch: 2 step: 3, loss is 0.6025576591491699', "Eval result:
    epoch 2, metrics: {'accuracy': 0.8}"."""
    trainer = model(metrics={"acc": Accuracy(), "loss": Loss()})
    trainer.train(2, data())
    result = trainer.eval(data(), dataset_sink_mode=False)
    assert list(result) == ["acc", "loss"] and result["acc"] == 0.8
    assert abs(result["loss"] - 0.5994771718978882) < 1e-6
    np.testing.assert_allclose(trainer.predict(Tensor(X[:2])).asnumpy(),
                               [[0.5690557, 0.69904023], [-0.15810345, 0.01975485]], rtol=1e-5, atol=1e-6)
    lines = printed(lambda: model(metrics={"accuracy"}).fit(2, data(), data(), callbacks=[LossMonitor(3)]))
    assert lines[1] == "Eval result: epoch 1, metrics: {'accuracy': 0.8}"
    assert lines[3] == "Eval result: epoch 2, metrics: {'accuracy': 0.8}"
    np.testing.assert_allclose([loss for _, _, loss in monitor_lines([lines[0], lines[2]])],
                               [0.6702067255973816, 0.6025576591491699], rtol=1e-6)


def test_model_refuses_what_mindspore_refuses():
    """Item 5, Model's checks.  MindSpore 2.10: Model(net, metrics={'acc'}) without loss_fn or
    eval_network raises ValueError; callbacks=[LossMonitor] (the class) TypeError; a data set of 3
    columns with a loss_fn ValueError; eval without metrics ValueError; train(1, ..., initial_epoch=1)
    ValueError."""
    net = nn.Dense(3, 2)
    with pytest.raises(ValueError, match="eval_network"):
        Model(net, metrics={"acc"})
    with pytest.raises(TypeError, match="Callback"):
        model().train(1, data(), callbacks=[LossMonitor])
    three = ds.NumpySlicesDataset((X, Y, Y), column_names=["x", "y", "z"]).batch(5)
    with pytest.raises(ValueError, match="two columns"):
        model().train(1, three)
    with pytest.raises(ValueError, match="metrics"):
        model().eval(data())
    with pytest.raises(ValueError, match="initial_epoch"):
        model().train(1, data(), initial_epoch=1)


def test_model_checkpoint_files_and_contents(tmp_path):
    """Item 5, ModelCheckpoint.  MindSpore 2.10, Momentum(0.1, 0.9), 3 epochs of 3 steps,
    CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3): after step 2 the directory holds
    m-1_2.ckpt, ...; at the end m-2_3.ckpt, m-3_2.ckpt, m-3_3.ckpt (the last step is saved at the
    end, the oldest files removed); the files hold weight, bias, global_step, learning_rate and
    moments.weight, moments.bias (and momentum, a Parameter in MindSpore only); a second callback
    with the same prefix writes m_1-1_3.ckpt; the default config (every step, keep 5) writes
    CKP-1_1.ckpt, CKP-1_2.ckpt, CKP-1_3.ckpt; prefix 'a/b' raises ValueError."""
    trainer = model(optimizer=lambda p, lr: nn.Momentum(p, lr, 0.9))
    seen = []

    class Listing(Callback):
        def on_train_step_end(self, run_context):
            seen.append(sorted(os.listdir(tmp_path / "ck")))

    first = ModelCheckpoint(prefix="m", directory=str(tmp_path / "ck"),
                            config=CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3))
    trainer.train(3, data(), callbacks=[first, Listing()])
    assert seen[0] == [] and seen[1] == ["m-1_2.ckpt"] and seen[7] == ["m-2_1.ckpt", "m-2_3.ckpt", "m-3_2.ckpt"]
    assert sorted(os.listdir(tmp_path / "ck")) == ["m-2_3.ckpt", "m-3_2.ckpt", "m-3_3.ckpt"]
    saved = ms.load_checkpoint(str(tmp_path / "ck" / "m-3_3.ckpt"))
    assert list(saved) == ["weight", "bias", "global_step", "learning_rate", "moments.weight", "moments.bias"]
    np.testing.assert_array_equal(saved["weight"].asnumpy(), trainer.predict_network.weight.asnumpy())
    second = ModelCheckpoint(prefix="m", directory=str(tmp_path / "ck"), config=CheckpointConfig(save_checkpoint_steps=100))
    trainer.train(1, data(), callbacks=[second])
    assert os.path.basename(second.latest_ckpt_file_name) == "m_1-1_3.ckpt"
    default = ModelCheckpoint(directory=str(tmp_path / "ck2"))
    trainer.train(1, data(), callbacks=[default])
    assert sorted(os.listdir(tmp_path / "ck2")) == ["CKP-1_1.ckpt", "CKP-1_2.ckpt", "CKP-1_3.ckpt"]
    with pytest.raises(ValueError, match="'/'"):
        ModelCheckpoint(prefix="a/b")


def test_time_monitor_prints_times_that_a_chapter_must_not_store():
    """Item 5, TimeMonitor.  MindSpore 2.10 prints 'Train epoch time: 153.042 ms, per step time:
    51.014 ms' after each epoch (wall-clock times: they differ on every run, so a chapter whose
    outputs are checked must not print them)."""
    lines = printed(lambda: model().train(2, data(), callbacks=TimeMonitor()))
    assert len(lines) == 2
    assert all(re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms", line) for line in lines)


def test_epoch_log_is_deterministic_and_keeps_the_losses():
    """Item 5, the progress display for notebooks (minims' EpochLog): one line per epoch with the
    mean of that epoch's step losses, which are MindSpore's LOSSES (to 1e-6); the same seedless
    run prints the same text twice."""
    def run():
        log = EpochLog()
        lines = printed(lambda: model().train(2, data(), callbacks=[log]))
        return log, lines

    log, lines = run()
    np.testing.assert_allclose(log.losses, LOSSES, rtol=1e-6)
    np.testing.assert_allclose(log.epoch_losses, [np.mean(LOSSES[:3]), np.mean(LOSSES[3:])], rtol=1e-6)
    assert re.fullmatch(r"epoch 1/2: mean loss 0\.6878\d\d over 3 steps", lines[0]), lines
    assert run()[1] == lines


def test_metrics_values_as_mindspore():
    """Item 5, metrics.  MindSpore 2.10 for logits [[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6],
    [0.3, 0.4, 0.3], [0.6, 0.1, 0.3]] and labels [1, 0, 1, 2, 0]: Accuracy 0.6 (also with one-hot
    labels), Precision [1, 0.5, 0] (average 0.5), Recall [1, 0.5, 0] (0.5), TopK(2) 0.6, Top1 0.6;
    Accuracy('multilabel') of [[1,0,1],[0,1,1]] vs [[1,0,1],[0,0,1]] 0.5; Top5 of default_rng(0)
    .random((4, 6)) vs [0, 1, 2, 5] 1.0; TopK(2) with ties [[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]] vs [1, 2]
    0.5; Loss of 0.5 then [0.2, 0.4] 0.4000000059604645; the metric page's MAE example
    0.1499999612569809; MSE of [0.1, 0.2, 0.6, 0.9] vs [0.1, 0.25, 0.7, 0.9] 0.003124997951090336;
    set_indexes([0, 2]) picks inputs 0 and 2; calling a metric is clear + update + eval."""
    yp = Tensor(np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3], [0.6, 0.1, 0.3]],
                         np.float32))
    yt = Tensor(np.array([1, 0, 1, 2, 0]))
    assert Accuracy()(yp, yt) == 0.6 and Accuracy()(yp, np.eye(3)[[1, 0, 1, 2, 0]]) == 0.6
    for metric in (Precision(), Recall()):
        metric.update(yp, yt)
        np.testing.assert_allclose(metric.eval(), [1.0, 0.5, 0.0])
        assert metric.eval(average=True) == 0.5
    assert TopKCategoricalAccuracy(2)(yp, yt) == 0.6 and Top1CategoricalAccuracy()(yp, yt) == 0.6
    multi = Accuracy("multilabel")
    multi.update(np.array([[1, 0, 1], [0, 1, 1]]), np.array([[1, 0, 1], [0, 0, 1]]))
    assert multi.eval() == 0.5
    assert Top5CategoricalAccuracy()(np.random.default_rng(0).random((4, 6)), np.array([0, 1, 2, 5])) == 1.0
    assert TopKCategoricalAccuracy(2)(np.array([[0.5, 0.5, 0.1], [0.2, 0.2, 0.2]]), np.array([1, 2])) == 0.5
    loss = Loss()
    loss.update(Tensor(np.float32(0.5)))
    loss.update(Tensor(np.array([0.2, 0.4], np.float32)))
    assert abs(loss.eval() - 0.4000000059604645) < 1e-12
    mae = MAE()
    mae.update(Tensor(np.array([[0.1, 0.2, 0.6, 0.9]] * 2, np.float32)),
               Tensor(np.array([[0.1, 0.25, 0.7, 0.9]] * 2, np.float32)))
    assert abs(mae.eval() - 0.1499999612569809) < 1e-12
    mse = MSE()(Tensor(np.array([0.1, 0.2, 0.6, 0.9], np.float32)), Tensor(np.array([0.1, 0.25, 0.7, 0.9], np.float32)))
    assert abs(mse - 0.003124997951090336) < 1e-9
    picked = Accuracy().set_indexes([0, 2])
    picked.update(yp, "ignored", yt)
    assert picked.eval() == 0.6


def test_a_custom_metric_and_metric_refusals():
    """Item 5, the Metric base.  The metric page's MyMAE (clear/update/eval on the Metric base)
    prints 0.1499999612569809 on MindSpore 2.10.  MindSpore raises RuntimeError for eval() before
    update (Accuracy, MAE, Loss), ValueError for Accuracy.update with one input or labels shaped
    like (5, 1) for (5, 3) logits, ValueError for TopKCategoricalAccuracy(0), KeyError for
    get_metric_fn('nope')."""
    class MyMAE(ms.train.Metric):
        def __init__(self):
            super().__init__()
            self.clear()

        def clear(self):
            self._abs_error_sum = 0
            self._samples_num = 0

        def update(self, *inputs):
            y_pred, y = inputs[0].asnumpy(), inputs[1].asnumpy()
            self._abs_error_sum += np.abs(y - y_pred).sum()
            self._samples_num += y.shape[0]

        def eval(self):
            return self._abs_error_sum / self._samples_num

    error = MyMAE()
    error.update(Tensor(np.array([[0.1, 0.2, 0.6, 0.9]] * 2, np.float32)),
                 Tensor(np.array([[0.1, 0.25, 0.7, 0.9]] * 2, np.float32)))
    assert abs(float(error.eval()) - 0.1499999612569809) < 1e-7
    for metric in (Accuracy(), MAE(), Loss()):
        with pytest.raises(RuntimeError, match="number of samples is 0"):
            metric.eval()
    yp = Tensor(np.ones((5, 3), np.float32))
    with pytest.raises(ValueError, match="2 inputs"):
        Accuracy().update(yp)
    with pytest.raises(ValueError, match="shape"):
        Accuracy().update(yp, Tensor(np.zeros((5, 1), np.int32)))
    with pytest.raises(ValueError):
        TopKCategoricalAccuracy(0)
    with pytest.raises(KeyError):
        ms.train.get_metric_fn("nope")


def test_model_trains_in_graph_mode_like_pynative():
    """Item 5, Model in Graph mode: the compiled TrainOneStepCell gives the same step losses as
    PyNative (MindSpore's LOSSES) to 1e-6."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        log = EpochLog(verbose=False)
        model().train(2, data(), callbacks=[log])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(log.losses, LOSSES, rtol=1e-6)
