"""Run one rule of a primitive the way a user's program runs it, on a whole array of points.

The rule kinds, each measured against the matching derivative of the SymPy form:

* ``impl`` — the forward value, ``prim(x)`` (the eval interpreter runs ``impl``);
* ``bprop`` — the first derivative in reverse mode, ``grad(f, i)`` (the backward rule);
* ``jvp`` — the first derivative in forward mode, the tangent of ``jvp(f, x, e_i)`` (the jvp rule);
* ``bprop∘bprop`` — the second derivative ``grad(grad(f, i), j)``: the backward rule differentiated
  by the backward rules of the operations it is written in;
* ``jvp∘jvp`` — the second derivative in forward mode, ``jvp`` of ``jvp``.

The primitive is elementwise and its inputs have the same shape, so ``grad`` (sensitivity ones) and
a unit tangent give every point's own derivative at once.

``run_fused`` runs the same rule as Graph mode with the fast path does: compiled by ``jit``, every
elementwise equation of its graph in a fused Numba kernel (``minims/graph/fuse.py``) — a lone one
too, which the executor would leave to NumPy, so that it is the primitive's fused form that is
measured, as it runs inside any longer chain.
"""
from __future__ import annotations

from ... import ops
from ...autodiff.grad_api import grad
from ...core.tensor import Tensor
from ...graph.executor import Plan
from ...graph.fuse import Fused, fuse_elementwise
from ...graph.jit import jit

__all__ = ["RULE_KINDS", "ORDER", "NOT_FUSED", "rule_function", "run", "run_fused"]

#: The rule kinds, in the order of the table.
RULE_KINDS = ("impl", "bprop", "jvp", "bprop∘bprop", "jvp∘jvp")

#: What a "fused" row says where no equation of the rule's graph fuses (``run_fused`` gives None).
NOT_FUSED = "not fused"

#: How many derivatives each kind takes.
ORDER = {"impl": 0, "bprop": 1, "jvp": 1, "bprop∘bprop": 2, "jvp∘jvp": 2}


def _bind_varying(prim, args, vary):
    """``f(*varying) = prim(*args)`` with the varying inputs in their places (the others fixed)."""
    def f(*values):
        full = list(args)
        for k, v in zip(vary, values):
            full[k] = v
        return prim(*full)
    return f


def _tangent(f, position):
    """``x -> d f / d x_position`` in forward mode: ``jvp`` of f as a function of that input alone
    (the others are constants of the jvp, as in ``jvp(lambda x: f(x, y), x, 1)``, rather than
    inputs with zero tangents)."""
    def d(*xs):
        def alone(x):
            return f(*xs[:position], x, *xs[position + 1:])
        return ops.jvp(alone, xs[position], ops.ones_like(xs[position]))[1]
    return d


def rule_function(kind: str, f, wrt: tuple):
    """The function of the varying inputs that rule ``kind`` of ``f`` computes (``wrt``: the
    derivative, as positions into the varying inputs)."""
    if kind == "impl":
        return f
    if kind == "bprop":
        return grad(f, grad_position=wrt[0])
    if kind == "bprop∘bprop":
        return grad(grad(f, grad_position=wrt[0]), grad_position=wrt[1])
    if kind == "jvp":
        return _tangent(f, wrt[0])
    if kind == "jvp∘jvp":
        return _tangent(_tangent(f, wrt[0]), wrt[1])
    raise ValueError(f"unknown rule kind {kind!r}; the kinds are {RULE_KINDS}")


def run(kind: str, prim, args, vary: tuple, wrt: tuple):
    """The result of rule ``kind`` as a NumPy array.

    ``args`` are the primitive's inputs (Tensors for the varying ones, Python numbers for fixed
    ones), ``vary`` the positions of the varying inputs, ``wrt`` the derivative as positions into
    ``vary`` (``(0,)`` = d/dx, ``(0, 1)`` = d/dy of d/dx).
    """
    out = rule_function(kind, _bind_varying(prim, args, vary), wrt)(*(args[k] for k in vary))
    return out.asnumpy() if isinstance(out, Tensor) else out


def run_fused(kind: str, prim, args, vary: tuple, wrt: tuple):
    """:func:`run`, compiled by ``jit`` and run with every elementwise equation of the graph in a
    fused kernel (module docstring); None when no equation of the graph fuses (the rule runs the
    NumPy kernels, as the "numpy" path measures)."""
    xs = tuple(args[k] for k in vary)
    graph = jit(rule_function(kind, _bind_varying(prim, args, vary), wrt)).graph(*xs)
    fused = fuse_elementwise(graph, min_members=1, numpy_loop_at=None)
    if not any(isinstance(eq.prim, Fused) for eq in fused.equations):
        return None
    (out,) = Plan(fused).run([x._data for x in xs] + [p._data for p in fused.implicit])
    return out
