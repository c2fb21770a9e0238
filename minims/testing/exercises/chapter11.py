"""Exercises of chapter 11 (control flow in a static graph).

11.1  the bprop of a Cell whose ``construct`` is a ``cond``: itself a ``cond`` of the branches' rules;
11.2  MindSpore's ``ForiLoop`` written on ``scan`` (one ``Scan`` in the graph, not a loop unrolled);
11.3  a recurrent network (an RNN) with ``scan``: every hidden state, and the gradients of the weights.

Every check compiles the answer with ``jit(fullgraph=True)``: one graph for every input, no guarded
variants (a Python ``if`` on a Tensor in the 11.1 rule is refused).  The references are SymPy's
``Piecewise`` (11.1) and the loops unrolled in SymPy (11.2, 11.3), never the primitives' own rules.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import sympy

from ... import ops
from ...core.tensor import Tensor
from ...graph.jit import jit
from .declare import Box, derivative_exercise, drawn
from .feedback import AnswerError


def _loops(graph) -> Counter:
    """The structured primitives of a graph (its own equations), by name."""
    return Counter(eq.prim.name for eq in graph.equations if eq.prim.name in ("Cond", "While", "Scan"))


# ----- 11.1: the bprop of a Cond -----------------------------------------------------------------------
def _sin_or_cube(x):
    """sin(x) where sum(x) > 0, x**3 elsewhere, entry by entry, in SymPy (the predicate is one for all)."""
    flat = np.asarray(x, dtype=object).reshape(-1)
    pred = sympy.Add(*flat) > 0
    out = [sympy.Piecewise((sympy.sin(s), pred), (s ** 3, True)) for s in flat]
    return np.array(out, dtype=object).reshape(np.shape(x))


def _cond_cell(SinOrCube, point):
    return jit(SinOrCube(), fullgraph=True)


def _cond_did(SinOrCube) -> str:
    x = Tensor(np.array([0.5, -0.25, 1.0]))
    cell = jit(SinOrCube(), fullgraph=True)
    backward = jit(ops.grad(lambda v: cell(v).sum()), fullgraph=True).graph(x)
    found = _loops(backward)
    where = (f"a graph with {found['Cond']} Cond" if found["Cond"] else "a graph without a Cond (both gradients "
             "computed and one picked)")
    return (f"Your bprop compiles with jit(fullgraph=True) into {where}; the first and second derivatives agree "
            "with SymPy's Piecewise on both sides of the predicate.")


COND_BPROP = derivative_exercise(
    "11.1", "the bprop of a Cond",
    "the gradient of cond(p, f, g, x) is cond(p, f's rule, g's rule, x, dout): the same predicate picks "
    "the branch's backward rule, which takes x and dout (two operands). Write each rule with minims ops.",
    build=_cond_cell, formula=_sin_or_cube, symbolic=False,
    points=[{"x": [0.5, -0.25, 1.0]}, {"x": [-1.5, 0.75, 0.5]}, {"x": [[0.25, -2.0], [1.0, -0.5]]},
            *drawn("11.1", 3, x=Box((3,), -2.0, 2.0))],
    orders=(0, 1, 2), wants="class SinOrCube", solved=_cond_did,
    worked="The predicate is the forward's, x.sum() > 0; the true branch's rule is dout * cos(x), the false "
           "branch's dout * 3x^2. cond takes both x and dout as operands, so each branch function takes two "
           "arguments: (cond(x.sum() > 0, lambda a, d: d * ops.cos(a), lambda a, d: 3 * a * a * d, x, dout),). "
           "Being a cond itself, the rule is differentiated again the same way (second order).")


# ----- 11.2: ForiLoop on Scan ----------------------------------------------------------------------------
_LOWER, _UPPER = 1, 4


def _step(i, v, x):
    """The loop's function in the check: v <- sin(v) * x + i (written once, for minims and SymPy)."""
    return (v.sin() if isinstance(v, Tensor) else np.vectorize(sympy.sin, otypes=[object])(v)) * x + i


def _one_scan(fn, args, what: str, unrolled: str):
    """``fn`` compiled with ``jit(fullgraph=True)``; refused (with advice) when the graph it makes of
    ``args`` holds anything but one Scan: ``unrolled`` is the advice for a loop unrolled by tracing."""
    compiled = jit(fn, fullgraph=True)
    found = _loops(compiled.graph(*[Tensor(a) for a in args]))
    if found != Counter({"Scan": 1}):
        got = ", ".join(f"{n} {name}" for name, n in sorted(found.items())) or "no loop primitive (a loop unrolled)"
        advice = unrolled if not found else (
            "a While (ops.ForiLoop with unroll=False, ops.WhileLoop, while_loop) runs while a condition holds, "
            "so its trip count is known only when it runs; the exercise asks for scan, whose trip count is "
            "the length of its xs, known to the graph.")
        raise AnswerError(f"{what} should compile into one Scan, but the graph holds {got}", kind="unrolled",
                          advice=advice)
    return compiled


def _fori_build(fori_loop, point):
    def fn(x):
        return fori_loop(_LOWER, _UPPER, lambda i, v: _step(i, v, x), x)
    return _one_scan(fn, [point["x"]], "fori_loop(1, 4, loop_func, x)",
                     "a Python for loop runs while tracing and is unrolled into the graph; scan(body, init, xs) "
                     "stages the body once and makes one Scan, whose xs are the loop's indices as a Tensor.")


def _fori_formula(x):
    x = np.asarray(x, dtype=object)
    v = x
    for i in range(_LOWER, _UPPER):
        v = _step(i, v, x)
    return v


def _fori_did(fori_loop) -> str:
    x = np.array([0.5, -1.0])
    graph = _fori_build(fori_loop, {"x": x}).graph(Tensor(x))
    scan = next(eq.prim for eq in graph.equations if eq.prim.name == "Scan")
    return (f"jit compiled your fori_loop into one Scan of length {scan.length}, its body a graph of "
            f"{scan.body.graph.num_equations} equations staged once; values and derivatives of order 1 and 2 "
            "agree with the loop unrolled in SymPy.")


FORI_ON_SCAN = derivative_exercise(
    "11.2", "ForiLoop written on Scan",
    "scan(body, init, xs) runs carry, y = body(carry, x) for each x along xs's leading axis. Make the "
    "indices lower, ..., upper - 1 a Tensor (np.arange), carry the value, and return no y (None).",
    build=_fori_build, formula=_fori_formula, symbolic=False,
    points=[{"x": [0.5, -1.0, 1.5]}, {"x": [[0.25, 2.0], [-0.75, 1.0]]}, *drawn("11.2", 2, x=Box((3,), -2.0, 2.0))],
    orders=(0, 1, 2), wants="function fori_loop", solved=_fori_did,
    worked="The indices are the xs: scan(lambda val, i: (loop_func(i, val), None), init_val, "
           "Tensor(np.arange(lower, upper))) gives (the last value, None); return the value. scan stages "
           "loop_func once, on placeholders, so the graph holds one Scan however many steps there are.")


# ----- 11.3: an RNN with Scan ----------------------------------------------------------------------------
def _tanh(v):
    return np.vectorize(sympy.tanh, otypes=[object])(v)


def _rnn_formula(h0, xs, W, U):
    """h_t = tanh(h_{t-1} W + x_t U), every h_t stacked: the loop unrolled in SymPy."""
    h, hs = np.asarray(h0, dtype=object), []
    W, U = np.asarray(W, dtype=object), np.asarray(U, dtype=object)
    for x in np.asarray(xs, dtype=object):
        h = _tanh(h.dot(W) + x.dot(U))
        hs.append(h)
    return np.stack(hs)


def _rnn_checked(rnn, point):
    return _one_scan(rnn, [point[n] for n in ("h0", "xs", "W", "U")], "rnn(h0, xs, W, U)",
                     "a Python for loop over the steps is unrolled into the graph, one copy of the cell per "
                     "step; scan(body, h0, xs) stages the cell once and makes one Scan over xs's first axis.")


RNN_SCAN = derivative_exercise(
    "11.3", "an RNN with Scan",
    "the carry is the hidden state h, each x is one row of xs, and the body returns (new h, new h): "
    "scan stacks the second one, every hidden state, along a new first axis.",
    build=_rnn_checked, formula=_rnn_formula, symbolic=False,
    points=[{"h0": [0.5, -0.25], "xs": [[1.0, 0.0], [0.5, -1.0], [-0.25, 0.75]],
             "W": [[0.5, -0.5], [0.25, 1.0]], "U": [[1.0, 0.25], [-0.5, 0.5]]},
            *drawn("11.3", 2, h0=Box((2,), -1.0, 1.0), xs=Box((3, 2), -1.0, 1.0), W=Box((2, 2), -1.0, 1.0),
                   U=Box((2, 2), -1.0, 1.0))],
    orders=(0, 1), wants="function rnn",
    solved=lambda rnn: "jit compiled your RNN into one Scan over the 3 steps; every hidden state and the "
                       "gradients for h0, xs, W and U agree with the loop unrolled in SymPy.",
    worked="A body step(h, x) computes h = ops.tanh(ops.matmul(h, W) + ops.matmul(x, U)) and returns (h, h): the "
           "new carry, and the y that scan stacks. scan(step, h0, xs) returns (the last h, every h stacked); "
           "return the second. W and U are read from outside the body: scan passes them to the Scan as operands, "
           "so their gradients flow.")

EXERCISES = (COND_BPROP, FORI_ON_SCAN, RNN_SCAN)
