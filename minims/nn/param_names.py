"""Two different Parameters with one name in one network: the warning, the check and the renaming.

A Parameter's ``name`` is its identity in checkpoints and optimizers, so two Parameters named alike
(``self.a = Parameter(..., name='w'); self.b = Parameter(..., name='w')``) cannot both be saved or
trained.  What MindSpore 2.10 does, and minims with it:

* ``Cell.check_names()`` raises ValueError ("its name 'w' already exists");
* an optimizer given both raises ValueError (``minims.nn.optim.optimizer``);
* the first call of the network renames every Parameter of it to its attribute path (``a``, ``b``),
  as MindSpore's ``Cell._self_check`` does, after which optimizers and checkpoints work.

Where MindSpore is silent, minims speaks: the assignment of the second Parameter warns
(:class:`DuplicateParameterNameWarning`, once per Cell and pair), and ``save_checkpoint`` refuses the
network instead of keeping one of the two (MindSpore keeps one without a word).
"""
from __future__ import annotations

import warnings

from ..core.stack import MinimsError
from .cell_tree import walk

__all__ = ["DuplicateParameterError", "DuplicateParameterNameWarning", "warn_if_name_taken",
           "duplicates", "check_names", "refresh_names_on_first_call"]


class DuplicateParameterError(MinimsError, ValueError, RuntimeError):
    """Two different Parameters share a name: MindSpore raises ValueError ("its name 'w' already
    exists"); a RuntimeError too, for code written against minims' earlier optimizer error."""


class DuplicateParameterNameWarning(UserWarning):
    """A Cell holds two different Parameters of one name (shown when the second is assigned)."""


def warn_if_name_taken(cell, attr: str, param) -> None:
    """Warn if ``cell.<attr> = param`` gives ``cell`` a second Parameter named ``param.name``."""
    for other_attr, other in cell.__dict__["_params"].items():
        if other is None or other is param or other_attr == attr or other.name != param.name:
            continue
        warned = cell.__dict__.setdefault("_warned_name_pairs", set())
        if (other_attr, attr) in warned:
            return
        warned.add((other_attr, attr))
        warnings.warn(
            f"{cell.path}: the Parameters {cell.path}.{other_attr} and {cell.path}.{attr} are both named "
            f"'{param.name}'. Optimizers, check_names() and save_checkpoint refuse two Parameters of "
            "one name until the network's first call renames them to their attribute paths "
            f"('{other_attr}', '{attr}'), as MindSpore does. Fix: give each its own name= "
            f"(or leave name= out: the attribute name is used).",
            DuplicateParameterNameWarning, stacklevel=3)
        return


def duplicates(cell) -> list:
    """``(name, first path, second path)`` for each Parameter whose name another, different
    Parameter of ``cell`` already has (paths are attribute paths, as ``parameters_and_names``)."""
    first = {}
    found = []
    for path, param in cell.parameters_and_names():
        if param.name in first:
            found.append((param.name, first[param.name][0], path))
        else:
            first[param.name] = (path, param)
    return found


def check_names(cell) -> None:
    """MindSpore's ``Cell.check_names()``: ValueError if two Parameters of ``cell`` share a name."""
    found = duplicates(cell)
    if not found:
        return
    name, first, second = found[0]
    param = dict(cell.parameters_and_names())[second]
    raise DuplicateParameterError(
        f"{cell.path}: The value of {second} is {param}, its name '{name}' already exists "
        f"(the Parameter at {first} has it). Please set a unique name for the parameter. "
        f"Fix: give each Parameter its own name= (or leave name= out), or call the network once: "
        "its first call renames every Parameter to its attribute path.")


def refresh_names_on_first_call(cell) -> None:
    """On a Cell's first call: if two of its Parameters share a name, rename every Parameter of it
    to its attribute path (MindSpore's ``check_names_and_refresh_name``).

    Every Cell under ``cell`` is marked as checked too: the names were unique (or were made so)
    across the whole tree, hence across each part, so the inner Cells' first calls need no walk —
    without this, a chain of n nested Cells would cost n walks.
    """
    if duplicates(cell):
        for path, param in cell.parameters_and_names():
            param.name = path
    for _, sub in walk(cell):
        sub.__dict__["_names_checked"] = True
