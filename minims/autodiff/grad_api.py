"""The gradient API: ``GradOperation``, ``grad``, ``value_and_grad`` (MindSpore's output structures).

All three are thin front ends over ``vjp_call``: push a fresh gradient level, give each
differentiated input (and each weight) a leaf tracer, run the function, pop the level, then run the
backward pass from the outputs with a sensitivity (ones, unless ``sens_param``).  Because the level
is popped before the backward pass, calling any of these inside another one nests correctly.  (The
same steps without MindSpore's options are ``minims.core.tape.vjp``.)

``require_function`` is the check every transform makes of the function it is given: the usual slip
is to pass the result ``fn(x)`` instead of ``fn``, and each transform says so, with the right and the
wrong call written out, instead of failing later with Python's "'Tensor' object is not callable".
The error is a ``TypeError`` and also MindSpore 2.10's type for the same slip where that differs:
``ValueError`` for ``jvp``, ``jacfwd`` and ``jacrev``, ``RuntimeError`` for ``derivative`` and
``vmap`` (checked by running MindSpore).
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..core.stack import MinimsError, Tracer, dispatch
from ..core.prims import ones_like, zeros_like
from ..core import stack
from ..core.stack import pop_trace, push_trace
from ..context import PYNATIVE_MODE, get_context
from ..core import install, installed
from ..core.tape import Node, TapeTrace, TapeTracer, _box
from ..core.tensor import Tensor
from ..tensors import undo
from ..tensors.convert import _describe
from ..tensors.lending import as_lent, current_value, lend, unlend
from ..tensors.parameter import Parameter
from .tensor_hooks import leaf_gradient, registry as hooked

__all__ = ["GradOperation", "grad", "value_and_grad", "get_grad", "vjp_call", "require_function", "NotAFunctionError",
           "NotAFunctionValueError", "NotAFunctionRuntimeError"]


class NotAFunctionError(MinimsError, TypeError):
    """A transform was given something that is not a function (often ``fn(x)`` instead of ``fn``)."""


class NotAFunctionValueError(NotAFunctionError, ValueError):
    """The same, where MindSpore raises ValueError."""


class NotAFunctionRuntimeError(NotAFunctionError, RuntimeError):
    """The same, where MindSpore raises RuntimeError."""


_AS_MINDSPORE = {TypeError: NotAFunctionError, ValueError: NotAFunctionValueError,
                 RuntimeError: NotAFunctionRuntimeError}


def require_function(fn, where: str, right: str, wrong: str, mindspore: type = TypeError,
                     purpose: str = "to differentiate") -> None:
    """Raise unless ``fn`` is callable.  ``right`` and ``wrong`` are the call written with ``fn`` and
    with ``fn(x)`` (``grad(fn)(x)``, ``grad(fn(x))``); ``mindspore``: MindSpore's exception type."""
    if callable(fn):
        return
    raise _AS_MINDSPORE[mindspore](
        f"{where}: expected a function or Cell {purpose}, got {_describe(fn)}. "
        f"Fix: pass the function itself, {right}, not its result {wrong}.")


_NO_FUNCTION = object()     # GradOperation()() called without the function


class GradPositionError(MinimsError, RuntimeError, ValueError):
    """``grad_position`` names an input the function was not called with (MindSpore: RuntimeError)."""


class SensitivityError(MinimsError, RuntimeError, ValueError):
    """A sensitivity (``sens_param``) that does not fit the outputs (MindSpore: RuntimeError)."""


def _flatten(out):
    """The leaves of a (nested) tuple/list/dict output, in order (a dict's values)."""
    if isinstance(out, dict):
        return _flatten(tuple(out.values()))
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_flatten(o))
        return flat
    return [out]


def _unbox(out, trace):
    """Replace this level's tracers in ``out`` by their primal values (same structure)."""
    if isinstance(out, dict):
        return {k: _unbox(v, trace) for k, v in out.items()}
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
    """``(value, input_grads, weight_grads)`` of ``fn(*args)`` on a new gradient level; if anything
    raises, the Parameters ``fn`` wrote get their old values back (``undo.atomic``)."""
    return undo.atomic(_vjp, fn, args, positions, weights, has_aux, sens, where)


def _vjp(fn, args, positions, weights, has_aux, sens, where):
    trace = push_trace(TapeTrace())
    tokens = []
    try:
        boxed = list(args)
        for p in positions:
            a = args[p]
            boxed[p] = trace.new_input(a if type(a) is Tensor else _primal(a, p, where))
        standins = _lend(trace, weights, tokens) if weights else ()
        returned = out = fn(*boxed)
        if tokens:
            out = as_lent(returned)     # a weight returned as it is: its stand-in is the output
    finally:
        for token in reversed(tokens):
            unlend(token)
        pop_trace(trace)
    if out is returned and type(out) is TapeTracer and out._trace is trace and not has_aux and sens is None:
        value, flat, sens_flat = out._primal, [out], [ones_like(out._primal)]
    else:
        value, flat, sens_flat = _outputs(returned, out, trace, has_aux, sens, where)
    trace.backward(flat, sens_flat)
    input_grads = [_grad_or_zeros(boxed[p], args[p], trace, args[p]) for p in positions]
    weight_grads = [_grad_or_zeros(s, current_value(w), trace, w, True) for s, w in zip(standins, weights)]
    return value, input_grads, _zero_frozen(weights, weight_grads) if weights else weight_grads


def _zero_frozen(weights, grads) -> list:
    """``grads`` with zero for the weights whose gradient is zero: in PyNative mode, those with
    ``requires_grad=False`` (MindSpore 2.10; its Graph mode, as minims' compiled graphs, differentiates
    every weight listed)."""
    if get_context("mode") != PYNATIVE_MODE or stack.contexts():
        return grads
    return [zeros_like(g) if getattr(w, "requires_grad", True) is False else g for w, g in zip(weights, grads)]


def _primal(arg, position, where):
    """What input ``position`` is differentiated as: a Tensor (a Parameter passed in as an argument
    is, for the levels outside, its stand-in there: an outer grad(weights=...), a graph)."""
    if not isinstance(arg, Tensor):
        raise TypeError(f"{where}: input {position} must be a Tensor to be differentiated, but got "
                        f"{_describe(arg)}. Fix: wrap it with Tensor(...), or leave it out of grad_position.")
    return current_value(arg) if arg._is_parameter else arg


def _lend(trace, weights, tokens) -> list:
    """A leaf of ``trace`` lent to each weight (one for a Parameter listed twice); ``tokens`` collects
    what ``unlend`` needs.  Returns the leaves, one per entry of ``weights``."""
    standins = {}
    for w in weights:
        if id(w) not in standins:
            standins[id(w)] = trace.new_input(current_value(w))
            tokens.append(lend(w, standins[id(w)]))
    return [standins[id(w)] for w in weights]


def _outputs(returned, out, trace, has_aux, sens, where):
    """``(value, the outputs to start from, their sensitivities)`` for any output structure."""
    value = _unbox(returned, trace)
    if has_aux and not (isinstance(out, (tuple, list)) and len(out) >= 2):
        # ValueError, as MindSpore ("When has_aux is True, origin fn requires more than one outputs")
        raise ValueError(f"{where}: has_aux=True needs a function returning a tuple (output, aux, ...), "
                         f"but it returned {_describe(out)}. Fix: return (loss, aux), or drop has_aux.")
    leaves = _flatten(out[0] if has_aux else out)
    # MindSpore differentiates the Tensors among the outputs and passes over the rest (strings,
    # numbers, None); an output with no Tensor has gradient zero. A NumPy array as the only result
    # is refused instead: it is a computation that left minims (.asnumpy()), whose gradient is lost.
    flat = [o for o in leaves if isinstance(o, Tensor)]
    arrays = [o for o in leaves if isinstance(o, np.ndarray)]
    if arrays and not flat:
        raise TypeError(f"{where}: the function must return Tensors, but returned {_describe(arrays[0])}. "
                        "Fix: return the Tensor itself (no .asnumpy(), no NumPy arrays).")
    if sens is None:
        return value, flat, [ones_like(trace.primal_of(o)) for o in flat]
    return value, flat, _checked_sens(sens, flat, where)


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


def _grad_or_zeros(leaf, primal, trace, owner, weight=False):
    g = trace.leaf_cotangent(leaf)
    if hooked:      # the Tensor hooks of the input or weight (a weight's run on zeros if none reached it)
        g = leaf_gradient(g, (owner, leaf), primal if weight else None)
    return zeros_like(primal) if g is None else g


def _tensor_positions(args):
    return tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))


def _with_keywords(fn, args, kwargs):
    """``(inputs, call)``: the positional arguments then the keyword arguments' values, as MindSpore
    counts inputs (``get_all`` and ``grad_position`` see both), and ``fn`` taking them in that order."""
    names, n = tuple(kwargs), len(args)

    def call(*inputs):
        return fn(*inputs[:n], **dict(zip(names, inputs[n:])))
    return tuple(args) + tuple(kwargs.values()), call


def _trainable(fn) -> tuple:
    """The weights ``GradOperation(get_by_list=True)`` differentiates when given none: those of a
    Cell that require a gradient (none for a plain function), as MindSpore 2.10 in PyNative mode."""
    trainable = getattr(fn, "trainable_params", None)
    return tuple(trainable()) if callable(trainable) else ()


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
                raise TypeError(f"For 'GradOperation', the '{name}' should be bool, but got {type(v).__name__} "
                                f"(GradOperation: {name} must be a bool, but got {_describe(v)}). "
                                f"Fix: {name}=True or {name}=False.")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn=_NO_FUNCTION, weights=None):
        if fn is _NO_FUNCTION:          # MindSpore's Graph-mode words; Python's (missing 'fn') in the brackets
            raise NotAFunctionError("'GradOperation' requires a forward network or function as an input, while "
                                    "the input is empty. (GradOperation.__call__() missing 1 required positional "
                                    "argument: 'fn'.) Fix: GradOperation()(fn)(x).")
        if not callable(fn):
            raise NotAFunctionError(f"For 'GradOperation', the first argument must be a 'Function' or 'Cell', but "
                                    f"got {_describe(fn)}. Fix: pass the function itself, GradOperation()(fn)(x), "
                                    "not its result GradOperation()(fn(x)).")
        params = _check_weights(weights, "GradOperation") if self.get_by_list and weights is not None else ()
        single_weight = getattr(weights, "_is_parameter", False)
        op = self

        def grad_fn(*args, **kwargs):
            sens = None
            if op.sens_param and "sens" in kwargs:         # MindSpore takes it by name too
                kwargs = dict(kwargs)
                sens = kwargs.pop("sens")
            elif op.sens_param:
                if not kwargs:
                    _require_sens(fn, args, "GradOperation(sens_param=True)")
                args, sens = args[:-1], args[-1]
            inputs, call = _with_keywords(fn, args, kwargs) if kwargs else (args, fn)
            if op.get_all:
                positions = _tensor_positions(inputs)
            elif op.get_by_list:       # only the weights' gradients are returned: inputs stay constants
                positions = ()
            else:
                if not inputs:
                    raise TypeError("GradOperation: the function was called without inputs; "
                                    "there is no first input to differentiate.")
                if not isinstance(inputs[0], Tensor):       # MindSpore 2.10: no gradient, ()
                    return ()
                positions = (0,)
            # get_by_list without weights: a Cell's trainable Parameters now (MindSpore's PyNative)
            ws = params if weights is not None or not op.get_by_list else _trainable(fn)
            _, in_grads, w_grads = vjp_call(call, inputs, positions, ws, sens=sens, where="GradOperation")
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


def _check_position_type(grad_position, weights, where):
    """``grad_position`` is an int or a tuple of distinct ints, or None with weights (TypeError/
    ValueError, as MindSpore)."""
    if grad_position is None and weights is None:
        raise ValueError(f"{where}: grad_position and weights cannot both be None; nothing to differentiate. "
                         "Fix: grad_position=0 for the first input, or weights=net.trainable_params().")
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
    for p in pos:
        if p < 0:           # refused when grad is created, ValueError, as MindSpore 2.10
            raise GradPositionError(f"{where}: grad_position {p} is negative; positions count the inputs "
                                    "from 0. Fix: grad_position=0 for the first input.")


def _positions(grad_position, args, where):
    """``(positions, single)``: the positions asked for that hold a Tensor (MindSpore differentiates
    only those); one Tensor gives the gradient itself, as MindSpore 2.10."""
    n = len(args)
    pos = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    if not pos:         # RuntimeError when called, as MindSpore 2.10
        raise GradPositionError(f"{where}: grad_position is the empty tuple (), so there is no input to "
                                "differentiate. Fix: name at least one input, e.g. grad_position=0, or "
                                "grad_position=None with weights for the weights' gradients only.")
    for p in pos:
        if not 0 <= p < n:
            raise GradPositionError(
                f"{where}: grad_position {p} is out of range: the function was called with {n} "
                f"input{'s' if n != 1 else ''} (valid positions 0..{n - 1}). "
                "Fix: count positions from 0, or pass the missing input."
            )
    pos = tuple(p for p in pos if isinstance(args[p], Tensor))
    return pos, len(pos) == 1


# A gradient of one input, no weights: the gradient itself (the common call, ``grad(f)(x)``, takes
# no other step); otherwise MindSpore's output structure (``_structured``).
def _grad_impl(fn, grad_position, weights, has_aux, return_ids, with_value, where):
    if not callable(fn) or type(grad_position) is not int or grad_position < 0 or weights is not None:
        _check_arguments(fn, grad_position, weights, where)
    params = _check_weights(weights, where) if weights is not None else ()
    plain = type(grad_position) is int and weights is None and not return_ids

    def grad_fn(*args, **kwargs):
        inputs, call = _with_keywords(fn, args, kwargs) if kwargs else (args, fn)
        if plain and 0 <= grad_position < len(inputs) and isinstance(inputs[grad_position], Tensor):
            value, ins, _ = vjp_call(call, inputs, (grad_position,), (), has_aux, where=where)
            grads = ins[0]
        else:
            pos, single = ((), False) if grad_position is None else _positions(grad_position, inputs, where)
            value, ins, ws = vjp_call(call, inputs, pos, params, has_aux, where=where)
            grads = _structured(ins, ws, pos, params, single, grad_position, weights, return_ids)
        return (value, grads) if with_value else (grads, tuple(value[1:])) if has_aux else grads
    grad_fn.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"
    grad_fn.minims_rewrap = (fn, functools.partial(_over, (grad_position, weights, has_aux, return_ids,
                                                          with_value, where)))
    compiled = getattr(fn, "fast_value_and_grad", None) if plain and not has_aux else None
    return grad_fn if compiled is None else _tape_free_first(grad_fn, compiled, grad_position, with_value)


def _tape_free_first(grad_fn, compiled, position, with_value):
    """``grad_fn`` of a compiled function: its gradient without the tape where it can
    (``minims/graph/fast_call.py``; None from ``compiled``: the tape's way)."""
    @functools.wraps(grad_fn)
    def first(*args, **kwargs):
        if not kwargs and not hooked and 0 <= position < len(args):
            fast = compiled(args, position)
            if fast is not None:
                return fast if with_value else fast[1]
        return grad_fn(*args, **kwargs)
    return first


def _over(options, fn):
    """The gradient function ``_grad_impl`` makes of ``fn`` with the ``options`` of another: what source
    conversion uses (``fn.minims_rewrap``) to convert the function a gradient is taken of when ``jit``
    compiles the gradient function, as MindSpore parses it (``minims/conversion/``)."""
    return _grad_impl(fn, *options)


def _check_arguments(fn, grad_position, weights, where):
    require_function(fn, where, f"{where}(fn)(x)", f"{where}(fn(x))")
    _check_position_type(grad_position, weights, where)


def _structured(ins, ws, pos, params, single, grad_position, weights, return_ids):
    """MindSpore's output structure: the gradient itself for one input (or one Parameter), tuples
    otherwise; inputs' and weights' gradients as a pair when both were asked for."""
    no_inputs, no_weights, single_weight = grad_position is None, weights is None, weights is not None and \
        getattr(weights, "_is_parameter", False)
    if return_ids:
        ins = [(p, g) for p, g in zip(pos, ins)]
        ws = [(w.name, g) for w, g in zip(params, ws)]
    ins = ins[0] if single else tuple(ins)
    ws = ws[0] if single_weight else tuple(ws)
    return ws if no_inputs else ins if no_weights else (ins, ws)


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``ops.grad``: a function returning the gradients of ``fn`` (see MindSpore's docs for the structure)."""
    return _grad_impl(fn, grad_position, weights, has_aux, return_ids, False, "grad")


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``ops.value_and_grad``: like ``grad`` but returns ``(fn's output, gradients)``."""
    return _grad_impl(fn, grad_position, weights, has_aux, return_ids, True, "value_and_grad")


class GradNotFoundError(MinimsError, RuntimeError):
    """``get_grad`` found no gradient for the position or Parameter asked for (MindSpore: RuntimeError)."""


def get_grad(gradients, identifier):
    """``ops.get_grad(gradients, identifier)``: from what ``grad(..., return_ids=True)`` returned, the
    gradient of input ``identifier`` (an int position) or of the Parameter ``identifier``."""
    if isinstance(identifier, Parameter):
        key = identifier.name
    elif isinstance(identifier, int) and not isinstance(identifier, bool):
        key = identifier
    else:       # TypeError, as MindSpore
        raise TypeError(f"get_grad: the identifier must be an int (an input's position) or a Parameter, but "
                        f"got {_describe(identifier)}. Fix: get_grad(grads, 0) or get_grad(grads, net.w).")
    found = _find_grad(gradients, key, type(key))
    if found is None:
        raise GradNotFoundError(
            f"get_grad: no gradient for {'position' if type(key) is int else 'Parameter'} {key!r} in "
            f"{_describe(gradients)}. Fix: compute the gradients with grad(..., return_ids=True), asking for "
            "that input (grad_position) or that Parameter (weights).")
    return found


def _find_grad(gradients, key, kind):
    """The gradient paired with ``key`` in the nested ``(id, gradient)`` pairs ``return_ids`` gives."""
    if not isinstance(gradients, tuple):
        return None
    if len(gradients) == 2 and type(gradients[0]) is kind and isinstance(gradients[1], Tensor):
        return gradients[1] if gradients[0] == key else None
    for part in gradients:
        found = _find_grad(part, key, kind)
        if found is not None:
            return found
    return None


# ----- the gradient level's recording, with fewer frames (issue 28 item 2) ---------------------------
# ``TapeTrace.process`` (core/tape.py) is the reference a learner reads: it unwraps the arguments,
# asks ``evaluator()`` for the eval interpreter, then calls ``add_node``, which builds a ``Node`` and
# boxes the output with ``_box``: four frames around one NumPy call for every recorded op, much of the
# time on small arrays.  ``record`` takes the same steps in the same order (the same node on the same
# tape, the same primals, a constant kept as a copy of its Tensor, the same parents, the same
# evaluator) with those helpers inline, so every number is bit-identical to the reference
# (tests/autodiff/test_fast_recording.py checks values and tapes).  It is installed through the core's seam
# 5 (``minims.core.installed()`` lists it); ``fast_recording(False)`` puts the core's method back.
_REFERENCE_PROCESS = TapeTrace.process
_new = object.__new__


def record(self, prim, args):
    """``TapeTrace.process`` with ``evaluator()``, ``add_node``, ``Node()`` and ``_box`` inline."""
    if prim.record_node is not None:
        return prim.record_node(self, args)
    primals, parents, below = [], [], False
    for a in args:
        if type(a) is TapeTracer and a._trace is self:
            parents.append((a._node, a._index))
            a = a._primal           # it may be traced by a level below too (grad of grad)
            below = below or (type(a) is not Tensor and isinstance(a, Tracer))
        else:
            parents.append(None)
            if type(a) is Tensor or (isinstance(a, Tensor) and not isinstance(a, Tracer)):
                c = _new(Tensor)                # a constant, kept as it is now
                c._data = a._data
                a = c
            elif not below and isinstance(a, Tracer):
                below = True
        primals.append(a)
    out = dispatch(prim, primals) if below else stack._evaluate(prim, primals)
    if not prim.differentiable:
        return out
    node = _new(Node)
    node.prim, node.args, node.parents, node.out, node.cot = prim, primals, parents, out, None
    self.tape.append(node)
    if isinstance(out, tuple):
        return tuple(_box(self, o, node, i) if isinstance(o, Tensor) else o for i, o in enumerate(out))
    t = _new(TapeTracer)
    t._data, t._primal, t._trace, t._node, t._index = out._data, out, self, node, None
    return t


def fast_recording(on: bool = True) -> None:
    """Record with ``record`` (True, the default once ``minims`` is imported) or with the core's own
    ``TapeTrace.process`` (False), to step through the reference or compare with it."""
    if on and ("TapeTrace", "process", __name__) not in installed():
        install(TapeTrace, process=record)          # once: installed() lists it
    TapeTrace.process = record if on else _REFERENCE_PROCESS


fast_recording(True)
