"""Forward mode: the JVP interpreter (a tracer carries a primal and a tangent).

``jvp`` pushes one ``JVPTrace``.  Every primitive applied to one of its tracers comes to
``process``, which splits the arguments into primals (the values of the levels below) and tangents,
and runs the primitive's ``jvp`` rule: the rule computes the primal output with ``bind`` (so the
levels below see and record it) and the output's tangent with minims ops (so an outer level can
differentiate the rule again: jvp of jvp, grad of jvp, jvp of grad).  Nothing is recorded: forward
mode needs no tape, because each tangent is complete the moment its primitive has run.

A tangent of ``None`` is a *symbolic zero*: an input that does not depend on the differentiated
inputs at this level.  Rules skip the work for it, and a primitive whose inputs all have zero
tangents is simply evaluated below, its result a constant at this level (a comparison, a mask, a
constant branch).

The same mechanics as the tape keep nested levels apart: each ``jvp`` call is a level of its own, and
a tracer of an outer level is, for an inner level, a constant.
"""
from __future__ import annotations

from .errors import MinimsError
from .primitive import has_rule
from .stack import Trace, Tracer, dispatch, pop_trace, push_trace
from .tensor import Tensor

__all__ = ["JVPTrace", "JVPTracer", "TangentError", "jvp"]


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
    t._data = primal._data
    t._primal = primal
    t._tangent = tangent
    t._trace = trace
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

    #: How a primitive with a backward rule but no forward-mode rule of its own (a user's) is run
    #: forward: installed by ``minims.autodiff.jvp_from_bprop`` (transposing the bprop).
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


def jvp(fn, primals, tangents):
    """``(fn(*primals), J tangents)`` on one new forward-mode level (MindSpore's ``ops.jvp``, with its
    argument checks and output structures, is ``minims.transforms.jvp``)."""
    trace = push_trace(JVPTrace())
    try:
        out = fn(*(trace.new_input(p, t) for p, t in zip(primals, tangents)))
    finally:
        pop_trace(trace)
    return trace.primal_of(out), trace.tangent_of(out)
