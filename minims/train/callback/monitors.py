"""The printing callbacks: ``LossMonitor`` and ``TimeMonitor`` (MindSpore's), and ``EpochLog``
(minims' own: one line per epoch, and the losses kept for a plot).

What they print, as MindSpore 2.10 prints it::

    epoch: 1 step: 300, loss is 0.45305341482162476            LossMonitor(300)
    Eval result: epoch 1, metrics: {'accuracy': 0.9202}         LossMonitor, in Model.fit
    Train epoch time: 7388.254 ms, per step time: 7.877 ms      TimeMonitor()

``TimeMonitor`` prints wall-clock times, different on every run: a notebook whose stored outputs
are checked (the chapters) must not print them.  ``LossMonitor`` and ``EpochLog`` print only
numbers the computation determines.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ... import Tensor
from .callback import Callback

__all__ = ["LossMonitor", "TimeMonitor", "EpochLog", "loss_value"]


def loss_value(outputs):
    """A step's loss as MindSpore's monitors read ``net_outputs``: the first element of a tuple
    (left a Tensor), or a Tensor's mean as a Python float."""
    if isinstance(outputs, (tuple, list)):
        if outputs and isinstance(outputs[0], Tensor):
            return outputs[0]
        return outputs
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


def _check_count(where, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: {name} must be an int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"{where}: {name} must be >= 0, but got {value}.")
    return value


class LossMonitor(Callback):
    """``LossMonitor(per_print_times=1)``: print the loss every ``per_print_times`` steps (0: never),
    the step counted within its epoch; stop training with ValueError when the loss is NaN or
    infinite.  In ``Model.fit`` it also prints the evaluation after each epoch."""

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = _check_count("LossMonitor", "per_print_times", per_print_times)
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        loss = loss_value(cb_params.net_outputs)
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and not math.isfinite(loss):
            raise ValueError(f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process "
                             "cannot continue, terminating training. Fix: lower the learning rate, or look for "
                             "a log or division of zero in the loss.")
        every = self._per_print_times
        if every and cb_params.cur_step_num <= self._last_print_time:     # a new run, or evaluation
            while cb_params.cur_step_num <= self._last_print_time:
                self._last_print_time -= max(every, 1)
        if every and cb_params.cur_step_num - self._last_print_time >= every:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        metrics = run_context.original_args().get("metrics")
        if metrics:
            print("Eval result: epoch %d, metrics: %s" % (run_context.original_args().cur_epoch_num, metrics))


class TimeMonitor(Callback):
    """``TimeMonitor(data_size=None)``: after each epoch, print its wall-clock time and the time per
    step (steps: the epoch's ``batch_num``, else ``data_size``).  The times change from run to run:
    never store them in a checked notebook."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None:
            _check_count("TimeMonitor", "data_size", data_size)
        if data_time:
            raise NotImplementedError("TimeMonitor: data_time=True is not implemented in minims.")
        self.data_size = data_size
        self.epoch_time = time.time()

    def epoch_begin(self, run_context):
        self.epoch_time = time.time()

    def epoch_end(self, run_context):
        milliseconds = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            steps = batch_num
        if not steps:
            raise ValueError("TimeMonitor: the number of steps per epoch is unknown. Fix: TimeMonitor(data_size=N).")
        mode = cb_params.get("mode", "")
        print(f"{mode.title()} epoch time: {milliseconds:5.3f} ms, per step time: {milliseconds / steps:5.3f} ms",
              flush=True)


class EpochLog(Callback):
    """minims' own (not in MindSpore): one line per epoch with the mean loss of its steps, the
    evaluation in ``Model.fit``, and ``losses`` (every step's) and ``epoch_losses`` kept for a plot::

        epoch 1/5: mean loss 2.301851 over 44 steps
        epoch 2/5: mean loss 1.203772 over 44 steps, eval {'accuracy': 0.9220055710306406}

    Deterministic text (no times), so a chapter can store it.  ``digits=6`` decimals.
    """

    def __init__(self, digits=6, verbose=True):
        super().__init__()
        self.digits, self.verbose = _check_count("EpochLog", "digits", digits), verbose
        self.losses, self.epoch_losses = [], []
        self._epoch = []

    def on_train_epoch_begin(self, run_context):
        self._epoch = []

    def on_train_step_end(self, run_context):
        loss = loss_value(run_context.original_args().net_outputs)
        value = float(loss.asnumpy().mean()) if isinstance(loss, Tensor) else float(loss)
        self._epoch.append(value)
        self.losses.append(value)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        mean = float(np.mean(self._epoch)) if self._epoch else float("nan")
        self.epoch_losses.append(mean)
        if self.verbose:
            line = (f"epoch {cb_params.cur_epoch_num}/{cb_params.epoch_num}: mean loss {mean:.{self.digits}f} "
                    f"over {len(self._epoch)} steps")
            metrics = cb_params.get("metrics")
            if metrics:
                line += f", eval {metrics}"
            print(line, flush=True)
