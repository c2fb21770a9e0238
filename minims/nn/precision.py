"""Mixed precision at run time: ``Cell.to_float`` and the casts it makes.

``cell.to_float(mindspore.float16)`` marks the Cell and every Cell under it.  While a marked Cell's
call runs, every operation it performs casts its float inputs — Tensors, Parameters, constants — to
that type first, and computes in it; the Cell's inputs themselves are not cast (an operation's are).
That is what MindSpore 2.10 does in PyNative mode (checked: inside ``Dense(3, 2).to_float(float16)``
the input ``x`` is still Float32, ``x + c`` is Float16, a Float64 input is cast as well) and what its
Graph mode compiles.  The casts are made by ``bind`` while the Cell runs (``minims.primitives.
precision``): ``Cast`` operations, recorded by the gradient levels like any other, so gradients flow
back through them and a Float32 Parameter gets a Float32 gradient.  A Cell marked inside a marked Cell (``to_float(float32)`` on a BatchNorm) wins while it
runs.  A Cell may also cast its float outputs on the way out (``_amp_output_type``), which is how the
levels of ``amp.auto_mixed_precision`` (``minims.amp``), which are marks of this kind, keep their
lists.  A Cell whose precision the user set with ``to_float`` keeps it in every level.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..primitives import precision
from ..primitives.precision import cast_floats
from ..tensors.convert import _describe
from .cell_tree import walk

__all__ = ["to_float", "run", "cast_floats", "set_by_user", "mark"]

_TYPES = (mstype.float16, mstype.float32)


def to_float(cell, dst_type):
    """``Cell.to_float(dst_type)``: ``cell`` and every Cell under it compute in ``dst_type``
    (Float16 or Float32); returns ``cell``.  A later call overwrites the setting."""
    if dst_type not in _TYPES:
        raise ValueError(f"{cell.path}: to_float's argument 'dst_type' must be mindspore.float16 or "
                         f"mindspore.float32, but got {_describe(dst_type)} (MindSpore also takes bfloat16, "
                         "which minims does not have). Fix: to_float(mindspore.float16).")
    for _, c in walk(cell):
        c.__dict__["_amp_type"] = dst_type
        c.__dict__["_amp_by_user"] = True
    return cell


def run(cell, run_cell, args, kwargs):
    """Run ``run_cell(cell, args, kwargs, True)`` (the Cell's call) with its operations casting
    their float inputs to the Cell's type; then cast its float outputs if it asks for that."""
    precision.enter(cell.__dict__["_amp_type"])
    try:
        out = run_cell(cell, args, kwargs, True)
    finally:
        precision.leave()
    to = cell.__dict__.get("_amp_output_type")
    return out if to is None else cast_floats(out, to)


def set_by_user(cell) -> bool:
    """Did the user choose this Cell's precision (``to_float``)?  The amp levels leave it alone."""
    return bool(cell.__dict__.get("_amp_by_user"))


def mark(cell, dtype, output_type=None):
    """An amp level's mark: ``cell`` and the Cells under it compute in ``dtype`` (but for those whose
    precision the user set); ``cell`` casts its float outputs to ``output_type`` (None: it does not)."""
    for _, c in walk(cell):
        if not set_by_user(c):
            c.__dict__["_amp_type"] = dtype
    if output_type is not None:
        cell.__dict__["_amp_output_type"] = output_type
