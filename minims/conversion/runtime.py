"""What converted code calls: ``ms_cond``, ``ms_while``, ``ms_and``/``ms_or``/``ms_not``, ``ms_local``.

Each decides at run time, per statement, as autograph does: a condition that is a Python value (or
a Tensor whose value is known: not being staged) runs the statement as Python runs it — so ``if
self.training:`` or ``while i < 3`` with a Python ``i`` still fold while the graph is traced.  A
condition that is a Tensor being staged (a placeholder of the graph) becomes one ``Cond`` or
``While`` (``minims.control_flow``) over the variables the statement assigns.

When the structured primitive cannot express the statement — the branches give values whose types
do not join, a loop variable that is not a Tensor or changes type, a write, a value read as Python
(``.asnumpy()``) — the statement runs as Python after all: the condition is read, which ``jit``
turns into a guarded variant (``minims/graph/guards.py``).  The values are right either way; only
the number of graphs differs.  Under ``jit(fullgraph=True)`` the primitive's own error is raised
instead (e.g. ``BranchTypeError``, a TypeError as MindSpore's "Type Join Failed").
"""
from __future__ import annotations

import builtins

import numpy as np

from ..control_flow import (BranchShapeError, BranchTypeError, CarryShapeError, CarryTypeError,
                            PredicateError, SideEffectError, cond, while_loop)
from ..control_flow.staged import example, flatten, stage, unflatten
from ..core.stack import Tracer
from ..core.staging import StaticGraphError
from ..core.tensor import Tensor
from ..graph import conversion
from .. import dtype as mstype
from ..primitives.debug import Print
from ..primitives.functional import logical_and, logical_not, logical_or, ne
from ..tensors.repr import _c_float

__all__ = ["ms_cond", "ms_while", "ms_and", "ms_or", "ms_not", "ms_local", "ms_global", "ms_flag", "ms_unset",
           "ms_print", "ms_method",
           "Undefined", "Unset",
           "RUNTIME"]

#: What the structured primitives raise for a statement they cannot express: the statement then
#: runs as Python (a guarded variant), unless ``fullgraph=True``.
CANNOT_EXPRESS = (BranchTypeError, BranchShapeError, CarryTypeError, CarryShapeError, SideEffectError,
                  PredicateError, StaticGraphError)


class Undefined:
    """The value of a variable not yet assigned when a converted statement starts (it is assigned on
    one path only); using it says so, as Python's UnboundLocalError would."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}: not assigned>"

    def _refuse(self, *args):
        raise UnboundLocalError(f"variable '{self.name}' is used before it is assigned on this path. Fix: "
                                "give it a value before the if/while, or assign it in every branch.")

    # str() and format() too: print(y) or f"{y}" of an unassigned y raises, as Python does, instead of
    # showing this placeholder as if it were the value
    __bool__ = __call__ = __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _refuse
    __str__ = __format__ = _refuse
    __truediv__ = __getitem__ = __iter__ = __len__ = __neg__ = _refuse


class Unset(Undefined):
    """The value a converted ``return`` inside a loop has before the loop returns (``return_value_N``):
    where a branch or the loop gives it a Tensor, the paths that have not returned carry zeros of that
    type instead — never read, as ``returned_N`` says so."""


def ms_unset(name: str) -> Unset:
    return Unset(name)


def _filled(fn, fill):
    """``fn`` whose output leaves at the positions of ``fill`` that are ``Unset`` become zeros of the
    type given there."""
    def filled(*operands):
        leaves, definition = flatten(fn(*operands))
        leaves = [example(*fill[k]) if k in fill and isinstance(v, Unset) else v for k, v in enumerate(leaves)]
        return unflatten(definition, leaves)
    filled.__name__ = fn.__name__
    return filled


def _unset_types(closeds) -> dict:
    """``{leaf: (shape, dtype)}`` where one staged function gives ``Unset`` and another a Tensor."""
    fill = {}
    for closed in closeds:
        for k, (kind, value) in enumerate(closed.out_kinds):
            if kind == "tensor":
                fill.setdefault(k, closed.out_types[value])
    unset = {k for c in closeds for k, (kind, v) in enumerate(c.out_kinds) if kind == "static" and isinstance(v, Unset)}
    return {k: fill[k] for k in unset if k in fill}


def ms_global(scope: dict, name: str):
    """The global ``name`` (``scope`` is the function's ``globals()``) as the first value of a local the
    function reads before assigning it (MindSpore's graph mode); ``Undefined`` where there is none."""
    return scope[name] if name in scope else Undefined(name)


def ms_local(scope: dict, name: str):
    """The variable ``name`` of ``scope`` (``locals()``), or ``Undefined`` where it has no value yet."""
    return scope[name] if name in scope else Undefined(name)


def staged(value) -> bool:
    """Is ``value`` a Tensor of a graph being staged (its value unknown now)?"""
    return isinstance(value, Tracer)


def _labels(names, operands):
    """How a type-join error names each value: the variables, when each holds one value."""
    if not names or any(len(flatten(v)[0]) != 1 for v in operands):
        return None
    return [f"variable '{n}'" for n in names]


def ms_cond(pred, true_fn, false_fn, operands=(), names=()):
    """``true_fn(*operands) if pred else false_fn(*operands)``: a ``Cond`` when ``pred`` is staged."""
    if staged(pred):
        try:
            with conversion.staging_statement():
                return _staged_cond(pred, true_fn, false_fn, operands, names)
        except CANNOT_EXPRESS:
            if conversion.fullgraph():
                raise
    return true_fn(*operands) if pred else false_fn(*operands)     # Python's if (guarded if staged)


def _staged_cond(pred, true_fn, false_fn, operands, names):
    """The ``Cond`` of a converted ``if``; a value one branch leaves ``Unset`` is zeros of the other's type."""
    try:
        return cond(pred, true_fn, false_fn, *operands, names=_labels(names, operands))
    except BranchTypeError:
        fill = _unset_types([stage(fn, operands, fn.__name__) for fn in (true_fn, false_fn)])
        if not fill:
            raise
        return cond(pred, _filled(true_fn, fill), _filled(false_fn, fill), *operands, names=_labels(names, operands))


def _named(fn, name):
    fn.__name__ = name
    return fn


def ms_while(cond_fn, body_fn, carry, names=()):
    """``while cond_fn(*carry): carry = body_fn(*carry)``: Python's loop while the condition is a
    Python value; one ``While`` from the first iteration whose condition is staged."""
    carry = tuple(carry)
    while True:
        test = cond_fn(*carry)
        if staged(test):
            break
        if not test:
            return carry
        carry = tuple(body_fn(*carry))
    try:
        with conversion.staging_statement():
            return _staged_while(cond_fn, body_fn, carry)
    except CANNOT_EXPRESS:
        if conversion.fullgraph():
            raise
    while cond_fn(*carry):              # Python's while: each test read (guarded variants)
        carry = tuple(body_fn(*carry))
    return carry


def _staged_while(cond_fn, body_fn, carry):
    """The ``While`` of a converted ``while``; a value the body leaves ``Unset`` starts as zeros of its type."""
    if any(isinstance(v, Unset) for v in carry):
        fill = _unset_types([stage(body_fn, carry, body_fn.__name__)])
        carry = tuple(example(*fill[k]) if k in fill else v for k, v in enumerate(carry))
    out = while_loop(_named(lambda c: cond_fn(*c), cond_fn.__name__),
                     _named(lambda c: tuple(body_fn(*c)), body_fn.__name__), carry)
    return tuple(out)


def _as_bool(value):
    """A truth value as a Bool Tensor (a number is true where it is not zero)."""
    if not isinstance(value, Tensor):
        return Tensor(bool(value))
    return value if value.dtype is mstype.bool_ else ne(value, 0)


def ms_and(*thunks):
    """``a and b and ...`` (each a function giving the operand): ``logical_and`` from the first staged
    operand on (then every operand is computed); Python's ``and`` before."""
    value = thunks[0]()
    for thunk in thunks[1:]:
        if staged(value):
            value = logical_and(_as_bool(value), _as_bool(thunk()))
        elif not value:
            return value
        else:
            value = thunk()
    return value


def ms_or(*thunks):
    """``a or b or ...``: ``logical_or`` from the first staged operand on; Python's ``or`` before."""
    value = thunks[0]()
    for thunk in thunks[1:]:
        if staged(value):
            value = logical_or(_as_bool(value), _as_bool(thunk()))
        elif value:
            return value
        else:
            value = thunk()
    return value


def ms_not(value):
    """``not value``: ``logical_not`` of a staged Tensor, Python's ``not`` otherwise."""
    return logical_not(_as_bool(value)) if staged(value) else not value


def ms_flag(value: bool) -> Tensor:
    """A flag of a converted ``break``/``continue``: a Bool Tensor, so that a branch that sets it and one
    that keeps it give values of one type (a Python ``True`` and a Tensor would not join)."""
    return Tensor(value)


def _print_pieces(value, nested: bool = False) -> list:
    """What MindSpore's graph-mode ``print`` shows for one argument (``builtins.py``; probed on
    MindSpore 2.10): Tensors and strings as they are, Python values as text; a sequence of numbers
    as one tuple, unless it sits in a sequence being flattened."""
    if isinstance(value, (Tensor, str)):
        return [value]
    if isinstance(value, np.ndarray):
        return [Tensor(value)]
    if isinstance(value, dict):
        return _print_pieces(tuple(value.values()), nested)
    if isinstance(value, (list, tuple)):
        if not nested and all(_is_number(v) for v in value):
            return ["(" + ", ".join(_number_text(v) for v in value) + ")"]
        return [piece for v in value for piece in _print_pieces(v, nested=True)]
    return [_number_text(value) if _is_number(value) else str(value)]


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating))


def _number_text(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    return str(int(value)) if isinstance(value, (int, np.integer)) else _c_float(value, "%g")


def ms_print(fn, *args, **kwargs):
    """``print(*args)`` in converted code: MindSpore's ``Print``, recorded in the graph being staged
    (so it prints on every run), each argument on its own line.  A ``print`` the function rebinds runs
    as written."""
    if fn is not builtins.print:
        return fn(*args, **kwargs)
    if kwargs:
        raise RuntimeError(f"print inside a compiled function: got an unexpected keyword argument "
                           f"'{next(iter(kwargs))}'. In graph mode print is MindSpore's Print operator, which "
                           "prints each argument on its own line and takes no keyword arguments. Fix: build one "
                           "string yourself (an f-string), or compile with jit(capture_mode='trace'), where "
                           "print is Python's and runs once, while tracing.")
    Print()(*[piece for value in args for piece in _print_pieces(value)])


def ms_method(obj, name: str, *args, **kwargs):
    """``obj.name(*args)`` in converted code, with a dict's graph-mode methods (``builtins.py``):
    ``keys()``/``values()`` tuples, ``items()`` a list of pairs, ``has_key(k)``."""
    if isinstance(obj, dict):
        if name == "has_key":
            (key,) = args
            return key in obj
        if name in ("keys", "values") and not args and not kwargs:
            return tuple(getattr(obj, name)())
        if name == "items" and not args and not kwargs:
            return list(obj.items())
    return getattr(obj, name)(*args, **kwargs)


#: The names converted code reads (closure cells of the converted function, never the user's globals).
RUNTIME = {"ms_cond": ms_cond, "ms_while": ms_while, "ms_and": ms_and, "ms_or": ms_or, "ms_not": ms_not,
           "ms_local": ms_local, "ms_global": ms_global, "ms_flag": ms_flag, "ms_unset": ms_unset,
           "ms_print": ms_print, "ms_method": ms_method}
