"""The tree of Cells, walked without recursion: traversal, the refusal of cycles, and ``repr``.

A network is a tree of Cells (a Cell shared by two parents makes it a DAG).  Everything here walks
it with an explicit stack rather than Python recursion, so a network nested 2000 Cells deep can be
listed and printed as MindSpore does, whatever ``sys.getrecursionlimit()`` says.

A cycle (``a.b = b; b.a = a``, ``a.me = a``) would make every walk endless.  MindSpore stores it,
and its ``repr`` and Graph mode then fail with a RecursionError far from the assignment; minims
refuses the assignment itself (:func:`check_no_cycle`), where the mistake is.
"""
from __future__ import annotations

from ..core.stack import MinimsError

__all__ = ["CyclicCellError", "walk", "subtree_parameters", "check_no_cycle", "tree_repr"]


class CyclicCellError(MinimsError, ValueError):
    """A Cell would become its own descendant."""


def _children(cell):
    return cell.__dict__.get("_cells", {})


def walk(cell, name_prefix="", seen=None):
    """``(dotted name, cell)`` for ``cell`` and every Cell under it, depth first in registration
    order, each Cell once (MindSpore's ``cells_and_names``).  ``seen`` holds ids already listed."""
    seen = set() if seen is None else seen
    stack = [(name_prefix, cell)]
    while stack:
        prefix, current = stack.pop()
        if id(current) in seen:          # a shared Cell, listed under its first name
            continue
        seen.add(id(current))
        yield prefix, current
        below = [(f"{prefix}.{name}" if prefix else name, child)
                 for name, child in _children(current).items() if child is not None]
        stack.extend(reversed(below))    # reversed: the first child is popped first


def subtree_parameters(root) -> list:
    """Every Parameter of ``root`` and the Cells under it, each once, in no particular order.

    Leaner than ``get_parameters`` (no names, no ordering): it runs on every assignment of a Cell
    that has no parent yet (to prefix its Parameters' names), so a chain built bottom-up walks it
    once per level.
    """
    seen, found, params = set(), set(), []
    stack = [root]
    while stack:
        cell = stack.pop()
        if cell is None or id(cell) in seen:
            continue
        seen.add(id(cell))
        d = cell.__dict__
        if d["_params"]:
            for p in d["_params"].values():
                if p is not None and id(p) not in found:
                    found.add(id(p))
                    params.append(p)
        stack.extend(d["_cells"].values())
    return params


def _contains(root, target) -> bool:
    """Whether ``target`` is ``root`` or a Cell under it (the walk visits each Cell once)."""
    seen = set()
    stack = [root]
    while stack:
        current = stack.pop()
        if current is target:
            return True
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.extend(child for child in _children(current).values() if child is not None)
    return False


def check_no_cycle(parent, name: str, child) -> None:
    """Refuse ``parent.<name> = child`` when ``parent`` is ``child`` or lies under it.

    A Cell that has never been made anyone's child (``_in_tree`` unset) lies under no Cell, so the
    check costs nothing when a network is built bottom-up (``Wrap(Wrap(Leaf()))``: each new Cell
    takes an existing one); otherwise it costs one walk of ``child``'s subtree.
    """
    if child is None:
        return
    if child is not parent and (not parent.__dict__.get("_in_tree") or not _contains(child, parent)):
        return
    where = f"{parent.path}.{name}"
    if child is parent:
        how = f"a Cell cannot be its own child: {parent.path} ({type(parent).__name__}) was assigned to itself"
    else:
        how = (f"{parent.path} ({type(parent).__name__}) already lies inside {child.path} "
               f"({type(child).__name__}), so the assignment would make a cycle")
    raise CyclicCellError(
        f"{where}: {how}. A Cell cannot contain itself, directly or through its children (every walk of "
        "the network — parameters, repr, Graph mode — would go round for ever); the Cell was left "
        "unchanged. Fix: keep a plain reference outside the Cell tree — e.g. in a list "
        "(self._peers = [other]) or a weakref (weakref.ref(other)) — or restructure so that only the "
        "outer Cell holds the inner one.")


def _own_repr(cell) -> bool:
    from .cell import Cell
    return type(cell).__repr__ is not Cell.__repr__


def tree_repr(cell) -> str:
    """MindSpore 2.10's ``Cell.__repr__``: ``Name(extra)`` for a Cell whose only line is its
    ``extend_repr()``, ``Name()`` for one with nothing to show, otherwise ``Name(`` then its
    ``extend_repr`` lines and one ``(child): ...`` line per child Cell, each two spaces deeper, and
    ``)`` at the Cell's own depth.  A child whose class has its own ``__repr__`` prints by it."""
    lines = []
    stack = [("", "", cell)]             # (indent, "(name): " or "", item); a str item closes a Cell
    while stack:
        indent, label, item = stack.pop()
        if isinstance(item, str):
            lines.append(indent + item)
            continue
        if item is None or not hasattr(item, "_cells") or (item is not cell and _own_repr(item)):
            text = repr(item).split("\n")          # not a plain Cell: its own repr, indented
            lines.append(indent + label + text[0])
            lines.extend(indent + line for line in text[1:])
            continue
        extend = item.extend_repr()
        extra = extend.split("\n") if extend else []
        children = list(_children(item).items())
        name = type(item).__name__
        if not children and len(extra) <= 1:
            lines.append(f"{indent}{label}{name}({''.join(extra)})")
            continue
        lines.append(f"{indent}{label}{name}(")
        inner = indent + "  "
        lines.extend(inner + line for line in extra)
        stack.append((indent, "", ")"))
        stack.extend((inner, f"({key}): ", child) for key, child in reversed(children))
    return "\n".join(lines)
