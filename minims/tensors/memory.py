"""Allocation guards: a Tensor too large for this machine is refused with a clear error, never a
raw NumPy ``MemoryError`` — nor, worse, an allocation the OS grants lazily and then kills the
kernel for while filling it (Linux overcommits: ``np.full`` of 20 GB on a 24 GB machine "works"
until the pages are touched).

MindSpore 2.10 creates such a Tensor lazily and raises ``RuntimeError: Allocate memory failed``
when its value is read; minims computes eagerly, so it refuses at creation, with ``RuntimeError``
too (and ``MemoryError``, which is what a NumPy user would catch).
"""
from __future__ import annotations

import math
import os

import numpy as np

from .. import dtype as mstype
from ..core.stack import MinimsError

__all__ = ["TensorTooLarge", "check_allocation", "physical_memory"]


class TensorTooLarge(MinimsError, RuntimeError, MemoryError):
    """A Tensor that cannot fit in this machine's memory."""


def physical_memory() -> int | None:
    """Bytes of RAM on this machine, or None where the OS does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_allocation(where: str, shape, np_dtype) -> None:
    """Refuse a Tensor larger than the machine's RAM before NumPy tries to allocate it."""
    ram = physical_memory()
    nbytes = math.prod(int(d) for d in shape) * np.dtype(np_dtype).itemsize
    if ram is not None and nbytes > ram:
        raise TensorTooLarge(
            f"{where}: a {mstype.from_numpy(np.dtype(np_dtype))} Tensor of shape {[int(d) for d in shape]} "
            f"needs {_human(nbytes)} (this machine has {_human(ram)} of RAM). Fix: check the shape (a "
            "batch or feature size in the wrong place?), or use smaller sizes.")
