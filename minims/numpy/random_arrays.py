"""``mnp.randn``, ``mnp.rand``, ``mnp.randint``: MindSpore 2.10's random arrays, on ``minims.ops``' draws.

Signatures and dtypes are MindSpore 2.10's (``randn(*shape, dtype=float32)``, ``rand(*shape,
dtype=float32)``, ``randint(minval, maxval=None, shape=None, dtype=int32)``, checked on it); the
numbers come from minims' own generator, seeded by ``mindspore.set_seed`` (MindSpore's streams cannot
be reproduced), so a seeded program repeats its draws but does not print MindSpore's.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..primitives import random as _random

__all__ = ["randn", "rand", "randint"]


def _shape_of(shape) -> tuple:
    # randn(2, 3) as MindSpore writes it; randn((2, 3)) as a NumPy user might
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)


def randn(*shape, dtype=mstype.float32):
    """Draws from the standard normal distribution, of the given shape."""
    return _random.randn(*_shape_of(shape), dtype=dtype)


def rand(*shape, dtype=mstype.float32):
    """Draws from the uniform distribution on [0, 1), of the given shape."""
    return _random.rand(*_shape_of(shape), dtype=dtype)


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Integers from [minval, maxval) (from [0, minval) when ``maxval`` is None), of ``shape``
    (a scalar when None)."""
    low, high = (0, minval) if maxval is None else (minval, maxval)
    size = () if shape is None else (tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))
    return _random.randint(low, high, size, dtype=dtype)
