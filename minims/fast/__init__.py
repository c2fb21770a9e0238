"""``minims.fast``: optional Numba kernels behind the same primitives (the "fast path").

The NumPy ``impl`` of every primitive is the reference and always works.  For the hot primitives
of a convolutional network — ``Conv2D`` and its two gradient primitives, ``MaxPool`` /
``MaxPoolGrad`` / ``MaxPoolGradGrad``, ``AvgPool`` / ``AvgPoolGrad``, the two softmax
cross-entropies and the ``BatchNorm`` forward pass — this package holds a second implementation
compiled by Numba.  Nothing else changes: the same primitive, the same ``bprop`` (so gradients of
any order still work), the same result up to float32 rounding.

How the switch works
--------------------
* By default the fast path is on when Numba is installed — except inside a Jupyter kernel, where
  notebooks keep the NumPy path for byte-stable outputs (``minims.context``).  The default only
  looks Numba up (:func:`switch_on_when_used`); the kernel modules, and Numba with them, are
  imported by the module's ``__getattr__`` when a primitive first asks for a kernel.
* ``minims.set_context(fast_path=True/False)`` (or ``MINIMS_FAST=1``/``0`` in the environment when
  minims is imported) calls :func:`switch`, which imports Numba and the kernel modules and sets the
  one module-level flag :data:`enabled` — the setting's only home: ``get_context("fast_path")``
  reads it.  Without Numba it warns once and leaves the flag off.
* Each primitive's ``impl`` reads ``minims.fast.enabled`` once per call (a module attribute, no
  dictionary chain), calls the kernel's wrapper, and takes the NumPy path when the flag is off or
  when the wrapper returns ``None`` ("this configuration is not mine": float16, integer inputs,
  mixed dtypes, ...).  Graph mode calls the same ``impl``, so it follows the same switch.
* Importing minims never imports Numba; only the first kernel call, or switching on, does.

Compile cost
------------
Numba compiles a kernel the first time it sees a new combination of argument types (float32 and
float64 are two compilations).  Every kernel is ``@njit(cache=True)``: the machine code is written
next to the source (``minims/fast/__pycache__/*.nbi|*.nbc``; ignored by git), and a later process
loads it instead of compiling again.  :func:`warmup` compiles (or loads) everything and reports the
seconds per kernel, and :func:`cache_info` says which signatures came from the disk cache.
Measured on this machine kind: every kernel for float32 and float64, ~12 s the first time (~28 s
for the parallel versions), ~0.3 s from the cache; importing Numba adds ~0.2-1 s.

Threads
-------
The kernels run on the calling thread.  :data:`parallel` (``MINIMS_FAST_PARALLEL=1``) splits their
outer loops over Numba's threads; why that is not the default is measured in ``_common.py``.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time
import warnings

import numpy as np

from .. import context
from . import residuals

__all__ = ["enabled", "parallel", "switch", "switch_on_when_used", "numba_available", "warmup", "cache_info",
           "KERNEL_MODULES"]

#: The switch every fast-path primitive reads.  Change it through ``set_context(fast_path=...)``.
enabled = False

#: Split the kernels' outer loops over Numba's threads (``MINIMS_FAST_PARALLEL=1``)?  Off by
#: default: on 2 cores it pays only with single-threaded BLAS, and hurts with OpenBLAS's own
#: threads (measurements in ``minims/fast/_common.py``).  May be changed at any time.
parallel = os.environ.get("MINIMS_FAST_PARALLEL", "").strip().lower() in ("1", "true", "yes", "on")

#: The kernel modules, imported when the fast path is switched on.
KERNEL_MODULES = ("conv", "pooling", "cross_entropy", "batch_norm")

_warned_missing = False


def numba_available() -> bool:
    """True when Numba can be imported (the fast path is possible)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _load_kernels() -> list:
    """Import the kernel modules (this imports Numba; it compiles nothing yet)."""
    return [importlib.import_module(f"{__name__}.{name}") for name in KERNEL_MODULES]


def switch(on: bool) -> bool:
    """Turn the fast path on or off; returns whether it is on (False when Numba is missing)."""
    global enabled, _warned_missing
    if on:
        try:
            if not numba_available():
                raise ImportError("No module named 'numba'")
            _load_kernels()
        except ImportError as exc:
            if not _warned_missing:
                _warned_missing = True
                warnings.warn(
                    f"minims: fast_path=True needs Numba, which cannot be imported ({exc}); "
                    "using the NumPy path. Fix: pip install numba (or minims[fast]).",
                    RuntimeWarning, stacklevel=3)
            on = False
    enabled = bool(on)
    residuals.clear()                  # forget what the other path left
    return enabled


def switch_on_when_used() -> bool:
    """The default when Numba is installed: on, with the kernel modules (and Numba) imported by
    :func:`__getattr__` when a primitive first asks for one.  False when Numba is not installed."""
    global enabled
    try:
        enabled = importlib.util.find_spec("numba") is not None
    except (ValueError, ImportError):      # e.g. sys.modules["numba"] = None: "not installed"
        enabled = False
    return enabled


class _NoKernels:
    """Stands in for a kernel module that could not be imported: every wrapper answers None,
    which tells the primitive to take the NumPy path."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def __getattr__(name):
    """``minims.fast.conv`` & co. on first use (see :func:`switch_on_when_used`)."""
    if name not in KERNEL_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    global enabled, _warned_missing
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ImportError as exc:              # Numba installed but broken: the NumPy path, once said
        enabled = False
        if not _warned_missing:
            _warned_missing = True
            warnings.warn(f"minims: the Numba fast path cannot be loaded ({exc}); using the NumPy path.",
                          RuntimeWarning, stacklevel=3)
        return _NoKernels()


def kernels():
    """(name, Kernel, example-call) for every kernel, from each module's ``_examples``."""
    for module in [importlib.import_module(f"{__name__}._common")] + _load_kernels():
        yield from module._examples()


def warmup(dtypes=("float32", "float64")) -> dict:
    """Compile (or load from the disk cache) every kernel for ``dtypes``; returns seconds per kernel.

    The keys are ``"<kernel>[<dtype>]"``.  The first call in a fresh checkout is the compile cost;
    in a later process the same call measures loading the cached machine code.  With
    :data:`parallel` on, the parallel versions are the ones compiled (the first also starts
    Numba's thread pool).
    """
    seconds = {}
    for dtype in dtypes:
        for name, _, call in kernels():
            start = time.perf_counter()
            call(np.dtype(dtype))
            seconds[f"{name}[{dtype}]"] = time.perf_counter() - start
    return seconds


def cache_info() -> dict:
    """For each kernel compiled so far: ``{"hits": ..., "misses": ...}`` of Numba's disk cache.

    A hit is a signature loaded from ``__pycache__``; a miss one compiled in this process.
    """
    info = {}
    for name, kernel, _ in kernels():
        stats = [d.stats for d in kernel.dispatchers()]
        info[name] = {"hits": sum(sum(s.cache_hits.values()) for s in stats),
                      "misses": sum(sum(s.cache_misses.values()) for s in stats)}
    return info


def _from_environment() -> None:
    """The fast path's setting when minims is imported: ``MINIMS_FAST=1`` (true/yes/on) or ``=0``
    (false/no/off) if set, else on when Numba is installed and this is not a Jupyter kernel.

    The default does not import Numba (that costs up to a second): the kernels are imported the
    first time a primitive asks for one."""
    flag = os.environ.get("MINIMS_FAST", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        context.set_context(fast_path=True)
    elif flag in ("0", "false", "no", "off"):
        context.set_context(fast_path=False)
    elif "ipykernel" not in sys.modules:
        switch_on_when_used()


context.own_option("fast_path", lambda: enabled, switch)
_from_environment()
