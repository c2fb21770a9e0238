"""``load_param_into_net``: put the values of a parameter dict into a network's Parameters.

The rules are MindSpore 2.10's, established by running it (``tests/data/oracle_checkpoint_facts.py``):

* each Parameter of ``net.parameters_and_names()`` takes the dict entry under its ``name``; an entry
  that is not a Parameter (a ``str`` from ``append_dict``) is skipped and counts as neither loaded
  nor missing;
* with ``strict_load=False``, Parameters still missing then get entries whose names end with their
  names (``backbone.fc.weight`` for ``fc.weight``): the prefix of the first such match is tried on
  all of them, then the next prefix, until none is found.  Entries loaded this way stay in
  ``ckpt_not_load``, as in MindSpore;
* shapes must be equal, except that extra trailing 1s in the dict's shape are dropped
  (``(12, 2048, 1, 1)`` into ``(12, 2048)``); otherwise ``RuntimeError``;
* dtypes must be equal with ``strict_load=True``; with ``strict_load=False`` Float16/32/64 convert
  among themselves (rounding; too large becomes inf) and so do Int8/16/32/64; UInt8 and Bool convert
  to nothing.  Otherwise ``RuntimeError``;
* it returns ``(param_not_load, ckpt_not_load)``: the network's names that got nothing, and the dict's
  names that were not loaded by name.

Three differences, all where MindSpore 2.10 leaves a network in a state nobody asked for: a failing
call changes no Parameter (every entry is checked before any is written; MindSpore keeps those it
had loaded before the error); after dropping trailing 1s the Parameter keeps its own shape
(MindSpore 2.10 ends with the dict's shape); and an integer the Parameter's dtype cannot hold is
refused with ``IntegerOutOfRange`` (a RuntimeError), as ``Tensor(300, mindspore.int8)`` is, where
MindSpore wraps it around (5000000000 into Int32 loads as 705032704).  The loaded values are copies: changing the dict later
does not change the network.
"""
from __future__ import annotations

import numpy as np

from ..tensors.parameter import Parameter
from ..nn.cell import Cell
from ..tensors.convert import _describe, check_integer_fits

__all__ = ["load_param_into_net"]

_FLOATS = {np.dtype(t) for t in (np.float16, np.float32, np.float64)}
_INTS = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)}


def _check_arguments(net, parameter_dict, strict_load, remove_redundancy):
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell (the network to load into), but got "
                        f"{_describe(net)}. Fix: load_param_into_net(net, param_dict).")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict name -> Parameter (what "
                        f"load_checkpoint returns), but got {_describe(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, Parameter | str | list):
            raise TypeError(f"load_param_into_net: parameter_dict must map names (str) to Parameters, but has "
                            f"{_describe(key)} -> {_describe(value)}. Fix: wrap a Tensor as "
                            f"Parameter(tensor, name=...).")
    if not isinstance(strict_load, bool):
        raise TypeError(f"load_param_into_net: strict_load must be True or False, but got {_describe(strict_load)}.")
    if not isinstance(remove_redundancy, bool):
        raise ValueError(f"load_param_into_net: remove_redundancy must be True or False, but got "
                         f"{_describe(remove_redundancy)}.")
    if remove_redundancy:
        raise ValueError("load_param_into_net: remove_redundancy=True is for checkpoints saved without the "
                         "copies of data-parallel training, which minims does not make. Fix: leave it False.")


def _shape_fits(net_shape, dict_shape) -> bool:
    """Equal, or the dict's shape is the network's followed by 1s."""
    n = len(net_shape)
    return tuple(dict_shape[:n]) == tuple(net_shape) and all(d == 1 for d in dict_shape[n:])


def _converted(param, key, entry, strict_load) -> np.ndarray:
    """The value ``param`` gets from ``parameter_dict[key]``, or the RuntimeError MindSpore raises."""
    value = entry._data
    if value.shape != param.shape:
        if not _shape_fits(param.shape, value.shape):
            raise RuntimeError(
                f"load_param_into_net: the network's Parameter '{param.name}' has shape {tuple(param.shape)}, "
                f"but parameter_dict['{key}'] has shape {tuple(value.shape)}. The checkpoint was saved from a "
                "network with other layer sizes. Fix: build the network with the sizes it was saved with, or "
                "leave this entry out of the dict.")
        value = value.reshape(param.shape)
    have, want = value.dtype, param._data.dtype
    if have != want:
        same_family = {have, want} <= _FLOATS or {have, want} <= _INTS
        if strict_load or not same_family:
            rule = ("with strict_load=True the dtypes must be equal" if strict_load else
                    "with strict_load=False Float16/32/64 convert among themselves, and Int8/16/32/64 among "
                    "themselves, but UInt8 and Bool do not convert")
            raise RuntimeError(
                f"load_param_into_net: the network's Parameter '{param.name}' is {param.dtype}, but "
                f"parameter_dict['{key}'] is {entry.dtype}; {rule}. Fix: convert the entry first, e.g. "
                f"parameter_dict['{key}'].set_data(parameter_dict['{key}'].astype(mindspore.{want.name})).")
        if want.kind == "i":
            with np.errstate(over="ignore"):
                wrapped = value.astype(want)
            changed = np.flatnonzero(wrapped.ravel() != value.ravel())    # what wrapping around changed
            if changed.size:
                i = changed[0]
                check_integer_fits(
                    int(value.ravel()[i]), want, f"load_param_into_net: parameter_dict['{key}']",
                    f"build the network with a wider integer dtype for '{param.name}' (e.g. mindspore.int64), "
                    "or check where the checkpoint's value comes from.",
                    f", the dtype of the network's Parameter '{param.name}'; converting would wrap it around "
                    f"to {wrapped.ravel()[i]}, as MindSpore 2.10 does")
            return wrapped
        with np.errstate(over="ignore", invalid="ignore"):      # too large -> inf, as MindSpore
            value = value.astype(want)
    return value


def _by_prefix(net, parameter_dict, param_not_load, strict_load):
    """MindSpore's second chance for missing Parameters: dict names that end with their names."""
    planned = []
    tensors = [name for name, value in parameter_dict.items() if isinstance(value, Parameter)]
    first = param_not_load[0]
    prefix = ""
    # each round either loads at least one Parameter (the one whose match gave the prefix) or stops
    while prefix != first and param_not_load:
        prefix = first
        for missing in param_not_load:
            for name in tensors:
                if name.endswith(missing):
                    prefix = name[:-len(missing)]
                    break
            if prefix != first:
                break
        if prefix == first:
            break
        for _, param in net.parameters_and_names():
            key = prefix + param.name
            if param.name in param_not_load and key in tensors:
                planned.append((param, _converted(param, key, parameter_dict[key], strict_load)))
                param_not_load.remove(param.name)
    return planned


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """MindSpore's ``load_param_into_net``: load ``parameter_dict`` (from :func:`load_checkpoint`) into
    ``net`` and return ``(param_not_load, ckpt_not_load)``.  See the module docstring for the rules."""
    _check_arguments(net, parameter_dict, strict_load, remove_redundancy)
    planned = []
    param_not_load = []
    ckpt_not_load = list(parameter_dict)
    for _, param in net.parameters_and_names():
        if param.name not in parameter_dict:
            param_not_load.append(param.name)
            continue
        entry = parameter_dict[param.name]
        if not isinstance(entry, Parameter):
            continue                            # a str (or MindSpore's map data): nothing to load
        planned.append((param, _converted(param, param.name, entry, strict_load)))
        if param.name in ckpt_not_load:
            ckpt_not_load.remove(param.name)
    if param_not_load and not strict_load:
        planned += _by_prefix(net, parameter_dict, param_not_load, strict_load)
    for param, value in planned:                # nothing is written before everything was checked
        param.set_data(value)
    return param_not_load, ckpt_not_load
