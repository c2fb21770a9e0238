"""``mindspore.dataset.config``: the data set seed.

``set_seed(seed)`` fixes the order of every shuffle that starts afterwards (the seed is read when an
iterator starts, not when the pipeline is built); ``mindspore.set_seed(seed)`` sets it too, as in
MindSpore.  Until a seed is set, ``get_seed()`` answers 5489 (``std::mt19937``'s default seed, as
MindSpore answers) but every pipeline draws a fresh random seed, so unseeded orders differ from
run to run, as they do in MindSpore.
"""
from __future__ import annotations

import secrets

from .. import context

__all__ = ["set_seed", "get_seed"]

_DEFAULT_SEED = 5489
_UINT32_MAX = 2 ** 32 - 1
_seed = None


def set_seed(seed):
    """Seed the shuffles of the data pipeline (MindSpore's ``dataset.config.set_seed``)."""
    global _seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"dataset.config.set_seed: seed must be an int, but got {seed!r} of type "
                        f"{type(seed).__name__}. Fix: e.g. set_seed(0).")
    if not 0 <= seed <= _UINT32_MAX:
        raise ValueError(f"dataset.config.set_seed: seed must be in [0, UINT32_MAX({_UINT32_MAX})], "
                         f"but got {seed}. Fix: pass a non-negative 32-bit integer.")
    _seed = seed


def get_seed() -> int:
    """The data set seed (5489 until one is set)."""
    return _DEFAULT_SEED if _seed is None else _seed


def pipeline_seed() -> int:
    """The seed a random step of a pipeline starts from: the set seed, or a fresh random one."""
    return secrets.randbits(32) if _seed is None else _seed


def _follow_global_seed(seed):
    # mindspore.set_seed also seeds the data pipeline
    if 0 <= seed <= _UINT32_MAX:
        set_seed(seed)


context.add_seed_listener(_follow_global_seed)
