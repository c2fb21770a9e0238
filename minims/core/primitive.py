"""``Primitive``: one row of the primitive table.

A primitive is a small class with

* ``impl(self, *arrays)`` — the forward computation on NumPy arrays (Tensors arrive unwrapped;
  non-Tensor arguments such as an axis or a shape arrive as they are);
* ``bprop(self, *inputs, out, dout)`` — the backward rule, written in minims ops so that it is itself
  differentiable (this is what makes ``grad(grad(f))`` work).  It returns one gradient per input, or
  ``None`` for an input that has no gradient (a shape, an axis, a boolean mask);
* ``jvp(self, primals, tangents)`` — the forward-mode rule: the primal output (computed with
  ``bind``) and its tangent, written in minims ops; a tangent of ``None`` is a zero;
* optionally ``batch(self, args, dims, size)`` — the batching rule of ``vmap``: the output for a
  whole batch at once, and where its batch axis is (without one, ``vmap`` loops over the examples);
* optionally ``sympy(self, *inputs)`` — the same computation on SymPy expressions, used by the
  symbolic interpreter to derive reference gradients;
* optional flags and hooks, declared below with their defaults, that tell the interpreters and the
  graph passes how to treat the primitive.

Calling a primitive instance, ``ops.MatMul()(x, y)``, binds it: the interpreter stack decides
whether it is evaluated, recorded on a tape, or staged into a graph.  ``minims.primitives.table()``
lists every primitive with the rules it has.
"""
from __future__ import annotations

import re
import threading

import numpy as np

from .. import ops
from .stack import bind, describe_args, explained, MinimsError
from ..tensor.memory import TensorTooLarge
from .tensor import _describe

__all__ = ["Primitive", "PrimitiveWithInfer", "NoGradientRule", "NoJvpRule", "MinimsError", "wants_grad",
           "needed_mask", "gradient_mask", "run_bprop", "has_rule"]

# While a gradient level runs a rule, which of the primitive's inputs need a gradient (a sequence
# whose entry i is falsy when input i needs none — a tuple of bools, or the tape node's list of
# parents, None for a constant; the mask None = all of them, e.g. when a rule is called by hand).  ``run_bprop`` sets it around the
# ``bprop`` call of each primitive that declares ``skips_unneeded_grads`` (a tape's backward pass
# sets ``gradient_mask.mask`` itself, once per rule, and restores it when the pass ends: see
# ``autodiff/tape.py``).  An input that is a constant at that level (a batch of data, a label, a
# Python number) gets no gradient, so a rule may skip the work for it — for a convolution over the
# data that is a whole transposed convolution.  Skipping is always safe: the gradient would be
# dropped unread.
class _Needed(threading.local):
    mask: tuple | None = None       # one per thread: each thread runs its own backward passes


#: The mask :func:`wants_grad` reads, in the attribute ``mask``: set by whoever runs rules.
gradient_mask = _Needed()


def wants_grad(index: int) -> bool:
    """True unless the running ``bprop``'s input ``index`` is known to need no gradient."""
    mask = gradient_mask.mask
    return mask is None or bool(mask[index])


def needed_mask():
    """The mask :func:`wants_grad` reads (None outside a masked rule; entry i falsy when input i
    needs no gradient); for tests and debugging."""
    return gradient_mask.mask


def run_bprop(prim, needed: tuple, args):
    """``prim.bprop(*args)``, with :func:`wants_grad` answering from ``needed`` while it runs.

    The previous mask is restored afterwards: a rule may itself run a nested backward pass.
    """
    saved, gradient_mask.mask = gradient_mask.mask, needed
    try:
        return prim.bprop(*args)
    finally:
        gradient_mask.mask = saved


class NoGradientRule(MinimsError, RuntimeError):
    """Raised when a gradient is requested through a primitive that has no backward rule."""


class NoJvpRule(MinimsError, RuntimeError):
    """Raised when forward mode meets a primitive with neither a jvp rule nor a backward rule."""


class Primitive:
    """Base class of all primitives (MindSpore's ``mindspore.ops.Primitive``).

    The class attributes below are the optional parts of a row of the table; a primitive sets the
    ones that differ from the default.
    """

    #: False for primitives whose outputs never carry gradients (comparisons, argmax, shapes);
    #: a gradient level then does not record them at all.
    differentiable = True

    #: True for primitives whose ``bprop`` asks :func:`wants_grad` and skips gradients nobody
    #: reads (MatMul, the convolutions); the tape computes the mask only for those.
    skips_unneeded_grads = False

    #: False for primitives that may give different outputs for the same inputs (random draws):
    #: graph passes never fold them or merge two of them.
    pure = True

    #: True for primitives that act on the world (``Assign`` writes a Parameter, ``Print`` prints):
    #: a graph keeps them even when nothing reads their output.
    has_effect = False

    #: True when the ``sympy`` rule takes relationals as they are (comparisons, logic, select, cast,
    #: shape ops); for the others the symbolic interpreter turns a relational into 1/0 first.
    takes_booleans = False

    #: ``"module.function"`` of the Numba kernel in ``minims.fast`` that ``impl`` calls when the fast
    #: path is on (None: NumPy only).  For the table; ``impl`` makes the call itself.
    fast_kernel: str | None = None

    #: Optional ``abstract_eval(self, *arrays)``: the output types (arrays of zeros) for the graph
    #: tracer, for primitives whose ``impl`` must not run while tracing (random draws, prints).
    abstract_eval = None

    #: Optional ``fix_shape(self, args, value_of)``: for a primitive whose output *shape* depends on
    #: the values of an input (indexing by a Bool mask), the primitive with that shape fixed, which
    #: a graph records; ``value_of(arg)`` gives an input's value while the graph is traced.
    fix_shape = None

    #: Optional ``inline(self, args)``: what an interpreter that transforms programs (staging, forward
    #: mode, batching, symbolic) runs instead of treating the primitive as one operation — a compiled
    #: graph replays its equations.  Eval and the tape treat it as one primitive.
    inline = None

    #: Optional ``batch(self, args, dims, size)``: the batching rule of ``vmap`` (module docstring).
    batch = None

    #: False for the built-in rules of ``minims.primitives`` (the property tests check them over the
    #: whole table with ``tape.check_every_rule``): the tape then skips the per-call check that a rule
    #: returned one gradient per input, shaped like it.  A user's Primitive, a custom bprop and
    #: a hook keep the check, and its clear error.
    checks_rule_results = True

    #: True when ``bprop`` of a primitive with several outputs takes None for an output that no
    #: cotangent reached (instead of zeros): a compiled graph then leaves that output out of its
    #: backward pass, as the tape would — a custom bprop that ignores ``dout`` must not run for it.
    takes_missing_cotangents = False

    #: Optional ``forward_for_gradient(self, args, needed)``: for a gradient level, the output together
    #: with the rule that differentiates it from what this forward kept (a compiled graph's residuals,
    #: ``graph/residuals.py``), as ``(out, rule)``; or None, and the tape records the primitive itself.
    forward_for_gradient = None

    #: Optional ``fused_sympy(self, dtype, *inputs)``: the scalar form graph fusion compiles for a
    #: result of ``dtype`` ("float32" or "float64") when it must differ from the ``sympy`` rule — an
    #: exact form that loses every digit in floats (``1 - tanh(x)**2`` where tanh saturates), or a
    #: float behaviour of the NumPy kernel that SymPy cannot say (which zero a tie of ``np.maximum``
    #: returns, a kernel computed in float64: the functions of ``scalar_forms.py``) — or None where
    #: the primitive must not be fused in that dtype (its NumPy kernel is more accurate than any
    #: scalar form).  Absent: fusion prints the ``sympy`` rule.
    fused_sympy = None

    def __init__(self, name: str | None = None):
        if name is not None:
            if not isinstance(name, str):       # ops.ReLU(x): the input given to the constructor
                raise TypeError(_created_bare(type(self).__name__, name))
            self._name = name

    @property
    def name(self) -> str:
        """The primitive's name in messages and graphs (its class name unless given)."""
        return self.__dict__.get("_name") or type(self).__name__

    def __call__(self, *args):
        return bind(self, *args)

    # ----- rules every primitive may override ----------------------------------------------
    def impl(self, *arrays):
        raise NotImplementedError(f"{self.name} has no forward implementation")

    def bprop(self, *args):
        raise NoGradientRule(
            f"{self.name} has no backward rule (bprop), so it cannot be differentiated"
            + (" — this is its own gradient primitive, which MindSpore also leaves without a "
               "second-order rule" if self.name.endswith("Grad") else "")
            + ". Fix: wrap the computation in an nn.Cell with a custom bprop, or use ops.stop_gradient "
            "where no gradient is needed."
        )

    def jvp(self, primals, tangents):
        raise NoJvpRule(
            f"{self.name} has no forward-mode rule (jvp) and no backward rule to derive one from, so it "
            "cannot be differentiated in forward mode. Fix: give the primitive a jvp (or bprop) rule, "
            "or use ops.stop_gradient where no derivative is needed."
        )

    def sympy(self, *args):
        raise NotImplementedError(f"{self.name} has no symbolic (SymPy) rule")

    def output_types(self, arrays, args):
        """The outputs' shapes and dtypes, as arrays, from ``abstract_eval`` (or ``impl``) run on
        ``arrays``: zeros standing for values that do not exist (a graph's placeholders, the example
        of an empty batch), so nothing with an effect runs.  A NumPy failure becomes this
        primitive's error about ``args``."""
        rule = self.abstract_eval if self.abstract_eval is not None else self.impl
        try:
            with np.errstate(all="ignore"):
                out = rule(*arrays)
        except MinimsError:
            raise
        except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError,
                np.exceptions.AxisError) as exc:
            raise explained(self, exc, args) from None
        if isinstance(out, tuple):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)

    def explain_failure(self, exc: Exception, args) -> Exception:
        """Turn a NumPy error from ``impl`` into one that names this primitive and its inputs."""
        if isinstance(exc, MemoryError):          # NumPy says how much it wanted; say what to check
            return TensorTooLarge(f"{self.name}: {exc} (inputs: {describe_args(args)}). Fix: check the "
                                  "shapes (a batch or feature size in the wrong place?), or use smaller sizes.")
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        return kind(f"{self.name}: {exc} (inputs: {describe_args(args)})")

    # ----- MindSpore Primitive API ------------------------------------------------------------
    def add_prim_attr(self, name, value):
        setattr(self, name, value)
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.input_names, self.output_names = list(inputs), list(outputs)

    def _attrs(self) -> dict:
        return {k: v for k, v in vars(self).items()
                if not k.startswith("_") and k not in ("input_names", "output_names")}

    def __repr__(self) -> str:
        attrs = self._attrs()
        inner = ", ".join(f"{k}={v!r}" for k, v in attrs.items())
        return f"Prim[{self.name}]" + (f"<{inner}>" if inner else "")


def _created_bare(cls: str, value) -> str:
    """The message for ``ops.ReLU(x)``: a Primitive's constructor takes attributes (or a name), and
    the input goes to the call.  TypeError, as MindSpore."""
    names = (re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls).lower(), cls.lower())  # greater_equal, relu
    functional = next((n for n in names if callable(getattr(ops, n, None))), None)
    also = f" — or the functional form, e.g. ops.{functional}(x)" if functional else ""
    return (f"{cls}: a Primitive is created first and then called with its inputs, but "
            f"{_describe(value)} was given to the constructor. Fix: ops.{cls}()(x){also}.")


def has_rule(prim_or_cls, rule: str) -> bool:
    """True when the primitive (class) defines ``rule`` ("impl", "bprop", "jvp", "sympy", "batch")
    itself or in a base class of its own, not only as ``Primitive``'s default."""
    cls = prim_or_cls if isinstance(prim_or_cls, type) else type(prim_or_cls)
    return getattr(cls, rule, None) is not getattr(Primitive, rule)


# MindSpore spells some base classes differently; they are the same thing here.
PrimitiveWithInfer = Primitive
