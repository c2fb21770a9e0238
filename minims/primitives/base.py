"""``Primitive``: one row of the primitive table.

A primitive is a small class with

* ``impl(self, *arrays)`` — the forward computation on NumPy arrays (Tensors arrive unwrapped;
  non-Tensor arguments such as an axis or a shape arrive as they are);
* ``bprop(self, *inputs, out, dout)`` — the backward rule, written in minims ops so that it is itself
  differentiable (this is what makes ``grad(grad(f))`` work).  It returns one gradient per input, or
  ``None`` for an input that has no gradient (a shape, an axis, a boolean mask);
* optionally ``sympy(self, *inputs)`` — the same computation on SymPy expressions, used by the
  symbolic interpreter to derive reference gradients.

Calling a primitive instance, ``ops.MatMul()(x, y)``, binds it: the interpreter stack decides
whether it is evaluated, recorded on a tape, or staged into a graph.
"""
from __future__ import annotations

from ..interpreters.stack import bind, describe_args, MinimsError

__all__ = ["Primitive", "PrimitiveWithInfer", "NoGradientRule", "MinimsError", "wants_grad"]

# While a gradient level runs a rule, which of the primitive's inputs need a gradient (a tuple of
# bools; None = all of them, e.g. when a rule is called by hand).  The tape sets it around the
# ``bprop`` call of each primitive that declares ``skips_unneeded_grads``.  An input that is a constant at that level (a batch of data, a label) gets no
# gradient, so a rule may skip the work for it — for a convolution over the data that is a whole
# transposed convolution.  Skipping is always safe: the gradient would be dropped unread.
_needed: tuple | None = None


def wants_grad(index: int) -> bool:
    """True unless the running ``bprop``'s input ``index`` is known to need no gradient."""
    return _needed is None or _needed[index]


class NoGradientRule(MinimsError, RuntimeError):
    """Raised when a gradient is requested through a primitive that has no backward rule."""


class Primitive:
    """Base class of all primitives (MindSpore's ``mindspore.ops.Primitive``)."""

    #: False for primitives whose outputs never carry gradients (comparisons, argmax, shapes);
    #: a gradient level then does not record them at all.
    differentiable = True

    #: True for primitives whose ``bprop`` asks :func:`wants_grad` and skips gradients nobody
    #: reads (MatMul, the convolutions); the tape computes the mask only for those.
    skips_unneeded_grads = False

    def __init__(self, name: str | None = None):
        if name is not None:
            if not isinstance(name, str):       # ops.Xxx(x): the input given to the constructor
                raise TypeError(
                    f"{type(self).__name__}: a Primitive is created first and then called with its "
                    f"inputs, but {type(name).__name__} was given to the constructor as its name. "
                    f"Fix: ops.{type(self).__name__}()(x).")
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

    def sympy(self, *args):
        raise NotImplementedError(f"{self.name} has no symbolic (SymPy) rule")

    def explain_failure(self, exc: Exception, args) -> Exception:
        """Turn a NumPy error from ``impl`` into one that names this primitive and its inputs."""
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


# MindSpore spells some base classes differently; they are the same thing here.
PrimitiveWithInfer = Primitive
