"""``While`` and ``Scan``: loops whose bodies are graphs (``staging_loops.py`` stages them from Python).

``while_loop(cond_fn, body_fn, init)`` is ``while cond_fn(c): c = body_fn(c)`` on a *carry* ``c``
(Tensors in tuples, lists, dicts): both functions are staged into graphs (``staged.stage``), the
body must give back the carry's structure, dtypes and shapes (one graph value cannot change type
between iterations), and one primitive, ``While``, takes the carry and what the graphs read from
outside.  ``scan(body_fn, init, xs)`` runs ``carry, y = body_fn(carry, x)`` for each ``x`` along the
leading axis of ``xs`` and stacks the ``y``: a ``Scan``, whose trip count is a static length.

The rows of the table, each a loop over transformed graphs where it can be:

* ``impl`` runs the graphs' compiled plans in a Python loop; abstract evaluation gives the carry's
  types (and the stacked ``y``'s);
* ``jvp``: the same loop over the body's forward-mode graph, carrying values and tangents;
* batching: a ``Scan`` of the batched body.  A ``While`` whose condition is the same for every
  example is a ``While`` of the batched graphs; one whose condition differs per example runs while
  *any* example continues, and each example keeps its old carry once its own condition is false
  (``select``) — MindSpore 2.10's ``vmap`` refuses this;
* gradient: where a gradient level can read the condition now (PyNative), it records each
  iteration's body as a ``GraphCall`` (``recording.py``): one node per iteration, each keeping its
  residuals from the residual split — the stack of carries for ``While``, the per-step residuals for
  ``Scan`` — and the backward pass walks them in reverse.  Where it cannot (a graph being staged:
  ``jit`` of a gradient, the residual split of ``graph/residuals.py``), ``bprop`` binds ``LoopVjp``
  (below), whose rule runs the loop forward under a gradient level the same way and then backward;
  the split sends it to the backward graph with the loop's operands as its residuals.  Its own
  ``bprop`` is ``LoopVjp`` of it: second order needs nothing more.  The trade-off: memory grows with
  the trip count (every iteration's residuals are kept; 200 iterations on 1,000 float64 values keep
  about 3.5 MB where the forward alone keeps 0.07 MB), compute is one forward and one backward pass;
  recomputing each carry from the start instead keeps O(1) carries for O(n²) body runs;
* SymPy: a loop runs on SymPy values while its condition is a concrete truth value (the trip count
  is known: the loop is unrolled); a symbolic condition is refused.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..autodiff.jvp_from_bprop import jvp_from_bprop
from ..core.primitive import Primitive
from ..core.stack import MinimsError, array_of, bind, gradient_mask, wants_grad
from ..core.tape import vjp
from ..core.tensor import Tensor
from ..core.prims import move_to_front, zeros_like
from ..primitives.functional import broadcast_to, reshape, select, stack as stack_op, transpose
from .recording import graph_call, record_as_one_node, values_known
from .staged import (Branch, Closed, batched_or_shared, batched_outputs, example, is_float,
                     jvp_outputs, merge_operands, quiet, stage, symbolic_outputs)

__all__ = ["While", "Scan", "LoopVjp", "CarryTypeError", "CarryShapeError", "SymbolicLoopError"]


class CarryTypeError(MinimsError, TypeError):
    """A loop body returns a carry of another structure or dtype than it was given (MindSpore 2.10:
    TypeError, "Type Join Failed")."""


class CarryShapeError(MinimsError, ValueError):
    """A loop body returns a carry Tensor of the dtype it was given but another shape (MindSpore 2.10:
    ValueError, "should maintain the same type and shape")."""


class SymbolicLoopError(MinimsError, ValueError):
    """The SymPy form of a ``While`` whose condition is a symbolic expression: no trip count."""


def _result(outs: list):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _as_list(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]


def _examples(values) -> list:
    return [example(v.shape, v.dtype) for v in values]


class _Loop(Primitive):
    """What ``While`` and ``Scan`` share: ``run(tensors)``, the loop written with ``bind`` (so every
    interpreter below can see its iterations), and the gradient through ``LoopVjp``."""

    skips_unneeded_grads = True
    takes_missing_cotangents = True
    checks_rule_results = False

    def _rule(self, key, build):
        """A rule's primitive, made once per key (operand types never change for one loop)."""
        if key not in self._rules:
            self._rules[key] = build()
        return self._rules[key]

    def bprop(self, *args):
        operands, dout = args[:-2], args[-1]
        douts = _as_list(dout) if self.n_out != 1 else [dout]
        wanted = tuple(i for i, v in enumerate(operands) if wants_grad(i) and is_float(v))
        grads = [None] * len(operands)
        if not wanted:
            return tuple(grads)
        reached = tuple(d is not None for d in douts)
        prim = self._rule(("vjp", wanted, reached), lambda: LoopVjp(self, len(operands), wanted, reached))
        found = bind(prim, *operands, *[d for d in douts if d is not None])
        for i, g in zip(wanted, _as_list(found)):
            grads[i] = g
        return tuple(grads)

    def impl(self, *arrays):
        return _result(self.run_arrays(list(arrays)))

    def record_node(self, trace, args):
        """Seam 4 (``recording.py``): with values known, the level records each iteration's body, its
        residuals kept; otherwise one node, whose rule is ``LoopVjp``."""
        if not values_known():
            return record_as_one_node(self, trace, args)
        return _result(self.run(list(args)))

    def _bind_body(self, tensors) -> list:
        """The body's graph applied as one ``GraphCall`` (a node with its residual split)."""
        return _as_list(bind(graph_call(self._calls, self.body), *self.body.pick(tensors)))


class LoopVjp(_Loop):
    """``(operands, cotangents) -> gradients of the operands at wanted``, for a loop (or a LoopVjp).

    Its rule runs ``loop.run`` under a gradient level: the level keeps what each iteration computed
    (one node per iteration with its residuals: the stack of carries), and its backward pass runs
    the body's backward graph in reverse order, once per iteration.  Being a loop primitive itself,
    it is differentiated the same way (second order), and recorded as one equation by a graph being
    staged."""

    def __init__(self, loop: _Loop, n_operands: int, wanted: tuple, reached: tuple):
        self.loop, self.n_operands, self.wanted, self.reached = loop, n_operands, wanted, reached
        self.n_out = len(wanted)
        self.pure, self.has_effect = loop.pure, loop.has_effect
        self._rules, self._calls = {}, {}

    @property
    def name(self) -> str:
        return f"{self.loop.name}_vjp"

    def _attrs(self) -> dict:
        return {"loop": self.loop, "wanted": self.wanted}

    def abstract_eval(self, *arrays):
        return _result([np.zeros_like(arrays[i]) for i in self.wanted])

    def without_effects(self) -> "LoopVjp":
        return self._rule("without effects", lambda: quiet(LoopVjp(self.loop.without_effects(), self.n_operands,
                                                                   self.wanted, self.reached)))

    def jvp(self, primals, tangents):
        """Forward mode of a loop's gradient: its outputs are linear in the cotangents, so the
        tangent is derived from its own ``bprop`` (a ``LoopVjp`` of it) by transposing it."""
        saved, gradient_mask.mask = gradient_mask.mask, None    # a rule running outside: all inputs
        try:
            return jvp_from_bprop(self, primals, tangents)
        finally:
            gradient_mask.mask = saved

    def run(self, tensors) -> list:
        operands, given = tensors[:self.n_operands], iter(tensors[self.n_operands:])
        douts = [next(given) if r else None for r in self.reached]
        _, vjp_fn = vjp(lambda *a: _result(self.loop.run(list(a))), operands, self.wanted)
        grads = vjp_fn(*douts) if len(douts) > 1 else vjp_fn(douts[0])
        return list(grads) if isinstance(grads, tuple) else [grads]

    def run_arrays(self, arrays) -> list:
        return [t._data for t in self.run([Tensor._make(np.asarray(a)) for a in arrays])]


# ----- While -------------------------------------------------------------------------------------------
class While(_Loop):
    """``While(cond, body)(*carry, *captured)``: the carry after the last iteration."""

    def __init__(self, cond: Branch, body: Branch, n_carry: int):
        self.cond, self.body, self.n_carry = cond, body, n_carry
        self.n_out = n_carry
        self.pure = cond.pure and body.pure
        self.has_effect = cond.has_effect or body.has_effect
        self._rules, self._calls = {}, {}

    def _attrs(self) -> dict:
        # a tuple of the graphs: printed by their names, compared by identity (CSE)
        return {"graphs": (self.cond, self.body)}

    @classmethod
    def build(cls, cond: Closed, body: Closed) -> tuple:
        """``(While, captured)``: the primitive over the staged condition and body of one carry."""
        operands, (pc, pb) = merge_operands(body.explicit, [cond, body])
        return cls(Branch(cond.graph, pc), Branch(body.graph, pb), len(body.explicit)), operands[len(body.explicit):]

    def abstract_eval(self, *arrays):
        return _result([np.zeros_like(a) for a in arrays[:self.n_carry]])

    def without_effects(self) -> "While":
        """The same loop over its graphs with their effects gone (``graph/replay.py``)."""
        return self._rule("without effects", lambda: quiet(While(self.cond.without_effects(),
                                                                 self.body.without_effects(), self.n_carry)))

    def run_arrays(self, operands) -> list:
        while np.asarray(self.cond.run(operands)[0]).item():
            operands = list(self.body.run(operands)) + operands[self.n_carry:]
        return operands[:self.n_carry]

    def run(self, tensors) -> list:
        """The loop with ``bind``: each iteration's condition is read from the values."""
        while np.asarray(self.cond.run([array_of(t) for t in tensors])[0]).item():
            tensors = self._bind_body(tensors) + list(tensors[self.n_carry:])
        return list(tensors[:self.n_carry])

    # ----- forward mode: a While carrying values and tangents --------------------------------------
    def jvp(self, primals, tangents):
        n = self.n_carry
        floats = tuple(i for i in range(n) if is_float(primals[i]))
        given = tuple(i for i in range(n, len(primals)) if tangents[i] is not None)
        prim, extra = self._rule(("jvp", given), lambda: self._jvp_while(primals, floats, given))
        carried = [tangents[i] if tangents[i] is not None else zeros_like(primals[i]) for i in floats]
        flat = _as_list(bind(prim, *primals[:n], *carried, *primals[n:], *[tangents[i] for i in given], *extra))
        tans = iter(flat[n:])
        return _result(flat[:n]), _result([next(tans) if i in floats else None for i in range(n)])

    def _jvp_while(self, primals, floats, given):
        n, m, k = self.n_carry, len(floats), len(primals)

        def split(args):
            carry, tans, rest = args[:n], args[n:n + m], args[n + m:]
            operands = list(carry) + list(rest[:k - n])
            tangents = dict(zip(floats, tans))
            tangents.update(zip(given, rest[k - n:]))
            return operands, tangents

        def cond_fn(*args):
            operands, _ = split(args)
            return self.cond.call(operands, effects=False)[0]

        def body_fn(*args):
            operands, tangents = split(args)
            outs, tans = jvp_outputs(self.body, operands, tangents)
            return (*outs, *tans, *args[n + m:])
        examples = _examples(primals[:n]) + _examples([primals[i] for i in floats]) + _examples(primals[n:])
        examples += _examples([primals[i] for i in given])
        c = stage(cond_fn, examples, f"jvp_{self.cond.name}")
        b = stage(body_fn, examples, f"jvp_{self.body.name}")
        return While.build(c, b)

    # ----- batching ---------------------------------------------------------------------------------
    def batch(self, values, dims, size):
        n = self.n_carry
        operands = [v if d is None else move_to_front(v, d) for v, d in zip(values, dims)]
        odims = [None if d is None else 0 for d in dims]
        # a carry the body makes batched must be batched from the start: find the fixed point
        while True:
            _, flags = batched_or_shared(self.body, operands, odims, size)
            grown = [i for i in range(n) if flags[i] and odims[i] is None]
            if not grown:
                break
            for i in grown:
                operands[i], odims[i] = broadcast_to(operands[i], (size,) + tuple(operands[i].shape)), 0
        _, (per_example,) = batched_or_shared(self.cond, operands, odims, size)
        if per_example:     # the examples stop at different iterations: every carry differs per example
            for i in range(n):
                if odims[i] is None:
                    operands[i], odims[i] = broadcast_to(operands[i], (size,) + tuple(operands[i].shape)), 0
        key = ("batch", tuple(odims), size, per_example)
        prim, extra = self._rule(key, lambda: self._batched_while(operands, tuple(odims), size, per_example))
        # every operand of the batched While is carried (the body returns the others unchanged)
        out = _as_list(bind(prim, *operands, *extra))[:n]
        return _result(out), _result([odims[i] for i in range(n)])

    def _batched_while(self, operands, odims, size, per_example):
        n = self.n_carry
        cond_dims = list(odims)

        def keep_dims(outs):
            # a carry shared by all examples stays unbatched: the body keeps it shared (fixed point)
            return [o if odims[i] == 0 else o[0] for i, o in enumerate(outs)]

        def cond_fn(*args):
            p = batched_outputs(self.cond, args, cond_dims, size)[0]
            return p.any() if per_example else reshape(p[0:1], ())

        def body_fn(*args):
            new = keep_dims(batched_outputs(self.body, args, cond_dims, size))
            if per_example:     # an example whose condition is false keeps its carry
                p = batched_outputs(self.cond, args, cond_dims, size)[0]
                new = [select(broadcast_to(reshape(p, (size,) + (1,) * (o.ndim - 1)), tuple(o.shape)), o, a)
                       for o, a in zip(new, args[:n])]
            return (*new, *args[n:])
        examples = _examples(operands)
        c = stage(cond_fn, examples, f"batched_{self.cond.name}")
        b = stage(body_fn, examples, f"batched_{self.body.name}")
        return While.build(c, b)

    # ----- SymPy: unrolled while the condition is a concrete truth value -----------------------------
    def sympy(self, *operands):
        operands = list(operands)
        while True:
            p = np.asarray(symbolic_outputs(self.cond, operands)[0], dtype=object).reshape(-1)[0]
            p = sympy.sympify(p)
            if p not in (sympy.true, sympy.false) and not p.is_number:
                raise SymbolicLoopError(
                    f"While: the loop condition '{self.cond.name}' is the symbolic expression {p}, so the "
                    "trip count is unknown and the loop cannot be unrolled into one expression. Fix: give "
                    "the symbols values (subs) for the loop's condition, or use a loop with a fixed trip "
                    "count (ForiLoop with Python bounds, Scan).")
            if not bool(p):
                return _result(operands[:self.n_carry])
            operands = list(symbolic_outputs(self.body, operands)) + operands[self.n_carry:]


# ----- Scan --------------------------------------------------------------------------------------------
class Scan(_Loop):
    """``Scan(body, length, n_carry, n_xs)(*carry, *xs, *captured)``: the last carry, then each ``y``
    stacked along a new leading axis of ``length``."""

    def __init__(self, body: Branch, length: int, n_carry: int, n_xs: int):
        self.body, self.length, self.n_carry, self.n_xs = body, length, n_carry, n_xs
        self.n_out = len(body.graph.outputs)
        self.pure, self.has_effect = body.pure, body.has_effect
        self._rules, self._calls = {}, {}

    def _attrs(self) -> dict:
        return {"graphs": (self.body,), "length": self.length}

    @classmethod
    def build(cls, body: Closed, length: int, n_carry: int, n_xs: int) -> tuple:
        """``(Scan, captured)``: the body's explicit inputs are the carry, then ``n_xs`` slices of
        stacked values, then values read whole at every step."""
        operands, (pb,) = merge_operands(body.explicit, [body])
        return cls(Branch(body.graph, pb), length, n_carry, n_xs), operands[len(body.explicit):]

    def abstract_eval(self, *arrays):
        outs = self.body.zeros()
        return _result(outs[:self.n_carry] + [np.zeros((self.length,) + y.shape, y.dtype)
                                              for y in outs[self.n_carry:]])

    def without_effects(self) -> "Scan":
        """The same loop over its body with its effects gone (``graph/replay.py``)."""
        return self._rule("without effects", lambda: quiet(Scan(self.body.without_effects(), self.length,
                                                                self.n_carry, self.n_xs)))

    def _step_operands(self, carry, operands, t, take):
        c, nx = self.n_carry, self.n_xs
        return list(carry) + [take(x, t) for x in operands[c:c + nx]] + list(operands[c + nx:])

    def run_arrays(self, operands) -> list:
        carry, ys = operands[:self.n_carry], []
        for t in range(self.length):
            outs = self.body.run(self._step_operands(carry, operands, t, lambda x, i: x[i]))
            carry, ys = outs[:self.n_carry], ys + [outs[self.n_carry:]]
        return list(carry) + [np.stack([y[j] for y in ys]) for j in range(self.n_out - self.n_carry)]

    def run(self, tensors) -> list:
        carry, ys = list(tensors[:self.n_carry]), []
        for t in range(self.length):
            outs = self._bind_body(self._step_operands(carry, tensors, t, lambda x, i: x[i]))
            carry, ys = outs[:self.n_carry], ys + [outs[self.n_carry:]]
        return carry + [stack_op([y[j] for y in ys]) for j in range(self.n_out - self.n_carry)]

    # ----- forward mode: a Scan carrying values and tangents ----------------------------------------
    def jvp(self, primals, tangents):
        c, nx = self.n_carry, self.n_xs
        floats = tuple(i for i in range(c) if is_float(primals[i]))
        given = tuple(i for i in range(c, len(primals)) if tangents[i] is not None)
        prim, extra = self._rule(("jvp", given), lambda: self._jvp_scan(primals, floats, given))
        carried = [tangents[i] if tangents[i] is not None else zeros_like(primals[i]) for i in floats]
        xs_given = [tangents[i] for i in given if i < c + nx]
        rest_given = [tangents[i] for i in given if i >= c + nx]
        flat = _as_list(bind(prim, *primals[:c], *carried, *primals[c:c + nx], *xs_given, *primals[c + nx:],
                             *rest_given, *extra))
        m = len(floats)
        carry, carry_t, ys = flat[:c], iter(flat[c:c + m]), flat[c + m:]
        ny = self.n_out - c
        y_values, y_tangents = ys[:ny], iter(ys[ny:])
        y_types = self.body.out_types[c:]
        out = carry + y_values
        tans = [next(carry_t) if i in floats else None for i in range(c)]
        tans += [next(y_tangents) if d.is_float else None for _, d in y_types]
        return _result(out), _result(tans)

    def _jvp_scan(self, primals, floats, given):
        c, nx, m = self.n_carry, self.n_xs, len(floats)
        gx = [i for i in given if i < c + nx]
        gr = [i for i in given if i >= c + nx]
        nr = len(primals) - c - nx
        ny = self.n_out - c

        def body_fn(*args):
            carry, ct = args[:c], args[c:c + m]
            xs, xt = args[c + m:c + m + nx], args[c + m + nx:c + m + nx + len(gx)]
            rest = args[c + m + nx + len(gx):]
            rv, rt = rest[:nr], rest[nr:]
            operands = list(carry) + list(xs) + list(rv)
            tangents = dict(zip(floats, ct))
            tangents.update(zip(gx, xt))
            tangents.update(zip(gr, rt))
            outs, tans = jvp_outputs(self.body, operands, tangents)
            n_carry_t = sum(1 for _, d in self.body.out_types[:c] if d.is_float)
            return (*outs[:c], *tans[:n_carry_t], *outs[c:c + ny], *tans[n_carry_t:])
        slices = lambda vs: [example(v.shape[1:], v.dtype) for v in vs]   # noqa: E731 - one step's x
        examples = (_examples(primals[:c]) + _examples([primals[i] for i in floats]) + slices(primals[c:c + nx])
                    + slices([primals[i] for i in gx]) + _examples(primals[c + nx:])
                    + _examples([primals[i] for i in gr]))
        b = stage(body_fn, examples, f"jvp_{self.body.name}")
        return Scan.build(b, self.length, c + m, nx + len(gx))

    # ----- batching: a Scan of the batched body -------------------------------------------------------
    def batch(self, values, dims, size):
        c, nx = self.n_carry, self.n_xs
        operands = [v if d is None else move_to_front(v, d) for v, d in zip(values, dims)]
        odims = [None if d is None else 0 for d in dims]
        # a batched stack of x: (length, batch, ...), so that step t reads a batch at axis 0
        operands[c:c + nx] = [x if d is None else _swap01(x) for x, d in zip(operands[c:c + nx], odims[c:c + nx])]
        step_dims = list(odims)
        # a carry the body makes batched must be batched from the start: find the fixed point
        while True:
            step = [*operands[:c], *[x[0] for x in operands[c:c + nx]], *operands[c + nx:]]
            _, flags = batched_or_shared(self.body, step, step_dims, size)
            grown = [i for i in range(c) if flags[i] and step_dims[i] is None]
            if not grown:
                break
            for i in grown:
                operands[i], step_dims[i] = broadcast_to(operands[i], (size,) + tuple(operands[i].shape)), 0
        key = ("batch", tuple(step_dims), size)
        prim, extra = self._rule(key, lambda: self._batched_scan(operands, tuple(step_dims), size))
        flat = _as_list(bind(prim, *operands, *extra))
        # each y comes stacked as (length, batch, ...): the batch is at axis 1
        return _result(flat), _result([step_dims[i] for i in range(c)] + [1] * (self.n_out - c))

    def _batched_scan(self, operands, step_dims, size):
        c, nx = self.n_carry, self.n_xs

        def body_fn(*args):
            outs = batched_outputs(self.body, args, step_dims, size)
            return tuple(o if i >= c or step_dims[i] == 0 else o[0] for i, o in enumerate(outs))
        examples = (_examples(operands[:c]) + [example(x.shape[1:], x.dtype) for x in operands[c:c + nx]]
                    + _examples(operands[c + nx:]))
        b = stage(body_fn, examples, f"batched_{self.body.name}")
        return Scan.build(b, self.length, c, nx)

    # ----- SymPy: the loop unrolled (its trip count is the static length) -------------------------------
    def sympy(self, *operands):
        carry, ys = list(operands[:self.n_carry]), []
        for t in range(self.length):
            outs = symbolic_outputs(self.body, self._step_operands(carry, operands, t, lambda x, i: x[i]))
            carry, ys = outs[:self.n_carry], ys + [outs[self.n_carry:]]
        stacked = [np.stack([np.asarray(y[j], dtype=object) for y in ys]) for j in range(self.n_out - self.n_carry)]
        return _result(carry + stacked)


def _swap01(x):
    return transpose(x, (1, 0) + tuple(range(2, x.ndim)))
