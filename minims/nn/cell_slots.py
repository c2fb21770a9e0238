"""What may replace a Cell attribute that holds a Parameter or a sub-cell (MindSpore 2.10's rules;
issue 25, MindSpore's own tests/ut/python/nn/test_cell.py).

A name registered as a Parameter stays a Parameter slot, and a sub-cell's name a cell slot, also
after ``None`` is assigned to it (MindSpore keeps the entry, holding None):

* a Cell into a Parameter slot, or a Parameter into a cell slot: ``KeyError``;
* a value that is neither into a cell slot: ``TypeError``; into a Parameter slot, anything but a
  Tensor (which replaces it as before): ``TypeError``.

``None`` and a value of the slot's own kind are always accepted. Inside a compiled ``construct``
(``jit``, Graph mode) nothing is checked here: there ``self.weight = x`` writes the Parameter, as
MindSpore's static-graph page shows (``tracing.py`` records it). ``vacate`` records a slot emptied
by ``None`` (minims removes the entry; ``_vacated`` remembers its kind).
"""
from ..core.tensor import Tensor
from ..tensors.parameter import Parameter

__all__ = ["check_assignment", "vacate", "forget"]


def _slot(cell, name):
    """"param", "cell" or None: what ``name`` holds (or held before None was assigned)."""
    d = cell.__dict__
    if name in d.get("_params", ()):
        return "param"
    if name in d.get("_cells", ()):
        return "cell"
    return d.get("_vacated", {}).get(name)


def check_assignment(cell, name, value, is_cell):
    """Raise as MindSpore when ``value`` may not go into ``cell.name``; ``is_cell(value)``: a Cell."""
    if value is None:
        return
    slot = _slot(cell, name)
    where = f"{cell.path}.{name}"
    if slot == "param" and is_cell(value):
        raise KeyError(f"For 'insert_child_to_cell', the {name} child cell already exists in the network.Cannot "
                       f"insert another child cell with the same name. ({where} is a Parameter.) Fix: give the "
                       "sub-cell another attribute name.")
    if slot == "cell" and isinstance(value, Parameter):
        raise KeyError(f"For 'insert_param_to_cell', the {name} parameter already exists in the network.Cannot "
                       f"insert another parameter with the same name. ({where} is a sub-cell.) Fix: give the "
                       "Parameter another attribute name.")
    if slot == "cell" and not is_cell(value):
        raise TypeError(f"Sub cell '{name}' already exists in network, can not assign this type: "
                        f"'{type(value)}' as a cell. Fix: assign a Cell or None to {where}, or use another name.")
    if slot == "param" and not isinstance(value, Tensor):
        raise TypeError(f"Parameter '{name}' already exists in network, can not assign this type: "
                        f"'{type(value)}' as a parameter. Fix: assign a Parameter or None to {where}, or use "
                        "another name.")


def vacate(cell, name):
    """``None`` assigned to ``cell.name``: remember whether it was a Parameter or a sub-cell."""
    slot = _slot(cell, name)
    if slot is not None:
        cell.__dict__.setdefault("_vacated", {})[name] = slot


def forget(cell, name):
    """``cell.name`` holds a value of its own kind again (or was deleted): nothing to remember."""
    cell.__dict__.get("_vacated", {}).pop(name, None)
