"""Hooks on Tensors and Parameters (``Tensor.register_hook``), and ``ops.InsertGradientOf``.

A Tensor hook ``hook(grad)`` receives the gradient arriving at one Tensor — the sum over all its uses
— and may return a new gradient (None keeps it).  Several hooks run in the order they were
registered; the handle ``register_hook`` returns removes one (``remove()``, idempotent).  Where that
gradient exists decides where the hook is kept:

* **a Tensor computed at a gradient level** (``z = x * y`` inside ``grad``): on the tape node that
  produced it.  The node's rule is wrapped (``HookedRule``): when the backward pass reaches the
  node, every use of ``z`` has added its cotangent, so the hooks see the sum — also when they were
  registered after some uses — and the node's own rule then runs on what they return.
* **a leaf** — an input being differentiated, or a Parameter: its gradient is read when the
  backward pass ends, and the hooks run on it there (``leaf_gradient``).  An input's hooks run only
  if a gradient reached it; a differentiated Parameter's run on zeros when none did (as MindSpore 2.10).
* **inside a graph being compiled** (``jit``, Graph mode): an ``InsertGradientOf(hook)`` equation is
  staged right after the equation that computed the Tensor, and every use reads its output, so a
  gradient of the compiled function passes through the hook.  There, as in MindSpore,
  ``register_hook`` returns the Tensor itself and a Tensor takes one hook.

``ops.InsertGradientOf(f)`` is the same identity written by hand: ``f(dout)`` replaces the gradient
of its input, in PyNative and in Graph mode alike (unlike ``HookBackward``, which Graph mode skips).
The hook runs under the levels outside the one being differentiated, so a second derivative
differentiates through it.  Forward mode leaves hooks alone: tangents pass through unchanged.
"""
from __future__ import annotations

import itertools
import weakref

from ..core.primitive import Primitive
from ..core.prims import zeros_like
from ..core.stack import MinimsError, bind
from ..core.staging import StagingTracer, compiling
from ..core.tape import TapeTracer
from ..core.tensor import Tensor
from ..core import install
from ..tensors.convert import _describe
from .hooks import HookShapeError, _identity_batch, _identity_jvp, call_user_fn

__all__ = ["InsertGradientOf", "TensorHookHandle", "HookedRule", "TensorHookError", "leaf_gradient", "registry"]


class TensorHookError(MinimsError, RuntimeError, TypeError):
    """A Tensor hook returned something that is not a gradient (MindSpore: RuntimeError), or a
    hook was registered where it cannot work."""


_keys = itertools.count()        # one per registration: the order in which hooks run
# id(Tensor) -> (weak reference to it, {key: hook}); empty while no Tensor has a hook (then the
# gradient API does not call leaf_gradient)
registry: dict = {}


def _hooks_of(tensor, create: bool = False):
    """The hooks registered on ``tensor`` ({key: hook}, in registration order), or None."""
    entry = registry.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    if not create:
        return None
    key, hooks = id(tensor), {}
    # the entry goes when the Tensor does (a plain Tensor has no __dict__ to hold its hooks)
    registry[key] = (weakref.ref(tensor, lambda _, key=key: registry.pop(key, None)), hooks)
    return hooks


class TensorHookHandle:
    """Returned by ``Tensor.register_hook``; ``remove()`` unregisters the hook (idempotent)."""

    def __init__(self, hooks: dict, key: int):
        self._hooks, self.handle_id = hooks, key

    def remove(self) -> None:
        self._hooks.pop(self.handle_id, None)

    def __repr__(self) -> str:
        return f"TensorHookHandle(handle_id={self.handle_id})"


def register_hook(self, hook):
    """``Tensor.register_hook(hook)``: ``hook(grad)`` sees the gradient arriving at this Tensor and
    may return a new one; returns a handle whose ``remove()`` unregisters it (module docstring)."""
    if not callable(hook):
        # TypeError, as MindSpore ("Expected a callable hook function, but got int.")
        raise TypeError(f"Tensor.register_hook: expected a callable hook function, but got {_describe(hook)}. "
                        "Fix: pass a function, e.g. def hook(grad): return grad * 2.")
    if getattr(self, "_is_parameter", False) and not self.requires_grad:
        raise TensorHookError(
            f"Parameter '{self.name}': The tensor requires grad is false, which can not register tensor "
            "hook: no gradient is computed for it. Fix: set requires_grad=True, or register the hook on a "
            "Tensor that is differentiated.")
    if isinstance(self, StagingTracer) and self._trace.active and self._trace.compiles:
        return _stage_hook(self, hook)
    hooks = _hooks_of(self, create=True)
    key = next(_keys)
    hooks[key] = hook
    if type(self) is TapeTracer and self._node.prim is not None:
        HookedRule.on(self._node).attach(self._index, hooks)
    # inside a graph being compiled (a gradient level inside jit), the Tensor itself, as MindSpore
    return self if compiling() else TensorHookHandle(hooks, key)


def hooks(self) -> list:
    """``Tensor.hooks()``: the hooks registered on this Tensor, in the order they run."""
    table = _hooks_of(self)
    return list(table.values()) if table else []


install(Tensor, register_hook=register_hook, hooks=hooks)


# ----- a hook's result ---------------------------------------------------------------------------------
def _run_hooks(tables, grad):
    """``grad`` through the hooks of ``tables`` (dicts {key: hook}), in registration order."""
    for _, hook in sorted((k, h) for table in tables for k, h in table.items()):
        name = getattr(hook, "__name__", type(hook).__name__)
        where = f"the Tensor hook {name}"
        new = call_user_fn(hook, (grad,), where, "hook(grad)")
        if new is not None:
            grad = checked_gradient(where, new, grad)
    return grad


def checked_gradient(where: str, new, old):
    """A hook's replacement for the gradient ``old``: a Tensor of its shape and dtype."""
    if not isinstance(new, Tensor):
        # RuntimeError, as MindSpore ("Tensor hook should be return Tensor, but get type: str.")
        raise TensorHookError(f"{where} returned {_describe(new)}, but a hook returns None (keep the gradient) "
                              f"or the new gradient, a Tensor. Fix: return a Tensor, e.g. grad * 2 "
                              "(Tensor(array) for a NumPy result).")
    if new.shape != old.shape or new.dtype is not old.dtype:
        # MindSpore 2.10 lets the next rule broadcast it (a silent change of the gradient's shape)
        raise HookShapeError(f"{where} returned a {new.dtype} Tensor of shape {list(new.shape)}, but the gradient "
                             f"it replaces is a {old.dtype} Tensor of shape {list(old.shape)}. Fix: return a "
                             "gradient shaped like the one received, in its dtype (g.astype(grad.dtype)).")
    return new


# ----- hooks on a tape node ------------------------------------------------------------------------------
class HookedRule(Primitive):
    """A tape node's rule with hooks on its outputs: the hooks first see each hooked output's
    cotangent (complete when the backward pass reaches the node), then the node's own rule runs.
    It replaces ``node.prim`` of the node it was made for, and is never bound."""

    takes_missing_cotangents = True     # an output no cotangent reached: no hook runs for it

    def __init__(self, rule):
        self.rule = rule
        self.tables = {}                # output index (None: the only output) -> [hook dicts]
        self.skips_unneeded_grads = rule.skips_unneeded_grads
        self.checks_rule_results = rule.checks_rule_results

    @classmethod
    def on(cls, node) -> "HookedRule":
        if type(node.prim) is not cls:
            node.prim = cls(node.prim)
        return node.prim

    def attach(self, index, table: dict) -> None:
        tables = self.tables.setdefault(index, [])
        if not any(t is table for t in tables):
            tables.append(table)

    @property
    def name(self) -> str:
        return self.rule.name

    def __getattr__(self, name):
        # what else the backward pass asks a rule for (check_nan names a compiled graph by .graph)
        if name == "rule":
            raise AttributeError(name)
        return getattr(self.rule, name)

    def bprop(self, *args):
        out, dout = args[-2], args[-1]
        if isinstance(out, tuple):
            douts = list(dout)
            for i, tables in self.tables.items():
                if douts[i] is not None:
                    douts[i] = _run_hooks(tables, douts[i])
            if not self.rule.takes_missing_cotangents:
                douts = [zeros_like(o) if d is None and isinstance(o, Tensor) else d for d, o in zip(douts, out)]
            dout = tuple(douts)
        else:
            dout = _run_hooks(self.tables[None], dout)
        return self.rule.bprop(*args[:-1], dout)


# ----- hooks on a leaf ---------------------------------------------------------------------------------
def leaf_gradient(grad, owners, zeros_of=None):
    """The gradient of a leaf after the hooks registered on ``owners`` (the user's Tensor or
    Parameter, and the leaf tracer standing for it).  ``grad`` None (nothing reached the leaf):
    None, or, given ``zeros_of`` (a Parameter's value), the hooks run on its zeros."""
    if not registry:
        return grad
    tables = [t for t in (_hooks_of(o) for o in owners if o is not None) if t]
    if not tables:
        return grad
    if grad is None:
        if zeros_of is None:
            return None
        grad = zeros_like(zeros_of)
    return _run_hooks(tables, grad)


# ----- hooks inside a graph being compiled ------------------------------------------------------------------
_hooked_vars: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()     # trace -> hooked Var indices


def _stage_hook(tensor, hook):
    """``tensor.register_hook(hook)`` while ``tensor``'s graph is being compiled: an
    ``InsertGradientOf(hook)`` equation right after the one that computed it, read by every use."""
    trace = tensor._trace
    done = _hooked_vars.setdefault(trace, set())
    if tensor._var.index in done:
        # RuntimeError, as MindSpore ("It is not supported to register multiple hooks for a Tensor")
        raise TensorHookError(
            f"In graph '{trace.name}': It is not supported to register multiple hooks for a Tensor inside a "
            "compiled graph (this one has a hook already). Fix: do both in one hook, def hook(g): return "
            "second(first(g)), or run in PyNative mode.")
    old = tensor._var
    hooked = trace.process(InsertGradientOf(hook), (tensor,))
    equation = trace.equations.pop()
    # right after the equation that computed the Tensor (first, for an input): earlier uses read it too
    at = next((i + 1 for i, eq in enumerate(trace.equations) if any(v is old for v in eq.outs)), 0)
    for eq in trace.equations[at:]:
        eq.ins = [hooked._var if v is old else v for v in eq.ins]
    trace.equations.insert(at, equation)
    tensor._var = hooked._var
    done.add(hooked._var.index)
    return tensor


# ----- ops.InsertGradientOf ------------------------------------------------------------------------------
class _Application:
    """Makes each application of one ``InsertGradientOf`` distinct to a graph's common-subexpression
    pass: ``c(a) * c(a)`` hooks each use's gradient, as PyNative does, not their sum once."""


class InsertGradientOf(Primitive):
    """``ops.InsertGradientOf(f)(x)``: ``x`` unchanged; backward, ``f(dout)`` replaces its gradient."""

    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be a function, but got {_describe(f)}. "
                            "Fix: ops.InsertGradientOf(fn) with def fn(dout): return new_dout.")
        self.f = f

    def __call__(self, *inputs):
        if len(inputs) != 1:
            # RuntimeError, as MindSpore ("For 'InsertGradientOf', the number of input should be 1")
            raise TensorHookError(f"For 'InsertGradientOf', the number of input should be 1, but got {len(inputs)}. "
                                  "Fix: apply it to one Tensor at a time.")
        x = inputs[0]
        if not isinstance(x, Tensor):
            return x                    # a Python value: no gradient flows through it
        applied = InsertGradientOf(self.f)
        applied.application = _Application()
        return bind(applied, x)

    def impl(self, x):
        return x

    def jvp(self, primals, tangents):
        return _identity_jvp(self, primals, tangents)

    def batch(self, args, dims, size):
        return _identity_batch(self, args, dims)

    def bprop(self, x, out, dout):
        name = getattr(self.f, "__name__", type(self.f).__name__)
        where = f"InsertGradientOf's function {name}"
        new = call_user_fn(self.f, (dout,), where, "f(dout)")
        return (dout if new is None else checked_gradient(where, new, dout),)

    def sympy(self, x):
        return x
