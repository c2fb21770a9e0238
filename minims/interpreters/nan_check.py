"""``set_context(check_nan=True)``: stop at the first primitive that turns finite values into NaN or Inf.

With the option on, the float outputs of every primitive are checked as soon as it has run: in the
forward pass, inside every backward rule, and equation by equation in compiled graphs (the executor
then runs a checking variant of its plan).  The first primitive whose inputs were all finite but
whose output is not raises ``NonFiniteError``, naming

* the primitive (``Log``) and the pass: forward, or the backward rule it ran in (``Sqrt``'s);
* the Cell it ran in (``Net.head``), and for a compiled graph the graph and the equation;
* its inputs (shape, dtype, range) and the first bad value of its output;
* a fix for that primitive (clamp the input of a log, add an epsilon under a square root ...).

A primitive whose inputs already held NaN/Inf is not blamed, so the error always names the *first*
producer; values that were non-finite before they reached any primitive (the data, a constant) are
left to propagate.  MindSpore has no such option (its closest tools are dump files and overflow
detection on Ascend); the error class derives from RuntimeError.

Off, which is the default, nothing here runs on the hot path: ``set_context`` puts
``checked_evaluate`` in place of the eval interpreter's ``evaluate`` only while the option is on,
and the executor picks its checking plan only then.  NaN and Inf then propagate exactly as in NumPy
— silently, as in MindSpore: NumPy's "divide by zero encountered" warnings from minims' kernels are
filtered (see ``minims.context``), since they point at minims' source rather than the user's line.

This module is the one home of the option: ``enabled`` says whether it is on, ``switch`` turns it
on or off (``set_context`` and ``get_context`` call them).  The state kept for the messages: ``rule``,
the tape node whose backward rule is running (set through ``set_rule`` by the tape's backward loop);
the Cells whose call is running (``minims.interpreters.running_cells``); and, while checking, the Cell each
output was computed in, so that an error in a backward rule can say where that rule's forward ran.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from .. import context
from . import running_cells
from ..core import stack
from ..core.stack import MinimsError
from ..core.tensor import Tensor
from ..tensors.convert import describe as _describe

__all__ = ["NonFiniteError", "checked_evaluate", "switch", "enabled", "check_equation", "set_rule",
           "current_rule"]


class NonFiniteError(MinimsError, RuntimeError):
    """A primitive produced NaN or Inf from finite inputs while ``check_nan`` was on."""


#: Whether ``check_nan`` is on (``set_context(check_nan=...)`` changes it through ``switch``).
enabled = False
class _Checking(threading.local):
    rule = None           # the tape Node whose bprop is running (the rule runner, rules.py, sets it)
    evaluations = 0       # bumped per checked primitive: a primitive that ran others is a composite


_checking = _Checking()
_origin: dict = {}        # id(output Tensor) -> (weakref to it, Cell it was computed in)


def switch(on: bool) -> None:
    """Put the checking eval interpreter in place (on) or the plain one back (off)."""
    global enabled
    enabled = bool(on)
    stack.set_evaluator(checked_evaluate if on else None)
    from . import rules             # (it imports this module) every rule runs through it while on
    rules.refresh()
    if not on:
        _origin.clear()


def set_rule(node):
    """Note that the backward rule of tape node ``node`` runs now (None: none); returns the previous
    one, for the caller to put back."""
    previous, _checking.rule = _checking.rule, node
    return previous


def current_rule():
    """The tape node whose backward rule is running, or None."""
    return _checking.rule


# ----- eager: the checking eval interpreter -------------------------------------------------------------
def checked_evaluate(prim, args):
    """``stack.evaluate``, then the check of its float outputs."""
    state = _checking
    before = state.evaluations
    out = stack.evaluate(prim, args)
    # a primitive that ran others (a compiled graph, a custom-bprop Cell) had them checked already
    if state.evaluations == before:
        state.evaluations += 1
        if _nonfinite_any(out) and not _nonfinite_any(args):
            raise NonFiniteError(_message(prim.name, args, out))
    cell = running_cells.innermost()
    if cell is not None:
        _remember(out, cell)
    return out


def note_composite() -> None:
    """A compiled plan checks its own equations: the primitive running it is a composite."""
    _checking.evaluations += 1


def _remember(out, cell) -> None:
    for t in (out if isinstance(out, tuple) else (out,)):
        if isinstance(t, Tensor):
            key = id(t)
            _origin[key] = (weakref.ref(t, lambda _, key=key: _origin.pop(key, None)), cell)


def _origin_cell(value):
    """The Cell the forward value ``value`` (or the primal under it) was computed in, if recorded."""
    for t in (value if isinstance(value, tuple) else (value,)):
        while t is not None:
            hit = _origin.get(id(t))
            if hit is not None and hit[0]() is t:
                return hit[1]
            t = getattr(t, "_primal", None)
    return None


# ----- finiteness ---------------------------------------------------------------------------------------
def nonfinite(x) -> bool:
    """True if ``x`` (an array, Tensor or number) holds NaN or Inf; integers and bools never do."""
    if isinstance(x, Tensor):
        x = x._data
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        return x.dtype.kind in "fc" and not np.isfinite(x).all()
    if isinstance(x, float):
        return x != x or x in (float("inf"), float("-inf"))
    return False


def _nonfinite_any(values) -> bool:
    if isinstance(values, (tuple, list)):
        return any(_nonfinite_any(v) for v in values)
    return nonfinite(values)


# ----- compiled graphs ------------------------------------------------------------------------------------
def check_equation(graph, index, ins, outs) -> None:
    """Called by a checking plan when equation ``index`` of ``graph`` produced a non-finite value."""
    if _nonfinite_any(ins):
        return                  # not its fault: the value came in non-finite (a constant, an input)
    eq = graph.equations[index]
    where = f"graph '{graph.name}', equation {eq.text()}"
    raise NonFiniteError(_message(eq.prim.name, ins, outs, graph_where=where))


# ----- the message ----------------------------------------------------------------------------------------
def _message(name, args, out, graph_where=None) -> str:
    outs = out if isinstance(out, tuple) else (out,)
    bad = next(o for o in outs if nonfinite(o))
    arr = np.asarray(bad._data if isinstance(bad, Tensor) else bad)
    kinds = _kinds(arr)
    node = _checking.rule
    cell_now = running_cells.innermost()
    if node is not None:
        owner = node.prim
        owner_name = owner.name
        compiled = getattr(owner, "graph", None)
        if compiled is not None:        # a compiled call: its backward is a graph of rules
            passage = f"in the backward pass of the compiled '{compiled.name}'"
        else:
            passage = f"in the backward pass, in the backward rule of {owner_name}"
        path = getattr(owner, "path", None)
        if path:                # a custom bprop: the Cell is its own
            passage += f" (the bprop of Cell {path})"
        else:
            cell = _origin_cell(node.out) or cell_now
            if cell is not None:
                passage += f", whose forward ran in Cell {cell.path}"
    else:
        owner_name = None
        # a compiled graph may hold a backward pass too (jit of a grad, a compiled training step)
        passage = "in a compiled graph" if graph_where else "in the forward pass"
        if cell_now is not None:
            passage += f", in Cell {cell_now.path}"
    if graph_where:
        passage += f", in {graph_where}"
    inputs = "; ".join(_describe_value(a) for a in args) or "none"
    first = _first_bad(arr)
    return (f"check_nan: {name} produced {kinds} from finite inputs {passage}.\n"
            f"  inputs: {inputs}\n"
            f"  output: {_describe_value(bad, ranges=False)}: {int((~np.isfinite(arr)).sum())} of "
            f"{arr.size} values not finite, the first {first}.\n"
            f"  Fix: {fix_hint(name, owner_name, arr)}")


def _kinds(arr) -> str:
    if arr.dtype.kind != "f":
        return "NaN/Inf"
    found = []
    if np.isnan(arr).any():
        found.append("NaN")
    if np.isposinf(arr).any():
        found.append("+Inf")
    if np.isneginf(arr).any():
        found.append("-Inf")
    return " and ".join(found)


def _first_bad(arr) -> str:
    flat = np.flatnonzero(~np.isfinite(arr))[0]
    index = np.unravel_index(flat, arr.shape) if arr.ndim else ()
    value = arr.reshape(-1)[flat]
    where = f" at index {list(int(i) for i in index)}" if arr.ndim else ""
    return f"{value}{where}"


def _describe_value(v, ranges=True) -> str:
    data = v._data if isinstance(v, Tensor) else v
    if isinstance(data, (np.ndarray, np.generic)):
        text = _describe(Tensor._make(np.asarray(data)))
        if ranges and data.dtype.kind == "f" and data.size:
            text += f" in [{data.min():.6g}, {data.max():.6g}]"
        return text
    return _describe(v)


def fix_hint(name: str, owner: str | None, out) -> str:
    """What to change, for the primitive ``name`` (run by the backward rule of ``owner``, if any)."""
    overflow = not np.isnan(out).any()
    limit = f"{np.finfo(out.dtype).max:.3g}" if out.dtype.kind in "fc" else "?"
    if owner in _BACKWARD_HINTS:
        return _BACKWARD_HINTS[owner]
    if name in _FORWARD_HINTS:
        return _FORWARD_HINTS[name]
    if overflow:
        grown = ("the gradients grew too large (exploding gradients): lower the learning rate, clip or "
                 "normalise the gradients" if owner is not None else
                 "the values grew too large: normalise or scale the inputs, lower the learning rate")
        return (f"a result exceeded the largest {out.dtype} ({limit}) and overflowed to Inf; {grown}, or "
                "compute in float64.")
    if owner is not None:
        return (f"the gradient of {owner} is not finite at these inputs: keep its forward input away from "
                "the point where its derivative is infinite or undefined (add an epsilon, clamp it), or "
                "write a Cell with a custom bprop that gives the gradient you want there.")
    return ("the inputs above reach a point where this operation is undefined: clamp them into its "
            "domain (ops.maximum / ops.minimum) or add an epsilon.")


_FORWARD_HINTS = {
    "Log": "log of a value <= 0 is -Inf (at 0) or NaN (below 0): keep the input positive, e.g. "
           "ops.log(ops.maximum(x, 1e-12)) (ops.clip_by_value in MindSpore) or ops.log(x + eps).",
    "Sqrt": "sqrt of a negative value is NaN: clamp the input at 0, e.g. ops.sqrt(ops.maximum(x, 0.0)), "
            "or take the square root of a square or an abs.",
    "Div": "division by zero (x / 0 is Inf, 0 / 0 is NaN): add an epsilon to the denominator, "
           "x / (y + eps), or choose with ops.select where y == 0.",
    "Reciprocal": "1 / 0 is Inf: add an epsilon, ops.reciprocal(x + eps), or clamp x away from 0.",
    "Pow": "x ** y is NaN for a negative x with a fractional y, Inf for x = 0 with y < 0, and overflows "
           "for large results: clamp the base (ops.maximum(x, eps)) or use an integer exponent.",
    "Exp": "exp overflows above about 88.7 in float32 (709.8 in float64): subtract the maximum first "
           "(the log-sum-exp trick, or ops.softmax / ops.log_softmax), or clamp the input.",
    "Cast": "the value does not fit the target dtype and became Inf: cast to a wider dtype, or scale "
            "the values first.",
    "ReduceMean": "the mean over an empty axis is NaN (0 / 0): check the shape of the input.",
}

_BACKWARD_HINTS = {
    "Sqrt": "the derivative of sqrt(x), 0.5 / sqrt(x), is infinite at x = 0: keep the input away from 0, "
            "e.g. ops.sqrt(x + 1e-12), or ops.sqrt(ops.maximum(x, 1e-12)).",
    "Log": "the derivative of log(x), 1 / x, is infinite at x = 0: keep the input positive, "
           "ops.log(x + eps) or ops.log(ops.maximum(x, 1e-12)).",
    "Div": "the derivative of x / y has 1 / y and x / y**2, infinite at y = 0: add an epsilon to the "
           "denominator, x / (y + eps).",
    "Reciprocal": "the derivative of 1 / x, -1 / x**2, is infinite at x = 0: add an epsilon, "
                  "ops.reciprocal(x + eps).",
    "Pow": "the derivative of x ** y is y * x ** (y - 1) (and x ** y * log(x) for y): infinite or NaN at "
           "x = 0 when y < 1: keep the base positive, ops.pow(ops.maximum(x, eps), y).",
}


context.own_option("check_nan", lambda: enabled, switch)
