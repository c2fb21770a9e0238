"""Argument parsing and window geometry shared by the convolution and pooling primitives.

The pooling primitives read the windows of a padded input as a strided view (``_windows``, over
``sliding_window_view``) and add gradients back one kernel tap at a time (``_unwindow``); the
convolutions build their im2col columns tap by tap themselves (``conv.py``).
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from ...core.tensor import Tensor
from ...tensors.convert import _describe


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _pair(op: str, arg: str, value, allow4: bool = True, minimum: int = 1) -> tuple:
    """An int or a tuple of 2 (or MindSpore's NCHW 4-tuple ``(1, 1, h, w)``) as ``(h, w)``."""
    if _is_int(value):
        items = (int(value), int(value))
    elif isinstance(value, (tuple, list)) and all(_is_int(v) for v in value) and (
            len(value) == 2 or (allow4 and len(value) == 4)):
        items = tuple(int(v) for v in value[-2:])
    else:
        shapes = "an int or a tuple of 2 ints" + (" (or 4 ints (1, 1, h, w))" if allow4 else "")
        raise TypeError(f"{op}: '{arg}' must be {shapes}, but got {_describe(value)}.")
    if any(v < minimum for v in items):
        raise ValueError(f"{op}: every entry of '{arg}' must be >= {minimum}, but got {value!r}.")
    return items


def _four(op: str, arg: str, value) -> tuple:
    """Padding: an int (all sides) or ``(top, bottom, left, right)``."""
    if _is_int(value):
        pads = (int(value),) * 4
    elif isinstance(value, (tuple, list)) and len(value) == 4 and all(_is_int(v) for v in value):
        pads = tuple(int(v) for v in value)
    else:
        raise ValueError(f"{op}: '{arg}' must be an int or a tuple of 4 ints (top, bottom, left, "
                         f"right), but got {_describe(value)}.")
    if any(p < 0 for p in pads):
        raise ValueError(f"{op}: '{arg}' must not be negative, but got {value!r}.")
    return pads


def _pad_mode(op: str, value, allowed=("valid", "same", "pad")) -> str:
    if not isinstance(value, str) or value.lower() not in allowed:
        raise ValueError(f"{op}: pad_mode must be one of {list(allowed)} (any case), but got {value!r}.")
    return value.lower()


def _data_format(op: str, value) -> str:
    if value != "NCHW":
        raise ValueError(f"{op}: minims supports data_format='NCHW' only, but got {value!r}. "
                         "Fix: transpose NHWC data with ops.transpose(x, (0, 3, 1, 2)).")
    return value


def _same_pads(size: int, k: int, s: int, d: int) -> tuple:
    """TF-style SAME: output ceil(size / s); odd total padding puts the extra row at the bottom/right."""
    span = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + span - size, 0)
    return total // 2, total - total // 2


def _require_tensor(op: str, name: str, v, float_only: bool = True):
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}: input '{name}' must be a Tensor, but got {_describe(v)}.")
    if float_only and not v.dtype.is_float:
        raise TypeError(f"{op}: input '{name}' must have a float dtype (float16/float32/float64), "
                        f"but got {v.dtype}. Fix: cast it, e.g. {name}.astype(mindspore.float32).")


def _sibling(prim, cls, **changes):
    """A primitive of class ``cls`` with ``prim``'s configuration (same geometry, other role)."""
    p = object.__new__(cls)
    p.__dict__.update({k: v for k, v in prim.__dict__.items() if k not in ("_name",)})
    p.__dict__.update(changes)
    return p


# ================================================================================================
# windows: the strided view (im2col) and its adjoint (col2im)
# ================================================================================================
def _windows(xp: np.ndarray, k: tuple, s: tuple, d: tuple, out_hw=None) -> np.ndarray:
    """View ``(N, C, Ho, Wo, kh, kw)`` of the windows of a padded ``(N, C, Hp, Wp)`` array."""
    span = ((k[0] - 1) * d[0] + 1, (k[1] - 1) * d[1] + 1)
    v = sliding_window_view(xp, span, axis=(2, 3))[:, :, ::s[0], ::s[1], ::d[0], ::d[1]]
    if out_hw is not None:
        v = v[:, :, :out_hw[0], :out_hw[1]]
    return v


def _unwindow(cols: np.ndarray, padded_shape: tuple, s: tuple, d: tuple) -> np.ndarray:
    """Adjoint of ``_windows``: add every window's entries back into a zero ``padded_shape`` array.

    One vectorised slice-add per kernel tap; inside one tap the target positions are distinct,
    so plain ``+=`` is exact (no ``np.add.at`` needed).
    """
    out = np.zeros(padded_shape, dtype=cols.dtype)
    ho, wo, kh, kw = cols.shape[2:]
    for i in range(kh):
        r0 = i * d[0]
        for j in range(kw):
            c0 = j * d[1]
            out[:, :, r0:r0 + (ho - 1) * s[0] + 1:s[0], c0:c0 + (wo - 1) * s[1] + 1:s[1]] += cols[..., i, j]
    return out


def _pad4(x: np.ndarray, pads: tuple, value=0) -> np.ndarray:
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)
