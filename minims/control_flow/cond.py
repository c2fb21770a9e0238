"""``Cond``: one of two graphs, chosen at run time by a predicate — and ``cond``, which stages it.

``cond(pred, true_fn, false_fn, *operands)`` is ``true_fn(*operands) if pred else
false_fn(*operands)`` for a predicate that is a Tensor: both functions are staged into graphs (the
*branches*), their outputs must agree in structure, dtype and shape (the *type join*: one graph
cannot give a value whose type depends on a run-time value), and one primitive, ``Cond``, takes
the predicate and the operands.  A Python predicate (``True``, ``3 > 2``) is known now: only the
branch it picks runs, as Python's ``if`` does.

The rows of the table for ``Cond``, each the same primitive over transformed graphs:

* ``impl`` runs the chosen branch's compiled plan; abstract evaluation gives the joined type;
* ``jvp``: a ``Cond`` of the two branches' forward-mode graphs (values and tangents);
* gradient: where a gradient level can read the predicate now (PyNative), it records the branch
  taken as a ``GraphCall`` (``recording.py``), which goes through the residual split: the branch's
  forward graph runs once, its backward graph runs on the residuals.  Where it cannot (a graph being
  staged), ``bprop`` is a ``Cond`` of the branches' backward graphs (each recomputes its branch's
  forward and runs its rules backwards; the branch that did not run gives zeros), which the residual
  split of the enclosing graph sends to its backward graph.  Being a ``Cond`` again, it is
  differentiated the same way: second order needs nothing more;
* batching: with one predicate for all examples, a ``Cond`` of the batched branches; with a
  predicate per example, both branches run on the whole batch and ``select`` picks per example
  (MindSpore 2.10's ``vmap`` refuses this case);
* SymPy: ``Piecewise((true value, pred), (false value, True))`` per entry.
"""
from __future__ import annotations

import numpy as np
import sympy

from .. import dtype as mstype
from ..core.primitive import Primitive
from ..core.prims import move_to_front, zeros_like
from ..core.stack import MinimsError, array_of, bind, wants_grad
from ..core.tensor import Tensor
from ..core.ir import type_text
from ..primitives.functional import broadcast_to, ne, reshape, select
from .recording import graph_call, record_as_one_node, values_known
from .staged import (Branch, Closed, batched_outputs, example, is_float, jvp_outputs, merge_operands, quiet,
                     stage, symbolic_outputs, vjp_outputs)

__all__ = ["Cond", "cond", "BranchTypeError", "BranchShapeError", "PredicateError", "predicate",
           "function_name"]


class BranchTypeError(MinimsError, TypeError):
    """The branches of a ``cond`` return values of different dtypes or structures (MindSpore: "Type
    Join Failed")."""


class BranchShapeError(MinimsError, ValueError):
    """The branches of a ``cond`` return Tensors of different shapes (a graph's types are static)."""


class PredicateError(MinimsError, ValueError):
    """A predicate Tensor with more than one entry."""


class Cond(Primitive):
    """``Cond(true_branch, false_branch)(pred, *operands)``: the chosen branch's outputs."""

    skips_unneeded_grads = True         # only the operands that need a gradient get one
    takes_missing_cotangents = True     # an output no cotangent reached costs nothing backwards
    checks_rule_results = False         # a built-in rule (the rule runner checks users' rules)
    takes_booleans = True               # the SymPy rule reads the predicate as a relational

    def __init__(self, true_branch: Branch, false_branch: Branch):
        self.branches = (true_branch, false_branch)
        self.pure = true_branch.pure and false_branch.pure
        self.has_effect = true_branch.has_effect or false_branch.has_effect
        self.n_out = len(true_branch.graph.outputs)
        self._rules, self._calls = {}, {}

    def _attrs(self) -> dict:
        # a tuple of the branches: printed by their names, compared by identity (CSE)
        return {"branches": self.branches}

    @classmethod
    def build(cls, true: Closed, false: Closed) -> tuple:
        """``(Cond, captured)``: the primitive over two staged functions of the same operands, and
        what their graphs read from outside, the operands to pass after the explicit ones."""
        operands, (pt, pf) = merge_operands(true.explicit, [true, false])
        return cls(Branch(true.graph, pt), Branch(false.graph, pf)), operands[len(true.explicit):]

    def _result(self, outs):
        return outs[0] if self.n_out == 1 else tuple(outs)

    def _rule(self, key, build):
        """A rule's primitive, made once per key (operand types never change for one ``Cond``)."""
        if key not in self._rules:
            self._rules[key] = build()
        return self._rules[key]

    def without_effects(self) -> "Cond":
        """The same choice over the branches with their effects gone (a replay that must not print
        again still needs the chosen branch's outputs, ``graph/replay.py``)."""
        return self._rule("without effects", lambda: quiet(Cond(*(b.without_effects() for b in self.branches))))

    # ----- evaluation ---------------------------------------------------------------------------
    def impl(self, pred, *operands):
        return self._result(self.branches[0 if np.asarray(pred).item() else 1].run(operands))

    def abstract_eval(self, pred, *operands):
        return self._result(self.branches[0].zeros())

    def record_node(self, trace, args):
        """Seam 4 (``recording.py``): with the predicate's value known, the level records the chosen
        branch as a ``GraphCall`` (its residual split); otherwise one node, whose rule is ``bprop``."""
        if not values_known():
            return record_as_one_node(self, trace, args)
        branch = self.branches[0 if np.asarray(array_of(args[0])).item() else 1]
        return graph_call(self._calls, branch).record_node(trace, branch.pick(args[1:]))

    # ----- forward mode -------------------------------------------------------------------------
    def jvp(self, primals, tangents):
        pred, operands = primals[0], primals[1:]
        given = tuple(i for i, t in enumerate(tangents[1:]) if t is not None)
        prim, extra = self._rule(("jvp", given), lambda: self._jvp_cond(operands, given))
        flat = bind(prim, pred, *operands, *[tangents[1 + i] for i in given], *extra)
        flat = flat if isinstance(flat, tuple) else (flat,)
        outs, tans = flat[:self.n_out], iter(flat[self.n_out:])
        out_tangents = [next(tans) if d.is_float else None for _, d in self.branches[0].out_types]
        return self._result(outs), self._result(out_tangents)

    def _jvp_cond(self, operands, given):
        n = len(operands)

        def forward(branch):
            def fn(*args):
                outs, tans = jvp_outputs(branch, args[:n], dict(zip(given, args[n:])))
                return tuple(outs) + tuple(tans)
            return fn
        examples = [example(v.shape, v.dtype) for v in operands] + [example(operands[i].shape, operands[i].dtype)
                                                                   for i in given]
        t, f = (stage(forward(b), examples, f"jvp_{b.name}") for b in self.branches)
        return Cond.build(t, f)

    # ----- reverse mode -------------------------------------------------------------------------
    def bprop(self, *args):
        pred, operands, dout = args[0], args[1:-2], args[-1]
        douts = list(dout) if self.n_out != 1 else [dout]
        wanted = tuple(i for i, v in enumerate(operands) if wants_grad(i + 1) and is_float(v))
        grads = [None] * (1 + len(operands))
        if not wanted:
            return tuple(grads)
        reached = tuple(d is not None for d in douts)
        prim, extra = self._rule(("vjp", wanted, reached), lambda: self._vjp_cond(operands, douts, wanted, reached))
        found = bind(prim, pred, *operands, *[d for d in douts if d is not None], *extra)
        for i, g in zip(wanted, found if isinstance(found, tuple) else (found,)):
            grads[1 + i] = g
        return tuple(grads)

    def _vjp_cond(self, operands, douts, wanted, reached):
        n = len(operands)

        def backward(branch):
            def fn(*args):
                given = iter(args[n:])
                cotangents = [next(given) if r else None for r in reached]
                found = vjp_outputs(branch, args[:n], set(wanted), cotangents)
                # an operand this branch does not read gets no gradient from it: zeros
                return tuple(found[i] if i in found else zeros_like(args[i]) for i in wanted)
            return fn
        examples = [example(v.shape, v.dtype) for v in operands]
        examples += [example(d.shape, d.dtype) for d in douts if d is not None]
        t, f = (stage(backward(b), examples, f"grad_{b.name}") for b in self.branches)
        return Cond.build(t, f)

    # ----- batching -----------------------------------------------------------------------------
    def batch(self, values, dims, size):
        pred, pdim = values[0], dims[0]
        operands = [move_to_front(v, d) for v, d in zip(values[1:], dims[1:])]
        odims = tuple(None if d is None else 0 for d in dims[1:])
        if pdim is None:            # one choice for all examples: a Cond of the batched branches
            prim, extra = self._rule(("batch", odims, size), lambda: self._batched_cond(operands, odims, size))
            out = bind(prim, pred, *operands, *extra)
            return out, (0,) * self.n_out if self.n_out != 1 else 0
        # a choice per example: both branches on the whole batch, then select
        p = move_to_front(pred, pdim)
        outs = []
        for a, b in zip(*(batched_outputs(br, operands, odims, size) for br in self.branches)):
            mask = broadcast_to(reshape(p, (size,) + (1,) * (a.ndim - 1)), tuple(a.shape))
            outs.append(select(mask, a, b))
        return self._result(outs), self._result([0] * self.n_out)

    def _batched_cond(self, operands, odims, size):
        def batched(branch):
            return lambda *args: tuple(batched_outputs(branch, args, odims, size))
        examples = [example(v.shape, v.dtype) for v in operands]
        t, f = (stage(batched(b), examples, f"batched_{b.name}") for b in self.branches)
        return Cond.build(t, f)

    # ----- SymPy --------------------------------------------------------------------------------
    def sympy(self, pred, *operands):
        p = np.asarray(pred, dtype=object).reshape(-1)[0]
        if isinstance(p, sympy.Expr) and not isinstance(p, sympy.logic.boolalg.Boolean):
            p = sympy.Ne(p, 0)          # a number used as a predicate: true where non-zero
        if p in (sympy.true, sympy.false):
            return self._result(symbolic_outputs(self.branches[0 if p is sympy.true else 1], operands))
        t, f = (symbolic_outputs(b, operands) for b in self.branches)
        return self._result([_piecewise(p, a, b) for a, b in zip(t, f)])


def _piecewise(p, a, b):
    def one(x, y):
        if isinstance(x, sympy.logic.boolalg.Boolean) and not isinstance(x, sympy.Expr):
            return sympy.ITE(p, x, y)
        return sympy.Piecewise((x, p), (y, True))
    return np.asarray(np.frompyfunc(one, 2, 1)(a, b), dtype=object)


# ----- the function that stages it ------------------------------------------------------------------
def function_name(fn, default: str) -> str:
    name = getattr(fn, "__name__", None)
    return default if not name or name == "<lambda>" else name


def predicate(pred: Tensor, where: str) -> Tensor:
    """A Tensor used as a condition: one entry (shape () or (1,), as MindSpore requires), as a Bool
    scalar (a number is true where it is not zero)."""
    if pred.shape not in ((), (1,)):
        raise PredicateError(
            f"{where}: Only tensor which shape is () or (1,) can be converted to bool, but got tensor shape is "
            f"{list(pred.shape)} (MindSpore's words): a condition needs one truth value. Fix: reduce it, "
            "e.g. (x > 0).all() or (x > 0).any(), or ops.select(x > 0, a, b) for a choice per entry.")
    if pred.dtype is not mstype.bool_:
        pred = ne(pred, 0)
    return reshape(pred, ()) if pred.shape else pred


def _leaf_names(definition) -> list:
    """How an error names each output leaf: ``the output``, ``output[1]``, ``output['h']``."""
    names = []

    def walk(d, path):
        kind, body = d
        if kind == "leaf":
            names.append(f"output{path}" if path else "the output")
        elif kind == "dict":
            for k, v in body:
                walk(v, f"{path}[{k!r}]")
        else:
            for i, v in enumerate(body):
                walk(v, f"{path}[{i}]")
    walk(definition, "")
    return names


def _describe(kind, value, closed: Closed) -> str:
    if kind == "static":
        return f"the Python {type(value).__name__} {value!r}"
    shape, dtype = closed.out_types[value]
    return type_text(shape, dtype)


def _join(t: Closed, f: Closed, names=None):
    """Check that the branches' outputs agree (the type join); raise naming both types."""
    if t.out_definition != f.out_definition:
        raise BranchTypeError(
            f"cond: the branches must return the same structure, but the true branch ('{t.graph.name}') returns "
            f"{len(t.out_kinds)} value(s) and the false branch ('{f.graph.name}') {len(f.out_kinds)} in another "
            "structure (MindSpore: Type Join Failed, \"Cannot join the return values of different branches\"). "
            "Fix: return the same tuple (or list, dict) of values from both branches.")
    labels = list(names) if names is not None else _leaf_names(t.out_definition)
    for label, (tk, tv), (fk, fv) in zip(labels, t.out_kinds, f.out_kinds):
        if tk == fk == "static":
            if tv is fv or (type(tv) is type(fv) and tv == fv):
                continue
        elif tk == fk == "tensor":
            (ts, td), (fs, fd) = t.out_types[tv], f.out_types[fv]
            if td is fd and ts == fs:
                continue
            if td is fd:
                raise BranchShapeError(
                    f"cond: {label} is {type_text(ts, td)} in the true branch ('{t.graph.name}') but "
                    f"{type_text(fs, fd)} in the false branch ('{f.graph.name}'). A graph's values have static "
                    "shapes, so both branches must give the same shape (MindSpore 2.10 makes it a dynamic "
                    "shape instead). Fix: give both branches results of one shape, e.g. pad or reshape one.")
        raise BranchTypeError(
            f"cond: {label} is {_describe(tk, tv, t)} in the true branch ('{t.graph.name}') but "
            f"{_describe(fk, fv, f)} in the false branch ('{f.graph.name}'): one graph value cannot have "
            "either type (MindSpore: Type Join Failed, \"Cannot join the return values of different "
            "branches\"). Fix: make them agree, e.g. ops.cast(value, mindspore.float32) in one branch, "
            "or return a Tensor from both.")


def _differing_numbers(t: Closed, f: Closed) -> dict:
    """``{leaf: dtype}`` for outputs that are different Python numbers in the two branches: they
    become Tensors (as MindSpore joins two scalars into one value of the graph)."""
    found = {}
    if t.out_definition != f.out_definition:
        return found
    for j, ((tk, tv), (fk, fv)) in enumerate(zip(t.out_kinds, f.out_kinds)):
        numbers = all(isinstance(v, (bool, int, float, np.number, np.bool_)) for v in (tv, fv))
        if tk == fk == "static" and numbers and not (type(tv) is type(fv) and tv == fv):
            kinds = {type(v) for v in (tv, fv)}
            found[j] = (mstype.float32 if any(issubclass(k, (float, np.floating)) for k in kinds)
                        else mstype.bool_ if kinds <= {bool, np.bool_} else mstype.int64)
    return found


def cond(pred, true_fn, false_fn, *operands, names=None):
    """``true_fn(*operands) if pred else false_fn(*operands)``, staged as one ``Cond`` when ``pred``
    is a Tensor (see the module docstring); ``names`` names the output leaves in a type-join error
    (the variables a converted ``if`` assigns)."""
    if not isinstance(pred, Tensor):
        return (true_fn if pred else false_fn)(*operands)
    pred = predicate(pred, "cond")
    names_of = (function_name(true_fn, "true_branch"), function_name(false_fn, "false_branch"))
    t, f = (stage(fn, operands, name) for fn, name in zip((true_fn, false_fn), names_of))
    numbers = _differing_numbers(t, f)
    if numbers:
        def as_tensors(leaves):
            return [Tensor(v, numbers[j]) if j in numbers else v for j, v in enumerate(leaves)]
        t, f = (stage(fn, operands, name, as_tensors) for fn, name in zip((true_fn, false_fn), names_of))
    _join(t, f, names)
    prim, captured = Cond.build(t, f)
    if prim.n_out == 0 and not prim.has_effect:
        return t.rebuild([])
    out = bind(prim, pred, *t.explicit, *captured)
    return t.rebuild([out] if prim.n_out == 1 else list(out))
