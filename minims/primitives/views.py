"""Views: a Tensor taken from another by indexing, ``view``, ``reshape`` or ``transpose`` shares its
entries, as in MindSpore's PyNative mode: ``b = t.view((3, 2)); b[0][0] = 100`` changes ``t``, and a
write into ``t`` shows in ``b``.

minims computes with values: a write gives a Tensor a new array (copy on write), which is what makes
a write differentiable (``SetItem``) and what a compiled graph records.  So sharing is kept by the
writes themselves.  A view remembers the Tensor it was taken from (its *base*) and how (an index,
a shape, a permutation), from which the view is taken again from the base (``_take``) and its value
written back into the base in place (``_put``).  When a Tensor is written in place (``written``):

* if it is a view, its value is written back into its base (``base[index] = view``, ``base[...] =
  reshape(view)``), an in-place write in turn, which goes on up to the Tensor nobody took it from;
* there, every view of it (and every view of those) is taken again.

Each step is an ordinary primitive application, so under ``grad`` the gradient flows through the
writes and in ``jit`` they are equations (MindSpore 2.10's own gradient ignores the sharing, and its
Graph mode does not share; minims shares in every mode, so PyNative and Graph agree).

Views are taken by the Tensor *methods* (``t[i]``, ``t.view``, ``t.reshape``, ``t.flatten``,
``t.squeeze``, ``t.expand_dims``, ``t.transpose``, ``t.T``): the functional ``ops`` make new values,
as minims' own rules need.  A view that cannot follow a write is refused rather than left stale: one
taken at another interpreter level than the write (a view taken outside ``grad`` of a Tensor written
with a traced value inside it).  A plain view of a Parameter written inside a compiled graph is taken
again when the graph has run and written the Parameter.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..core.tensor import Tensor
from ..tensors.convert import _describe
from ..core import stack
from ..core.stack import MinimsError
from ..core.stack import Tracer
from ..tensors import undo
from . import functional

__all__ = ["taken", "written", "ViewWriteError"]


class ViewWriteError(MinimsError, RuntimeError):
    """A view cannot follow a write into the Tensor it shares entries with."""


# keyed by id(): a Tensor's == is elementwise, so Tensors cannot be dict keys (nor WeakKeyDictionary
# keys); each entry goes when its Tensor is freed (the weak references' callbacks)
_links: dict = {}           # id(view) -> _Link to its base
_views: dict = {}           # id(base) -> (weak ref to the base, {id(view): _Link})


class _ViewRef(weakref.ref):
    """A weak reference to a view that forgets the view's entries when it is freed."""

    __slots__ = ("key", "base_key")


# The tables are bound as defaults: a callback may run while the interpreter exits, after the
# module's globals were cleared.
def _forget(ref, _links=_links, _views=_views) -> None:
    _links.pop(ref.key, None)
    entry = _views.get(ref.base_key)
    if entry is not None:
        entry[1].pop(ref.key, None)


class _BaseRef(weakref.ref):
    __slots__ = ("key",)


def _forget_base(ref, _views=_views) -> None:
    _views.pop(ref.key, None)


class _Link:
    """A view's base (held, as a NumPy view holds its base) and how the view was taken from it:
    ``kind`` ("index", "reshape", "transpose") and its argument."""

    __slots__ = ("base", "kind", "arg", "view")



def taken(base, view, kind: str, arg):
    """Record that ``view`` was taken from ``base`` (``kind``: "index" with the index, "reshape" with
    the view's shape, "transpose" with the permutation) and shares its entries.  Returns ``view``."""
    if view is base or not isinstance(view, Tensor):
        return view
    link = _Link()
    link.kind, link.arg = kind, arg
    entry = _views.get(id(base))
    if entry is None:
        ref = _BaseRef(base, _forget_base)
        ref.key = id(base)
        entry = _views[id(base)] = (ref, {})
    link.base = base            # held: a view of a view (t[0:2][0]) still writes into t
    link.view = ref = _ViewRef(view, _forget)
    ref.key, ref.base_key = id(view), id(base)
    _links[id(view)] = entry[1][id(view)] = link
    return view


def written(tensor) -> None:
    """``tensor`` was written in place: write it back into its base, or take its views again."""
    if not _links and not _views:
        return
    link = _links.get(id(tensor))
    if link is not None:
        _put(link, link.base, tensor)   # an in-place write into the base, which calls written(base)
    elif id(tensor) in _views:
        _retake(tensor)


def _take(link, base):
    if link.kind == "index":
        return functional.getitem(base, link.arg)
    if link.kind == "reshape":
        return functional.reshape(base, link.arg)
    return functional.transpose(base, link.arg)


def _put(link, base, value) -> None:
    if link.kind == "index":
        functional.setitem(base, link.arg, value)
    elif link.kind == "reshape":
        functional.setitem(base, Ellipsis, functional.reshape(value, base.shape))
    else:
        inverse = tuple(int(i) for i in np.argsort(link.arg))
        functional.setitem(base, Ellipsis, functional.transpose(value, inverse))


def _retake(base) -> None:
    entry = _views.get(id(base))
    if entry is None:
        return
    for link in list(entry[1].values()):
        view = link.view()
        if view is not None and _refresh(view, base, link):
            _retake(view)


def _refresh(view, base, link) -> bool:
    """Give ``view`` the value ``take(base)`` now has; False where it cannot be done yet (a plain view
    of a Parameter written inside a graph being compiled: the write happens when the graph runs)."""
    if isinstance(view, Tracer):
        if not view._trace.active:
            return False                # a view left over from a finished grad or jit: no one reads it
        new = _take(link, base)
        if type(new) is type(view) and new._trace is view._trace:
            view._become(new)
            return True
        raise ViewWriteError(
            f"In-place write: {_describe(view)} was taken from a Tensor that has just been written "
            "(it shares its entries, as in MindSpore), but it belongs to another interpreter level than "
            "the write (a view taken inside grad, jit or vmap of a Tensor written outside it, or the "
            "reverse), so it cannot follow. Fix: take the view again after the write (v = t[i]).")
    value = _value_now(base)
    if value is None:
        return False
    new = _take(link, Tensor._make(value))
    if isinstance(new, Tracer):
        raise ViewWriteError(
            f"In-place write: {_describe(view)} was taken from a Tensor that has just been written with a "
            "value that is being differentiated or traced; the view is a constant, which cannot follow "
            "it. Fix: take the view again after the write (v = t[i]).")
    view._data = new._data
    return True


def _value_now(base):
    """``base``'s array if it holds its value now: a constant Tensor, or a Parameter outside a graph
    being compiled (inside one its writes are pending until the graph runs); else None."""
    if getattr(base, "_is_parameter", False):
        return None if stack.context_level() >= 0 else base._data
    return base._data if type(base) is Tensor else None


undo.on_write(written)      # every in-place write (ops.assign, set_data, an undo) refreshes the views
