"""Execution context: ``set_context``/``get_context``, the two modes, and ``set_seed``.

minims always computes on the CPU with NumPy.  ``device_target="GPU"`` or ``"Ascend"`` is accepted
so that documentation code runs unchanged, with a single warning that the CPU is used instead.

``fast_path=True`` (or ``MINIMS_FAST=1`` in the environment when minims is imported) routes the hot
primitives to optional Numba kernels (``minims.fast``); without Numba it warns once, stays on the
NumPy path, and ``get_context("fast_path")`` reads back ``False``.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "set_seed", "get_seed",
           "global_rng"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_DEVICES = ("CPU", "GPU", "Ascend")
_state = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "pynative_synchronize": False,
    "save_graphs": False,
    "save_graphs_path": ".",
    "check_nan": False,
    "fast_path": False,
}
_warned_devices: set = set()


def _check_bool(key, value):
    if not isinstance(value, bool):
        raise TypeError(f"set_context: {key} must be a bool, but got {type(value).__name__} {value!r}.")


def set_context(**kwargs):
    """Set context options: ``mode``, ``device_target``, ``pynative_synchronize`` and others."""
    for key, value in kwargs.items():
        if key == "mode":
            if not isinstance(value, int):          # TypeError, as MindSpore ("must be <class 'int'>")
                raise TypeError(
                    f"set_context: mode must be an int, GRAPH_MODE (0) or PYNATIVE_MODE (1), but got "
                    f"{type(value).__name__} {value!r}. Fix: set_context(mode=mindspore.GRAPH_MODE)."
                )
            if value not in (GRAPH_MODE, PYNATIVE_MODE) or isinstance(value, bool):
                raise ValueError(
                    f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {value!r}. "
                    "Fix: set_context(mode=mindspore.GRAPH_MODE) or mode=mindspore.PYNATIVE_MODE."
                )
        elif key == "device_target":
            if value not in _DEVICES:
                raise ValueError(f"set_context: device_target must be one of {_DEVICES}, but got {value!r}.")
            if value != "CPU" and value not in _warned_devices:
                _warned_devices.add(value)
                warnings.warn(
                    f"minims runs on the CPU with NumPy; device_target='{value}' is accepted and "
                    "computed on the CPU.", UserWarning, stacklevel=2)
        elif key in ("pynative_synchronize", "save_graphs", "check_nan"):
            _check_bool(key, value)
        elif key == "fast_path":
            _check_bool(key, value)
            from . import fast              # light: Numba is imported only when switching on
            value = fast._switch(value)     # False if Numba is missing (after one warning)
        elif key == "device_id":
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"set_context: device_id must be a non-negative int, got {value!r}.")
        elif key not in _state:
            # MindSpore has many performance knobs that mean nothing here; accept and remember them
            pass
        _state[key] = value


def _fast_path_from_environment():
    """``MINIMS_FAST=1`` (or true/yes/on) switches the fast path on when minims is imported."""
    flag = os.environ.get("MINIMS_FAST", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        set_context(fast_path=True)


def get_context(attr_key):
    """The current value of one context option."""
    if attr_key not in _state:
        raise ValueError(f"get_context: unknown option {attr_key!r}; known: {sorted(_state)}.")
    return _state[attr_key]


_seed = None
_rng = np.random.default_rng()


def set_seed(seed):
    """Seed minims' random streams (initializers, dropout) and, as MindSpore does, ``numpy.random``."""
    global _seed, _rng
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, but got {seed!r}.")
    _seed = seed
    _rng = np.random.default_rng(seed)
    np.random.seed(seed)


def get_seed():
    return _seed


def global_rng() -> np.random.Generator:
    """The generator every random primitive and initializer draws from."""
    return _rng


_fast_path_from_environment()
