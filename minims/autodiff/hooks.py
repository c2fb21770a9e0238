"""Backward hooks as identity primitives whose ``bprop`` calls the user's function.

* ``HookBackward(hook_fn)``: ``hook(z)`` returns ``z``; in the backward pass ``hook_fn`` receives
  the gradient arriving at that point as a tuple, and may return a tuple that replaces it.
* A Cell's backward hook is a pair of identities, one on the cell's inputs and one on its outputs,
  sharing a record.  Going backward, the outputs' identity sees the gradient arriving at the cell
  (the documentation's ``grad_input``) first; the inputs' identity then sees the gradient with
  respect to the cell's inputs (``grad_output``) and calls the hook with both.  A Cell's backward
  pre-hooks run in the outputs' identity, on the gradient arriving at the cell, before the rest.

Being primitives, hooks run wherever a backward pass runs, at every gradient level.  A backward
hook acts on cotangents only: forward mode (``jvp``, ``jacfwd``, ``linearize``, ``derivative``) passes
tangents through it unchanged — its forward-mode rule is the identity, not its backward rule
transposed (``minims.autodiff.jvp_from_bprop``, which a custom ``bprop`` gets) — and binds the identity
on the primal values, so that a gradient level below (``grad`` of ``jvp``) still records the hook
and runs it on its own backward pass.
"""
from __future__ import annotations

import inspect
import warnings

from ..context import GRAPH_MODE, get_context
from ..tracebacks import user_stacklevel
from ..core.staging import compiling as is_compiling
from ..core.stack import bind
from ..core.stack import MinimsError
from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..tensors.convert import _describe

__all__ = ["HookBackward", "CellHookInputs", "CellHookOutputs", "HookRecord", "HookError",
           "HookShapeError", "call_user_fn", "hooks_skipped"]


_warned_graph_mode = False


def hooks_skipped() -> bool:
    """Hooks do nothing in Graph mode and while a function is compiled (as in MindSpore).  They do
    run under ``linearize``, which stages only the tangent computation: the values they act on are
    computed at once."""
    return get_context("mode") == GRAPH_MODE or is_compiling()


def warn_hooks_ignored(what: str) -> None:
    """Hooks do nothing in Graph mode (as in MindSpore); say so once per process."""
    global _warned_graph_mode
    if not _warned_graph_mode:
        _warned_graph_mode = True
        warnings.warn(f"{what}: hooks are not effective in Graph mode or inside a jit-compiled "
                      "function; they are skipped. Use PyNative mode to debug with hooks.",
                      UserWarning, stacklevel=user_stacklevel())


class HookError(MinimsError, TypeError):
    """A hook returned something that cannot replace the gradient."""


class HookShapeError(MinimsError, ValueError, TypeError):
    """A hook returned a gradient of the wrong shape (MindSpore: ValueError; TypeError kept for
    code written against minims' earlier HookError)."""


def cannot_bind(fn, args, kwargs=None) -> str | None:
    """Why ``fn(*args)`` is a wrong call (``fn``'s signature), or None if the call fits or the
    signature cannot be read.  Used only after a TypeError, to tell a user function called with
    the wrong arguments from a TypeError raised inside it."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        sig.bind(*args, **(kwargs or {}))
    except TypeError as exc:
        return f"{getattr(fn, '__name__', type(fn).__name__)}{sig}: {exc}"
    return None


def call_user_fn(fn, args, where, expected):
    """Call a user's hook or bprop; a signature that does not fit becomes a TypeError naming
    ``where`` and the ``expected`` call, instead of Python's bare "takes 1 positional argument"."""
    try:
        return fn(*args)
    except TypeError:
        why = cannot_bind(fn, args)
        if why is None:
            raise
    expected = expected() if callable(expected) else expected     # built only when needed
    raise TypeError(f"{where} is called as {expected}, but it is defined as {why}. "
                    f"Fix: give it the parameters {expected}.")


def _as_tuple(dout):
    return dout if isinstance(dout, tuple) else (dout,)


def _replacement(where, result, grads):
    """Check a hook's return value against the gradients it replaces."""
    if result is None:
        return grads
    if isinstance(result, Tensor):
        result = (result,)
    if not isinstance(result, (tuple, list)):
        raise HookError(f"{where}: a backward hook must return None or a tuple of Tensors, "
                        f"but returned {_describe(result)}. Fix: return (new_grad,).")
    result = tuple(result)
    if len(result) != len(grads):
        raise HookError(f"{where}: the hook returned {len(result)} gradients, but {len(grads)} flow "
                        "through this point. Fix: return one gradient per input.")
    for new, old in zip(result, grads):
        if not isinstance(old, Tensor):
            continue
        if not isinstance(new, Tensor):
            raise HookError(f"{where}: a replacement gradient must be a Tensor of shape "
                            f"{list(old.shape)}, but got {_describe(new)}. Fix: return Tensors, e.g. "
                            "Tensor(array) for a NumPy result.")
        if new.shape != old.shape or new.dtype is not old.dtype:
            # ValueError, as MindSpore ("the output type of function ... is not consistent")
            raise HookShapeError(f"{where}: a replacement gradient must be a {old.dtype} Tensor of shape "
                                 f"{list(old.shape)} (what the hook received), but got a {new.dtype} Tensor "
                                 f"of shape {list(new.shape)}. Fix: return a gradient shaped like the one "
                                 f"received, in its dtype (g.astype(grad.dtype)).")
    return result


def _identity_jvp(prim, primals, tangents):
    """Forward mode through a backward hook: the identity on the tangents (the hook acts on
    cotangents only), the primal bound so that the levels below record the hook."""
    out = bind(prim, *primals)
    return out, (tuple(tangents) if isinstance(out, tuple) else tangents[0])


def _identity_batch(prim, args, dims):
    """A hook on batched values: the same identity on the whole batch (a gradient level below still
    records it, and its backward then sees the batched gradients)."""
    out = bind(prim, *args)
    return out, (tuple(dims) if isinstance(out, tuple) else dims[0])


class HookBackward(Primitive):
    """``ops.HookBackward(hook_fn, cell_id="")``: identity forward, ``hook_fn(grad)`` backward."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, but got {_describe(hook_fn)}. "
                            "Fix: pass a function, ops.HookBackward(hook_fn) with def hook_fn(grad): ...")
        self.hook_fn = hook_fn
        self.cell_id = cell_id

    def __call__(self, *inputs):
        if hooks_skipped():
            warn_hooks_ignored("HookBackward")
            return inputs[0] if len(inputs) == 1 else inputs
        return bind(self, *inputs)

    def impl(self, *xs):
        return xs[0] if len(xs) == 1 else tuple(xs)

    def jvp(self, primals, tangents):
        return _identity_jvp(self, primals, tangents)

    def batch(self, args, dims, size):
        return _identity_batch(self, args, dims)

    def bprop(self, *args):
        dout = args[-1]
        grads = _as_tuple(dout)
        new = _replacement("HookBackward", call_user_fn(self.hook_fn, (grads,), "HookBackward's hook_fn",
                                                        "hook_fn(grad)"), grads)
        return new

    def sympy(self, *xs):
        return xs[0] if len(xs) == 1 else tuple(xs)


class HookRecord:
    """What the two halves of one Cell call's backward hook share."""

    __slots__ = ("cell_id", "hooks", "pre_hooks", "grad_input", "n_inputs", "inputs_traced")

    def __init__(self, cell_id, hooks, pre_hooks=None):
        self.cell_id = cell_id
        self.hooks = hooks          # the cell's hook dicts, read when the backward pass arrives
        self.pre_hooks = {} if pre_hooks is None else pre_hooks
        self.grad_input = None
        self.n_inputs = 0
        # False when no input is being differentiated (only weights are): the inputs' identity is
        # then recorded nowhere, and the outputs' half calls the hooks itself, with no input gradients
        self.inputs_traced = True


def _call_hooks(rec: HookRecord, grads):
    """Call the Cell's backward hooks with (grad_input, grad_output); returns the input gradients."""
    for hook in list(rec.hooks.values()):
        where = f"backward hook of {rec.cell_id}"
        result = call_user_fn(hook, (rec.cell_id, rec.grad_input, grads), where,
                              "hook_fn(cell_id, grad_input, grad_output)")
        grads = grads if all(g is None for g in grads) else _replacement(where, result, grads)
    return grads


def _call_pre_hooks(rec: HookRecord, grads):
    """Call the Cell's backward pre-hooks with the gradient arriving at its outputs; returns it,
    as the last hook to return one replaced it."""
    for hook in list(rec.pre_hooks.values()):
        where = f"backward pre-hook of {rec.cell_id}"
        result = call_user_fn(hook, (rec.cell_id, grads), where, "hook_fn(cell_id, grad_output)")
        grads = _replacement(where, result, grads)
    return grads


class _CellHookIdentity(Primitive):
    """Identity over the Tensors of one side of a Cell call, sharing a ``HookRecord``."""

    def __init__(self, record: HookRecord):
        self.record = record

    def impl(self, *xs):
        return xs[0] if len(xs) == 1 else tuple(xs)

    def jvp(self, primals, tangents):
        return _identity_jvp(self, primals, tangents)

    def batch(self, args, dims, size):
        return _identity_batch(self, args, dims)


class CellHookOutputs(_CellHookIdentity):
    """Identity on a Cell's outputs; backward: the pre-hooks see the gradient arriving at the cell
    (and may replace it), which the backward hooks receive as ``grad_input``."""

    def bprop(self, *args):
        grads = _call_pre_hooks(self.record, _as_tuple(args[-1]))
        self.record.grad_input = grads
        if not self.record.inputs_traced:               # MindSpore calls the hook once all the same
            _call_hooks(self.record, (None,) * self.record.n_inputs)
        return grads


class CellHookInputs(_CellHookIdentity):
    """Identity on a Cell's inputs; backward: call the hooks with both gradients."""

    def bprop(self, *args):
        return _call_hooks(self.record, _as_tuple(args[-1]))
