"""The 8x8 handwritten digits (UCI, 1797 images) shipped with minims, ready for LeNet-5.

``load_digits(split, image_size=32, seed=0)`` returns ``(images, labels)``: float32 NCHW images of
shape ``(N, 1, image_size, image_size)`` and int32 labels 0..9.  Each 8x8 image (pixel values 0..16)
is enlarged by repeating every pixel ``image_size // 8`` times in each direction, centred with
background padding if ``image_size`` is not a multiple of 8, scaled to [0, 1] and standardised
with the mean and standard deviation of all 1797 images (the same constants for every split).

The split is stratified and deterministic: for each digit, the images are shuffled by a generator
seeded with ``seed`` and the first ``test_fraction`` of them go to the test set (359 of 1797 with
the default 0.2); the rest is the training set.
"""
from __future__ import annotations

import pathlib

import numpy as np

from ..context import global_rng
from ..core.tensor import Tensor

__all__ = ["load_digits", "batches", "NUM_CLASSES"]

NUM_CLASSES = 10
_FILE = pathlib.Path(__file__).resolve().parent / "digits.npz"
_cache: dict = {}


def _raw() -> tuple[np.ndarray, np.ndarray]:
    """The shipped arrays: uint8 images (1797, 8, 8) with values 0..16 and uint8 labels."""
    if "raw" not in _cache:
        with np.load(_FILE) as data:
            _cache["raw"] = (data["images"], data["labels"])
    return _cache["raw"]


def _split_indices(labels: np.ndarray, split: str, seed: int, test_fraction: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    test, train = [], []
    for digit in range(NUM_CLASSES):
        idx = np.flatnonzero(labels == digit)
        idx = idx[rng.permutation(idx.size)]
        n_test = int(round(idx.size * test_fraction))
        test.append(idx[:n_test])
        train.append(idx[n_test:])
    chosen = np.concatenate(test if split == "test" else train)
    return np.sort(chosen)        # source order within a split; shuffle when batching


def _enlarge(images: np.ndarray, image_size: int) -> np.ndarray:
    """(N, 8, 8) -> (N, image_size, image_size): repeat each pixel, then pad with background (0)."""
    k = image_size // 8
    big = images.repeat(k, axis=1).repeat(k, axis=2)
    extra = image_size - 8 * k
    before = extra // 2
    return np.pad(big, ((0, 0), (before, extra - before), (before, extra - before)))


def load_digits(split="train", image_size=32, seed=0, test_fraction=0.2):
    """``(images, labels)`` of one split (``'train'``, ``'test'`` or ``'all'``) as NumPy arrays:
    float32 ``(N, 1, image_size, image_size)`` and int32 ``(N,)``."""
    if split not in ("train", "test", "all"):
        raise ValueError(f"load_digits: split must be 'train', 'test' or 'all', but got {split!r}. "
                         "Fix: there is no validation split; take one from 'train' if you need it.")
    if isinstance(image_size, bool) or not isinstance(image_size, int) or image_size < 8:
        raise ValueError(f"load_digits: image_size must be an int >= 8, but got {image_size!r}. "
                         "Fix: image_size=32 for LeNet-5, or 8 for the original images.")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"load_digits: seed must be a non-negative int, but got {seed!r}.")
    if not 0 < test_fraction < 1:
        raise ValueError(f"load_digits: test_fraction must be in (0, 1), but got {test_fraction!r}.")
    images, labels = _raw()
    scaled = images.astype(np.float64) / 16.0
    mean, std = scaled.mean(), scaled.std()             # of the whole data set, at 8x8
    if split != "all":
        keep = _split_indices(labels, split, seed, test_fraction)
        scaled, labels = scaled[keep], labels[keep]
    x = (_enlarge(scaled, image_size) - mean) / std
    return x[:, None].astype(np.float32), labels.astype(np.int32)


def batches(images, labels, batch_size, shuffle=True, seed=None, drop_remainder=False):
    """Yield ``(Tensor images, Tensor labels)`` mini-batches of ``batch_size``.

    With ``shuffle``, the order is a permutation drawn from ``np.random.default_rng(seed)`` (or, with
    ``seed=None``, from ``mindspore.set_seed``'s stream).  ``drop_remainder`` drops the last, smaller
    batch (needed by networks that reshape with a fixed batch size, like the documentation's LeNet).
    """
    images = images._data if isinstance(images, Tensor) else np.asarray(images)
    labels = labels._data if isinstance(labels, Tensor) else np.asarray(labels)
    if len(images) != len(labels):
        raise ValueError(f"batches: {len(images)} images but {len(labels)} labels. Fix: pass the "
                         "images and labels of one split, e.g. the pair load_digits('train') returns.")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batches: batch_size must be a positive int, but got {batch_size!r}. "
                         "Fix: e.g. batch_size=32.")
    n = len(images)
    if shuffle:
        if seed is None:
            order = global_rng().permutation(n)
        else:
            order = np.random.default_rng(seed).permutation(n)
    else:
        order = np.arange(n)
    stop = n - n % batch_size if drop_remainder else n
    for start in range(0, stop, batch_size):
        idx = order[start:start + batch_size]
        yield Tensor(images[idx]), Tensor(labels[idx])
