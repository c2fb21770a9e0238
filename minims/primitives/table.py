"""``table()``: every primitive minims defines, with the rules it has.

One row per ``Primitive`` subclass in minims, in the order of their modules and, inside a module, of
their definitions.  Left out: private base classes such as ``_Binary``, and the MindSpore spellings
that only call other primitives (``ops.Gather``, ``ops.Ones``, ``ops.Zeros``: no ``impl`` of their
own), and ``ops.Custom``, whose rules are each instance's own (``rows_per_instance``: every
``ops.Custom(...)`` a user builds is a row of its own, with the rules given to it).  A row says whether the primitive has

* ``impl`` — its NumPy forward computation;
* ``bprop`` — its backward rule, or a node it records itself with its rule (a compiled graph);
  ``None`` for a primitive that is not differentiable at all, such as a comparison: no gradient
  level records it;
* ``jvp`` — its forward-mode rule (``None`` likewise);
* ``batch`` — its batching rule for ``vmap`` (without one, ``vmap`` runs it once per example);
* ``sympy`` — its rule on SymPy expressions (the symbolic interpreter's);
* ``numba`` — the Numba kernel in ``minims.fast`` its ``impl`` calls when the fast path is on.

``print(minims.primitives.table())`` shows it as text; ``table().missing("sympy")`` names the
primitives without a given rule.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from ..core.primitive import Primitive, has_rule

__all__ = ["Row", "Table", "table", "RULES"]

#: The columns of the table, in order.
RULES = ("impl", "bprop", "jvp", "batch", "sympy", "numba")

_LEGEND = "✓ has the rule  · has none (batch: vmap loops over the examples)  – not differentiable"


@dataclass(frozen=True)
class Row:
    """The rules of one primitive class."""

    name: str
    cls: type
    where: str                  # the file that defines it, relative to the package: "primitives/math.py"
    impl: bool
    bprop: bool | None          # None: not differentiable
    jvp: bool | None            # None: not differentiable
    batch: bool
    sympy: bool
    numba: str | None           # "conv.conv2d": the kernel in minims.fast

    def has(self, rule: str) -> bool | None:
        """True/False; None for the bprop of a primitive that is not differentiable."""
        if rule == "numba":
            return self.numba is not None
        return getattr(self, rule)


class Table(tuple):
    """A tuple of :class:`Row`; prints as a text table."""

    def row(self, name: str) -> Row:
        for r in self:
            if r.name == name:
                return r
        raise KeyError(f"no primitive named {name!r} in the table")

    def missing(self, rule: str) -> list[str]:
        """Names of the primitives without ``rule`` (not-differentiable ones do not miss a bprop)."""
        if rule not in RULES:
            raise ValueError(f"table: unknown rule {rule!r}; the columns are {RULES}.")
        return [r.name for r in self if r.has(rule) is False]

    def __str__(self) -> str:
        width = max(len(r.name) for r in self) + 2
        where = max(len(r.where) for r in self) + 2
        head = "primitive".ljust(width) + "defined in".ljust(where) + "".join(f"{c:<7}" for c in RULES)
        head = head.rstrip()
        lines = [f"{len(self)} primitives   {_LEGEND}", head, "-" * len(head)]
        for r in self:
            marks = "".join(f"{_mark(r.has(c)):<7}" for c in RULES)
            lines.append((r.name.ljust(width) + r.where.ljust(where) + marks).rstrip())
        return "\n".join(lines)

    __repr__ = __str__


def _mark(value) -> str:
    return "–" if value is None else ("✓" if value else "·")


def _subclasses(cls) -> list[type]:
    found, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def _row(cls) -> Row:
    module = cls.__module__
    where = module.removeprefix("minims.").replace(".", "/")
    if hasattr(sys.modules[module], "__path__"):
        where += "/__init__"
    replays = cls.inline is not None        # a compiled graph: every interpreter replays its equations
    records = cls.record_node is not None   # ... and a gradient level records its node, with its rule
    return Row(name=cls.__name__, cls=cls, where=where + ".py",
               impl=has_rule(cls, "impl"),
               bprop=(has_rule(cls, "bprop") or records) if cls.differentiable else None,
               jvp=(has_rule(cls, "jvp") or replays) if cls.differentiable else None,
               batch=cls.batch is not None or replays,
               sympy=has_rule(cls, "sympy"),
               numba=cls.fast_kernel)


def _order(cls) -> tuple:
    """Primitives' own modules first, then the ones elsewhere (hooks, compiled graphs, ops)."""
    module = sys.modules[cls.__module__]
    names = list(vars(module))
    position = names.index(cls.__name__) if cls.__name__ in names else len(names)
    return (not cls.__module__.startswith("minims.primitives"), cls.__module__, position)


def table() -> Table:
    """Every primitive minims defines, with the rules it has (see the module docstring)."""
    classes = [c for c in _subclasses(Primitive)
               if c.__module__.startswith("minims.") and not c.__name__.startswith("_")
               and has_rule(c, "impl") and not getattr(c, "rows_per_instance", False)]
    return Table(_row(c) for c in sorted(classes, key=_order))
