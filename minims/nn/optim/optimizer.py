"""``nn.Optimizer``: the base of SGD, Momentum and Adam — parameter groups, learning rate, weight
decay, loss scale, and the checks on the gradients it is given.

``optimizer(grads)`` takes one gradient per parameter (the tuple ``GradOperation(get_by_list=True)``
returns, in the order of ``optimizer.parameters``) and updates the Parameters in place.  Before a
subclass's rule (``_update``) runs, each gradient is prepared as in MindSpore:

1. weight decay: ``g = g + weight_decay * loss_scale * param`` (not for parameters whose name
   contains ``beta`` or ``gamma`` — BatchNorm's shift and scale — unless groups say otherwise);
   ``weight_decay`` may be a Cell, called with the step counter on every step (dynamic weight
   decay; MindSpore refuses other callables);
2. loss scale: ``g = g / loss_scale`` (undoes a loss that was multiplied by ``loss_scale``).

The learning rate is a number, a list with one rate per step (``dynamic_lr.py``) or a
``LearningRateSchedule`` Cell (``nn/learning_rate_schedule.py``), called with ``global_step``.

The update is written with minims ops and stored with ``ops.assign``, as MindSpore's optimizers
do: it is never differentiated, and in Graph mode (a compiled ``TrainOneStepCell``) the writes are
effects of the graph, so they happen on every run.  For the same reason every piece of state — the
moments, the step counter, Adam's ``beta1**t`` — lives in a Parameter (``requires_grad=False``)
rather than in a Python number, which a compiled graph would freeze at its value when traced.
"""
from __future__ import annotations

import inspect
import math
import numbers

import numpy as np

from ... import dtype as mstype
from ...tensors.parameter import Parameter, ParameterTuple
from ... import ops
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ..cell import Cell
from ..param_names import DuplicateParameterError

__all__ = ["Optimizer", "DuplicateParameterError"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


def _as_list(parameters, where):
    if isinstance(parameters, (Tensor, dict)) or parameters is None:
        raise TypeError(f"{where}: expected a list (or generator, filter ...) of Parameters or of group "
                        f"dicts, but got {_describe(parameters)}.")
    if inspect.ismethod(parameters) or inspect.isfunction(parameters):
        raise TypeError(f"{where}: expected Parameters, but got the function {getattr(parameters, '__name__', '?')} itself, not "
                        "what it returns. "
                        "Fix: call it: net.trainable_params() with the parentheses.")
    try:
        items = list(parameters)
    except TypeError:
        raise TypeError(f"{where}: expected an iterable of Parameters, but got {_describe(parameters)}. "
                        "Fix: pass net.trainable_params().") from None
    if not items:
        raise ValueError(f"{where}: the list of parameters is empty (was a generator already used up? "
                         "net.get_parameters() can be iterated only once).")
    return items


def _check_float(where, name, value, minimum=0.0, strict=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a float, but got {_describe(value)}. "
                        f"Fix: pass a number, e.g. {name}=0.01 (float(text) if it was read as text).")
    if not math.isfinite(value):                 # ValueError, as MindSpore ("must be a legal value")
        raise ValueError(f"{where}: {name} must be a finite number, but got {value}. Fix: pass a legal "
                         f"value, e.g. {name}=0.01.")
    if value < minimum or (strict and value == minimum):
        rel = ">" if strict else ">="
        raise ValueError(f"{where}: {name} must be {rel} {minimum}, but got {value}. "
                         f"Fix: pass a {'positive' if strict else 'non-negative'} {name}.")
    return float(value)


def _check_unique_names(params, where):
    """Each Parameter once, and no two different Parameters of one name (MindSpore: ValueError "its
    name 'w' already exists"): an optimizer keeps its state by name."""
    seen = {}
    ids = set()
    for p in params:
        other = seen.setdefault(p.name, p)
        if other is p and id(p) not in ids:
            ids.add(id(p))
            continue
        if other is p:
            raise DuplicateParameterError(
                f"{where}: the parameter(s) ['{p.name}'] appear more than once (the same Parameter "
                "twice). Fix: give each Parameter to the optimizer once.")
        raise DuplicateParameterError(
            f"{where}: the parameter(s) ['{p.name}'] appear more than once: two different Parameters, "
            f"{other} and {p}, are both named '{p.name}' — its name '{p.name}' already exists. "
            "Fix: give each Parameter its own name= (net.check_names() says which attributes hold "
            "them), or call the network once before making the optimizer: its first call renames "
            "every Parameter to its attribute path, as in MindSpore.")


def _check_weight_decay(where, value):
    """A number >= 0, or a Cell called with the step counter (dynamic weight decay)."""
    if isinstance(value, Cell):
        return value
    if callable(value):
        raise TypeError(f"{where}: weight_decay must be int, float or Cell, but got the function "
                        f"{getattr(value, '__name__', type(value).__name__)}. Fix: wrap it in a Cell whose "
                        "construct(global_step) returns the decay, as MindSpore requires.")
    return _check_float(where, "weight_decay", value)


def _has_decay(wd):
    """Whether a weight decay (a number or a Cell) decays at all."""
    return isinstance(wd, Cell) or wd > 0


class _LearningRate:
    """A learning rate: a number, kept in a Parameter (so ``ops.assign`` can change it), a 1-D
    schedule with one rate per step (the last rate repeats once the schedule is used up), or a
    Cell (a ``LearningRateSchedule``) called with the step counter."""

    def __init__(self, value, name, where):
        self.cell = None
        if isinstance(value, Cell):
            self.cell, self.schedule, self.param = value, None, None
        elif isinstance(value, (list, tuple)) or (isinstance(value, Tensor) and value.ndim == 1):
            rates = np.asarray(value._data if isinstance(value, Tensor) else value, dtype=np.float32)
            if rates.ndim != 1 or rates.size == 0 or (rates < 0).any() or not np.isfinite(rates).all():
                raise ValueError(f"{where}: a learning-rate schedule must be a non-empty list of "
                                 f"finite non-negative numbers, but got {value!r}.")
            self.schedule = Tensor(rates)
            self.param = None
        else:
            if isinstance(value, Tensor):
                if value.ndim != 0:
                    raise ValueError(f"{where}: a Tensor learning rate must be 0-d or 1-D, got shape "
                                     f"{list(value.shape)}.")
                value = float(value.item())
            value = _check_float(where, "learning_rate", value)
            self.schedule = None
            self.param = Parameter(Tensor(value, mstype.float32), name=name, requires_grad=False)

    def at(self, step):
        """The rate at ``step`` (the int32 Parameter ``global_step``, shape [1]), as a Tensor; ops
        only, so that a compiled step reads the step counter's current value."""
        if self.cell is not None:
            return ops.reshape(ops.cast(self.cell(step), mstype.float32), ())
        if self.schedule is None:
            return self.param
        n = self.schedule.shape[0]
        index = ops.minimum(step, n - 1)
        # schedule[index] as a sum against a one-hot row: no Python-side read of the step's value
        hit = ops.cast(ops.equal(Tensor(np.arange(n, dtype=np.int32)), index), mstype.float32)
        return ops.sum(ops.mul(self.schedule, hit))


class Optimizer(Cell):
    """``nn.Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    ``parameters``: Parameters (a list, ``net.trainable_params()``, a generator or a ``filter``), or
    group dicts ``[{'params': [...], 'weight_decay': 0.01, 'lr': 0.1}, {'params': [...]},
    {'order_params': net.trainable_params()}]`` (``order_params`` fixes the order of
    ``self.parameters``, and so of the gradients the optimizer expects).
    Subclasses define ``_update(i, param, grad, lr)``: the parameter's new value, written in ops.
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        where = type(self).__name__
        items = _as_list(parameters, where)
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        self.loss_scale = _check_float(where, "loss_scale", loss_scale, 0.0, strict=True)
        weight_decay = _check_weight_decay(where, weight_decay)
        default_lr = _LearningRate(learning_rate, "learning_rate", where)
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step", requires_grad=False)
        if all(isinstance(p, Parameter) for p in items):
            self.is_group = False
            params = items
            lrs = [default_lr] * len(params)
            # MindSpore's default: no decay for BatchNorm's gamma and beta
            decays = [weight_decay if ("beta" not in p.name and "gamma" not in p.name) else 0.0
                      for p in params]
        elif all(isinstance(p, dict) for p in items):
            self.is_group = True
            params, lrs, decays = self._parse_groups(items, default_lr, weight_decay, where)
        else:
            raise TypeError(f"{where}: parameters must be all Parameters or all group dicts, but got "
                            f"{[type(p).__name__ for p in items]}. Fix: pass net.trainable_params(), "
                            "or wrap each tensor as Parameter(tensor, name=...).")
        _check_unique_names(params, where)
        self.parameters = ParameterTuple(params)
        self._parameters = self.parameters
        self._lrs = lrs
        self.is_group_lr = len({id(lr) for lr in lrs}) > 1
        default = default_lr.cell if default_lr.cell is not None else default_lr.param
        self.learning_rate = default if not self.is_group_lr else None
        self.dynamic_weight_decay = any(isinstance(wd, Cell) for wd in decays)
        self.weight_decay = weight_decay
        self._decays = decays

    def _parse_groups(self, groups, default_lr, weight_decay, where):
        params, lrs, decays, order = [], [], [], None
        for num, group in enumerate(groups):
            bad = [k for k in group if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"{where}: group keys must be among {list(_GROUP_KEYS)}, but got {bad}.")
            if "order_params" in group:
                if len(group) > 1:
                    raise ValueError(f"{where}: the 'order_params' dict must have no other key, got {list(group)}.")
                order = _as_list(group["order_params"], f"{where} order_params")
                continue
            if "params" not in group:
                raise KeyError(f"{where}: group {num} has no 'params' key.")
            if group.get("grad_centralization"):
                raise NotImplementedError(f"{where}: grad_centralization is not implemented in minims.")
            group_params = _as_list(group["params"], f"{where} group {num}")
            for p in group_params:
                if not isinstance(p, Parameter):
                    raise TypeError(f"{where}: group {num} holds {_describe(p)}; groups must hold Parameters.")
            lr = (_LearningRate(group["lr"], f"learning_rate_group_{num}", where) if "lr" in group
                  else default_lr)
            wd = (_check_weight_decay(where, group["weight_decay"]) if "weight_decay" in group
                  else weight_decay)
            params += group_params
            lrs += [lr] * len(group_params)
            decays += [wd] * len(group_params)
        if order is not None:
            index = {p.name: i for i, p in enumerate(params)}
            if len(order) != len(params) or any(p.name not in index for p in order):
                raise ValueError(f"{where}: 'order_params' must list exactly the grouped parameters "
                                 f"({len(params)}), but lists {len(order)} "
                                 f"({[p.name for p in order if p.name not in index]} not grouped).")
            perm = [index[p.name] for p in order]
            params, lrs, decays = ([seq[i] for i in perm] for seq in (params, lrs, decays))
        return params, lrs, decays

    # ----- the pieces MindSpore exposes to custom optimizers --------------------------------------
    def get_lr(self):
        """The learning rate of this step, a float32 Tensor (a tuple of them, one per parameter,
        when groups set their own)."""
        if self.is_group_lr:
            return tuple(lr.at(self.global_step) for lr in self._lrs)
        return self._lrs[0].at(self.global_step)

    def get_weight_decay(self):
        """The weight decay of this step (a Tensor where it is a Cell; a tuple with groups)."""
        if self.is_group:
            return tuple(self._decay_at(wd) for wd in self._decays)
        return self._decay_at(self.weight_decay)

    def _decay_at(self, wd):
        return ops.reshape(ops.cast(wd(self.global_step), mstype.float32), ()) if isinstance(wd, Cell) else wd

    def decay_weight(self, gradients):
        """``g + weight_decay * loss_scale * param`` for each parameter with a decay."""
        out = []
        for p, g, wd in zip(self.parameters, gradients, self._decays):
            if _has_decay(wd):
                rate = self._decay_at(wd)
                scaled = ops.mul(ops.cast(rate, p.dtype), self.loss_scale) if isinstance(wd, Cell) else wd * self.loss_scale
                g = ops.add(g, ops.mul(p, scaled))
            out.append(g)
        return tuple(out)

    def scale_grad(self, gradients):
        """``g / loss_scale``."""
        if self.loss_scale == 1.0:
            return tuple(gradients)
        return tuple(ops.mul(g, 1.0 / self.loss_scale) for g in gradients)

    def _check_grads(self, gradients):
        """One gradient per parameter, each of its parameter's shape, cast to its dtype."""
        where = type(self).__name__
        if isinstance(gradients, Tensor) or not isinstance(gradients, (tuple, list)):
            raise TypeError(f"{where}: expected a tuple of gradients (one per parameter), but got "
                            f"{_describe(gradients)}. Fix: pass the tuple that "
                            "GradOperation(get_by_list=True)(net, optimizer.parameters) returns, "
                            "or (dw,) for a single parameter.")
        if len(gradients) != len(self.parameters):
            raise ValueError(
                f"{where}: got {len(gradients)} gradients for {len(self.parameters)} parameters "
                f"({[p.name for p in self.parameters]}). Fix: differentiate with respect to "
                "optimizer.parameters, e.g. GradOperation(get_by_list=True)(net, optimizer.parameters).")
        out = []
        for p, g in zip(self.parameters, gradients):
            if not isinstance(g, Tensor):
                raise TypeError(f"{where}: the gradient of parameter '{p.name}' must be a Tensor, but got "
                                f"{_describe(g)}.")
            if tuple(g.shape) != tuple(p.shape):
                raise ValueError(f"{where}: the gradient of parameter '{p.name}' has shape {list(g.shape)}, but "
                                 f"the parameter has shape {list(p.shape)}. Are the gradients in the order "
                                 "of optimizer.parameters?")
            out.append(ops.cast(g, p.dtype))
        return tuple(out)

    @staticmethod
    def _state(params, prefix, fill=0.0):
        """One zero (or ``fill``) Parameter per parameter, named ``prefix.name`` (MindSpore's clone)."""
        return ParameterTuple(Parameter(Tensor._make(np.full(p.shape, fill, dtype=p._data.dtype)),
                                        name=f"{prefix}.{p.name}", requires_grad=False) for p in params)

    def construct(self, gradients):
        grads = self._check_grads(gradients)
        grads = self.scale_grad(self.decay_weight(grads))
        lr = self.get_lr()
        step_lrs = lr if self.is_group_lr else (lr,) * len(grads)
        self._begin_step()
        if not self._update_arrays(grads, step_lrs):
            for i, (p, g, rate) in enumerate(zip(self.parameters, grads, step_lrs)):
                ops.assign(p, self._update(i, p, g, ops.cast(rate, p.dtype)))
        ops.assign(self.global_step, ops.add(self.global_step, 1))
        return True

    def _update_arrays(self, grads, lrs) -> bool:
        """Apply ``_update`` to every parameter on NumPy arrays where that gives the same bits
        (``eager_update.py``); False: not done, run the ops."""
        return False

    def _begin_step(self):
        """Per-step state shared by all parameters (Adam's beta powers)."""

    def _update(self, i, param, grad, lr):
        """The new value of ``param`` (a Tensor) from its gradient and the rate ``lr``, in ops."""
        raise NotImplementedError(f"{type(self).__name__} must define _update(i, param, grad, lr).")
