"""MindSpore's functional transforms: ``jvp``, ``vjp``, ``linearize``, ``jacfwd``, ``jacrev``, ``derivative``.

Each is a few lines over the interpreters:

* ``jvp`` pushes a forward-mode level (``minims.core.jvp``) and reads the tangents of the outputs;
* ``vjp`` records the function on a gradient level (the tape) and returns ``vjp_fn``, which runs the
  backward pass from the cotangents it is given — as often as it is called;
* ``linearize`` runs ``jvp`` while a graph is being staged for the tangents only: the primal
  computation has concrete values and runs at once, each tangent operation involves the tangent
  placeholders and is recorded.  That is *partial evaluation*: the graph left behind is the linear
  part alone, with what it needs from the primal pass (cos x for sin x) as constants, and its
  ``jvp_fn`` never runs a primal operation again (Graph mode's residual split, in
  ``minims.graph.residuals``, is the same staging with the cotangents as the placeholders);
* ``jacfwd`` is ``vmap`` of ``jvp`` over the basis of the inputs, ``jacrev`` ``vmap`` of ``vjp`` over
  the basis of an output (one pass per column or row, all of them in one batched pass, so the
  function itself runs once);
* ``derivative`` nests ``jvp`` ``order`` times.

The output structures, argument checks and exception types are MindSpore 2.10's (checked by running
it); where MindSpore gives a silently wrong result (a tangent of the wrong shape) minims refuses.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..primitives import functional as ops
from .vmap import vmap
from ..tensors import undo
from ..autodiff.grad_api import require_function
from ..graph.call import GraphCall
from ..graph.passes import optimize
from ..graph.tracing import rebuild, trace_to_graph
from ..core.stack import Tracer, bind, pop_trace, push_trace
from ..tensors.lending import as_lent, current_value, lend, unlend
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..autodiff.grad_api import _check_weights, _flatten
from ..autodiff.tensor_hooks import leaf_gradient
from ..autodiff.custom_bprop import constructs_instead_of_bprops
from ..core.jvp import JVPTrace
from ..core.tape import TapeTrace

__all__ = ["jvp", "vjp", "linearize", "jacfwd", "jacrev", "derivative"]


# ----- arguments -----------------------------------------------------------------------------------
def _tensor_tuple(value, where: str, what: str):
    """``(tuple of Tensors, was a single Tensor)`` for an ``inputs`` or ``v`` argument."""
    if isinstance(value, Tensor):
        return (value,), True
    if isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value):
        return tuple(value), False
    raise TypeError(f"{where}: the {what} must be a Tensor, or a tuple or list of Tensors, but got "
                    f"{_describe(value)}. Fix: wrap the data, e.g. Tensor(np.asarray(data, np.float32)).")


def _check_pairs(where, inputs, tangents, what="v"):
    if len(tangents) != len(inputs):
        raise ValueError(f"{where}: {what} has invalid length: should be {len(inputs)}, but got "
                         f"{len(tangents)}. Fix: give one {'tangent' if what == 'v' else what} per input, "
                         "in the same structure as the inputs.")
    for i, (x, t) in enumerate(zip(inputs, tangents)):
        if t.dtype is not x.dtype:
            raise TypeError(f"{where}: {what}[{i}] has dtype {t.dtype} but input {i} has dtype {x.dtype}; "
                            f"a tangent has its input's dtype. Fix: {what}[{i}].astype(input.dtype).")
        if t.shape != x.shape:
            raise ValueError(f"{where}: {what}[{i}] has shape {list(t.shape)} but input {i} has shape "
                             f"{list(x.shape)}; a tangent has its input's shape (it is a direction in the "
                             "input's space). Fix: give a tangent shaped like the input.")


def _primal_input(x):
    # a Parameter passed as an input: what the levels outside see for it (as vjp_call does)
    return current_value(x) if getattr(x, "_is_parameter", False) else x


def _split_aux(out, has_aux: bool, where: str):
    """``(main output, aux)``: aux is the second output, or the tuple of the others (MindSpore)."""
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) < 2:
        raise ValueError(f"{where}: when has_aux is True, fn must return more than one output "
                         f"(output, aux, ...), but it returned {_describe(out)}. Fix: return (out, aux), "
                         "or drop has_aux.")
    return out[0], (out[1] if len(out) == 2 else tuple(out[1:]))


def _check_has_aux(has_aux, where):
    if not isinstance(has_aux, bool):
        raise TypeError(f"{where}: has_aux must be True or False, but got {_describe(has_aux)}.")


def _map_leaves(fn, value):
    if isinstance(value, (tuple, list)):
        return tuple(_map_leaves(fn, v) for v in value)
    return fn(value)


# ----- jvp -------------------------------------------------------------------------------------------
def _jvp_call(fn, inputs, tangents):
    """``fn(*inputs)`` on a new forward-mode level; returns ``(outputs, tangents of the outputs)``
    with the structure of ``fn``'s output (a zero tangent is a Tensor of zeros)."""
    trace = push_trace(JVPTrace())
    try:
        out = fn(*(trace.new_input(_primal_input(x), t) for x, t in zip(inputs, tangents)))
    finally:
        pop_trace(trace)

    def tangent(o):
        if not isinstance(o, Tensor):
            return None
        t = trace.tangent_of(o)
        return ops.zeros_like(trace.primal_of(o)) if t is None else t
    return _map_leaves(trace.primal_of, out), _map_leaves(tangent, out)


def jvp(fn, inputs, v, has_aux=False):
    """``ops.jvp(fn, inputs, v, has_aux=False)``: ``(fn(*inputs), J v)``, the Jacobian-vector product.

    ``inputs`` and ``v`` are a Tensor or a tuple of Tensors (one tangent per input, same shapes and
    dtypes).  With ``has_aux`` ``fn`` returns ``(output, aux...)``: the result is the flat
    ``(output, J v, aux)``, and aux gets no derivative.
    """
    require_function(fn, "jvp", "jvp(fn, inputs, v)", "jvp(fn(x), inputs, v)", ValueError)
    _check_has_aux(has_aux, "jvp")
    xs, _ = _tensor_tuple(inputs, "jvp", "inputs")
    vs, _ = _tensor_tuple(v, "jvp", "v")
    _check_pairs("jvp", xs, vs)
    out, tangent = undo.atomic(_jvp_call, fn, xs, vs)
    if has_aux:
        main, aux = _split_aux(out, True, "jvp")
        return main, tangent[0], aux
    return out, tangent


# ----- vjp -------------------------------------------------------------------------------------------
class _VjpFn:
    """``vjp_fn(*cotangents)``: the backward pass of one recorded forward pass (callable again)."""

    def __init__(self, trace, leaves, weight_leaves, outputs, inputs, weights, single_weight):
        self.trace, self.leaves, self.weight_leaves = trace, leaves, weight_leaves
        self.outputs, self.inputs, self.weights = outputs, inputs, weights
        self.single_weight = single_weight
        self.__name__ = "vjp_fn"

    def __call__(self, *cotangents):
        flat_out = [o for o in _flatten(self.outputs)]
        if len(cotangents) == 1 and isinstance(cotangents[0], (tuple, list)):
            cotangents = tuple(cotangents[0])            # vjp_fn((c1, c2)) as vjp_fn(c1, c2)
        cots = _flatten(list(cotangents))
        if len(cots) != len(flat_out):
            raise RuntimeError(f"vjp_fn: fn has {len(flat_out)} output{'s' if len(flat_out) != 1 else ''} "
                               f"but {len(cots)} cotangent{'s were' if len(cots) != 1 else ' was'} given. "
                               "Fix: give one cotangent per output, shaped like it.")
        for i, (o, c) in enumerate(zip(flat_out, cots)):
            if not isinstance(c, Tensor):
                raise TypeError(f"vjp_fn: cotangent {i} must be a Tensor, but got {_describe(c)}.")
            primal = self.trace.primal_of(o) if isinstance(o, Tensor) else o
            if isinstance(primal, Tensor) and c.shape != primal.shape:
                raise ValueError(f"vjp_fn: cotangent {i} has shape {list(c.shape)} but output {i} has shape "
                                 f"{list(primal.shape)}. Fix: a cotangent is shaped like its output.")
            if isinstance(primal, Tensor) and c.dtype is not primal.dtype:
                raise TypeError(f"vjp_fn: cotangent {i} has dtype {c.dtype} but output {i} has dtype "
                                f"{primal.dtype}. Fix: c.astype(output.dtype).")
        self.trace.backward(flat_out, cots, keep=True)
        dx = tuple(self._grad(leaf, x) for leaf, x in zip(self.leaves, self.inputs))
        if not self.weights:
            return dx
        dw = tuple(self._grad(leaf, w, True) for leaf, w in zip(self.weight_leaves, self.weights))
        return dx, (dw[0] if self.single_weight else dw)

    def _grad(self, leaf, primal, weight=False):
        value = current_value(primal) if getattr(primal, "_is_parameter", False) else primal
        # the Tensor hooks of the input (or weight): a weight's run on zeros when nothing reached it
        g = leaf_gradient(TapeTrace.leaf_cotangent(leaf, clear=True), (primal, leaf), value if weight else None)
        return ops.zeros_like(value) if g is None else g


def _record(fn, inputs, weights):
    trace = push_trace(TapeTrace())
    tokens = []
    try:
        leaves = [trace.new_input(_primal_input(x)) for x in inputs]
        weight_leaves = []
        for w in weights:
            standin = trace.new_input(current_value(w))
            tokens.append(lend(w, standin))
            weight_leaves.append(standin)
        out = as_lent(fn(*leaves))      # a weight returned as it is: its stand-in is the output
    finally:
        for token in reversed(tokens):
            unlend(token)
        pop_trace(trace)
    return trace, leaves, weight_leaves, out


def vjp(fn, *inputs, weights=None, has_aux=False):
    """``ops.vjp(fn, *inputs, weights=None, has_aux=False)``: ``(fn(*inputs), vjp_fn)``.

    ``vjp_fn(cotangent)`` (one cotangent per output, or one tuple of them) returns the tuple of
    ``cotangent^T J`` for every input — a tuple even for one input — or, with ``weights``,
    ``((d inputs...), (d weights...))`` (a single Parameter: its gradient alone).  With ``has_aux``
    the result is the flat ``(output, vjp_fn, aux)``.
    """
    require_function(fn, "vjp", "vjp(fn, x)", "vjp(fn(x), x)")
    _check_has_aux(has_aux, "vjp")
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError(f"vjp: input {i} must be a Tensor, but got {_describe(x)}. Fix: pass Tensors as "
                            "separate arguments, vjp(fn, x, y).")
    params = _check_weights(weights, "vjp")
    trace, leaves, weight_leaves, out = undo.atomic(_record, fn, inputs, params)
    main, aux = _split_aux(out, has_aux, "vjp")
    single = getattr(weights, "_is_parameter", False)
    vjp_fn = _VjpFn(trace, leaves, weight_leaves, main, inputs, params, single)
    value = _map_leaves(trace.primal_of, main) if isinstance(main, (tuple, list)) else trace.primal_of(main)
    if has_aux:
        aux = _map_leaves(trace.primal_of, aux) if isinstance(aux, tuple) else trace.primal_of(aux)
        return value, vjp_fn, aux
    return value, vjp_fn


# ----- linearize -------------------------------------------------------------------------------------
def linearize(fn, inputs):
    """``ops.linearize(fn, inputs)``: ``(fn(*inputs), jvp_fn)``, where ``jvp_fn(v)`` is ``J v`` at
    these inputs.  ``v`` is a Tensor for one input, a tuple for several.

    The primal computation runs once, here; ``jvp_fn`` runs a compiled graph of the linear part
    alone (``jvp_fn.graph`` shows it).
    """
    require_function(fn, "linearize", "linearize(fn, inputs)", "linearize(fn(x), inputs)")
    xs, single = _tensor_tuple(inputs, "linearize", "inputs")
    found = {}

    def tangents_only(*ts):
        out, tangent = _jvp_call(fn, xs, ts)
        found["out"] = out
        return tangent
    examples = [ops.zeros_like(x) for x in xs]
    # Parameters stay what they are now (constants of the linearisation), not inputs of the graph
    raw = undo.atomic(trace_to_graph, tangents_only, examples, f"linearized_{getattr(fn, '__name__', 'fn')}",
                      False, True, True)
    return found["out"], _LinearFn(optimize(raw), xs, single)


class _LinearFn:
    """The ``jvp_fn`` of ``linearize``: the staged linear part, run as one compiled graph."""

    def __init__(self, graph, inputs, single):
        self.graph, self.inputs, self.single = graph, inputs, single
        self.call = GraphCall(graph)
        self.__name__ = "jvp_fn"

    def __call__(self, v):
        if self.single and not isinstance(v, Tensor):
            raise TypeError(f"jvp_fn: linearize was given one input, so jvp_fn takes one Tensor (the tangent), "
                            f"but got {_describe(v)}. Fix: jvp_fn(v).")
        vs, _ = _tensor_tuple(v, "jvp_fn", "tangent")
        _check_pairs("jvp_fn", self.inputs, vs)
        flat = bind(self.call, *vs, *self.graph.implicit)
        flat = flat if len(self.graph.outputs) != 1 else (flat,)
        return rebuild(self.graph.out_tree, list(flat))


# ----- Jacobians --------------------------------------------------------------------------------------
def _positions(grad_position, n, where):
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    pos = (grad_position,) if single else grad_position
    if not isinstance(pos, tuple) or not all(isinstance(p, int) and not isinstance(p, bool) for p in pos):
        raise TypeError(f"{where}: grad_position must be an int or a tuple of ints, but got "
                        f"{_describe(grad_position)}. Fix: grad_position=0 or grad_position=(0, 1).")
    for p in pos:
        if p < 0:
            raise ValueError(f"{where}: grad_position must be >= 0, but got {p}. Fix: count inputs from 0.")
        if p >= n:
            raise ValueError(f"{where}: grad_position {p} is out of range: the function was called with {n} "
                             f"input{'s' if n != 1 else ''} (valid: 0..{n - 1}).")
    if len(set(pos)) != len(pos):
        raise ValueError(f"{where}: there are duplicate positions in grad_position {pos}. Fix: name each "
                         "input once.")
    return pos, single or len(pos) == 1


def _jacobian(fn, grad_position, has_aux, where, forward):
    require_function(fn, where, f"{where}(fn)(x)", f"{where}(fn(x))", ValueError)
    _check_has_aux(has_aux, where)

    def jac_fn(*args):
        pos, single = _positions(grad_position, len(args), where)
        for p in pos:
            if not isinstance(args[p], Tensor):
                raise TypeError(f"{where}: input {p} must be a Tensor to be differentiated, but got "
                                f"{_describe(args[p])}.")
            if not args[p].dtype.is_float:
                raise TypeError(f"{where}: input {p} has dtype {args[p].dtype}; a Jacobian needs a float "
                                "input. Fix: x.astype(mindspore.float32).")

        found = {}

        def main(*xs):
            full = list(args)
            for p, x in zip(pos, xs):
                full[p] = x
            out, found["aux"] = _split_aux(fn(*full), has_aux, where)
            return out
        xs = tuple(args[p] for p in pos)
        # fn runs once, in one pass for every column (or row): the aux is from the same run
        blocks, several = (_forward_jacobian if forward else _reverse_jacobian)(main, xs)
        # blocks[output][input]; MindSpore's structure: output first, a bare Tensor where single
        per_output = [b[0] if single else tuple(b) for b in blocks]
        jac = tuple(per_output) if several else per_output[0]
        if has_aux:
            return jac, _map_leaves(_after_levels, found["aux"])
        return jac
    jac_fn.__name__ = f"{where}_{getattr(fn, '__name__', type(fn).__name__)}"
    return jac_fn


def _outputs_of(out):
    return (tuple(out), True) if isinstance(out, (tuple, list)) else ((out,), False)


def _after_levels(value):
    """A value computed inside levels that have finished (an aux): what it stands for below them."""
    while isinstance(value, Tracer) and not value._trace.active:
        value = value._primal_value()
    return value


def _forward_jacobian(fn, xs):
    """One ``jvp`` per basis vector of the inputs, all batched by one ``vmap`` (so ``fn`` runs once):
    the columns of the Jacobian.  Returns ``(blocks[output][input], several outputs?)``."""
    outs, several = _outputs_of(vmap(lambda *ts: _jvp_call(fn, xs, ts)[1])(*_bases(xs)))
    blocks = []
    for c in outs:                                                  # (columns, *out.shape)
        columns = ops.transpose(_flat_front(c), None)               # (out.size, columns)
        row, start = [], 0
        for x in xs:
            n = _size(x)
            row.append(ops.reshape(columns[:, start:start + n], tuple(c.shape[1:]) + tuple(x.shape)))
            start += n
        blocks.append(row)
    return blocks, several


def _size(x) -> int:
    return int(np.prod(x.shape))


def _bases(xs):
    """The tangents of one batched pass over every column: for input ``k``, the standard basis of its
    space in the rows that belong to it, zeros in the others; each ``(total size, *x.shape)``, in
    ``x``'s dtype (for one input, its basis ``(x.size, *x.shape)``)."""
    total, start, out = sum(_size(x) for x in xs), 0, []
    for x in xs:
        n = _size(x)
        rows = np.zeros((total, n), x._data.dtype)
        rows[start:start + n] = np.eye(n, dtype=x._data.dtype)
        out.append(Tensor._make(rows.reshape((total, *x.shape))))
        start += n
    return out


def _flat_front(c):
    """``(n, *out)`` as ``(n, prod(out))``."""
    return ops.reshape(c, (c.shape[0], int(np.prod(c.shape[1:]))))


def _reverse_jacobian(fn, xs):
    """One backward pass per basis vector of each output, batched by ``vmap``: the rows of the
    Jacobian.  Returns ``(blocks[output][input], several outputs?)``."""
    out, vjp_fn = vjp(fn, *xs)
    outs, several = _outputs_of(out)
    blocks = []
    for k, o in enumerate(outs):
        def pull(c, k=k):
            cots = [ops.zeros_like(o_) for o_ in outs]
            cots[k] = c
            return vjp_fn(*cots)
        rows = vmap(pull)(_bases((o,))[0])                            # per input: (m, *x.shape)
        blocks.append([ops.reshape(r, tuple(o.shape) + tuple(x.shape)) for r, x in zip(rows, xs)])
    return blocks, several


def jacfwd(fn, grad_position=0, has_aux=False):
    """``ops.jacfwd(fn, grad_position=0, has_aux=False)``: the Jacobian by forward mode.

    The Jacobian of an output with respect to an input has shape ``out.shape + in.shape``; for several
    outputs or positions the result is a tuple, output first, then input (MindSpore's structure).
    """
    return _jacobian(fn, grad_position, has_aux, "jacfwd", forward=True)


def jacrev(fn, grad_position=0, has_aux=False):
    """``ops.jacrev(fn, grad_position=0, has_aux=False)``: the Jacobian by reverse mode (see ``jacfwd``)."""
    return _jacobian(fn, grad_position, has_aux, "jacrev", forward=False)


# ----- derivative -------------------------------------------------------------------------------------
def derivative(fn, primals, order):
    """``ops.derivative(fn, primals, order)``: ``(fn(*primals), d^order/dt^order fn(primals + t))``
    at ``t = 0``, every input moving with tangent 1 (MindSpore's convention); the ``order``-th
    derivative itself.  Integer inputs are computed in Float32.  Tensors for one output, lists for
    several.  Computed by nesting ``jvp`` ``order`` times, through the primitives of a Cell's
    ``construct`` even where the Cell has a custom ``bprop`` (as MindSpore 2.10's ``derivative``).
    """
    require_function(fn, "derivative", "derivative(fn, primals, order)", "derivative(fn(x), primals, order)",
                     RuntimeError)
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"derivative: order must be an int, but got {_describe(order)}.")
    if order < 1:
        raise ValueError(f"derivative: order should not be less than 1, but got {order}. Fix: order=1 for "
                         "the first derivative.")
    if isinstance(primals, list):
        raise TypeError("derivative: primals must be a Tensor or a tuple of Tensors, but got a list. "
                        "Fix: derivative(fn, (x, y), order).")
    xs, _ = _tensor_tuple(primals, "derivative", "primals")
    cast = []
    for x in xs:
        if x.dtype in (mstype.int32, mstype.int64):
            x = ops.cast(x, mstype.float32)
        elif x.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"derivative: the primals must be int32, int64, float32 or float64, but one is "
                            f"{x.dtype}. Fix: x.astype(mindspore.float32).")
        cast.append(x)
    xs = tuple(cast)

    def nth(k):
        if k == 0:
            return fn

        def d(*ys):
            return _jvp_call(nth(k - 1), ys, [ops.ones_like(y) for y in ys])[1]
        return d
    with constructs_instead_of_bprops():       # MindSpore 2.10: derivative ignores a Cell's custom bprop
        out = fn(*xs)
        series = nth(order)(*xs)
    if isinstance(out, (tuple, list)):
        return list(out), list(series)
    return out, series
