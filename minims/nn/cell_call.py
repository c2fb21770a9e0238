"""What happens when a Cell is called (see ``minims.nn.cell`` for the order).

Kept apart from the Cell class so the five steps of a call read top to bottom in one function.
"""
from __future__ import annotations

import inspect
import os
import sys
import weakref

from ..autodiff.custom_bprop import CellBprop, bprops_in_use
from ..autodiff.recompute import Recompute
from ..autodiff.hooks import (CellHookInputs, CellHookOutputs, HookRecord, call_user_fn, cannot_bind,
                              hooks_skipped, warn_hooks_ignored)
from ..context import GRAPH_MODE, get_context
from ..graph.tracing import StaticGraphError, is_staging
from ..interpreters import running_cells
from ..tensors import undo
from ..tensors.parameter import Parameter
from ..graph.jit import JitFunction
from ..graph import conversion
from ..core.stack import MinimsError
from ..core.stack import Tracer, active_traces, bind
from ..core.batching import BatchTrace
from ..core.jvp import JVPTrace
from ..core.tape import TapeTrace
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..primitives.operands import DtypeMismatchError
from .param_names import refresh_names_on_first_call
from . import precision


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


class CellRecursionError(MinimsError, RecursionError):
    """Python's recursion limit was reached inside a Cell call: Cells nested too deeply, or a
    construct that calls itself without end.  A RecursionError (so ``except RecursionError`` still
    catches it), hence a RuntimeError, as MindSpore's Graph-mode "Exceed function call depth limit"."""


def call_cell(cell, *args, **kwargs):
    """``Cell.__call__``: call ``cell``; if the call raises, the Parameters it wrote get their old
    values back (``undo``).

    Each level of nested Cells costs three Python frames — this one, ``_run`` and ``construct`` — so
    that a network nested 1000 deep fits Python's stack (``import minims`` raises the limit to 10000).
    """
    if "_params" not in cell.__dict__:
        cell._check_init()
    if "_names_checked" not in cell.__dict__:
        refresh_names_on_first_call(cell)
    running = running_cells.stack()
    running.append(cell)                # errors (check_nan's) name the Cell they happened in
    try:
        if undo.is_logging():           # inside an outer call: its log records (no frame for atomic)
            return _run(cell, args, kwargs)
        return undo.atomic(_run, cell, args, kwargs)
    except RecursionError as error:
        # The innermost handler runs with next to no stack left: only C-level steps here (no Python
        # call), remembering which Cells were running; the outermost Cell call, with room to spare,
        # writes the message.  The error is re-raised either way, never swallowed.
        if not hasattr(error, "_minims_running"):
            error._minims_running = running[:]
        if len(running) > 1 or isinstance(error, CellRecursionError) or not _is_depth_error(error):
            raise
        raise _recursion_error(error) from error
    except (TypeError, ValueError) as error:
        _locate(error, cell, args)
        raise
    finally:
        running.pop()


_MINIMS = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Where the checks of ops and primitives raise (and their NumPy errors are explained)
_OP_CODE = tuple(_MINIMS + folder + os.sep for folder in ("ops", "primitives", "interpreters", "graph"))


def _locate(error, cell, args) -> None:
    """Name the Cell in the message of an error an op raised inside a built-in layer.

    The innermost Cell call an error passes through claims it.  A user's Cell leaves the message as
    it is: the traceback ends at the user's line.  A built-in layer (Dense, Conv2d, ...) is no
    line of the user's, so the message gains its path (``Net.fc1: MatMul: ...``) — only for an
    error an op raised with nothing but minims' code between the Cell call and the raise (never
    the user's own error from a hook or an activation function, nor a layer's own check, which
    names the path already).  A dtype mismatch with the layer's Parameters says to cast the input.
    """
    if "_minims_cell" in vars(error):
        return
    error._minims_cell = cell.path
    if not (_raised_by_an_op(error.__traceback__) and len(error.args) == 1 and isinstance(error.args[0], str)):
        return
    message = error.args[0]
    if isinstance(error, DtypeMismatchError):
        message = _cast_the_input(error, cell, args) or message
    error.args = (f"{cell.path}: {message}",)


def _raised_by_an_op(tb) -> bool:
    """Every frame from the Cell call down is minims' own, and the last one an op's or primitive's."""
    path = ""
    while tb is not None:
        path = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not path.startswith(_MINIMS):
            return False
        tb = tb.tb_next
    return path.startswith(_OP_CODE)


def _cast_the_input(error, cell, args):
    """The message for an input whose dtype is not the layer's: the fix is to cast the input (or
    None when the two dtypes are not the inputs' and the Parameters')."""
    inputs = {a.dtype for a in args if isinstance(a, Tensor)}
    params = {p.dtype for p in cell.get_parameters()}
    for got, want in (error.dtypes, error.dtypes[::-1]):
        if got in inputs and got not in params and want in params:
            return (f"{type(cell).__name__} got an input of dtype {got}, but its Parameters are {want} "
                    f"({error.mismatch}). Fix: cast the input, x.astype(mindspore.{want.np_dtype.name}) — NumPy "
                    f"data is float64 unless asked otherwise: Tensor(np.asarray(data, np.{want.np_dtype.name})).")
    return None


def _is_depth_error(error) -> bool:
    """Python's own "maximum recursion depth exceeded", not a RecursionError the user raised."""
    return "maximum recursion depth" in str(error)


def _short_path(path: str, keep: int = 4) -> str:
    parts = path.split(".")
    if len(parts) <= 2 * keep + 1:
        return path
    return ".".join(parts[:keep]) + f". ... ({len(parts) - 2 * keep} more) ... ." + ".".join(parts[-keep:])


def _recursion_error(error) -> CellRecursionError:
    running = error._minims_running
    inner = running[-1]
    path = _short_path(inner.path)
    name = type(inner).__name__
    limit = sys.getrecursionlimit()
    times = sum(c is inner for c in running)
    if times > 1:
        what = (f"the construct of {name} calls {name} again — directly or through other Cells — "
                f"without end (it was running {times} times at once, {len(running)} Cell calls deep)")
        fix = ("Fix: give the recursion a base case that stops it, or call a different Cell; a Cell "
               "that needs a repeated block can loop over an nn.CellList in its construct.")
    else:
        n = len(running)
        what = (f"{n} nested Cell call{'s were' if n != 1 else ' was'} running (the innermost a {name}): "
                f"either the network nests Cells too deeply for Python's stack, or Python code called "
                f"from {name}.construct recurses without end")
        fix = ("Fix: flatten deep nesting — put the repeated blocks in an nn.SequentialCell, or loop "
               "over an nn.CellList in one construct — or, if the depth is intended, raise the limit "
               f"with sys.setrecursionlimit({2 * limit}); if a function recurses, give it a base case.")
    return CellRecursionError(
        f"{path}: Exceeded the recursion limit ({limit} Python frames) in a Cell call: {what}. {fix}")


def _run(cell, args, kwargs, precision_set=False):
    graph_mode = get_context("mode") == GRAPH_MODE
    if graph_mode and not is_staging() and not kwargs:
        return _compiled_call(cell)(*args)
    if not precision_set and "_amp_type" in cell.__dict__:     # Cell.to_float: its ops cast their inputs
        return precision.run(cell, _run, args, kwargs)
    hooks_on = bool(cell._forward_pre_hooks or cell._forward_hooks or cell._backward_hooks
                    or cell._backward_pre_hooks)
    if hooks_on and hooks_skipped():
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
    if hooks_on and (cell._backward_hooks or cell._backward_pre_hooks):
        record = HookRecord(cell_id, cell._backward_hooks, cell._backward_pre_hooks)
        if cell._backward_hooks:
            args = _identity_over_tensors(CellHookInputs(record), args)
            record.n_inputs = sum(isinstance(a, Tensor) for a in args)
            record.inputs_traced = any(isinstance(a, Tracer) for a in args)

    if cell.has_bprop() and bprops_in_use():
        out = _call_with_bprop(cell, args, kwargs)
    elif "_recompute" in cell.__dict__ and _recomputes(args, kwargs):
        node = Recompute(cell, len(args), tuple(cell.get_parameters()))
        out = node.structured(bind(node, *args, *node.params))
    else:
        try:
            # while a graph is compiled under capture_mode="ast": its if/while on Tensors converted
            out = (conversion.for_construct(cell.construct) if is_staging() else cell.construct)(*args, **kwargs)
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


_TRANSFORMS = (TapeTrace, JVPTrace, BatchTrace)


def _recomputes(args, kwargs) -> bool:
    """Does a Cell marked ``recompute()`` become one node here: a transform is running (a gradient
    level records the node; forward mode and batching run its construct as it is) and the inputs
    are Tensors or plain values (as MindSpore's default, ``use_reentrant``: none inside tuples)."""
    if kwargs or not any(isinstance(t, _TRANSFORMS) for t in active_traces()):
        return False
    return not any(isinstance(a, (tuple, list, dict)) for a in args)


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
        compiled = JitFunction(lambda *a: call_cell(ref(), *a), name=type(cell).__name__)
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
    return node.structured(bind(node, *args, *params))
