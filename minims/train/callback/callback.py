"""``mindspore.train.Callback`` and ``RunContext``: how ``Model.train``/``eval``/``fit`` tell
callbacks what is happening.

``Model`` calls, on every callback in the list, in this order::

    on_train_begin
      on_train_epoch_begin
        on_train_step_begin, on_train_step_end      (once per batch)
      [during fit: on_eval_begin, on_eval_epoch_begin, on_eval_step_begin/_end..., on_eval_epoch_end, on_eval_end]
      on_train_epoch_end
    on_train_end

Each receives a :class:`RunContext`; ``run_context.original_args()`` is ``cb_params``, a dict
whose keys also read as attributes: ``epoch_num``, ``batch_num`` (steps per epoch),
``cur_epoch_num``, ``cur_step_num`` (counted over all epochs), ``net_outputs`` (the step's loss),
``train_network``, ``network``, ``optimizer``, ``loss_fn``, ``train_dataset``, ``mode``, ... A
callback may add its own keys, and ``run_context.request_stop()`` ends training after the current
step.  The ``on_train_*``/``on_eval_*`` methods call the older names ``begin``, ``epoch_begin``,
``step_begin``, ``step_end``, ``epoch_end``, ``end`` by default, as in MindSpore, so a callback that
defines ``step_end`` runs in training and in evaluation.
"""
from __future__ import annotations

__all__ = ["Callback", "RunContext", "CallbackParams", "CallbackList"]


class CallbackParams(dict):
    """``cb_params``: a dict whose keys are also attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"cb_params has no '{key}' at this point; it has {sorted(self)}. "
                                 "(A callback can add its own: cb_params.my_value = ...)") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """``RunContext(original_args)``: what a callback receives (MindSpore's ``RunContext``)."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, but got {type(original_args).__name__}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """``cb_params``: the dict of the run's information."""
        return self._original_args

    def request_stop(self):
        """Stop training (or evaluation) after the current step."""
        self._stop_requested = True

    def get_stop_requested(self):
        return self._stop_requested


class Callback:
    """The base of callbacks: override the ``on_train_*``/``on_eval_*`` methods you need."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    # the older names, called by the on_* methods below
    def begin(self, run_context):
        """Called once before training or evaluation."""

    def epoch_begin(self, run_context):
        """Called before each epoch."""

    def epoch_end(self, run_context):
        """Called after each epoch."""

    def step_begin(self, run_context):
        """Called before each step."""

    def step_end(self, run_context):
        """Called after each step."""

    def end(self, run_context):
        """Called once after training or evaluation."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


_EVENTS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
           "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
           "on_eval_step_begin", "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")


class CallbackList:
    """The callbacks of one run, called in order: ``CallbackList(callbacks).on_train_begin(ctx)``."""

    def __init__(self, callbacks, where="Model.train"):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        elif isinstance(callbacks, (list, tuple)):
            for cb in callbacks:
                if not isinstance(cb, Callback):
                    what = (f"the class {cb.__name__} itself" if isinstance(cb, type)
                            else f"a {type(cb).__name__}")
                    raise TypeError(f"{where}: every element of 'callbacks' must be a Callback, but got "
                                    f"{what}. Fix: pass a callback object (LossMonitor(), not LossMonitor), "
                                    "or subclass mindspore.train.Callback.")
            callbacks = list(callbacks)
        else:
            raise TypeError(f"{where}: 'callbacks' must be a Callback or a list of Callbacks, but got "
                            f"{type(callbacks).__name__}.")
        self.callbacks = callbacks

    def __getattr__(self, event):
        if event not in _EVENTS:
            raise AttributeError(event)

        def call_all(run_context):
            for cb in self.callbacks:
                getattr(cb, event)(run_context)
        return call_all
