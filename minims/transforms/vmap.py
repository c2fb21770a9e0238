"""``vmap(fn, in_axes=0, out_axes=0)``: run a function written for one example on a whole batch.

``in_axes`` says, for each argument, which axis holds the batch (``None``: the argument is shared by
every example, as a weight); it is an int for all arguments, or a tuple with one entry per argument,
nested like a tuple or list argument.  ``out_axes`` says where the batch axis goes in each output; an
output that does not depend on the batch is broadcast along it.  The checks and their exception
types (``RuntimeError`` for every misuse) are MindSpore 2.10's.
"""
from __future__ import annotations

import inspect

from ..core.stack import MinimsError
from ..core.stack import pop_trace, push_trace
from ..autodiff.grad_api import require_function
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..primitives import functional as ops
from ..core.batching import BatchTrace

__all__ = ["vmap", "VmapError"]


class VmapError(MinimsError, RuntimeError):
    """A misuse of ``vmap`` (MindSpore raises RuntimeError for these)."""


def _is_axis(a) -> bool:
    return a is None or (isinstance(a, int) and not isinstance(a, bool))


def _flatten(value, axes, where, leaves):
    """Pair every Tensor leaf of an argument with its axis; returns the structure to rebuild."""
    if isinstance(value, (tuple, list)):
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(value):
                raise VmapError(f"vmap: {where} is a {type(value).__name__} of {len(value)} items but its "
                                f"in_axes entry has {len(axes)}. Fix: give one axis per item, or one int "
                                "for all of them.")
            return type(value), [_flatten(v, a, f"{where}[{i}]", leaves) for i, (v, a) in
                                 enumerate(zip(value, axes))]
        return type(value), [_flatten(v, axes, f"{where}[{i}]", leaves) for i, v in enumerate(value)]
    if not _is_axis(axes):
        raise VmapError(f"The axis in vmap's 'in_axes' should be a None or a scalar of type Int64Imm, but got a "
                        f"{_scalar(axes)}. (vmap: the axis of {where} in in_axes must be an int or None, but got "
                        f"{_describe(axes)}.)")
    if axes is not None and not isinstance(value, Tensor):
        raise VmapError(f"vmap: {where} is mapped over axis {axes}, so it must be a Tensor, but it is "
                        f"{_describe(value)}. Fix: pass Tensor(...) for it, or give it in_axes None "
                        "(shared by every example).")
    if axes is not None:
        rank = value.ndim
        if not -rank <= axes < rank:
            raise VmapError(f"The axis: {axes} in 'in_axes' is out of bounds for array of dimension "
                            f"[{-rank},{rank}). (vmap: the axis {axes} in in_axes is out of bounds for {where} "
                            f"of shape {list(value.shape)}.)")
        axes %= rank
    leaves.append((value, axes))
    return None


def _scalar(value):
    """A value as MindSpore's C++ prints it in its vmap messages (a whole float without its point)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _all_none(axes) -> bool:
    """An in_axes or out_axes tuple (nested) with no int in it."""
    if isinstance(axes, (tuple, list)):
        return all(_all_none(a) for a in axes)
    return axes is None


def _check_arity(fn, count):
    """MindSpore's check (TypeError) that ``fn`` takes ``count`` positional inputs, before in_axes' size."""
    try:        # a Cell: its construct's (its __call__ takes anything)
        params = list(inspect.signature(getattr(fn, "construct", fn)).parameters.values())
    except (TypeError, ValueError):             # a builtin or a Primitive: its call says for itself
        return
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params):
        return
    required = sum(p.default is p.empty for p in params)
    if not required <= count <= len(params):
        raise TypeError(f"The parameters number of the function is {len(params)}, but the number of provided "
                        f"arguments is {count}. (vmap: {getattr(fn, '__name__', type(fn).__name__)} takes "
                        f"{len(params)} inputs.) Fix: one argument per input of the function.")


def _rebuild(structure, leaves):
    if structure is None:
        return next(leaves)
    kind, items = structure
    return kind(_rebuild(s, leaves) for s in items)


def _output(trace, value, axis, where):
    """One output leaf with its batch axis at ``axis`` (an unbatched one broadcast there)."""
    if not isinstance(value, Tensor):
        if not isinstance(value, (bool, int, float)):
            raise VmapError(f"vmap: the outputs of fn must be Tensors or numbers (in tuples or lists), but "
                            f"{where} is {_describe(value)}. Fix: return a tuple of Tensors.")
        if axis is None:
            return value
        value = Tensor(value)
    batched, dim = trace.unbox(value)
    if axis is None:
        if dim is not None:
            raise VmapError(f"It is invalid that source is not None and dst is None. (vmap: {where} depends "
                            "on the batch, so its out_axes entry cannot be None.) Fix: give it an int axis.")
        return value
    rank = batched.ndim if dim is not None else batched.ndim + 1
    if not -rank <= axis < rank:
        raise VmapError(f"The axis: {axis} in 'out_axes' is out of bounds for array of dimension "
                        f"[{-rank},{rank}). (vmap: {where}'s batched shape has {rank} axes.)")
    axis %= rank
    if dim is None:                                     # the same for every example: broadcast it
        batched = ops.broadcast_to(ops.expand_dims(batched, 0), (trace.size,) + tuple(batched.shape))
        dim = 0
    if dim != axis:
        perm = [i for i in range(rank) if i != dim]
        perm.insert(axis, dim)
        batched = ops.transpose(batched, tuple(perm))
    return batched


def _outputs(trace, out, out_axes):
    several = isinstance(out, (tuple, list))
    outs = tuple(out) if several else (out,)
    if isinstance(out_axes, (tuple, list)):
        if len(out_axes) != len(outs):
            raise VmapError(f"The size of vmap's 'out_axes' should be equal to the number of results of 'fn': "
                            f"{len(outs)}, but got size: {len(out_axes)}. (vmap: out_axes has {len(out_axes)} "
                            f"entries but fn returned {len(outs)} outputs.) Fix: one axis per output, or one int "
                            "for all of them.")
        axes = tuple(out_axes)
    else:
        axes = (out_axes,) * len(outs)
    result = []
    for i, (o, a) in enumerate(zip(outs, axes)):
        if isinstance(o, (tuple, list)):
            result.append(_outputs(trace, o, a))
        else:
            if not _is_axis(a):
                raise VmapError(f"vmap: an axis in out_axes must be an int or None, but got {_describe(a)}.")
            result.append(_output(trace, o, a, f"output {i}"))
    return tuple(result) if several else result[0]


def vmap(fn, in_axes=0, out_axes=0):
    """``mindspore.vmap(fn, in_axes=0, out_axes=0)`` (see the module docstring)."""
    require_function(fn, "vmap", "vmap(fn)(x)", "vmap(fn(x))", RuntimeError, "to map over a batch")
    ensemble = getattr(fn, "vmap_ensemble", None)       # a CellList: one Cell per example
    if ensemble is not None:
        return ensemble(in_axes, out_axes)
    if in_axes is None:
        raise VmapError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'. "
                        "(vmap: in_axes cannot be a single None: nothing would be mapped.) Fix: in_axes=0, "
                        "or a tuple with an int for the batched arguments.")
    if out_axes is None:
        raise VmapError("The 'out_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'. "
                        "Fix: out_axes=0, or a tuple with None for the outputs that do not depend on the batch.")
    if _all_none(out_axes):
        raise VmapError("The 'out_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got "
                        f"{out_axes}. Fix: an int axis for the outputs that depend on the batch.")

    def vmapped(*args, **kwargs):
        if kwargs:
            raise VmapError(f"vmap: the vmapped function takes positional arguments only, but got the "
                            f"keywords {sorted(kwargs)}. Fix: pass them by position.")
        _check_arity(fn, len(args))
        axes = in_axes
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(args):
                raise VmapError(f"When vmap`s 'in_axes' is a tuple or list, and its size must be equal to the "
                                f"number of arguments of 'fn': {len(args)}, but got size: {len(axes)}. (vmap: "
                                f"in_axes has {len(axes)} entries, but fn was called with {len(args)} "
                                f"argument{'s' if len(args) != 1 else ''}: the size of in_axes must equal "
                                "the number of arguments.)")
        elif not _is_axis(axes):
            raise VmapError(f"vmap: in_axes must be an int, None or a tuple, but got {_describe(axes)}.")
        else:
            axes = (axes,) * len(args)
        leaves = []
        structures = [_flatten(a, ax, f"argument {i}", leaves) for i, (a, ax) in enumerate(zip(args, axes))]
        sizes = list(dict.fromkeys(int(v.shape[d]) for v, d in leaves if d is not None))   # in argument order
        if not sizes and isinstance(in_axes, (tuple, list)) and args and _all_none(in_axes):
            raise VmapError("The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got "
                            f"{in_axes}. (vmap: every in_axes entry is None: nothing is mapped.) Fix: give the "
                            "batched argument an int axis.")
        if not sizes:
            raise VmapError("Failed to get 'axis_size' within the scope of vmap. (vmap: no argument is mapped: "
                            "no Tensor argument has an int in_axes entry.) Fix: pass the batch as a Tensor "
                            "with an int axis.")
        if len(sizes) > 1:
            raise VmapError(f"The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got "
                            f"{sizes[0]} and {sizes[1]}. (vmap: the mapped axes of the arguments have different "
                            f"sizes {sorted(sizes)}; every batched argument must hold the same number of examples.)")
        size = sizes[0]
        trace = push_trace(BatchTrace(size))
        try:
            boxed = iter([trace.new_input(v, d) for v, d in leaves])
            out = fn(*(_rebuild(s, boxed) for s in structures))
        finally:
            pop_trace(trace)
        return _outputs(trace, out, out_axes)

    vmapped.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
    return vmapped

