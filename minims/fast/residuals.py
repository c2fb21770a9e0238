"""Residuals: what a forward kernel computed that the matching backward kernel needs again.

A convolution's forward pass copies every window of its input into columns (im2col); the
gradient of its weight needs exactly those columns again.  Max pooling finds the position of each
window's maximum; its gradient scatters to those positions.  A framework that stages forward and
backward together keeps such intermediate values ("residuals").  Here the primitives' interfaces
stay as MindSpore has them — ``Conv2DBackpropFilter(dout, x, filter_size)`` receives ``x``, not
the columns — so the forward wrapper leaves its residual in this small store, under the identity of
its input array, and the backward wrapper takes it out again when it is handed *the same array*.

Why this is safe:

* the store keeps a reference to the input array itself and compares with ``is``, so a recycled
  ``id()`` can never match;
* minims never writes into an array after creating it (``ops.assign`` and ``Parameter.set_data``
  bind a new array), so the same array object means the same values;
* the key also holds the geometry (kernel, stride, padding, ...), and a residual is taken out
  once (a second backward pass over the same forward recomputes it).

It is bounded (``MAX_ENTRIES`` entries, ``MAX_BYTES`` in all; the oldest go first), so forward
passes without a backward pass (inference) cannot make it grow.  Only the fast path uses it; the
NumPy path recomputes, and both give the same numbers (the residual is the same computation).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["keep", "take", "clear", "MAX_ENTRIES", "MAX_BYTES"]

#: At most this many residuals are kept (a LeNet step leaves four).
MAX_ENTRIES = 16
#: ... and at most this many bytes of them.
MAX_BYTES = 64 << 20

_store: OrderedDict = OrderedDict()     # (id(array), tag) -> (array, residual, nbytes)
_bytes = 0
_lock = threading.Lock()                # threads share the store (a kernel call is long; a lock is cheap)


def keep(array, tag, residual, nbytes: int) -> None:
    """Remember ``residual`` (``nbytes`` large) for ``array`` under ``tag`` (a hashable geometry)."""
    global _bytes
    if nbytes > MAX_BYTES:
        return
    key = (id(array), tag)
    with _lock:
        old = _store.pop(key, None)
        if old is not None:
            _bytes -= old[2]
        _store[key] = (array, residual, nbytes)
        _bytes += nbytes
        while len(_store) > MAX_ENTRIES or _bytes > MAX_BYTES:
            _, (_, _, size) = _store.popitem(last=False)
            _bytes -= size


def take(array, tag):
    """The residual kept for this very ``array`` under ``tag`` (and forget it), or None."""
    global _bytes
    with _lock:
        entry = _store.pop((id(array), tag), None)
        if entry is None:
            return None
        _bytes -= entry[2]
    return entry[1] if entry[0] is array else None


def clear() -> None:
    """Forget every residual (the fast path calls this when it is switched)."""
    global _bytes
    with _lock:
        _store.clear()
        _bytes = 0
