"""``amp.auto_mixed_precision``: MindSpore 2.10's levels O0-O3 and their lists.

Each level marks Cells with the float type they compute in (``minims.nn.precision``: while a
marked Cell runs, every operation casts its float inputs to that type) and, for some, the type
their outputs are cast to on the way out.  MindSpore's lists (``mindspore/train/amp.py``), of which
minims has the layers and primitives named in ``get_white_list()``/``get_black_list()``:

* ``"O0"``: the network as it is;
* ``"O1"``: the white list — each Cell of a white-listed class (``Dense``, ``Conv2d`` ...) computes in
  ``dtype`` and returns Float32; each white-listed primitive a Cell holds (``self.matmul =
  ops.MatMul()``, ``ops.ReLU()`` ...) has its inputs cast to ``dtype`` and its outputs to Float32;
  all else computes in the types it is given.  MindSpore rewrites the source of ``construct`` into a
  new network class (``NetOpt``) with these casts; minims marks the network and returns it;
* ``"O2"``: the network computes in ``dtype``, but the black list (BatchNorm, LayerNorm) computes in
  Float32 and returns ``dtype`` (MindSpore wraps it in ``_OutputTo16``); the network's float outputs
  are cast to Float32 (``_OutputTo32``, the Cell returned);
* ``"O3"``: the whole network in ``dtype``, its outputs cast to Float32 (``_OutputTo32``).

A Cell whose precision the user set with ``to_float`` keeps it, with the Cells under it, in every
level (as MindSpore's ``_precision_set_by_user``).  The level is recorded as ``network._amp_level``.
"""
from __future__ import annotations

from .. import dtype as mstype
from .. import nn, ops
from ..core.primitive import Primitive
from ..nn.cell_tree import walk
from ..nn.precision import cast_floats, mark, set_by_user
from ..tensors.convert import _describe

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "AMP_LEVELS"]

AMP_LEVELS = ("O0", "O1", "O2", "O3")

# MindSpore 2.10's lists, by name; the classes minims has are the ones used
_WHITE_CELLS = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell")
_WHITE_PRIMITIVES = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput", "MatMul",
                     "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_CELLS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")


def _classes(names, namespace) -> list:
    return [getattr(namespace, n) for n in names if isinstance(getattr(namespace, n, None), type)]


def get_white_list() -> list:
    """``amp.get_white_list()``: the Cell and Primitive classes level O1 casts (those minims has)."""
    return _classes(_WHITE_CELLS, nn) + _classes(_WHITE_PRIMITIVES, ops)


def get_black_list() -> list:
    """``amp.get_black_list()``: the Cell classes level O2 keeps in Float32 (those minims has)."""
    return _classes(_BLACK_CELLS, nn)


class _OutputTo32(nn.Cell):
    """What levels O2 and O3 return: the network, its float outputs cast to Float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return cast_floats(self._backbone(*args, **kwargs), mstype.float32)


class _CastPrimitive:
    """Level O1's white-listed primitive held by a Cell: inputs cast to ``dtype``, float outputs to
    Float32 (the casts MindSpore's rewrite puts around the call).  Reads as the primitive."""

    def __init__(self, prim, dtype):
        self.prim, self.dtype = prim, dtype

    def __call__(self, *args):
        return cast_floats(self.prim(*cast_floats(args, self.dtype)), mstype.float32)

    def __getattr__(self, name):
        return getattr(self.prim, name)

    def __repr__(self):
        return repr(self.prim)


def _white_list(network, dtype):
    cells, prims = tuple(_classes(_WHITE_CELLS, nn)), tuple(_classes(_WHITE_PRIMITIVES, ops))
    todo = [network]
    while todo:
        cell = todo.pop()
        if set_by_user(cell):
            continue
        if isinstance(cell, cells):
            mark(cell, dtype, mstype.float32)
            continue
        for name, value in list(vars(cell).items()):
            if isinstance(value, Primitive) and isinstance(value, prims):
                object.__setattr__(cell, name, _CastPrimitive(value, dtype))
        todo.extend(c for c in cell.__dict__["_cells"].values() if c is not None)


def _black_list(network, dtype):
    black = tuple(get_black_list())
    mark(network, dtype)
    for _, cell in walk(network):
        if isinstance(cell, black) and not set_by_user(cell):
            mark(cell, mstype.float32, dtype)


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """``amp.auto_mixed_precision(network, amp_level="O0", dtype=mindspore.float16)``: the network
    set to compute in mixed precision at ``amp_level`` (module docstring)."""
    if not isinstance(network, nn.Cell):
        raise TypeError(f"auto_mixed_precision: for amp_level {amp_level!r}, the network type should be Cell, "
                        f"but got {_describe(network)}.")
    if dtype is not mstype.float16:
        raise ValueError(f"auto_mixed_precision: the dtype should be mindspore.float16 (MindSpore also takes "
                         f"bfloat16, which minims does not have), but got {_describe(dtype)}.")
    if amp_level not in AMP_LEVELS:
        hint = (" ('auto', MindSpore's operator-level lists, is not in minims)" if amp_level == "auto" else "")
        raise ValueError(f"auto_mixed_precision: the amp level {amp_level!r} is not supported{hint}. Fix: one "
                         f"of {', '.join(AMP_LEVELS)}.")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        _white_list(network, dtype)
    elif amp_level == "O2":
        _black_list(network, dtype)
        network = _OutputTo32(network)
    else:
        mark(network, dtype)
        network = _OutputTo32(network)
    network.__dict__["_amp_level"] = amp_level
    return network
