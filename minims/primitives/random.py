"""Random draws: the primitives ``StandardNormal``, ``UniformReal`` and ``UniformInt`` and the functions
``ops.randn``, ``ops.rand``, ``ops.randint``, ``ops.standard_normal`` (MindSpore 2.10).

The streams follow ``mindspore.set_seed`` as MindSpore's do: without a seed each draw comes from
minims' global stream (``minims.context.global_rng``, which ``set_seed(n)`` restarts), so a program
that sets a seed draws the same numbers on every run while each call draws new ones.  A Primitive
given ``seed``/``seed2`` has a stream of its own, and a function given ``seed=k`` draws from the
stream of that seed (one per function and seed, restarted by ``set_seed``).  The numbers are
NumPy's, not MindSpore's: the same program prints other random values than on MindSpore.

A draw is not differentiable and never the same twice (``pure = False``): a compiled graph keeps it
as an equation and draws again on every call, and vmap draws once for the whole batch.
"""
from __future__ import annotations

import zlib

import numpy as np

from .. import context
from .. import dtype as mstype
from ..core.primitive import Primitive
from ..core.stack import MinimsError, bind
from ..core.tensor import Tensor
from ..tensors.convert import describe
from ..tensors.memory import check_allocation
from . import functional as ops

__all__ = ["StandardNormal", "UniformReal", "UniformInt", "randn", "rand", "randint", "standard_normal",
           "EmptyRangeError"]


class EmptyRangeError(MinimsError, RuntimeError, ValueError):
    """Integers drawn from an empty range ``[low, high)``: MindSpore 2.10's kernel raises RuntimeError."""


def _seed_value(op: str, name: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{op}: {name} must be a non-negative int, but got {value!r}.")
    return int(value)


def _shape(op: str, shape) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in shape):
        raise TypeError(f"{op}: the shape must be a tuple of ints, but got {describe(shape)}. Fix: (2, 3).")
    if any(s < 0 for s in shape):
        raise ValueError(f"{op}: the shape {list(shape)} has a negative size.")
    return tuple(int(s) for s in shape)


_streams: dict = {}          # stream key -> its generator, until the next set_seed


def _restart(_seed) -> None:
    _streams.clear()


context.add_seed_listener(_restart)


class _Draw(Primitive):
    """A random primitive: ``impl`` draws from this instance's stream or the global one."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests
    differentiable = False
    pure = False          # a fresh draw every run: never folded or shared by a graph pass

    def __init__(self, seed=0, seed2=0):
        self.seed = _seed_value(self.name, "seed", seed)
        self.seed2 = _seed_value(self.name, "seed2", seed2)
        # a stream of its own: looked up on every draw (not held), so a compiled graph that keeps
        # this instance still follows set_seed, which restarts the streams
        self._stream = (self.name, self.seed, self.seed2, id(self)) if seed or seed2 else None

    def _rng(self) -> np.random.Generator:
        if self._stream is None:
            return context.global_rng()
        if self._stream not in _streams:
            name, seed, seed2, _owner = self._stream          # the owner keeps instances apart
            seeds = [context.get_seed() or 0, zlib.crc32(name.encode()), seed, seed2]
            _streams[self._stream] = np.random.default_rng(seeds)
        return _streams[self._stream]


class StandardNormal(_Draw):
    """``ops.StandardNormal(seed=0, seed2=0)(shape)``: Float32 draws from N(0, 1)."""

    def __call__(self, shape):
        return bind(self, _shape(self.name, shape))

    def abstract_eval(self, shape):
        return np.zeros(shape, np.float32)

    def impl(self, shape):
        check_allocation(self.name, shape, np.float32)
        return self._rng().standard_normal(shape, dtype=np.float32)


class UniformReal(_Draw):
    """``ops.UniformReal(seed=0, seed2=0)(shape)``: Float32 draws from [0, 1)."""

    def __call__(self, shape):
        return bind(self, _shape(self.name, shape))

    def abstract_eval(self, shape):
        return np.zeros(shape, np.float32)

    def impl(self, shape):
        check_allocation(self.name, shape, np.float32)
        return self._rng().random(shape, dtype=np.float32)


def _int_bound(op: str, name: str, value) -> int:
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind == "int":
        return int(value.item())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"{op}: {name} must be an int (or a 0-d int Tensor), but got {describe(value)}.")


class UniformInt(_Draw):
    """``ops.UniformInt(seed=0, seed2=0)(shape, minval, maxval)``: Int32 draws from [minval, maxval)."""

    def __call__(self, shape, minval, maxval):
        low, high = _int_bound(self.name, "minval", minval), _int_bound(self.name, "maxval", maxval)
        if high <= low:
            raise EmptyRangeError(f"{self.name}: maxval ({high}) must be greater than minval ({low}): the draws "
                                  f"come from [minval, maxval). Fix: e.g. minval={min(low, high)}, "
                                  f"maxval={max(low, high) + (low == high)}.")
        return bind(self, _shape(self.name, shape), low, high)

    def abstract_eval(self, shape, low, high):
        return np.zeros(shape, np.int32)

    def impl(self, shape, low, high):
        check_allocation(self.name, shape, np.int32)
        return self._rng().integers(low, high, shape, dtype=np.int64).astype(np.int32)


# ----- the functions: a function's seed names a stream of its own ------------------------------------
def _draw(prim_type, op: str, seed):
    """An instance of ``prim_type`` drawing from the stream ``seed`` names (the global one for None):
    one stream per function and seed, shared by its calls."""
    prim = prim_type()
    if seed is not None:
        prim._stream = (op, _seed_value(op, "seed", seed), 0, None)
    return prim


def _size(op: str, size) -> tuple:
    """``randn(2, 3)`` or ``randn((2, 3))``; no size at all is one value, shape (1,), as MindSpore 2.10."""
    if not size:
        return (1,)
    return _shape(op, size[0] if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)) else size)


def _float_dtype(op: str, dtype) -> mstype.DType:
    dt = mstype.float32 if dtype is None else mstype.to_dtype(dtype, op)
    if not dt.is_float:
        raise ValueError(f"{op}: dtype must be a float type, but got {dt}. Fix: dtype=mindspore.float32.")
    return dt


def randn(*size, dtype=None, seed=None):
    """``ops.randn(*size, dtype=None, seed=None)``: draws from N(0, 1) (Float32 by default)."""
    shape, dt = _size("randn", size), _float_dtype("randn", dtype)
    return ops.cast(_draw(StandardNormal, "randn", seed)(shape), dt)


def rand(*size, dtype=None, seed=None):
    """``ops.rand(*size, dtype=None, seed=None)``: draws from [0, 1) (Float32 by default)."""
    shape, dt = _size("rand", size), _float_dtype("rand", dtype)
    return ops.cast(_draw(UniformReal, "rand", seed)(shape), dt)


def standard_normal(shape, seed=None):
    """``ops.standard_normal(shape, seed=None)``: Float32 draws from N(0, 1)."""
    return _draw(StandardNormal, "standard_normal", seed)(_shape("standard_normal", shape))


def randint(low, high, size, seed=None, *, dtype=None):
    """``ops.randint(low, high, size, seed=None, *, dtype=None)``: integers from [low, high) (Int64 by
    default)."""
    dt = mstype.int64 if dtype is None else mstype.to_dtype(dtype, "randint")
    if dt.kind != "int":
        raise ValueError(f"randint: dtype must be an integer type, but got {dt}. Fix: dtype=mindspore.int64.")
    if not isinstance(size, (tuple, list)):
        raise ValueError(f"randint: size must be a tuple, but got {describe(size)}. Fix: size=({size},).")
    return ops.cast(_draw(UniformInt, "randint", seed)(_shape("randint", size), low, high), dt)
