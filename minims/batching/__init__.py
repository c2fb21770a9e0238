"""Batching: ``vmap`` and the interpreter behind it.

* ``trace.py`` — the batching interpreter: a tracer holds a whole batch and its batch axis;
  primitives without a batching rule run once per example (``loop``);
* ``vmap.py`` — ``vmap(fn, in_axes, out_axes)``: arguments, axes and outputs, with MindSpore's checks.

The batching rules themselves are methods of the primitives (``batch``), with shared shapes of rules
in ``minims.primitives.batch_rules``.
"""
from ..core.batching import BatchTrace, BatchTracer, BatchedValueError
from .vmap import VmapError, vmap

__all__ = ["vmap", "BatchTrace", "BatchTracer", "BatchedValueError", "VmapError"]
