"""The gradient API: ``GradOperation``, ``grad``, ``value_and_grad`` (MindSpore's output structures).

All three are thin front ends over ``vjp_call``: push a fresh gradient level, give each
differentiated input (and each weight) a leaf tracer, run the function, pop the level, then run the
backward pass from the outputs with a sensitivity (ones, unless ``sens_param``).  Because the level
is popped before the backward pass, calling any of these inside another one nests correctly.
"""
from __future__ import annotations

import inspect

from ..primitives import functional as ops
from ..tensors import undo
from .function_check import require_function
from ..tensors.parameter import Parameter
from ..core.errors import MinimsError
from ..tensors.lending import as_lent, current_value, lend, unlend
from ..core.stack import pop_trace, push_trace
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..core.tape import TapeTrace

__all__ = ["GradOperation", "grad", "value_and_grad", "vjp_call"]


class GradPositionError(MinimsError, RuntimeError, ValueError):
    """``grad_position`` names an input the function was not called with (MindSpore: RuntimeError)."""


class SensitivityError(MinimsError, RuntimeError, ValueError):
    """A sensitivity (``sens_param``) that does not fit the outputs (MindSpore: RuntimeError)."""


def _flatten(out):
    """Tensors of a (nested) tuple/list output, in order."""
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_flatten(o))
        return flat
    return [out]


def _unbox(out, trace):
    """Replace this level's tracers in ``out`` by their primal values (same structure)."""
    if isinstance(out, (tuple, list)):
        return type(out)(_unbox(o, trace) for o in out)
    if trace.owns(out):
        return out._primal
    return out


def _check_weights(weights, where):
    if weights is None:
        return ()
    if isinstance(weights, Parameter):
        return (weights,)
    if isinstance(weights, (tuple, list)):
        for w in weights:
            if not isinstance(w, Parameter):
                raise TypeError(
                    f"{where}: weights must be Parameters (a ParameterTuple, a list of Parameters, or "
                    f"one Parameter), but one of them is {_describe(w)}. "
                    "Fix: pass net.trainable_params() or ParameterTuple(...)."
                )
        return tuple(weights)
    if inspect.ismethod(weights) or inspect.isfunction(weights):
        raise TypeError(f"{where}: weights must be Parameters, but got the function {getattr(weights, '__name__', '?')} itself, not "
                        "what it returns. "
                        "Fix: call it: net.trainable_params() with the parentheses.")
    try:
        return _check_weights(tuple(weights), where)       # e.g. a generator or filter object
    except TypeError:
        raise TypeError(f"{where}: weights must be Parameters, but got {_describe(weights)}. "
                        "Fix: pass net.trainable_params() or ParameterTuple(...).") from None


def vjp_call(fn, args, positions, weights, has_aux=False, sens=None, where="grad"):
    """Run ``fn(*args)`` on a new gradient level and differentiate it.

    Returns ``(value, input_grads, weight_grads)`` where ``value`` is ``fn``'s output without
    tracers and the gradient lists follow ``positions`` and ``weights``.  If anything raises, the
    Parameters ``fn`` wrote (BatchNorm's statistics ...) get their old values back.
    """
    return undo.atomic(_vjp, fn, args, positions, weights, has_aux, sens, where)


def _vjp(fn, args, positions, weights, has_aux, sens, where):
    for p in positions:
        if not isinstance(args[p], Tensor):
            raise TypeError(
                f"{where}: input {p} must be a Tensor to be differentiated, but got {_describe(args[p])}. "
                "Fix: wrap it with Tensor(...), or leave it out of grad_position."
            )
    trace = push_trace(TapeTrace())
    tokens = []
    try:
        boxed = list(args)
        leaves = []
        for p in positions:
            # a Parameter passed in as an argument is, for the levels outside, its stand-in there
            # (an outer grad(weights=...) or a graph being staged): differentiate that, not the raw
            # Parameter, or the outer level loses what the primal outputs depend on
            arg = current_value(args[p]) if getattr(args[p], "_is_parameter", False) else args[p]
            boxed[p] = trace.new_input(arg)
            leaves.append(boxed[p])
        standins = {}                    # a Parameter listed twice is one input: each entry gets its gradient
        for w in weights:
            if id(w) not in standins:
                standins[id(w)] = trace.new_input(current_value(w))
                tokens.append(lend(w, standins[id(w)]))
        weight_leaves = [standins[id(w)] for w in weights]
        returned = fn(*boxed)
        out = as_lent(returned)         # a weight returned as it is: its stand-in is the output
    finally:
        for token in reversed(tokens):
            unlend(token)
        pop_trace(trace)
    value = _unbox(returned, trace)
    if has_aux and not (isinstance(out, (tuple, list)) and len(out) >= 2):
        # ValueError, as MindSpore ("When has_aux is True, origin fn requires more than one outputs")
        raise ValueError(f"{where}: has_aux=True needs a function returning a tuple (output, aux, ...), "
                         f"but it returned {_describe(out)}. Fix: return (loss, aux), or drop has_aux.")
    target = out[0] if has_aux else out
    flat = _flatten(target)
    for o in flat:
        if not isinstance(o, Tensor) and not isinstance(o, (int, float)):
            raise TypeError(f"{where}: the function must return Tensors, but returned {_describe(o)}. "
                            "Fix: return the Tensor itself (no .asnumpy(), no NumPy arrays).")
    if sens is None:
        sens_flat = [ops.ones_like(o) if isinstance(o, Tensor) else None for o in flat]
    else:
        sens_flat = _checked_sens(sens, flat, where)
    trace.backward(flat, sens_flat)
    input_grads = [_grad_or_zeros(leaf, args[p], trace) for leaf, p in zip(leaves, positions)]
    weight_grads = [_grad_or_zeros(leaf, current_value(w), trace) for leaf, w in zip(weight_leaves, weights)]
    return value, input_grads, weight_grads


def _checked_sens(sens, flat, where) -> list:
    """The sensitivities, one per output: Tensors shaped like them (a number for a 0-d output)."""
    sens_flat = _flatten(sens)
    if len(sens_flat) != len(flat):
        raise SensitivityError(f"{where}: the sensitivity has {len(sens_flat)} tensors but the function "
                               f"returned {len(flat)} outputs. Fix: one sensitivity per output.")
    checked = []
    for o, s in zip(flat, sens_flat):
        if s is None:                   # no cotangent for this output (a compiled graph's unused output)
            checked.append(None)
            continue
        if isinstance(s, (bool, int, float)) and isinstance(o, Tensor):
            if o.shape != ():
                raise SensitivityError(
                    f"{where}: the sensitivity is the number {s!r}, but the output has shape "
                    f"{list(o.shape)}; a sensitivity is shaped like its output. Fix: "
                    "ops.fill(out.dtype, out.shape, value), or ops.ones_like(out) * value.")
            s = Tensor(s, o.dtype)
        elif not isinstance(s, Tensor):
            raise SensitivityError(f"{where}: the sensitivity must be a Tensor shaped like the output, but "
                                   f"got {_describe(s)}. Fix: Tensor(data) of the output's shape.")
        elif isinstance(o, Tensor) and o.shape != s.shape:
            raise SensitivityError(
                f"{where}: the sensitivity has shape {list(s.shape)} but the output has shape "
                f"{list(o.shape)}; they must match. Fix: pass a sensitivity shaped like the "
                "output, e.g. ops.ones_like(out).")
        checked.append(s)
    return checked


def _grad_or_zeros(leaf, primal, trace):
    g = trace.leaf_cotangent(leaf)
    return ops.zeros_like(primal) if g is None else g


def _tensor_positions(args):
    return tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))


class GradOperation:
    """``ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)``.

    ``GradOperation(...)(fn)`` (or ``(fn, weights)`` with ``get_by_list``) returns a function that
    computes gradients.  Output structure, as in MindSpore:

    * default: the gradient of the first input;
    * ``get_all``: a tuple with the gradient of every Tensor input (a tuple even for one input);
    * ``get_by_list``: a tuple with the gradient of every weight;
    * both: ``(input_grads, weight_grads)``.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"GradOperation: {name} must be a bool, but got {_describe(v)}. "
                                f"Fix: {name}=True or {name}=False.")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        require_function(fn, "GradOperation", "GradOperation()(fn)(x)", "GradOperation()(fn(x))")
        if self.get_by_list and weights is None:
            raise TypeError("GradOperation(get_by_list=True) needs weights: GradOperation(get_by_list=True)(fn, weights).")
        params = _check_weights(weights, "GradOperation") if self.get_by_list else ()
        single_weight = getattr(weights, "_is_parameter", False)
        op = self

        def grad_fn(*args):
            sens = None
            if op.sens_param:
                _require_sens(fn, args, "GradOperation(sens_param=True)")
                args, sens = args[:-1], args[-1]
            if op.get_all:
                positions = _tensor_positions(args)
            elif op.get_by_list:       # only the weights' gradients are returned: inputs stay constants
                positions = ()
            else:
                if not args:
                    raise TypeError("GradOperation: the function was called without inputs; "
                                    "there is no first input to differentiate.")
                positions = (0,)
            _, in_grads, w_grads = vjp_call(fn, args, positions, params, sens=sens, where="GradOperation")
            ws = w_grads[0] if single_weight else tuple(w_grads)       # one Parameter: its gradient alone
            if op.get_all and op.get_by_list:
                return tuple(in_grads), ws
            if op.get_by_list:
                return ws
            if op.get_all:
                return tuple(in_grads)
            return in_grads[0]

        grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
        return grad_fn


def _require_sens(fn, args, where):
    """With ``sens_param`` the last argument is the sensitivity; say so if it is missing."""
    try:
        sig = inspect.signature(fn.construct if hasattr(fn, "construct") else fn)
    except (TypeError, ValueError):
        return
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    n = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    if len(args) <= n:
        raise TypeError(
            f"{where}: the gradient function expects the function's {n} inputs followed by the "
            f"sensitivity (the gradient of the output), but got {len(args)} arguments. "
            "Fix: pass the sensitivity as the last argument, e.g. grad_fn(x, y, ops.ones_like(out))."
        )


def _check_position_type(grad_position, where):
    """``grad_position`` is an int or a tuple of distinct ints (TypeError/ValueError, as MindSpore)."""
    if grad_position is None:
        return
    if not isinstance(grad_position, (int, tuple)) or isinstance(grad_position, bool):
        raise TypeError(f"{where}: grad_position must be an int or a tuple of ints, but got "
                        f"{_describe(grad_position)}. Fix: count the inputs from 0, e.g. grad_position=0 "
                        "or grad_position=(0, 1).")
    pos = (grad_position,) if isinstance(grad_position, int) else grad_position
    for p in pos:
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(f"{where}: every element of grad_position must be an int, but got {_describe(p)}. "
                            "Fix: grad_position=(0, 1).")
    if len(set(pos)) != len(pos):
        raise ValueError(f"{where}: there are duplicate positions in grad_position {grad_position}. Fix: name "
                         "each input once.")


def _positions(grad_position, args, where):
    """``(positions, single)``: an int or a 1-tuple gives the gradient itself, as MindSpore 2.10."""
    n = len(args)
    pos = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    single = len(pos) == 1
    for p in pos:
        if not 0 <= p < n:
            raise GradPositionError(
                f"{where}: grad_position {p} is out of range: the function was called with {n} "
                f"input{'s' if n != 1 else ''} (valid positions 0..{n - 1}). "
                "Fix: count positions from 0, or pass the missing input."
            )
    return pos, single


def _grad_impl(fn, grad_position, weights, has_aux, return_ids, with_value, where):
    require_function(fn, where, f"{where}(fn)(x)", f"{where}(fn(x))")
    if grad_position is None and weights is None:
        raise ValueError(f"{where}: grad_position and weights cannot both be None; nothing to differentiate. "
                         "Fix: grad_position=0 for the first input, or weights=net.trainable_params().")
    params = _check_weights(weights, where)
    _check_position_type(grad_position, where)
    single_weight = getattr(weights, "_is_parameter", False)     # one Parameter: its gradient alone

    def grad_fn(*args):
        pos, single = ((), False) if grad_position is None else _positions(grad_position, args, where)
        value, in_grads, w_grads = vjp_call(fn, args, pos, params, has_aux=has_aux, where=where)
        if return_ids:
            in_grads = [(p, g) for p, g in zip(pos, in_grads)]
            w_grads = [(w.name, g) for w, g in zip(params, w_grads)]
        ins = in_grads[0] if single else tuple(in_grads)
        ws = w_grads[0] if single_weight else tuple(w_grads)
        if grad_position is None:
            grads = ws
        elif weights is None:
            grads = ins
        else:
            grads = (ins, ws)
        if with_value:
            return value, grads
        if has_aux:
            return grads, tuple(value[1:])
        return grads

    grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
    return grad_fn


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``ops.grad``: a function returning the gradients of ``fn`` (see MindSpore's docs for the structure)."""
    return _grad_impl(fn, grad_position, weights, has_aux, return_ids, False, "grad")


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``ops.value_and_grad``: like ``grad`` but returns ``(fn's output, gradients)``."""
    return _grad_impl(fn, grad_position, weights, has_aux, return_ids, True, "value_and_grad")
