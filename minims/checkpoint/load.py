"""``load_checkpoint``: MindSpore's function, reading MindSpore's ``.ckpt`` format.

It returns a dict name -> Parameter (``requires_grad=True``, named after its entry) in file order; a
string saved through ``append_dict`` comes back as a ``str``.  As in MindSpore 2.10, every problem
with the file is a ``ValueError`` that names it: a missing file, a folder, a name that does not end
in ``ckpt``, an empty file, a damaged or truncated one (``fileformat.py`` says what exactly).  Where
MindSpore 2.10 silently makes something up, minims raises instead (recorded in
``tests/checkpoint/test_checkpoint_oracle_facts.py``): a tensor whose dims promise more or fewer bytes than it
carries (MindSpore pads with zeros or drops the rest), an entry without a name or a dtype, and
``crc_check=True`` on a file without its CRC (MindSpore warns and loads what is there).
"""
from __future__ import annotations

import os

from ..tensors.parameter import Parameter
from ..tensors.convert import _describe
from .fileformat import CheckpointFileError, decode

__all__ = ["load_checkpoint"]


def _prefixes(value, name):
    """MindSpore's checks of ``specify_prefix``/``filter_prefix``: a str or a non-empty list of them."""
    if value is None:
        return None
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, list | tuple):
        raise TypeError(f"load_checkpoint: {name} must be a string or a list of strings, but got "
                        f"{_describe(value)}. Fix: {name}='fc.' or {name}=['fc1.', 'fc2.'].")
    if not value:
        raise ValueError(f"load_checkpoint: {name} is an empty {type(value).__name__}. Fix: give at least "
                         f"one prefix, or leave {name}=None.")
    for i, prefix in enumerate(value):
        if not isinstance(prefix, str):
            raise TypeError(f"load_checkpoint: {name}[{i}] must be a string, but got {_describe(prefix)}.")
        if not prefix:
            raise ValueError(f"load_checkpoint: {name} contains the empty string, which would match every "
                             "name. Fix: remove it.")
    return tuple(value)


def _chooser(specify_prefix, filter_prefix, choice_func):
    """Which names to load: the prefixes if any is given (they override choice_func, as in MindSpore)."""
    if specify_prefix is None and filter_prefix is None:
        return choice_func if choice_func is not None else (lambda name: True)

    def keep(name):
        if specify_prefix and not name.startswith(specify_prefix):
            return False
        return not (filter_prefix and name.startswith(filter_prefix))
    return keep


def _read(ckpt_file_name: str) -> bytes:
    if not os.path.exists(ckpt_file_name):
        raise CheckpointFileError(f"load_checkpoint: the file '{ckpt_file_name}' does not exist. Fix: check "
                                  f"the name and the folder (the current folder is where relative names start).")
    if os.path.isdir(ckpt_file_name):
        raise CheckpointFileError(f"load_checkpoint: '{ckpt_file_name}' is a folder, not a checkpoint file. "
                                  "Fix: give the path of the .ckpt file inside it.")
    try:
        with open(ckpt_file_name, "rb") as f:
            return f.read()
    except OSError as exc:
        raise CheckpointFileError(f"load_checkpoint: cannot read '{ckpt_file_name}': {exc.strerror}. "
                                  "Fix: check the file's permissions.") from exc


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt"):
    """MindSpore's ``load_checkpoint``: the Parameters saved in ``ckpt_file_name``, as a dict
    name -> Parameter in file order (a string from ``append_dict`` comes back as a ``str``).

    ``choice_func(name)``, ``specify_prefix`` and ``filter_prefix`` choose what is loaded; with ``net``
    the result is also loaded into it by :func:`load_param_into_net` (with ``strict_load``).
    ``crc_check=True`` verifies the CRC-32 written by ``save_checkpoint(..., crc_check=True)``, and
    refuses a file without one (it may have been cut short; MindSpore 2.10 warns and loads the rest).
    """
    if format != "ckpt":
        if format == "safetensors":
            raise ValueError("load_checkpoint: minims reads format='ckpt' only, not safetensors. Fix: save with "
                             "format='ckpt' in MindSpore, or convert with mindspore.safetensors_to_ckpt.")
        raise ValueError(f"load_checkpoint: format must be 'ckpt', but got {format!r}.")
    if not isinstance(ckpt_file_name, str):
        raise TypeError(f"load_checkpoint: ckpt_file_name must be a string (a file name), but got "
                        f"{_describe(ckpt_file_name)}. Fix: pass e.g. 'lenet.ckpt' (or str(path)).")
    specify_prefix = _prefixes(specify_prefix, "specify_prefix")
    filter_prefix = _prefixes(filter_prefix, "filter_prefix")
    if dec_key is not None:
        raise ValueError("load_checkpoint: minims does not decrypt checkpoints, but dec_key was given. Fix: "
                         "save without enc_key in MindSpore.")
    for flag, value in (("crc_check", crc_check), ("remove_redundancy", remove_redundancy)):
        if not isinstance(value, bool):
            raise ValueError(f"load_checkpoint: {flag} must be True or False, but got {_describe(value)}.")
    if not ckpt_file_name.endswith("ckpt"):
        raise CheckpointFileError(f"load_checkpoint: the file name '{ckpt_file_name}' does not end in 'ckpt'; "
                                  "MindSpore's checkpoints are .ckpt files. Fix: rename it, or give the .ckpt file.")

    data = _read(ckpt_file_name)
    keep = _chooser(specify_prefix, filter_prefix, choice_func)
    entries = decode(data, ckpt_file_name, keep=keep, crc_check=crc_check)
    if not entries:
        what = ("holds no parameters (the file is empty)" if not data else
                "has no parameter left after specify_prefix/filter_prefix/choice_func")
        raise CheckpointFileError(f"load_checkpoint: '{ckpt_file_name}' {what}. Fix: check the file, and "
                                  "that the filters keep something.")

    params = {name: value if isinstance(value, str) else Parameter(value, name=name)
              for name, value in entries.items()}
    if net is not None:
        from .into_net import load_param_into_net
        load_param_into_net(net, params, strict_load)
    return params
