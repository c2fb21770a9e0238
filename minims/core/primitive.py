"""``Primitive``: one row of the primitive table.

A primitive is a small class with

* ``impl(self, *arrays)`` — the forward computation on NumPy arrays (Tensors arrive unwrapped;
  non-Tensor arguments such as an axis or a shape arrive as they are);
* ``bprop(self, *inputs, out, dout)`` — the backward rule, written in minims ops so that it is itself
  differentiable (this is what makes ``grad(grad(f))`` work).  It returns one gradient per input, or
  ``None`` for an input that has no gradient (a shape, an axis, a boolean mask);
* ``jvp(self, primals, tangents)`` — the forward-mode rule: the primal output (computed with
  ``bind``) and its tangent, written in minims ops; a tangent of ``None`` is a zero;
* ``batch(self, args, dims, size)`` — the batching rule of ``vmap``: the output for a whole batch at
  once, and where its batch axis is;
* ``sympy(self, *inputs)`` — the same computation on SymPy expressions, used by the symbolic
  interpreter to derive reference gradients;
* a few flags, declared below with their defaults, that tell the interpreters how to treat it.

Calling a primitive instance, ``Sin()(x)``, binds it: the interpreter stack decides whether it is
evaluated, recorded on a tape, or staged into a graph.
"""
from __future__ import annotations

import threading

import numpy as np

from .errors import MinimsError
from .stack import NUMPY_FAILURES, bind

__all__ = ["Primitive", "NoGradientRule", "NoJvpRule", "wants_grad", "gradient_mask", "has_rule"]


# While a backward pass runs a rule, which of the primitive's inputs need a gradient: a sequence
# whose entry i is falsy when input i needs none (the tape node's parents: None for an input that is
# a constant at that level), or None for all of them.  A rule may ask ``wants_grad(i)`` and skip the
# work for an input nobody reads (for a convolution over the data, a whole transposed convolution).
class _Needed(threading.local):
    mask: tuple | None = None       # one per thread: each thread runs its own backward passes


#: The mask :func:`wants_grad` reads, in the attribute ``mask``: set by whoever runs rules.
gradient_mask = _Needed()


def wants_grad(index: int) -> bool:
    """True unless the running ``bprop``'s input ``index`` is known to need no gradient."""
    mask = gradient_mask.mask
    return mask is None or bool(mask[index])


class NoGradientRule(MinimsError, RuntimeError):
    """Raised when a gradient is requested through a primitive that has no backward rule."""


class NoJvpRule(MinimsError, RuntimeError):
    """Raised when forward mode meets a primitive with neither a jvp rule nor a backward rule."""


class Primitive:
    """Base class of all primitives (MindSpore's ``mindspore.ops.Primitive``)."""

    #: False for primitives whose outputs never carry gradients (comparisons, shapes): a gradient
    #: level does not record them, forward mode gives them no tangent.
    differentiable = True

    #: True for primitives whose ``bprop`` asks :func:`wants_grad`: the tape sets the mask for them.
    skips_unneeded_grads = False

    #: True when ``bprop`` of a primitive with several outputs takes None for an output that no
    #: cotangent reached (instead of zeros).
    takes_missing_cotangents = False

    #: True when a backward pass should run this primitive's rule through the rule runner (seam 3,
    #: ``tape.set_rule_runner``), which checks its result: a user's rule.  The built-in rules say
    #: False — the property tests check them over the whole table instead of on every call.
    checks_rule_results = True

    #: Optional ``record_node(self, trace, args)``: how the primitive records itself on a gradient
    #: level (seam 4, a custom node), instead of one node for one application.
    record_node = None

    #: False for primitives that may give different outputs for the same inputs (random draws),
    #: True for those that act on the world (a write, a print): a graph records both even when
    #: their inputs are known, and keeps them when nothing reads their output.
    pure = True
    has_effect = False

    #: Optional ``abstract_eval(self, *arrays)``: the output types (arrays of zeros) for a graph
    #: being staged, for primitives whose ``impl`` must not run on placeholders' zeros.
    abstract_eval = None

    #: Optional ``inline(self, args)``: what the interpreters that transform programs (staging,
    #: forward mode, batching) run instead of treating the primitive as one operation — a compiled
    #: graph replays its equations.
    inline = None

    #: Optional ``batch(self, args, dims, size)``: the batching rule (module docstring).
    batch = None

    def __init__(self, name: str | None = None):
        if name is not None:
            self._name = name

    @property
    def name(self) -> str:
        """The primitive's name in messages and graphs (its class name unless given)."""
        return self.__dict__.get("_name") or type(self).__name__

    def __call__(self, *args):
        return bind(self, *args)

    # ----- rules -------------------------------------------------------------------------------
    def impl(self, *arrays):
        raise NotImplementedError(f"{self.name} has no forward implementation")

    def bprop(self, *args):
        raise NoGradientRule(
            f"{self.name} has no backward rule (bprop), so it cannot be differentiated. Fix: give it a "
            "bprop, or use ops.stop_gradient where no gradient is needed.")

    def jvp(self, primals, tangents):
        raise NoJvpRule(
            f"{self.name} has no forward-mode rule (jvp) and no backward rule to derive one from, so it "
            "cannot be differentiated in forward mode. Fix: give the primitive a jvp (or bprop) rule, "
            "or use ops.stop_gradient where no derivative is needed.")

    def sympy(self, *args):
        raise NotImplementedError(f"{self.name} has no symbolic (SymPy) rule")

    def output_types(self, arrays, args):
        """The outputs' shapes and dtypes, as arrays, from ``abstract_eval`` (or ``impl``) run on
        ``arrays``: zeros standing for values that do not exist (a graph's placeholders, the example
        of an empty batch).  A NumPy failure becomes this primitive's error about ``args``."""
        rule = self.abstract_eval if self.abstract_eval is not None else self.impl
        try:
            with np.errstate(all="ignore"):
                out = rule(*arrays)
        except MinimsError:
            raise
        except NUMPY_FAILURES as exc:
            raise self.failure(exc, args) from None
        return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)

    def failure(self, exc: Exception, args) -> Exception:
        """The error to raise for the NumPy error ``exc`` that ``impl`` raised on ``args``."""
        return self.explain_failure(exc, args)

    def explain_failure(self, exc: Exception, args) -> Exception:
        """``exc`` as this primitive's own error (a primitive may word it better)."""
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        return kind(f"{self.name}: {exc}")

    def _attrs(self) -> dict:
        return {k: v for k, v in vars(self).items()
                if not k.startswith("_") and k not in ("input_names", "output_names")}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._attrs().items())
        return f"Prim[{self.name}]" + (f"<{inner}>" if inner else "")


def has_rule(prim_or_cls, rule: str) -> bool:
    """True when the primitive (class) defines ``rule`` ("impl", "bprop", "jvp", "sympy", "batch")
    itself or in a base class of its own, not only as ``Primitive``'s default."""
    cls = prim_or_cls if isinstance(prim_or_cls, type) else type(prim_or_cls)
    return getattr(cls, rule, None) is not getattr(Primitive, rule)
