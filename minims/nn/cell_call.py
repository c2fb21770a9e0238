"""What happens when a Cell is called (see ``minims.nn.cell`` for the order).

Kept apart from the Cell class so the five steps of a call read top to bottom in one function.
"""
from __future__ import annotations

import inspect
import weakref

from ..autodiff.custom_bprop import CellBprop
from ..autodiff.hooks import (CellHookInputs, CellHookOutputs, HookRecord, call_user_fn, cannot_bind,
                              warn_hooks_ignored)
from ..context import GRAPH_MODE, get_context
from ..graph.staging import StaticGraphError, is_staging
from ..common import running_cells, undo
from ..common.parameter import Parameter
from ..graph.jit import JitFunction
from ..interpreters.stack import Tracer, bind
from ..common.tensor import Tensor, _describe


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _identity_over_tensors(prim, values):
    """Apply the identity primitive ``prim`` to the Tensors in ``values``; others pass unchanged."""
    positions = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
    if not positions:
        return values
    out = _as_tuple(bind(prim, *(values[i] for i in positions)))
    values = list(values)
    for i, o in zip(positions, out):
        values[i] = o
    return tuple(values)


def run_cell(cell, args, kwargs):
    """Call ``cell``; if the call raises, the Parameters it wrote get their old values back."""
    running_cells.push(cell)            # errors (check_nan's) name the Cell they happened in
    try:
        return undo.atomic(_run, cell, args, kwargs)
    finally:
        running_cells.pop()


def _run(cell, args, kwargs):
    graph_mode = get_context("mode") == GRAPH_MODE
    if graph_mode and not is_staging() and not kwargs:
        return _compiled_call(cell)(*args)
    hooks_on = bool(cell._forward_pre_hooks or cell._forward_hooks or cell._backward_hooks)
    if hooks_on and (graph_mode or is_staging()):
        warn_hooks_ignored(f"{cell.cls_name} hooks")
        hooks_on = False
    cell_id = cell.cell_id if hooks_on else None

    if hooks_on:
        for hook in list(cell._forward_pre_hooks.values()):
            where = f"the forward pre-hook of {cell_id}"
            result = call_user_fn(hook, (cell_id, args), where, "hook_fn(cell_id, inputs)")
            if result is not None:
                args = _as_tuple(_checked_hook_result(result, where, "inputs"))

    record = None
    if hooks_on and cell._backward_hooks:
        record = HookRecord(cell_id, cell._backward_hooks)
        args = _identity_over_tensors(CellHookInputs(record), args)
        record.n_inputs = sum(isinstance(a, Tensor) for a in args)
        record.inputs_traced = any(isinstance(a, Tracer) for a in args)

    if cell.has_bprop():
        out = _call_with_bprop(cell, args, kwargs)
    else:
        try:
            out = cell.construct(*args, **kwargs)
        except TypeError:
            construct = cell.construct      # a plain method: a jit-compiled one reads its own signature
            why = cannot_bind(construct, args, kwargs) if inspect.ismethod(construct) else None
            if why is None:
                raise           # a TypeError from inside construct: it names its own cause
            called = f"{len(args)} input{'s' if len(args) != 1 else ''}" + (
                f" and the keywords {sorted(kwargs)}" if kwargs else "")
            raise TypeError(f"{cell.path}: {type(cell).__name__}.{why}. It was called with {called}. "
                            "Fix: call the Cell with one value per parameter of construct (self "
                            "excluded).") from None

    if record is not None:
        was_tuple = isinstance(out, tuple)
        out = _identity_over_tensors(CellHookOutputs(record), _as_tuple(out))
        out = out if was_tuple else out[0]

    if hooks_on:
        for hook in list(cell._forward_hooks.values()):
            where = f"the forward hook of {cell_id}"
            result = call_user_fn(hook, (cell_id, args, out), where, "hook_fn(cell_id, inputs, outputs)")
            if result is not None:
                out = _checked_hook_result(result, where, "output")
    return out


def _checked_hook_result(result, where, what):
    """A forward (pre-)hook's replacement: Tensors (in tuples), never a NumPy array or a string that
    would otherwise reach the next layer as its input."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    for item in items:
        if not isinstance(item, (Tensor, bool, int, float, type(None))):
            raise TypeError(f"{where} returned {_describe(item)} as the Cell's {what}; a hook returns None "
                            f"(keep the {what}) or Tensors to replace it. Fix: return Tensor(...) "
                            "(for a NumPy result), or None.")
    return result


def _compiled_call(cell):
    """The Cell's call compiled as one graph (Graph mode); one compiled function per Cell."""
    compiled = cell.__dict__.get("_graph_call")
    if compiled is None:
        # the Cell holds its compiled call; the call refers back weakly, so the pair is no cycle
        # and a Cell that goes out of use is freed by reference counting
        ref = weakref.ref(cell)
        compiled = JitFunction(lambda *a: run_cell(ref(), a, {}), name=type(cell).__name__)
        compiled._key_extra = lambda: ref().training
        cell.__dict__["_graph_call"] = compiled
    return compiled


def _call_with_bprop(cell, args, kwargs):
    if kwargs:
        raise TypeError(f"{cell.path}: a Cell with a custom bprop must be called with positional "
                        f"inputs only, got keyword arguments {sorted(kwargs)}.")
    params = tuple(getattr(cell, "internal_params", None) or ())
    for p in params:
        if not isinstance(p, Parameter):
            raise TypeError(f"{cell.path}.internal_params must hold Parameters, but holds {type(p).__name__}.")
    if params and is_staging():
        raise StaticGraphError(
            f"{cell.path}: internal_params (Parameters differentiated inside a custom bprop) work in "
            "PyNative mode only; a Graph-mode bprop may not use Parameters (the documentation's "
            "constraint). Fix: run this Cell in PyNative mode, or pass the weight in as an input.")
    node = CellBprop(cell, cell.path, len(args), params)
    return bind(node, *args, *params)
