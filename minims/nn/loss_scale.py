"""Loss scaling in a training Cell: ``nn.TrainOneStepWithLossScaleCell``, its update Cells
``nn.DynamicLossScaleUpdateCell`` and ``nn.FixedLossScaleUpdateCell``, and ``all_finite`` (also
``amp.all_finite``).

One step of ``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)(*inputs)``, as in
MindSpore 2.10:

1. the loss, and the gradients of ``loss * s`` for the loss scale ``s`` (the backward pass starts
   from ``s`` instead of 1, so every gradient is ``s`` times larger: small Float16 gradients stay
   above the underflow);
2. the gradients unscaled, ``g * cast(1/s, g.dtype)``;
3. overflow: a gradient that is not finite (inf or NaN, from a scale too large);
4. the update Cell, if ``scale_sense`` is one, adjusts ``s`` (``DynamicLossScaleUpdateCell``: halves it
   on an overflow, doubles it after ``scale_window`` steps without one);
5. the optimizer updates the weights unless the step overflowed (in a compiled graph, which has no
   Python ``if`` on a value, the optimizer runs and every Parameter it holds is given back its old
   value by a ``select`` when the step overflowed);
6. returns ``(loss, overflow, s)``, ``s`` being the ``scale_sense`` Parameter itself.

MindSpore 2.10's CPU build cannot run this Cell (it checks overflow with ``NPUGetFloatStatusV2``,
which has no CPU kernel); minims checks it with ``isfinite`` as MindSpore's ``all_finite`` does on
CPU.  The numbers were checked against MindSpore 2.10 running the same steps with that check.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..autodiff.grad_api import GradOperation, value_and_grad
from ..core.tensor import Tensor
from ..graph.tracing import is_staging
from ..primitives import functional as F
from ..tensors.convert import _describe
from ..tensors.parameter import Parameter
from .cell import Cell
from .wrap import TrainOneStepCell

__all__ = ["all_finite", "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell"]


def all_finite(inputs):
    """``amp.all_finite(inputs)``: a Bool Tensor of shape [], True when every element of every Tensor
    of ``inputs`` (a tuple or list of Tensors) is finite — no inf, no NaN."""
    if not isinstance(inputs, (tuple, list)) or not all(isinstance(x, Tensor) for x in inputs):
        raise TypeError(f"all_finite: inputs must be a tuple or list of Tensors (the gradients), but got "
                        f"{_describe(inputs)}. Fix: all_finite(grads), or all_finite((x,)) for one Tensor.")
    if not inputs:
        raise ValueError("all_finite: inputs is empty, so there is nothing to check (MindSpore: AddN needs at "
                         "least 1 element). Fix: pass the gradients, e.g. all_finite(grads).")
    bad = None
    for x in inputs:
        count = F.sum(F.cast(F.logical_not(F.lt(F.abs(x), float("inf"))), mstype.float32))
        bad = count if bad is None else F.add(bad, count)
    return F.lt(bad, 1.0)


def _unscaled(grads, scale):
    return tuple(F.mul(g, F.cast(F.reciprocal(scale), g.dtype)) for g in grads)


def _update_unless(overflow, optimizer, grads):
    """``optimizer(grads)``, then every Parameter it holds (the weights and its own state: moments,
    step count) set back to its value before the call where ``overflow`` is True."""
    before = [(p, F.mul(p, 1)) for p in _held(optimizer)]      # a copy: the reads below see the update
    optimizer(grads)
    for p, old in before:
        F.assign(p, F.select(overflow, old, p))


def _held(optimizer) -> list:
    """The Parameters an optimizer may write: those it updates, its own, and those in its tuples
    (``moments``, Adam's ``moment1`` ...)."""
    found = list(optimizer.parameters) + [p for _, p in optimizer.parameters_and_names()]
    for value in vars(optimizer).values():
        if isinstance(value, (tuple, list)):
            found.extend(p for p in value if isinstance(p, Parameter))
    return list({id(p): p for p in found}.values())


class DynamicLossScaleUpdateCell(Cell):
    """``nn.DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``: called as
    ``cell(loss_scale, overflow)`` it updates the Parameter ``loss_scale`` in place and returns
    ``overflow`` (MindSpore's rule, step by step)."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(scale_window, mstype.int32)
        self.scale_factor = Tensor(scale_factor, mstype.float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(1, mstype.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, mstype.int32), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, mstype.float32)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        on_overflow = F.select(overflow, F.maximum(F.mul(loss_scale, F.reciprocal(self.scale_factor)),
                                                   self.minimum_loss_scale), loss_scale)
        should_inc = F.le(self.scale_window, F.sub(self.cur_iter, self.last_overflow_iter))
        restart = F.logical_or(overflow, should_inc)
        F.assign(self.last_overflow_iter, F.select(restart, self.cur_iter, self.last_overflow_iter))
        grow = F.logical_and(should_inc, F.logical_not(overflow))
        F.assign(loss_scale, F.select(grow, F.mul(on_overflow, self.scale_factor), on_overflow))
        F.assign(self.cur_iter, F.add(self.cur_iter, 1))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """``nn.FixedLossScaleUpdateCell(loss_scale_value)``: the scale stays; returns ``overflow``."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: ``scale_sense`` is an
    update Cell (``DynamicLossScaleUpdateCell``, ``FixedLossScaleUpdateCell``) or a Tensor of shape
    [] or [1] (changed with ``set_sense_scale``).  A call returns ``(loss, overflow, scale)`` (module
    docstring)."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), mstype.float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(f"TrainOneStepWithLossScaleCell: the shape of 'scale_sense' must be (1,) or (), "
                                 f"but got {scale_sense.shape}. Fix: Tensor([1024.0], mindspore.float32).")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"TrainOneStepWithLossScaleCell: 'scale_sense' must be a Cell or a Tensor, but got "
                            f"{_describe(scale_sense)}. Fix: nn.DynamicLossScaleUpdateCell(2**12, 2, 1000) or "
                            "Tensor([1024.0], mindspore.float32).")
        self.grad = GradOperation(get_by_list=True, sens_param=True)

    def construct(self, *inputs):
        scale = self.scale_sense

        def objective(*xs):             # the backward pass starts from the loss scale
            loss = self.network(*xs)
            return F.mul(loss, F.cast(scale, loss.dtype)), loss
        (_, loss), grads = value_and_grad(objective, grad_position=None, weights=self.weights, has_aux=True)(*inputs)
        grads = _unscaled(grads, scale)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        if is_staging():
            _update_unless(overflow, self.optimizer, grads)
        elif not overflow:
            self.optimizer(grads)
        return loss, cond, scale

    def set_sense_scale(self, sens):
        """Give the loss scale a new value (a Tensor shaped like ``scale_sense``)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"TrainOneStepWithLossScaleCell: the type of 'sens' must be Tensor, but got "
                            f"{_describe(sens)}.")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """MindSpore's hook for clearing a device's overflow flags; on CPU nothing to clear."""
        return Tensor([0] * 8, mstype.int32), compute_input

    def grad_reducer(self, grads):
        """The gradients as they are (one device: nothing to reduce)."""
        return grads

    def get_overflow_status(self, status, compute_output):
        """A Bool Tensor: True when some gradient in ``compute_output`` is not finite."""
        return F.logical_not(all_finite(tuple(compute_output)))

    def process_loss_scale(self, overflow):
        """Run the update Cell (if any) on the loss scale; returns ``overflow``."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
