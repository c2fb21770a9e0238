"""What every kernel module shares: how kernels are compiled, and the "is this array mine?" checks.

A kernel is compiled once per combination of argument types.  The wrappers only hand kernels
C-contiguous, writeable float32 or float64 arrays, so each kernel has exactly two compiled
versions (a readonly or strided array would be a new type, hence a surprise compilation).

Serial by default, parallel on request
--------------------------------------
Kernels are written with ``prange`` over the (n, c) planes, so the loop *can* be split over
Numba's threads.  Measured on this machine kind (2 cores): split, each kernel runs ~1.9x faster on
its own, and a LeNet training step gains 15-25% — but only when BLAS is single-threaded
(``OPENBLAS_NUM_THREADS=1``, as the Makefile sets).  With OpenBLAS's default two threads, OpenBLAS's
and Numba's worker threads spin-wait for the same two cores after every call, and the step became
4x *slower* (34 ms against 8 ms serial, and 16 ms on the NumPy path); a busy second core (another
process, ``pytest -n 2``) has the same effect.  So kernels run serially unless
``minims.fast.parallel`` is set (``MINIMS_FAST_PARALLEL=1``), and the parallel twin of a kernel is
compiled only when first used (its compile time is twice the serial one).
"""
from __future__ import annotations

import types

import numpy as np
from numba import njit, prange

import minims.fast as _fast

__all__ = ["kernel", "Kernel", "helper", "FLOATS", "same_float", "c_array", "pad"]

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Kernel:
    """A Numba kernel: ``@njit(cache=True)`` serial, plus (if ``splittable``) a parallel twin.

    ``cache=True`` keeps the compiled machine code in ``__pycache__``, so the next process loads it
    instead of compiling.  ``fastmath`` stays off, so results round like NumPy's and NaN/inf behave
    as in the NumPy path — except that ``reassociate=True`` allows the one fast-math liberty of
    adding a sum in another order.  Without it a running sum is one long chain of dependent adds
    that the compiler may not reorder, so it cannot use vector registers; batch norm's float64
    sums ran 3x faster with it (the order of float64 additions moves the result by ~1e-16).

    Numba files cached code under the function's module, name and bytecode — not under its
    ``parallel`` flag — so the twin is the same code under another name (``<name>_parallel``);
    otherwise one could load the other's machine code from the cache.
    """

    def __init__(self, fn, splittable: bool, reassociate: bool = False, fma: bool = False):
        self.py_func, self.__name__, self.__doc__ = fn, fn.__name__, fn.__doc__
        self.splittable = splittable
        flags = ({"reassoc"} if reassociate else set()) | ({"contract"} if fma else set())
        self.options = dict(cache=True, nogil=True, fastmath=flags or False)
        self.serial = njit(**self.options)(fn)
        self._parallel = None

    def parallel_version(self):
        if self._parallel is None:
            fn = self.py_func
            twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_parallel",
                                      fn.__defaults__, fn.__closure__)
            twin.__qualname__ = fn.__qualname__ + "_parallel"
            self._parallel = njit(parallel=True, **self.options)(twin)
        return self._parallel

    def dispatchers(self) -> list:
        """The compiled forms that exist so far (for ``warmup``/``cache_info``)."""
        return [self.serial] + ([self._parallel] if self._parallel is not None else [])

    def __call__(self, *args):
        if self.splittable and _fast.parallel:
            return self.parallel_version()(*args)
        return self.serial(*args)


def kernel(parallel: bool = False, reassociate: bool = False, fma: bool = False):
    """Decorator: a :class:`Kernel`; ``parallel=True`` marks its ``prange`` loop as safe to split
    (each iteration writes only its own part of the output); ``reassociate=True`` lets its sums be
    vectorised (see :class:`Kernel`); ``fma=True`` lets ``s += a * b`` be one fused multiply-add
    (rounded once instead of twice, as BLAS does)."""
    return lambda fn: Kernel(fn, parallel, reassociate, fma)


def helper():
    """``@njit(inline="always")`` for a small function the kernels share (a row of max pooling, a
    log-sum-exp).  Numba pastes its body into each caller before compiling, so calling it costs
    nothing; an ordinary call would pass every array view through reference counting, which made
    the pooling kernels 1.3-1.5x slower (measured)."""
    return njit(inline="always")


def same_float(*arrays) -> bool:
    """True when all ``arrays`` are NumPy arrays of one dtype, float32 or float64."""
    first = arrays[0]
    if not isinstance(first, np.ndarray) or first.dtype not in FLOATS:
        return False
    return all(isinstance(a, np.ndarray) and a.dtype == first.dtype for a in arrays[1:])


def c_array(a: np.ndarray) -> np.ndarray:
    """``a`` itself when it is C-contiguous and writeable, else a C-contiguous copy."""
    if a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, order="C")


@kernel(parallel=True)
def _pad_into(x, out, pt, pl):
    """Copy ``x`` (N, C, H, W) into ``out`` at row ``pt``, column ``pl`` (``out`` holds the fill)."""
    n_, c_, h, w = x.shape
    for nc in prange(n_ * c_):
        n, c = nc // c_, nc % c_
        out[n, c, pt:pt + h, pl:pl + w] = x[n, c]
    return out


def pad(x, pads, value=0.0):
    """``x`` padded by ``pads = (top, bottom, left, right)`` with ``value``; ``x`` itself if no padding.

    The filled array comes from NumPy: ``np.zeros``/``np.full`` inside a ``parallel=True`` kernel
    become parallel loops of their own, measured at 20-60 us per call, while NumPy's ``np.zeros``
    gets zeroed pages from the allocator almost for free.  The kernels that add into a zero array
    (col2im, the pooling gradients) receive it from their wrappers for the same reason.
    """
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    out = np.full((n, c, h + pt + pb, w + pl + pr), value, dtype=x.dtype)
    return _pad_into(x, out, pt, pl)


def _examples():
    return [("common.pad", _pad_into,
             lambda dtype: _pad_into(np.zeros((1, 1, 2, 2), dtype), np.zeros((1, 1, 4, 4), dtype), 1, 1))]
