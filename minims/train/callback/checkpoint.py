"""``ModelCheckpoint`` and ``CheckpointConfig``: save checkpoints while ``Model.train`` runs.

Every ``save_checkpoint_steps`` steps (counted over all epochs), and once more at the end of
training unless the last step was just saved, ``ModelCheckpoint`` writes
``{directory}/{prefix}-{epoch}_{step in epoch}.ckpt`` with ``minims.save_checkpoint`` (MindSpore's
``.ckpt`` format), keeping the newest ``keep_checkpoint_max`` files it wrote.  If files of that
prefix are already in the directory, the prefix becomes ``prefix_1`` (then ``prefix_2`` ...), so a
second run never overwrites the first, as in MindSpore.

What is saved: the training network's Parameters — the network's weights and the optimizer's
(``global_step``, ``learning_rate``, its moments ...) — or ``saved_network``'s with
``CheckpointConfig(saved_network=net)``.  No ``-graph.meta`` file is written (MindSpore writes one
in Graph mode).  Saving by time (``save_checkpoint_seconds``, ``keep_checkpoint_per_n_minutes``)
is not implemented: it would make the files depend on the machine's speed.
"""
from __future__ import annotations

import os
import re

from ... import Parameter, ParameterTuple, save_checkpoint
from ...nn import Cell
from .callback import Callback

__all__ = ["CheckpointConfig", "ModelCheckpoint"]


def _non_negative_int(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"CheckpointConfig: {name} must be an int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"CheckpointConfig: {name} must be >= 0, but got {value}.")
    return value


class CheckpointConfig:
    """``CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
    keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
    append_info=None, ...)``."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False, saved_network=None,
                 append_info=None, enc_key=None, enc_mode="AES-GCM", exception_save=False, **kwargs):
        if save_checkpoint_seconds or keep_checkpoint_per_n_minutes:
            raise NotImplementedError("CheckpointConfig: saving by time (save_checkpoint_seconds, "
                                      "keep_checkpoint_per_n_minutes) is not implemented in minims. Fix: use "
                                      "save_checkpoint_steps and keep_checkpoint_max.")
        if enc_key is not None:
            raise NotImplementedError("CheckpointConfig: encrypted checkpoints are not implemented in minims.")
        self.save_checkpoint_steps = _non_negative_int("save_checkpoint_steps", save_checkpoint_steps)
        self.keep_checkpoint_max = _non_negative_int("keep_checkpoint_max", keep_checkpoint_max)
        # as MindSpore reports them once steps decide when to save
        self.save_checkpoint_seconds = None if save_checkpoint_steps else save_checkpoint_seconds
        self.keep_checkpoint_per_n_minutes = None if keep_checkpoint_max else keep_checkpoint_per_n_minutes
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"CheckpointConfig: saved_network must be a Cell, but got {type(saved_network).__name__}.")
        self.integrated_save, self.async_save = bool(integrated_save), bool(async_save)
        self.saved_network = saved_network
        self.append_dict = _append_info(append_info)
        self.enc_key, self.enc_mode, self.exception_save = enc_key, enc_mode, exception_save


def _append_info(info):
    """``append_info``: a list of ``'epoch_num'``/``'step_num'`` and at most one dict of extra values."""
    if info is None:
        return None
    if not isinstance(info, list):
        raise TypeError(f"CheckpointConfig: append_info must be a list, but got {type(info).__name__}.")
    out = {}
    for item in info:
        if item in ("epoch_num", "step_num"):
            out[item] = 0
        elif isinstance(item, dict):
            out.update(item)
        else:
            raise ValueError(f"CheckpointConfig: append_info holds 'epoch_num', 'step_num' or a dict, not {item!r}.")
    return out


def _state(cell):
    """``[(name, Parameter)]`` of a Cell and of the ParameterTuples its Cells hold (an optimizer's
    moments), each Parameter once: what a checkpoint of a training network holds."""
    out, seen = [], set()

    def add(p):
        if id(p) not in seen:
            seen.add(id(p))
            out.append({"name": p.name, "data": p})

    for p in cell.get_parameters():
        add(p)
    for _, sub in cell.cells_and_names():
        for value in vars(sub).values():
            if isinstance(value, ParameterTuple):
                for p in value:
                    if isinstance(p, Parameter):
                        add(p)
    return out


class ModelCheckpoint(Callback):
    """``ModelCheckpoint(prefix='CKP', directory=None, config=None)``: checkpoints while training."""

    def __init__(self, prefix="CKP", directory=None, config=None, train_mode=None):
        super().__init__()
        if not isinstance(prefix, str) or "/" in prefix or not prefix:
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is "
                             f"invalid, it must be a string that does not contain '/', but got {prefix}.")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, but got {type(config).__name__}.")
        self._prefix = prefix
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        self._config = config if config is not None else CheckpointConfig()
        os.makedirs(self._directory, exist_ok=True)          # as MindSpore: at construction
        self._written = []
        self._last_step = None
        self._prefix_checked = False
        self.latest_ckpt_file_name = ""

    def _free_prefix(self):
        """The prefix, or ``prefix_N`` with the first N no file in the directory starts with."""
        if not os.path.isdir(self._directory):
            return self._prefix
        taken = os.listdir(self._directory)
        prefix, n = self._prefix, 0
        while any(re.match(re.escape(prefix) + r"-\d+_\d+\.ckpt$", f) for f in taken):
            n += 1
            prefix = f"{self._prefix}_{n}"
        return prefix

    def on_train_step_end(self, run_context):
        steps = self._config.save_checkpoint_steps
        cb_params = run_context.original_args()
        if steps and cb_params.cur_step_num % steps == 0:
            self._save(cb_params)

    def on_train_end(self, run_context):
        cb_params = run_context.original_args()
        if self._last_step != cb_params.cur_step_num:
            self._save(cb_params)

    def _save(self, cb_params):
        if not self._prefix_checked:
            self._prefix, self._prefix_checked = self._free_prefix(), True
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        path = os.path.join(self._directory, f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.ckpt")
        network = self._config.saved_network or cb_params.train_network
        append = self._config.append_dict
        if append is not None:
            append = dict(append)
            if "epoch_num" in append:
                append["epoch_num"] = cb_params.cur_epoch_num
            if "step_num" in append:
                append["step_num"] = cb_params.cur_step_num
        save_checkpoint(_state(network), path, integrated_save=self._config.integrated_save,
                        append_dict=append)
        self._written.append(path)
        keep = self._config.keep_checkpoint_max
        while keep and len(self._written) > keep:
            old = self._written.pop(0)
            if os.path.exists(old):
                os.remove(old)
        self._last_step = cb_params.cur_step_num
        self.latest_ckpt_file_name = path
