"""MindSpore's module layout over minims: what a name missing from a namespace says (issue 25, item 1).

Every namespace minims mirrors (``minims``, ``minims.ops``, ``ops.operations`` ...) ends with

    __getattr__ = missing_name(__name__, "mindspore.ops")

so that ``ops.Foo``, when minims has no ``Foo`` there, raises an ``AttributeError`` that starts as
Python's own (``module 'minims.ops' has no attribute 'Foo'``) and then says whether MindSpore 2.10
has the name there (``mindspore_names.json``, recorded from MindSpore by
``tools/record_mindspore_names.py``) and which minims spellings are closest (``difflib``), so a
learner can tell "minims lacks it" from "I misspelled it".

``view`` builds the modules that are MindSpore's groupings of names minims keeps in one namespace:
``ops.operations`` (``P``) is ``ops``' Primitive classes, ``ops.composite`` (``C``) the names
MindSpore lists there. A view looks its names up when they are read, so a name added to ``ops``
later is in ``P`` too.
"""
from __future__ import annotations

import difflib
import functools
import json
import sys
from pathlib import Path
from types import ModuleType

from ..core.stack import MinimsError

__all__ = ["MissingNameError", "missing_name", "view", "mindspore_names"]

NAMES_FILE = Path(__file__).resolve().parent / "mindspore_names.json"


class MissingNameError(MinimsError, AttributeError):
    """A name a minims namespace does not have (MindSpore 2.10 may have it, or it is misspelt)."""


@functools.lru_cache(maxsize=None)
def _recorded() -> dict:
    return json.loads(NAMES_FILE.read_text())


def mindspore_names(path: str) -> frozenset:
    """The public names MindSpore 2.10 has in module ``path`` (``"mindspore.ops"``); empty if not recorded."""
    return frozenset(_recorded()["modules"].get(path, ()))


def closest(name: str, candidates) -> list:
    """Up to three of ``candidates`` closest to ``name``: a spelling differing only in case first."""
    candidates = sorted(c for c in candidates if not c.startswith("_"))
    same_case = [c for c in candidates if c.lower() == name.lower()]
    near = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    lowered = {c.lower(): c for c in candidates}
    near += [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)]
    return list(dict.fromkeys(same_case + near))[:3]


def explain_missing(module: str, mindspore: str, name: str, present) -> str:
    """The message for ``module.name`` missing; ``mindspore``: the MindSpore module it mirrors,
    ``present``: the names the minims module has."""
    short = mindspore.replace("mindspore.", "", 1) if mindspore != "mindspore" else "mindspore"
    head = f"module '{module}' has no attribute '{name}'"
    near = ", ".join(f"{short}.{n}" for n in closest(name, present))
    if name in mindspore_names(mindspore):
        also = f" (the closest names minims has: {near})" if near else ""
        return (f"{head}: MindSpore 2.10 has {mindspore}.{name}, but minims does not implement it{also}. "
                "Fix: write that step with what minims has, or leave it out.")
    fix = f"Did you mean {near}?" if near else "Fix: check the spelling (dir() lists the names there are)."
    if mindspore not in _recorded()["modules"]:         # a module whose names were not recorded
        return f"{head}. {fix}"
    return f"{head}, and neither has MindSpore 2.10's {mindspore}. {fix}"


def missing_name(module: str, mindspore: str, extra=lambda: ()):
    """A module ``__getattr__`` for ``module`` (mirroring MindSpore's ``mindspore``): it raises
    ``MissingNameError`` worded by ``explain_missing``. ``extra()``: more names the module answers
    (a view's) to suggest from."""
    def __getattr__(name):
        if name.startswith("__"):         # Python's and tools' probes (__path__, __wrapped__ ...)
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        ours = mindspore_names(mindspore)
        # suggest what a MindSpore program can spell: not minims' own submodules (core, tensors ...)
        present = {n for n, v in vars(sys.modules[module]).items() if not isinstance(v, ModuleType) or n in ours}
        raise MissingNameError(explain_missing(module, mindspore, name, present | set(extra())))
    return __getattr__


def view(module: str, mindspore: str, source: str, keep):
    """``(__getattr__, __dir__)`` for a module that shows the names of module ``source`` for
    which ``keep(name, value)`` holds, looked up when read."""
    def names():
        return sorted(n for n, v in vars(sys.modules[source]).items() if not n.startswith("_") and keep(n, v))

    missing = missing_name(module, mindspore, names)

    def __getattr__(name):
        if name == "__all__":
            return names()
        value = vars(sys.modules[source]).get(name, _ABSENT)
        if value is not _ABSENT and not name.startswith("_") and keep(name, value):
            return value
        return missing(name)

    def __dir__():
        return sorted(set(vars(sys.modules[module])) | set(names()))
    return __getattr__, __dir__


_ABSENT = object()
