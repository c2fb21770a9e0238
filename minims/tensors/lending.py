"""Parameters lent to gradient levels: how ``grad(f, weights=...)`` sees weights ``f`` never receives.

Parameters are not arguments of the functions being differentiated, yet ``grad(f, weights=...)``
must see them.  A gradient level *lends* each weight a tracer (a stand-in); every ``bind`` then sees
the stand-in wherever the Parameter is used — through the interpreter stack's rewriter seam
(``core.stack.add_rewriter``), installed while anything is lent — and the Parameter itself is never
modified.  The stand-in holds the weight's value when it was lent; after an ``ops.assign`` the
weight is *relent* to the read of the new value (``ReadAfterAssign`` of the stand-in: the gradient
still reaches the weight), and a weight returned as it is counts as its stand-in (``as_lent``).

Inside a graph being staged, a stand-in lent by a level outside the graph is not used: the
graph reads the Parameter itself (an implicit input, so the compiled function reads its value at
each run), and the call of the compiled graph is what the outer level sees.

The lent Parameters belong to one thread each (``threading.local``).
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

from ..core import stack
from ..core.stack import Tracer
from ..core.tensor import Tensor

__all__ = ["lend", "unlend", "relend", "is_lent", "as_lent", "current_value", "parameters_as_themselves",
           "lent"]

_new = object.__new__


class _Lent(threading.local):
    def __init__(self):
        self.table: dict = {}       # id(Parameter) -> stand-in tracer of the top-most level that lends it


_lent = _Lent()


def lent() -> dict:
    """The lent Parameters of this thread: ``id(Parameter) -> stand-in`` (for tests and debugging)."""
    return dict(_lent.table)


def _visible(standin) -> bool:
    """Is a stand-in seen here: not lent by a level outside the graph being staged now."""
    level = stack.context_level()
    return level < 0 or not isinstance(standin, Tracer) or standin._trace.level > level


def _rewrite(prim, args):
    """The rewriter: each lent Parameter among ``args`` becomes its stand-in."""
    table = _lent.table
    out = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            standin = table.get(id(a))
            if standin is not None and _visible(standin):
                out = list(args) if out is None else out
                out[i] = standin
    return args if out is None else tuple(out)


def _update() -> None:
    """The rewriter is installed exactly while something is lent (no cost on ``bind`` otherwise)."""
    present = _rewrite in stack.rewriters()
    if _lent.table and not present:
        stack.add_rewriter(_rewrite)
    elif not _lent.table and present:
        stack.remove_rewriter(_rewrite)


def lend(param, standin) -> object:
    """Make ``bind`` see ``standin`` wherever ``param`` is used; returns the token for ``unlend``."""
    key = id(param)
    previous = _lent.table.get(key)
    _lent.table[key] = standin
    _update()
    return (key, previous, standin)


def unlend(token) -> None:
    key, previous, standin = token
    table = _lent.table
    if previous is None:
        table.pop(key, None)
    else:
        current = table.get(key, standin)
        if current is not standin and _visible(previous):
            # relent (an ops.assign since the lending): the outer level reads the new value too, as
            # it holds it — unless a graph being staged lies between them (its write happens when the
            # graph runs)
            while isinstance(current, Tracer) and current._trace.level > previous._trace.level:
                current = current._primal_value()
            previous = current
        table[key] = previous
    _update()


def as_lent(out):
    """``out`` (a Tensor, or tuples and lists of them) with each Parameter that a level lent a
    stand-in replaced by what ``bind`` sees for it: a function that returns a weight itself
    (``return self.w``) returns it to the level that differentiates it, which then sees the output."""
    if isinstance(out, (tuple, list)):
        return type(out)(as_lent(o) for o in out)
    if isinstance(out, Tensor):
        standin = _lent.table.get(id(out))
        return standin if standin is not None and _visible(standin) else out
    return out


def is_lent(param) -> bool:
    """True when a level lent ``param`` a stand-in that ``bind`` sees here."""
    standin = _lent.table.get(id(param))
    return standin is not None and _visible(standin)


def relend(param, value) -> None:
    """Make ``bind`` see ``value`` for ``param`` from now on, if a level lent it a stand-in: after an
    ``ops.assign``, reads see the new value (``value``: ``ReadAfterAssign`` of the stand-in), and the
    stand-in keeps the value it had, which the rules recorded before the write read."""
    if is_lent(param):
        _lent.table[id(param)] = value


def current_value(param):
    """What ``bind`` would see for ``param`` right now: its innermost stand-in; inside a graph being
    staged, what the graph reads for it (its input: the graph reads it at each run); else its value
    now — a Tensor holding the Parameter's array, which a later ``ops.assign`` replaces without
    changing that Tensor (a level that differentiates the Parameter must keep the value it read)."""
    standin = _lent.table.get(id(param))
    if standin is not None and _visible(standin):
        return standin
    contexts = stack.contexts()
    if contexts:
        return contexts[-1].lift(param)
    value = _new(Tensor)
    value._data = param._data
    return value


@contextmanager
def parameters_as_themselves():
    """Inside the block ``bind`` sees every Parameter as itself, whatever the gradient levels lent:
    a Cell with a custom ``bprop`` runs its forward this way (its weights are constants inside the
    node)."""
    saved = dict(_lent.table)
    _lent.table.clear()
    _update()
    try:
        yield
    finally:
        _lent.table.clear()
        _lent.table.update(saved)
        _update()
