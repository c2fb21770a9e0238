"""MindSpore's ``Primitive`` on top of the core's: its constructor check, its messages, its API, and
the flags only some layers read — installed on ``minims.core.primitive.Primitive``.

The core's ``Primitive`` is a row of the table and nothing else.  MindSpore users also meet

* ``ops.ReLU(x)`` — an input given to the constructor: a TypeError naming the right spelling;
* a NumPy failure inside ``impl`` as the primitive's own error naming its inputs (and, for a user's
  primitive, ending at the user's line: ``minims.tracebacks.explained``); a huge allocation as
  ``TensorTooLarge`` with what to check;
* ``add_prim_attr``, ``init_prim_io_names``, ``PrimitiveWithInfer``.

The flags below are read by one layer each, and declared here with their defaults:

* ``takes_booleans`` — the symbolic interpreter: the ``sympy`` rule takes relationals as they are
  (comparisons, logic, select, cast, shape ops); for the others it turns a relational into 1/0 first;
* ``fast_kernel`` — the table: ``"module.function"`` of the Numba kernel in ``minims.fast`` that
  ``impl`` calls when the fast path is on;
* ``fix_shape(self, args, value_of)`` — a graph being compiled: for a primitive whose output *shape*
  depends on the values of an input (indexing by a Bool mask), the primitive with that shape fixed;
* ``fused_sympy(self, dtype, *inputs)`` — graph fusion: the scalar form compiled for a result of
  ``dtype`` when it must differ from the ``sympy`` rule (an exact form that loses every digit in
  floats, a float behaviour of the NumPy kernel SymPy cannot say), or None where the primitive must
  not be fused in that dtype.  Absent: fusion prints the ``sympy`` rule.
"""
from __future__ import annotations

import re

from ..core.stack import MinimsError
from ..core.primitive import NoGradientRule, NoJvpRule, Primitive, gradient_mask, has_rule, wants_grad
from ..core import install
from ..tensors.convert import describe, describe_args
from ..tensors.memory import TensorTooLarge
from ..tracebacks import explained

__all__ = ["Primitive", "PrimitiveWithInfer", "NoGradientRule", "NoJvpRule", "MinimsError", "wants_grad",
           "needed_mask", "gradient_mask", "run_bprop", "has_rule"]


def needed_mask():
    """The mask :func:`wants_grad` reads (None outside a masked rule; entry i falsy when input i
    needs no gradient); for tests and debugging."""
    return gradient_mask.mask


def run_bprop(prim, needed: tuple, args):
    """``prim.bprop(*args)``, with :func:`wants_grad` answering from ``needed`` while it runs; the
    previous mask is restored afterwards (a rule may itself run a nested backward pass)."""
    saved, gradient_mask.mask = gradient_mask.mask, needed
    try:
        return prim.bprop(*args)
    finally:
        gradient_mask.mask = saved


def _init(self, name: str | None = None):
    if name is not None:
        if not isinstance(name, str):       # ops.ReLU(x): the input given to the constructor
            raise TypeError(_created_bare(type(self).__name__, name))
        self._name = name


def _created_bare(cls: str, value) -> str:
    """The message for ``ops.ReLU(x)``: a Primitive's constructor takes attributes (or a name), and
    the input goes to the call.  TypeError, as MindSpore."""
    from . import functional as F       # lazy: it imports the primitives, which import this module
    names = (re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls).lower(), cls.lower())  # greater_equal, relu
    functional = next((n for n in names if callable(getattr(F, n, None))), None)
    also = f" — or the functional form, e.g. ops.{functional}(x)" if functional else ""
    return (f"{cls}: a Primitive is created first and then called with its inputs, but "
            f"{describe(value)} was given to the constructor. Fix: ops.{cls}()(x){also}.")


def _explain_failure(self, exc: Exception, args) -> Exception:
    """Turn a NumPy error from ``impl`` into one that names this primitive and its inputs."""
    if isinstance(exc, MemoryError):          # NumPy says how much it wanted; say what to check
        return TensorTooLarge(f"{self.name}: {exc} (inputs: {describe_args(args)}). Fix: check the "
                              "shapes (a batch or feature size in the wrong place?), or use smaller sizes.")
    kind = TypeError if isinstance(exc, TypeError) else ValueError
    return kind(f"{self.name}: {exc} (inputs: {describe_args(args)})")


def _bprop(self, *args):
    raise NoGradientRule(
        f"{self.name} has no backward rule (bprop), so it cannot be differentiated"
        + (" — this is its own gradient primitive, which MindSpore also leaves without a "
           "second-order rule" if self.name.endswith("Grad") else "")
        + ". Fix: wrap the computation in an nn.Cell with a custom bprop, or use ops.stop_gradient "
        "where no gradient is needed.")


def _add_prim_attr(self, name, value):
    setattr(self, name, value)
    return self


def _init_prim_io_names(self, inputs, outputs):
    self.input_names, self.output_names = list(inputs), list(outputs)


install(Primitive, __init__=_init, failure=explained, explain_failure=_explain_failure, bprop=_bprop,
        add_prim_attr=_add_prim_attr, init_prim_io_names=_init_prim_io_names,
        takes_booleans=False, fast_kernel=None, fix_shape=None, fused_sympy=None)

# MindSpore spells some base classes differently; they are the same thing here.
PrimitiveWithInfer = Primitive
