"""Forward mode: the JVP interpreter (a tracer carries a primal and a tangent).

Each primitive applied to a ``JVPTracer`` runs its ``jvp`` rule: the primal output with ``bind`` (so
the levels below record it) and the tangent with minims ops (so an outer level can differentiate the
rule again).  Nothing is recorded: a tangent is complete the moment its primitive has run.  A tangent
of ``None`` is a *symbolic zero*: rules skip its work, and a primitive whose inputs all have zero
tangents is evaluated below, a constant here.  As with the tape, each level is its own.
"""
from __future__ import annotations

from .stack import MinimsError
from .primitive import has_rule
from .stack import Trace, Tracer, dispatch
from .tensor import Tensor

__all__ = ["JVPTrace", "JVPTracer", "TangentError"]


class TangentError(MinimsError, RuntimeError):
    """A ``jvp`` rule returned a tangent that does not fit the primitive's output."""


class JVPTracer(Tracer):
    """A Tensor being differentiated in forward mode: its primal value and its tangent."""

    __slots__ = ("_primal", "_tangent")

    def _primal_value(self):
        return self._primal

    @property
    def dtype(self):
        return self._primal.dtype


def _box(trace, primal, tangent):
    t = object.__new__(JVPTracer)
    t._data, t._primal, t._tangent, t._trace = primal._data, primal, tangent, trace
    return t


class JVPTrace(Trace):
    """One forward-mode level (JAX's JVPTrace; the dual numbers of chapter 01, one per level)."""

    def new_input(self, primal: Tensor, tangent: Tensor) -> JVPTracer:
        return _box(self, primal, tangent)

    def owns(self, value) -> bool:
        return isinstance(value, JVPTracer) and value._trace is self

    def process(self, prim, args):
        primals, tangents = [], []
        for a in args:
            if isinstance(a, JVPTracer) and a._trace is self:
                primals.append(a._primal)
                tangents.append(a._tangent)
            else:
                primals.append(a)
                tangents.append(None)
        if not prim.differentiable or all(t is None for t in tangents):
            return dispatch(prim, primals)
        if prim.inline is not None:
            return prim.inline(args)        # a compiled graph: its equations run under this level
        out, tangent_out = self.rule(prim)(primals, tangents)
        if isinstance(out, tuple):
            tangent_out = tangent_out if isinstance(tangent_out, tuple) else (None,) * len(out)
            return tuple(self._wrap(prim, o, t) for o, t in zip(out, tangent_out))
        return self._wrap(prim, out, tangent_out)

    #: ``from_bprop(prim, primals, tangents)``: forward mode of a primitive with only a backward rule
    #: (a user's), installed by ``minims.autodiff.jvp_from_bprop`` (as a staticmethod).
    from_bprop = None

    def rule(self, prim):
        """The forward-mode rule of ``prim``: its own ``jvp``, or the one derived from its ``bprop``."""
        if self.from_bprop is None or has_rule(prim, "jvp") or not has_rule(prim, "bprop"):
            return prim.jvp                 # (without either, Primitive.jvp raises NoJvpRule)
        return lambda primals, tangents: self.from_bprop(prim, primals, tangents)

    def _wrap(self, prim, out, tangent):
        if tangent is None or not isinstance(out, Tensor):
            return out
        if not isinstance(tangent, Tensor) or tangent.shape != out.shape:
            got = f"shape {list(tangent.shape)}" if isinstance(tangent, Tensor) else type(tangent).__name__
            raise TangentError(f"{prim.name}.jvp returned a tangent of {got} for an output of shape "
                               f"{list(out.shape)}; a tangent has its output's shape.")
        return _box(self, out, tangent)

    def tangent_of(self, value):
        """The tangent of ``value`` at this level (None: a constant here)."""
        return value._tangent if self.owns(value) else None

    def primal_of(self, value):
        return value._primal if self.owns(value) else value

