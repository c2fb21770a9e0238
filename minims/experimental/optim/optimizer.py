"""``mindspore.experimental.optim.Optimizer``: the base of the PyTorch-like optimizers.

Unlike ``nn.Optimizer``, every setting lives in ``param_groups``, a list of dicts (one per group:
``'params'`` and every hyperparameter, the constructor's defaults filling what a group leaves
out), and any hyperparameter may differ between groups.  Each group's ``'lr'`` is a float32
Parameter (``learning_rate_group_0`` ...), which ``lr_scheduler`` classes and ``ops.assign``
change between steps.  ``optimizer(grads)`` takes one gradient per Parameter, in the order of
``optimizer.parameters`` (the groups' Parameters one after another).
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import Parameter, ParameterTuple, Tensor
from ...tensors.convert import _describe
from ...nn import Cell

__all__ = ["Optimizer"]


class Optimizer(Cell):
    """``Optimizer(params, defaults)``: ``params`` is Parameters or group dicts."""

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        where = type(self).__name__
        if params is None:
            raise ValueError(f"{where}: the argument params can not be None.")
        if isinstance(params, (Tensor, dict)) or not hasattr(params, "__iter__"):
            raise TypeError(f"{where}: params must be an iterable of Parameters or of group dicts, but got "
                            f"{_describe(params)}. Fix: net.trainable_params(), or [{{'params': [...]}}].")
        params = list(params)
        if not params:
            raise ValueError(f"{where}: params must not be empty.")
        self.defaults = defaults
        self.param_groups, self.lrs, self.group_start_id = [], [], [0]
        self._all = []
        for group in (params if isinstance(params[0], dict) else [{"params": params}]):
            self.add_param_group(group)
        self.parameters = ParameterTuple(self._all)

    def add_param_group(self, param_group):
        """Add a group (a dict with ``'params'``); its missing settings come from the defaults."""
        where = type(self).__name__
        if not isinstance(param_group, dict):
            raise TypeError(f"{where}: a param group must be a dict, but got {_describe(param_group)}.")
        group = dict(param_group)
        params = group.get("params")
        params = [params] if isinstance(params, Parameter) else params
        if isinstance(params, set):
            raise TypeError(f"{where}: parameters must be in an ordered collection (a list), not a set.")
        group["params"] = list(params)
        for p in group["params"]:
            if not isinstance(p, Parameter):
                raise TypeError(f"{where} can only optimize Parameters, but one of the params is {_describe(p)}.")
        if any(p is q for p in group["params"] for q in self._all):
            raise ValueError(f"{where}: some parameters appear in more than one parameter group.")
        for name, value in self.defaults.items():
            group.setdefault(name, value)
        group_id = len(self.param_groups)
        group["lr"] = self._lr_parameter(group["lr"], f"learning_rate_group_{group_id}")
        wd = group.get("weight_decay", 0.0)
        if isinstance(wd, bool) or not isinstance(wd, numbers.Real):
            raise TypeError(f"{where}: weight_decay must be int or float, but got {_describe(wd)}.")
        if wd < 0:
            raise ValueError(f"{where}: weight_decay must be >= 0, but got {wd}.")
        group["weight_decay"] = float(wd)
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self._all.extend(group["params"])
        self.group_start_id.append(self.group_start_id[-1] + len(group["params"]))
        if hasattr(self, "parameters"):                    # a group added after construction
            self.parameters = ParameterTuple(self._all)
            self._grow_state()

    def _grow_state(self):
        """Make the state of Parameters added by ``add_param_group`` (subclasses with state)."""

    def _lr_parameter(self, lr, name):
        where = type(self).__name__
        if isinstance(lr, Tensor) and not isinstance(lr, Parameter):
            if lr.ndim != 0:
                raise ValueError(f"{where}: a Tensor learning rate must be a scalar Tensor.")
            lr = float(lr.asnumpy())
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
            raise TypeError(f"{where}: the learning rate must be int, float or Tensor, but got {_describe(lr)}.")
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        return Parameter(Tensor(np.float32(lr)), name=name)

    def _state(self, prefix, fill=0.0):
        return ParameterTuple(Parameter(Tensor._make(np.full(p.shape, fill, dtype=p._data.dtype)),
                                        name=f"{prefix}.{p.name}", requires_grad=False) for p in self.parameters)

    def _groups(self, gradients):
        """``(group, its Parameters' indexes, its lr as float32)`` for each group."""
        if not isinstance(gradients, (tuple, list)) or len(gradients) != len(self.parameters):
            n = len(gradients) if isinstance(gradients, (tuple, list)) else _describe(gradients)
            raise ValueError(f"{type(self).__name__}: expected one gradient per parameter "
                             f"({len(self.parameters)}), but got {n}. Fix: differentiate with respect to "
                             "optimizer.parameters.")
        for i, group in enumerate(self.param_groups):
            yield group, range(self.group_start_id[i], self.group_start_id[i + 1]), group["lr"]

    def __repr__(self):
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    value = group[key]
                    shown = Tensor(value.asnumpy()) if isinstance(value, Parameter) else value
                    text += f"    {key}: {shown}\n"
        return text + ")"

    def construct(self, gradients):
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients).")

