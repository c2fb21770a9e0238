"""``mindspore.dataset.vision``: image transforms — ``Rescale``, ``Normalize``, ``HWC2CHW``, ``Resize``.

Images are NumPy arrays, height x width x channels (HWC, as decoded images and ``MnistDataset``
give them) or height x width.  ``Rescale`` and ``Normalize`` return float32, as in MindSpore;
``HWC2CHW`` puts the channels first, the layout ``nn.Conv2d`` expects.
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from ..transforms.transforms import check_array

__all__ = ["Rescale", "Normalize", "HWC2CHW", "Resize", "Inter"]


def _number(where, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number, but got {value!r} of type {type(value).__name__}.")
    return float(value)


class Rescale:
    """``Rescale(rescale, shift)``: ``image * rescale + shift`` in float32 (``Rescale(1.0 / 255.0,
    0)`` maps bytes to [0, 1])."""

    def __init__(self, rescale, shift):
        self.rescale = _number("Rescale", "rescale", rescale)
        self.shift = _number("Rescale", "shift", shift)

    def __call__(self, image):
        image = check_array(image, "Rescale")
        return image.astype(np.float32) * np.float32(self.rescale) + np.float32(self.shift)


class Normalize:
    """``Normalize(mean, std, is_hwc=True)``: ``(image - mean[c]) / std[c]`` for each channel ``c``
    (the last axis, or the first with ``is_hwc=False``), in float32.  One mean and std serve every
    channel."""

    def __init__(self, mean, std, is_hwc=True):
        where = "Normalize"
        mean, std = list(mean), list(std)
        if len(mean) != len(std) or not mean:
            raise ValueError(f"{where}: mean and std must have the same, non-zero length, but got "
                             f"{len(mean)} and {len(std)}.")
        self.mean = np.array([_number(where, "mean", m) for m in mean], np.float32)
        self.std = np.array([_number(where, "std", s) for s in std], np.float32)
        if (self.mean < 0).any() or (self.mean > 255).any():
            raise ValueError(f"{where}: each mean must be within [0, 255], but got {mean}.")
        if (self.std <= 0).any() or (self.std > 255).any():
            raise ValueError(f"{where}: each std must be within (0, 255], but got {std}. Fix: a standard "
                             "deviation is positive.")
        if not isinstance(is_hwc, bool):
            raise TypeError(f"{where}: is_hwc must be a bool, but got {is_hwc!r}.")
        self.is_hwc = is_hwc

    def __call__(self, image):
        image = check_array(image, "Normalize").astype(np.float32)
        if image.ndim not in (2, 3):
            raise RuntimeError(f"Normalize: the image must be <H,W> or <H,W,C>, but got shape {list(image.shape)}.")
        channels = 1 if image.ndim == 2 else image.shape[-1 if self.is_hwc else 0]
        if len(self.mean) not in (1, channels):
            raise RuntimeError(f"Normalize: {len(self.mean)} means and stds for an image of {channels} "
                               "channel(s). Fix: give one mean and std per channel (or one for all).")
        shape = (-1,) if self.is_hwc or image.ndim == 2 else (-1, 1, 1)
        return (image - self.mean.reshape(shape)) / self.std.reshape(shape)


class HWC2CHW:
    """``HWC2CHW()``: an <H,W,C> image as <C,H,W>; an <H,W> image is returned as it is."""

    def __call__(self, image):
        image = check_array(image, "HWC2CHW")
        if image.ndim == 2:
            return image
        if image.ndim != 3:
            raise RuntimeError(f"HWC2CHW: image shape should be <H,W> or <H,W,C>, but got {list(image.shape)}.")
        return np.ascontiguousarray(image.transpose(2, 0, 1))


class Inter(enum.IntEnum):
    """Interpolation modes of ``Resize`` (MindSpore's ``vision.Inter``; minims has two)."""
    NEAREST = 0
    LINEAR = 1
    BILINEAR = 1


class Resize:
    """``Resize(size, interpolation=Inter.LINEAR)``: ``size`` (height, width), or one int for the
    shorter side (the other keeps the aspect ratio).

    Bilinear interpolation samples at pixel centres (``x_src = (x + 0.5) * in / out - 0.5``, clamped
    to the image), as OpenCV's, which MindSpore uses; ``NEAREST`` takes ``floor(x * in / out)``.
    Results are computed in float64; uint8 images are rounded half up, where OpenCV's fixed-point
    arithmetic can differ from exact rounding by 1.
    """

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            size = (int(size),)
        elif not (isinstance(size, (list, tuple)) and len(size) == 2
                  and all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size)):
            raise TypeError(f"Resize: size must be an int or a (height, width) pair of ints, but got {size!r}.")
        if any(s <= 0 for s in size):
            raise ValueError(f"Resize: size must be positive, but got {size!r}.")
        if interpolation not in (Inter.NEAREST, Inter.LINEAR):
            raise NotImplementedError(f"Resize: minims has Inter.LINEAR and Inter.NEAREST, not {interpolation!r}.")
        self.size, self.interpolation = tuple(int(s) for s in size), Inter(interpolation)

    def _target(self, h, w):
        if len(self.size) == 2:
            return self.size
        s = self.size[0]
        return (s, int(w * s / h)) if h <= w else (int(h * s / w), s)

    def __call__(self, image):
        image = check_array(image, "Resize")
        if image.ndim not in (2, 3):
            raise RuntimeError(f"Resize: the image must be <H,W> or <H,W,C>, but got shape {list(image.shape)}.")
        h, w = image.shape[:2]
        out_h, out_w = self._target(h, w)
        if self.interpolation == Inter.NEAREST:
            rows = np.minimum((np.arange(out_h) * h / out_h).astype(int), h - 1)
            cols = np.minimum((np.arange(out_w) * w / out_w).astype(int), w - 1)
            return image[rows][:, cols]
        (r0, r1, fr), (c0, c1, fc) = _linear(h, out_h), _linear(w, out_w)
        x = image.astype(np.float64)
        if x.ndim == 3:
            fr, fc = fr[:, None, None], fc[None, :, None]
        else:
            fr, fc = fr[:, None], fc[None, :]
        top = x[r0][:, c0] * (1 - fc) + x[r0][:, c1] * fc
        bottom = x[r1][:, c0] * (1 - fc) + x[r1][:, c1] * fc
        out = top * (1 - fr) + bottom * fr
        if image.dtype.kind in "iu":
            info = np.iinfo(image.dtype)
            return np.clip(np.floor(out + 0.5), info.min, info.max).astype(image.dtype)
        return out.astype(image.dtype)


def _linear(n_in, n_out):
    """Source indices and weights of bilinear sampling along one axis (pixel centres, clamped)."""
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    src = np.clip(src, 0, n_in - 1)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, src - lo
