"""``save_checkpoint``: MindSpore's function, writing MindSpore's ``.ckpt`` format.

What is saved, as in MindSpore 2.10 (each rule checked on it, see ``tests/data/oracle_checkpoint_facts.py``):

* a Cell: every Parameter of ``parameters_and_names()`` under its ``name`` — trainable weights and
  the rest alike (BatchNorm's moving mean and variance); two different Parameters of one name are
  refused (see below);
* a list of Parameters, or of ``{"name": str, "data": Tensor}`` dicts;
* a dict name -> Parameter, NumPy array or ``str`` (what ``load_checkpoint`` returns);
* ``append_dict`` entries after those: an ``int`` as Int64, a ``float`` as Float32, a ``bool`` as
  Bool, a Tensor as itself, a ``str`` as a string;
* a name seen twice keeps its first place and its last value; ``choice_func(name)`` picks entries.

The file name gets ``.ckpt`` appended unless it already ends in ``ckpt`` (MindSpore's test, so
``"netckpt"`` stays as it is).  The file is written atomically (``atomic.py``).  Three differences: the
file keeps the permissions of any new file (MindSpore makes it read-only); encryption (``enc_key``)
and the safetensors format are not available; and a Cell holding two different Parameters of one
name is refused, where MindSpore keeps one of them without a word and the other's weights are lost.
"""
from __future__ import annotations

import os

import numpy as np

from ..tensors.parameter import Parameter, ParameterNameError
from ..nn.cell import Cell
from ..nn.param_names import DuplicateParameterError, duplicates
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from .atomic import write_atomically
from .fileformat import encode

__all__ = ["save_checkpoint"]


def _check_bool(name, value, error=TypeError):
    if not isinstance(value, bool):
        raise error(f"save_checkpoint: {name} must be True or False, but got {_describe(value)}. "
                    f"Fix: {name}=True.")
    return value


def _file_name(ckpt_file_name) -> str:
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"save_checkpoint: ckpt_file_name must be a string (a file name), but got "
                        f"{_describe(ckpt_file_name)}. Fix: pass e.g. 'lenet.ckpt' (or str(path)).")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"save_checkpoint: '{ckpt_file_name}' is a folder, but ckpt_file_name must "
                                f"name a file. Fix: os.path.join('{ckpt_file_name}', 'net.ckpt').")
    if not path.endswith("ckpt"):
        path += ".ckpt"
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"save_checkpoint: the folder of '{ckpt_file_name}' does not exist. "
                                f"Fix: create it first, e.g. os.makedirs(folder, exist_ok=True).")
    return path


def _check_append_dict(append_dict):
    if append_dict is None:
        return {}
    if not isinstance(append_dict, dict):
        raise TypeError(f"save_checkpoint: append_dict must be a dict of name -> value, but got "
                        f"{_describe(append_dict)}. Fix: append_dict={{'epoch_num': 10}}.")
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
            raise TypeError(f"save_checkpoint: append_dict must map strings to an int, float, bool, str or "
                            f"Tensor, but has {key!r}: {_describe(value)}. Fix: convert the value, e.g. "
                            f"float(value), or save it as a Tensor.")
    return append_dict


def _from_list(save_obj):
    if not save_obj:
        return []
    if isinstance(save_obj[0], dict):
        out = []
        for item in save_obj:
            if not (isinstance(item, dict) and "name" in item and "data" in item):
                raise TypeError(f"save_checkpoint: a list of dicts must hold {{'name': ..., 'data': ...}} "
                                f"items only, but got {_describe(item)}.")
            if not isinstance(item["name"], str):
                raise TypeError(f"save_checkpoint: 'name' must be a string, but got {_describe(item['name'])}.")
            if not isinstance(item["data"], Tensor):
                raise TypeError(f"save_checkpoint: the 'data' of '{item['name']}' must be a Parameter or "
                                f"Tensor, but got {_describe(item['data'])}. Fix: wrap it, Tensor(data).")
            out.append((item["name"], item["data"]))
        return out
    for item in save_obj:
        if not isinstance(item, Parameter):
            raise TypeError(f"save_checkpoint: a list must hold Parameters (e.g. net.trainable_params()) or "
                            f"{{'name': ..., 'data': ...}} dicts, but got {_describe(item)}. "
                            "Fix: [{'name': 'w', 'data': tensor}] for a plain Tensor.")
    return [(p.name, p) for p in save_obj]


def _from_dict(save_obj):
    out = []
    for key, value in save_obj.items():
        if not isinstance(key, str):
            raise TypeError(f"save_checkpoint: the keys of a dict must be Parameter names (strings), but got "
                            f"{_describe(key)}.")
        if isinstance(value, np.ndarray):
            value = Tensor(value)
        if not isinstance(value, (Tensor, str)):
            raise TypeError(f"save_checkpoint: the value of '{key}' must be a Parameter, NumPy array or str, "
                            f"but got {_describe(value)}.")
        out.append((key, value))
    return out


def _cell_entries(cell):
    """A Cell's Parameters by name; two different ones of one name are refused (MindSpore keeps one
    of them without a word, and the other's values are lost)."""
    found = duplicates(cell)
    if found:
        name, first, second = found[0]
        raise DuplicateParameterError(
            f"save_checkpoint: {cell.path}.{first} and {cell.path}.{second} are two different Parameters "
            f"both named '{name}'; a checkpoint stores one value per name, so one of them would be lost. "
            "Fix: give each Parameter its own name= (or leave name= out), or call the network once "
            "before saving: its first call renames every Parameter to its attribute path, as in MindSpore.")
    return [(p.name, p) for _, p in cell.parameters_and_names()]


def _entries(save_obj):
    if isinstance(save_obj, Cell):
        return _cell_entries(save_obj)
    if isinstance(save_obj, list):
        return _from_list(save_obj)
    return _from_dict(save_obj)


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt",
                    **kwargs):
    """MindSpore's ``save_checkpoint``: write ``save_obj`` (a Cell, a list of Parameters or of
    ``{'name', 'data'}`` dicts, or a dict) to ``ckpt_file_name`` in MindSpore's ``.ckpt`` format.

    ``append_dict`` adds values (int -> Int64, float -> Float32, bool, str, Tensor); ``choice_func(name)``
    chooses what is saved; ``crc_check=True`` appends a CRC-32 that ``load_checkpoint(crc_check=True)``
    verifies.  ``integrated_save`` and ``async_save`` are accepted (minims runs on one device and saves
    before returning).
    """
    if format != "ckpt":
        raise ValueError(f"save_checkpoint: minims writes format='ckpt' only, but got format={format!r}. "
                         "Fix: leave format at its default.")
    if not isinstance(save_obj, Cell | list | dict):
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a list of Parameters or a dict, but got "
                        f"{_describe(save_obj)}. Fix: save_checkpoint(net, 'net.ckpt').")
    path = _file_name(ckpt_file_name)
    _check_bool("integrated_save", integrated_save)
    if not (isinstance(async_save, bool) or async_save in ("process", "thread")):
        raise (ValueError if isinstance(async_save, str) else TypeError)(
            f"save_checkpoint: async_save must be a bool, 'process' or 'thread', but got {_describe(async_save)}.")
    append = _check_append_dict(append_dict)
    if enc_key is not None:
        raise ValueError("save_checkpoint: minims does not encrypt checkpoints, but enc_key was given. "
                         "Fix: leave enc_key=None.")
    _check_bool("crc_check", crc_check, ValueError)

    chosen = {}                                  # a name seen twice: first place, last value
    for name, value in _entries(save_obj):
        if choice_func is None or choice_func(name):
            chosen[name] = value
    for name, value in append.items():
        chosen[name] = value if isinstance(value, str | Tensor) else Tensor(value)
    # values read as asnumpy reads them: a traced value (inside jit or vmap) is refused, not its placeholder
    arrays = [(name, value if isinstance(value, str) else value._unguarded_array()) for name, value in chosen.items()]
    for name, value in arrays:                   # refused before a byte is written
        _check_text(name, value)
    write_atomically(path, encode(arrays, crc_check=crc_check))


def _lone_surrogate(text: str):
    """``(position, character)`` of the first lone surrogate in ``text`` — half of a UTF-16 pair, as
    a file name decoded with ``errors='surrogateescape'`` holds — or None.  It is no character:
    neither UTF-8 (names) nor UTF-32 (strings) can store it."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            return i, ch
    return None


def _check_text(name: str, value) -> None:
    """A name, and a string value, that a checkpoint can store; else an error naming the entry
    (MindSpore 2.10 refuses such a name already in Parameter(...), with a TypeError)."""
    for text, what, error in ((name, f"the name {name!r}", ParameterNameError),
                              (value, f"the string saved under {name!r}", ValueError)):
        found = _lone_surrogate(text) if isinstance(text, str) else None
        if found is not None:
            cleaned = text.encode("utf-8", "replace").decode("utf-8")
            raise error(f"save_checkpoint: {what} holds the lone surrogate {found[1]!r} at position {found[0]}, "
                        "half of a UTF-16 pair and no Unicode character (a file name read with "
                        "errors='surrogateescape' holds such), so a checkpoint cannot store it. Fix: use valid "
                        f"text, e.g. {cleaned!r} (text.encode('utf-8', 'replace').decode('utf-8')).")
