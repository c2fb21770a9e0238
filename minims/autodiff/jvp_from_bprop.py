"""Forward mode from a backward rule, by transposition.

A primitive's ``bprop(*inputs, out, dout)`` is linear in ``dout``: it is the map ``u -> J^T u``,
where ``J`` is the primitive's Jacobian.  Forward mode wants ``t -> J t``, the *transpose* of that
map, and reverse mode computes transposes: the gradient of ``u -> <J^T u, t>`` with respect to ``u``
is ``J t``, whatever ``u`` is.  So any primitive with a backward rule gets a forward-mode rule:
record ``<bprop(inputs, out, u), t>`` on a gradient level and take its gradient.

That is how a Cell with a custom ``bprop`` behaves under ``jvp``, ``jacfwd`` and ``linearize``:
forward mode follows the rule the user wrote, as MindSpore's does (MindSpore builds its forward
mode from two reverse passes).  It costs a backward and a double backward, so the primitives in
minims' own table have rules of their own; this is the default for a user's primitive that only
has a ``bprop``.  Backward hooks are not such rules: a hook's ``bprop`` changes the cotangents
flowing back, it is not the derivative of anything, so the hooks' forward-mode rule is the
identity (``minims.autodiff.hooks``).

``u`` is a Tensor of ones (MindSpore's sensitivity): for a correct rule any ``u`` gives the same
result, and a rule that is not linear in ``dout`` then gives what MindSpore gives.
"""
from __future__ import annotations

from ..primitives import functional as ops
from ..core.stack import dispatch
from ..core.primitive import has_rule
from ..core.tensor import Tensor
from .grad_api import vjp_call

__all__ = ["jvp_from_bprop", "jvp_of"]


def jvp_from_bprop(prim, primals, tangents):
    """``(out, tangent of out)`` of ``prim`` at ``primals`` along ``tangents``, from ``prim.bprop``."""
    out = dispatch(prim, primals)
    several = isinstance(out, tuple)
    outs = out if several else (out,)
    positions = tuple(i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.dtype.is_float)

    def pairing(*us):
        douts = [ops.zeros_like(o) if isinstance(o, Tensor) else None for o in outs]
        for i, u in zip(positions, us):
            douts[i] = u
        grads = prim.bprop(*primals, out, tuple(douts) if several else douts[0])
        terms = [ops.sum(ops.mul(g, t)) for g, t in zip(grads, tangents) if g is not None and t is not None]
        total = terms[0] if terms else ops.zeros((), outs[positions[0]].dtype)
        for term in terms[1:]:
            total = ops.add(total, term)
        return total

    ones = [ops.ones_like(outs[i]) for i in positions]
    _, grads, _ = vjp_call(pairing, ones, tuple(range(len(ones))), (), where=f"forward mode of {prim.name}")
    tangent_out = [None] * len(outs)
    for i, g in zip(positions, grads):
        tangent_out[i] = g
    return out, (tuple(tangent_out) if several else tangent_out[0])


def jvp_of(prim):
    """The forward-mode rule of ``prim``: its own ``jvp``, or the transposed ``bprop``."""
    if has_rule(prim, "jvp") or not has_rule(prim, "bprop"):
        return prim.jvp                 # (without either, Primitive.jvp raises NoJvpRule)
    return lambda primals, tangents: jvp_from_bprop(prim, primals, tangents)
