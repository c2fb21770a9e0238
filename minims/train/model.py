"""``mindspore.train.Model`` (also ``mindspore.Model``): training, evaluation and prediction in one
object, driving a data set pipeline and a list of callbacks.

``Model(net, loss_fn, optimizer, metrics)`` builds three networks, as MindSpore does:

* for training, ``nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)`` (with no
  ``loss_fn``, ``net`` already returns the loss; with no optimizer either, ``net`` is trained as is);
* for evaluation, ``nn.WithEvalCell(net, loss_fn)``, returning ``(loss, logits, label)``: every metric
  is updated with ``(logits, label)``, ``Loss`` with the loss (``eval_network=`` and
  ``eval_indexes=`` replace it);
* for prediction, ``net``.

``train(epoch, dataset)`` starts one iterator over ``dataset`` for all epochs, so a shuffle gives a
new order in each epoch, exactly as in MindSpore; each batch is ``(data, label)``.  The order of the
callback calls and the fields of ``cb_params`` are described in ``callback/callback.py``.
``dataset_sink_mode=True`` runs step by step, as MindSpore 2.10 does on CPU.
"""
from __future__ import annotations

from .. import Tensor
from ..tensors.convert import _describe
from ..nn import Cell, TrainOneStepCell, WithEvalCell, WithLossCell
from .callback import CallbackList, CallbackParams, RunContext
from .metrics import Loss, get_metrics

__all__ = ["Model"]

# the callbacks Model.fit leaves out of the evaluation after each epoch (MindSpore's own, but TimeMonitor)
_TRAIN_ONLY = {"LossMonitor", "ModelCheckpoint", "EpochLog"}


def _positive_int(where, name, value, low=1):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: {name} must be an int, but got {_describe(value)}.")
    if value < low:
        raise ValueError(f"{where}: {name} must be >= {low}, but got {value}.")
    return value


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level='O0', boost_level='O0')``."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
                 amp_level="O0", boost_level="O0", **kwargs):
        where = "Model"
        if not isinstance(network, Cell):
            raise TypeError(f"{where}: network must be a Cell, but got {_describe(network)}.")
        if loss_fn is not None and not isinstance(loss_fn, Cell):
            raise TypeError(f"{where}: loss_fn must be a loss Cell (e.g. nn.SoftmaxCrossEntropyWithLogits()), "
                            f"but got {_describe(loss_fn)}. Fix: wrap a loss function in a Cell.")
        if optimizer is not None and not (isinstance(optimizer, Cell) and hasattr(optimizer, "parameters")):
            raise TypeError(f"{where}: optimizer must be an optimizer (nn.SGD, nn.Momentum, nn.Adam ...), but "
                            f"got {_describe(optimizer)}.")
        if amp_level not in ("O0", None) or boost_level not in ("O0", None):
            raise NotImplementedError(f"{where}: mixed precision (amp_level={amp_level!r}, boost_level="
                                      f"{boost_level!r}) is not implemented in minims. Fix: amp_level='O0'.")
        extra = sorted(k for k, v in kwargs.items() if v is not None)
        if extra:
            raise NotImplementedError(f"{where}: {extra} are not implemented in minims (no loss scaling, one "
                                      "device).")
        self._network, self._loss_fn, self._optimizer = network, loss_fn, optimizer
        self._train_network = self._build_train_network()
        self._metric_fns = get_metrics(metrics)
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network, eval_indexes)

    # ----- the three networks --------------------------------------------------------------------
    def _build_train_network(self):
        network = self._network
        if self._optimizer is not None:
            if self._loss_fn is not None:
                network = WithLossCell(network, self._loss_fn)
            return TrainOneStepCell(network, self._optimizer)
        if self._loss_fn is not None:
            return WithLossCell(network, self._loss_fn)
        return network

    def _build_eval_network(self, eval_network, eval_indexes):
        if eval_network is not None:
            if not isinstance(eval_network, Cell):
                raise TypeError(f"Model: eval_network must be a Cell, but got {_describe(eval_network)}.")
            if eval_indexes is not None and not (isinstance(eval_indexes, list) and len(eval_indexes) == 3):
                raise ValueError(f"Model: eval_indexes must be None or a list of three indexes (loss, "
                                 f"prediction, label in the eval network's outputs), but got {eval_indexes!r}.")
            return eval_network, eval_indexes
        if not self._metric_fns:
            return None, None
        if self._loss_fn is None:
            raise ValueError("Model: metrics are set, so the model needs an evaluation network: give loss_fn "
                             "(the model then evaluates nn.WithEvalCell(network, loss_fn)) or eval_network. "
                             "Fix: Model(net, loss_fn, optimizer, metrics=...), or leave metrics out.")
        return WithEvalCell(self._network, self._loss_fn), [0, 1, 2]

    @property
    def train_network(self):
        return self._train_network

    @property
    def eval_network(self):
        return self._eval_network

    @property
    def predict_network(self):
        return self._network

    # ----- training ------------------------------------------------------------------------------
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for ``epoch`` epochs over ``train_dataset`` (batches of ``(data, label)``)."""
        self._check_run("Model.train", epoch, train_dataset, dataset_sink_mode, sink_size, initial_epoch)
        self._train(epoch, train_dataset, CallbackList(callbacks, "Model.train"), initial_epoch, None)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """``train``, evaluating on ``valid_dataset`` after every ``valid_frequency``-th epoch (or after
        the epochs listed); ``LossMonitor`` prints the results."""
        self._check_run("Model.fit", epoch, train_dataset, dataset_sink_mode, sink_size, initial_epoch)
        if not isinstance(valid_frequency, (int, list)) or isinstance(valid_frequency, bool):
            raise TypeError(f"Model.fit: valid_frequency must be an int or a list of epochs, but got "
                            f"{_describe(valid_frequency)}.")
        if valid_dataset is not None and not self._metric_fns:
            raise ValueError("Model.fit: a valid_dataset needs metrics. Fix: Model(..., metrics={'accuracy'}).")
        valid = (valid_dataset, valid_frequency) if valid_dataset is not None else None
        self._train(epoch, train_dataset, CallbackList(callbacks, "Model.fit"), initial_epoch, valid)

    def _check_run(self, where, epoch, dataset, sink_mode, sink_size, initial_epoch):
        _positive_int(where, "epoch", epoch)
        _positive_int(where, "initial_epoch", initial_epoch, 0)
        if initial_epoch >= epoch:
            raise ValueError(f"For '{where}', the parameter 'epoch' must bigger than parameter 'initial_epoch', "
                             f"but got the parameter 'epoch' is {epoch}, 'initial_epoch' is {initial_epoch}.")
        if not hasattr(dataset, "create_tuple_iterator"):
            raise TypeError(f"{where}: the data set must be a mindspore.dataset pipeline (e.g. "
                            f"NumpySlicesDataset(...).batch(32)), but got {_describe(dataset)}. Fix: wrap "
                            "arrays with dataset.NumpySlicesDataset((x, y), column_names=['data', 'label']).")
        if not isinstance(sink_mode, bool):
            raise TypeError(f"{where}: dataset_sink_mode must be a bool, but got {_describe(sink_mode)}.")
        if sink_size != -1 and (isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size <= 0):
            raise ValueError(f"For '{where}', the argument 'sink_size' must be -1 or positive, but got {sink_size}.")
        if sink_mode and sink_size != -1:
            raise NotImplementedError(f"{where}: sink_size is not implemented in minims (each epoch is one pass "
                                      "over the data set). Fix: leave sink_size=-1.")
        if dataset.get_dataset_size() == 0:
            raise ValueError(f"{where}: there is no valid data in the data set (it gives no batch). Fix: check "
                             "the source, and batch(..., drop_remainder=True) with a batch larger than the data.")

    def _train(self, epoch, dataset, callbacks, initial_epoch, valid):
        batch_num = dataset.get_dataset_size()
        cb_params = CallbackParams(
            train_network=self._train_network, epoch_num=epoch, batch_num=batch_num,
            cur_step_num=initial_epoch * batch_num, dataset_sink_mode=False, device_number=1,
            initial_step=None, last_save_ckpt_step=None, latest_ckpt_file=None,
            list_callback=callbacks.callbacks, loss_fn=self._loss_fn, loss_scale_mananger=None,  # MindSpore's spelling
            mode="train", network=self._network,
            optimizer=self._optimizer, parallel_mode="stand_alone", train_dataset=dataset,
            train_dataset_element=None)
        run_context = RunContext(cb_params)
        callbacks.on_train_begin(run_context)
        rows = dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = i + 1
            callbacks.on_train_epoch_begin(run_context)
            for row in rows:
                if self._loss_fn is not None and len(row) != 2:
                    raise ValueError(f"Model.train: with a loss_fn each batch of the data set must be (data, "
                                     f"label), two columns, but it has {len(row)}. Fix: keep two columns "
                                     "(dataset.project(['image', 'label'])).")
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = row
                callbacks.on_train_step_begin(run_context)
                self._train_network.set_train(True)
                cb_params.net_outputs = self._train_network(*row)
                callbacks.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and _should_eval(cb_params.cur_epoch_num, valid[1]):
                self._eval_during_train(valid[0], cb_params, callbacks)
            callbacks.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        callbacks.on_train_end(run_context)

    def _eval_during_train(self, dataset, cb_params, callbacks):
        saved = {k: cb_params.get(k) for k in ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")}
        eval_callbacks = CallbackList([cb for cb in callbacks.callbacks if type(cb).__name__ not in _TRAIN_ONLY])
        cb_params.update(eval_network=self._eval_network, valid_dataset=dataset,
                         batch_num=dataset.get_dataset_size(), mode="eval", cur_step_num=0)
        self._clear_metrics()
        self._eval_process(dataset, eval_callbacks, cb_params, add_eval_loss=True)
        cb_params.mode = "train"
        cb_params.update(saved)

    # ----- evaluation and prediction ---------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """The metrics over ``valid_dataset``, as a dict ``{name: value}``."""
        if not self._metric_fns:
            raise ValueError("Model.eval: the model has no metrics. Fix: Model(net, loss_fn, optimizer, "
                             "metrics={'accuracy'}).")
        if not hasattr(valid_dataset, "create_tuple_iterator"):
            raise TypeError(f"Model.eval: the data set must be a mindspore.dataset pipeline, but got "
                            f"{_describe(valid_dataset)}.")
        callbacks = CallbackList(callbacks, "Model.eval")
        cb_params = CallbackParams(eval_network=self._eval_network, valid_dataset=valid_dataset,
                                   batch_num=valid_dataset.get_dataset_size(), mode="eval", cur_step_num=0,
                                   list_callback=callbacks.callbacks, network=self._network)
        self._clear_metrics()
        return self._eval_process(valid_dataset, callbacks, cb_params)

    def _eval_process(self, dataset, callbacks, cb_params, add_eval_loss=False):
        run_context = RunContext(cb_params)
        cb_params.dataset_sink_mode = False
        callbacks.on_eval_begin(run_context)
        callbacks.on_eval_epoch_begin(run_context)
        eval_loss = Loss() if add_eval_loss else None
        for row in dataset.create_tuple_iterator(num_epochs=1):
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = row
            callbacks.on_eval_step_begin(run_context)
            self._eval_network.set_train(False)
            outputs = self._eval_network(*row)
            cb_params.net_outputs = outputs
            callbacks.on_eval_step_end(run_context)
            self._update_metrics(outputs)
            if eval_loss is not None:
                eval_loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        callbacks.on_eval_epoch_end(run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        if eval_loss is not None:
            cb_params.eval_results = {**metrics, "eval_loss": eval_loss.eval()}
        callbacks.on_eval_end(run_context)
        return metrics

    def _clear_metrics(self):
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs):
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, tuple):
            raise ValueError(f"Model.eval: the eval network must return a Tensor or a tuple, but returned "
                             f"{_describe(outputs)}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: the eval network returned {len(outputs)} outputs; eval_indexes needs "
                             "three (loss, prediction, label).")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    def predict(self, *predict_data, backend=None, config=None):
        """The network's output for ``predict_data`` (Tensors), in inference mode (``set_train(False)``)."""
        if backend not in (None, "lite"):
            raise ValueError(f"Model.predict: backend should be 'lite' or None, but got {backend!r}.")
        for i, x in enumerate(predict_data):
            if not isinstance(x, (Tensor, list, tuple, int, float)) and x is not None:
                raise TypeError(f"Model.predict: input {i} must be a Tensor, but got {_describe(x)}.")
        self._network.set_train(False)
        return self._network(*predict_data)


def _should_eval(epoch, frequency):
    return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency
