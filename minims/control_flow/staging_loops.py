"""``while_loop`` and ``scan``: Python functions staged into one ``While`` or ``Scan``.

Both take a *carry* made of Tensors in tuples, lists and dicts (a Python number in it becomes a
Tensor, as a graph makes it a value of the graph).  The body is staged once, on the carry's types;
it must give back a carry of the same structure, dtypes and shapes (``CarryTypeError`` otherwise,
naming both types): the graph's loop variable has one type for all iterations.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import type_text
from ..core.stack import MinimsError, bind
from ..core.tensor import Tensor
from ..primitives.functional import identity
from .cond import function_name, predicate
from .loops import CarryShapeError, CarryTypeError, Scan, While
from .staged import example, flatten, stage, unflatten

__all__ = ["while_loop", "scan", "InfiniteLoopError"]


class InfiniteLoopError(MinimsError, ValueError):
    """A loop condition that is the Python ``True`` whatever the carry: the loop never ends."""


def _as_tensor(v):
    if isinstance(v, Tensor):
        # a Parameter in the carry (or xs) is its value now, a value of the loop: a graph reads a
        # Parameter itself as a captured input, which left the carry one operand short
        return identity(v) if getattr(v, "_is_parameter", False) else v
    if isinstance(v, (bool, int, float, np.number, np.bool_)):
        return Tensor(v)
    raise CarryTypeError(
        f"a loop carry holds Tensors (in tuples, lists, dicts), but got a {type(v).__name__}. Fix: make "
        "it a Tensor, or read it from outside the loop instead of carrying it.")


def _carry(init):
    leaves, definition = flatten(init)
    return [_as_tensor(v) for v in leaves], definition


def _check_carry(where: str, name: str, closed, definition, leaves, out_leaves_of=lambda d: d):
    """The body's carry output must match the carry it was given (structure, dtype, shape)."""
    got = out_leaves_of(closed.out_definition)
    if got != definition:
        raise CarryTypeError(
            f"{where}: the body '{name}' must return a carry of the structure it was given "
            f"({len(leaves)} Tensor(s) as in init), but returns another structure. Fix: return the "
            "same tuple (or list, dict) of values as the initial value.")
    for k, (kind, index) in enumerate(closed.out_kinds[:len(leaves)]):
        want = type_text(tuple(leaves[k].shape), leaves[k].dtype)
        if kind != "tensor":
            raise CarryTypeError(
                f"{where}: carry leaf {k} is {want} in init but the Python value {index!r} after the body "
                f"'{name}'. Fix: return a Tensor of the carry's type.")
        shape, dtype = closed.out_types[index]
        if tuple(shape) != tuple(leaves[k].shape) or dtype is not leaves[k].dtype:
            raise (CarryTypeError if dtype is not leaves[k].dtype else CarryShapeError)(
                f"{where}: carry leaf {k} is {want} in init but {type_text(shape, dtype)} after the body "
                f"'{name}': a loop variable of a graph keeps one type for all iterations. Fix: make the "
                "body return the carry's dtype and shape (ops.cast, reshape), or start from that type.")


def while_loop(cond_fn, body_fn, init):
    """``while cond_fn(c): c = body_fn(c)``, staged as one ``While`` (see the module docstring)."""
    leaves, definition = _carry(init)
    init = unflatten(definition, leaves)
    cname, bname = function_name(cond_fn, "cond_func"), function_name(body_fn, "loop_func")

    def to_predicate(outs):
        return [predicate(o, f"while_loop condition '{cname}'") if isinstance(o, Tensor) else o for o in outs]
    c = stage(cond_fn, (init,), cname, to_predicate)
    if c.out_kinds and c.out_kinds[0][0] == "static":
        if not c.out_kinds[0][1]:
            return init
        raise InfiniteLoopError(
            f"while_loop: the condition '{cname}' is the Python value {c.out_kinds[0][1]!r} whatever the "
            "carry, so the loop would never end. Fix: compute the condition from the carry's Tensors.")
    b = stage(body_fn, (init,), bname)
    _check_carry("while_loop", bname, b, definition, leaves)
    prim, captured = While.build(c, b)
    return unflatten(definition, _listed(bind(prim, *leaves, *captured)))


def scan(body_fn, init, xs=None, length: int | None = None):
    """``carry, y = body_fn(carry, x)`` for each ``x`` along the leading axis of the Tensors in
    ``xs`` (None: ``length`` steps of ``x = None``): ``(last carry, the y stacked)``, one ``Scan``."""
    leaves, definition = _carry(init)
    init = unflatten(definition, leaves)
    x_leaves, x_definition = flatten(xs) if xs is not None else ([], ("leaf", None))
    x_leaves = [_as_tensor(v) for v in x_leaves]
    lengths = {int(x.shape[0]) for x in x_leaves if x.shape}
    if any(not x.shape for x in x_leaves) or len(lengths) > 1 or (length is not None and lengths - {length}):
        raise ValueError(
            f"scan: every Tensor of xs is read along its leading axis, so all need one leading length "
            f"(and length={length} if given), but got shapes {[list(x.shape) for x in x_leaves]}. Fix: "
            "give xs of one leading length.")
    n = length if not lengths else lengths.pop()
    if n is None:
        raise ValueError("scan: with xs None, give length, the number of steps. Fix: scan(f, init, None, length=n).")
    name = function_name(body_fn, "loop_func")
    steps = unflatten(x_definition, [example(x.shape[1:], x.dtype) for x in x_leaves]) if xs is not None else None
    b = stage(lambda carry, x: body_fn(carry, x), (init, steps), name)
    if b.out_definition[0] not in ("tuple", "list") or len(b.out_definition[1]) != 2:
        raise CarryTypeError(
            f"scan: the body '{name}' must return a pair (carry, y). Fix: return (new_carry, y); y may be None.")
    _check_carry("scan", name, b, definition, leaves, lambda d: d[1][0])
    y_kinds = b.out_kinds[len(leaves):]
    prim, captured = Scan.build(b, n, len(leaves), len(x_leaves))
    flat = _listed(bind(prim, *leaves, *x_leaves, *captured)) if b.graph.outputs else []
    carry, stacked = flat[:len(leaves)], iter(flat[len(leaves):])
    ys = [next(stacked) if kind == "tensor" else value for kind, value in y_kinds]
    y_definition = b.out_definition[1][1]
    return unflatten(definition, carry), unflatten(y_definition, ys)


def _listed(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]
