"""``Primitive``: one row of the primitive table.

A primitive is a small class: ``impl(self, *arrays)``, the forward computation on NumPy arrays
(static arguments — an axis, a shape — arrive as they are); ``bprop(self, *inputs, out, dout)``, the
backward rule in minims ops, so itself differentiable (this is what makes ``grad(grad(f))`` work),
one gradient (or None) per input; ``jvp(self, primals, tangents)``, forward mode (None is a zero
tangent); ``batch(self, args, dims, size)`` for ``vmap``; ``sympy(self, *inputs)``, the same on SymPy
expressions; and a few flags.  Calling one binds it: the stack decides what runs it.
"""
from __future__ import annotations

import numpy as np

from .stack import MinimsError
from .stack import NUMPY_FAILURES, bind, gradient_mask, wants_grad  # noqa: F401 - the rules' spelling

__all__ = ["Primitive", "NoGradientRule", "NoJvpRule", "wants_grad", "gradient_mask", "has_rule"]


class NoGradientRule(MinimsError, RuntimeError):
    """Raised when a gradient is requested through a primitive that has no backward rule."""


class NoJvpRule(MinimsError, RuntimeError):
    """Raised when forward mode meets a primitive with neither a jvp rule nor a backward rule."""


class Primitive:
    """Base class of all primitives (MindSpore's ``mindspore.ops.Primitive``)."""

    #: False: its outputs never carry gradients (comparisons, shapes); no level records it.
    differentiable = True
    #: True: its ``bprop`` asks :func:`wants_grad`, so the tape sets the mask for it.
    skips_unneeded_grads = False
    #: True: with several outputs, its ``bprop`` takes None for one no cotangent reached.
    takes_missing_cotangents = False
    #: True: a backward pass runs its rule through the rule runner (seam 3), which checks the result
    #: (a user's rule); the built-in rules are checked by the property tests over the whole table.
    checks_rule_results = True
    #: ``record_node(self, trace, args)``: how it records itself on a gradient level (seam 4).
    record_node = None

    #: ``pure`` False: other outputs for the same inputs (random draws); ``has_effect`` True: it acts
    #: on the world (a write, a print).  A graph records both even on known inputs, and keeps them.
    pure = True
    has_effect = False
    #: ``abstract_eval(self, *arrays)``: the output types, where ``impl`` must not run on zeros.
    abstract_eval = None
    #: ``inline(self, args)``: what staging, forward mode and batching run instead of treating it as
    #: one operation (a compiled graph replays its equations).
    inline = None
    #: ``batch(self, args, dims, size)``: the batching rule.
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
        """The outputs' types, as arrays: ``abstract_eval`` (or ``impl``) run on zeros standing for
        values that do not exist (a graph's placeholders); a NumPy failure is this primitive's error."""
        rule = self.abstract_eval if self.abstract_eval is not None else self.impl
        try:
            with np.errstate(all="ignore"):
                out = rule(*arrays)
        except MinimsError:
            raise
        except NUMPY_FAILURES as exc:
            raise self.failure(exc, args) from None
        return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)

    def failure(self, exc: Exception, args) -> Exception:     # the error for ``impl``'s NumPy error
        return self.explain_failure(exc, args)

    def explain_failure(self, exc: Exception, args) -> Exception:     # a primitive may word it better
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
